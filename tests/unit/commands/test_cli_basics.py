"""The headless CLI's listing commands: tables, JSON, and exit code 2 on bad input."""

import json
import subprocess

import pytest

from conftest import labtui_cmd


def run(*args, env=None):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env)


def test_version(labtui_home):
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("labtui ")


def test_profiles_json_lists_the_five_builtins_with_steps(labtui_home):
    out = run("profiles", "--json")
    assert out.returncode == 0, out.stderr
    profiles = {p["name"]: p for p in json.loads(out.stdout)["profiles"]}
    assert {"configmgr-sql", "configmgr-sql-quick", "cdm-standard", "cdm-nvme", "quick-sanity"} <= set(profiles)
    sql = profiles["configmgr-sql"]
    assert sql["file_size"] == "20GiB" and sql["free_space_margin"] == "10GiB"
    assert [(s["write_percent"], s["duration"]) for s in sql["steps"]] == [(0, "1m"), (0, "5m"), (100, "1m"), (100, "5m")]
    assert all((s["block_size"], s["threads"], s["outstanding"], s["cache"]) == ("64KiB", 8, 8, "off") for s in sql["steps"])


def test_disks_json_shows_the_root_volume(labtui_home):
    out = run("disks", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    root = [v for v in data["volumes"] if v["mount_point"] == "/"]
    assert root and root[0]["size_bytes"] > 0 and root[0]["free_bytes"] > 0 and root[0]["filesystem"]
    table = run("disks")
    assert table.returncode == 0 and "Volumes" in table.stdout


def test_show_unknown_id_is_bad_input(labtui_home):
    out = run("show", "no-such-id")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "no-such-id" in out.stderr


def test_unknown_profile_is_one_line_exit_2(labtui_home):
    out = run("profiles", "no-such-profile")
    assert out.returncode == 2 and "no profile named" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("args", [
    ("run", "--file-size", "１G"), ("run", "--duration", "３s"), ("run", "--interval", "１s"), ("run", "--repeat", "２"),
    ("history", "--limit", "２"), ("check", "--tolerance", "５"), ("compare", "a", "b", "--tolerance", "５"),
])
def test_numbers_in_digits_other_than_0_to_9_are_refused_in_one_line(labtui_home, tmp_path, args):
    # int() and float() read "２" as 2: such a number came from a paste, and no other place labtui reads takes it.
    target = tmp_path / "target"
    target.mkdir()
    out = run(*args, "-t", str(target), "--yes") if args[0] == "run" else run(*args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "0-9" in out.stderr and "Traceback" not in out.stderr
    assert not (labtui_home / "results").exists() and list(target.iterdir()) == []  # nothing run, nothing written


@pytest.mark.parametrize("interval, says", [
    ("1000h", "--interval: must be from 100ms to 200ms, got '1000h' (step 'Read 64K random' lasts 200ms)"),
    ("0.3s", "--interval: must be from 100ms to 200ms, got '0.3s' (step 'Read 64K random' lasts 200ms)"),
    ("50ms", "--interval: must be from 100ms to 200ms, got '50ms'"),
    ("1us", "--interval: unknown duration unit 'us'"),
])
def test_an_interval_no_engine_samples_at_or_longer_than_a_step_is_refused(labtui_home, tmp_path, interval, says):
    # 1000h was taken (fio's --status-interval=1000h never reports), and so were intervals past a
    # step's end; under 100 ms the native engine quietly sampled at 100 ms.
    target = tmp_path / "target"
    target.mkdir()
    out = run("run", "-t", str(target), "--duration", "0.2s", "--file-size", "1M", "--yes", "--interval", interval)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"labtui: error: {says}")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (labtui_home / "results").exists() and list(target.iterdir()) == []  # nothing run, nothing written


def test_bad_option_is_exit_2(labtui_home):
    out = run("history", "--limit", "x")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_an_unknown_option_points_at_the_help_of_the_command_it_was_given_to(labtui_home):
    # argparse reports a sub-command's unknown words from the top-level parser, whose --help
    # does not list that command's options.
    out = run("run", "-p", "quick-sanity", "--threads", "4")
    assert out.returncode == 2
    assert out.stderr == "labtui run: error: unrecognized arguments: --threads 4 (see labtui run --help)\n"
    top = run("--bogus")
    assert top.returncode == 2 and top.stderr == "labtui: error: unrecognized arguments: --bogus (see labtui --help)\n"


# ---------------------------------------------------------------- the options read once, into a request


def _run_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import run as run_command

    return run_command.parse(build_parser().parse_args(["run", *options]))


def _check_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import check

    return check.parse(build_parser().parse_args(["check", *options]))


def test_labtui_run_reads_each_option_into_its_request():
    from labtui.run.request import Overrides, RunRequest

    assert _run_request() == RunRequest(profile="quick-sanity", engine="native")
    asked = _run_request("-p", "cdm-nvme", "-t", "/mnt/x", "-e", "fio", "--tag", "a, b", "--tag", "c", "--tag", "a",
                         "--param", "archive=/d/a.zpaq", "--param", "n= 2", "--duration", "1.5m", "--file-size", "256M",
                         "--repeat", "2", "--interval", "500ms", "--keep-file", "--force", "--wait",
                         "--destroy-data", "/dev/sdz")
    assert asked == RunRequest(profile="cdm-nvme", target="/mnt/x", engine="fio", overrides=Overrides(90.0, 256 * 2**20, 2),
                               tags=("a", "b", "c"), params=(("archive", "/d/a.zpaq"), ("n", " 2")), interval=0.5,
                               keep_file=True, force=True, wait=True, destroy_data="/dev/sdz")
    assert (asked.given("duration"), asked.given("file_size"), asked.given("interval")) == ("1.5m", "256M", "500ms")
    assert asked.param_values == {"archive": "/d/a.zpaq", "n": " 2"}
    options = asked.options(force=False)
    assert (options.engine, options.tags, options.interval, options.params, options.keep_file, options.force,
            options.destroy_data) == ("fio", ("a", "b", "c"), 0.5, asked.param_values, True, False, "/dev/sdz")
    assert _run_request().options().interval == 1.0
    sweep = _run_request("--all-volumes", "--tolerance", "2.5")
    assert (sweep.all_volumes, sweep.tolerance, sweep.target) == (True, 2.5, None)
    fleet = _run_request("--hosts", "lab.toml", "--one-at-a-time", "--tolerance", "0", "-t", "/srv")
    assert (fleet.hosts, fleet.one_at_a_time, fleet.tolerance, fleet.target) == ("lab.toml", True, 0.0, "/srv")


@pytest.mark.parametrize(("options", "says"), [
    (("--hosts", "h.toml", "--all-volumes"), "--all-volumes: runs on this machine's volumes: give --hosts or "
                                             "--all-volumes, not both"),
    (("--hosts", "h.toml", "--wait"), "--wait: waits for the disk of one target: not with --hosts or --all-volumes"),
    (("--all-volumes", "--wait"), "--wait: waits for the disk of one target: not with --hosts or --all-volumes"),
    (("--one-at-a-time",), "--one-at-a-time: goes with --hosts (one host after another)"),
    (("--tolerance", "5"), "--tolerance: goes with --hosts or --all-volumes"),
    (("--all-volumes", "--tolerance", "-1"), "--tolerance: must be a percentage of 0 or more, got -1"),
    (("--hosts", "h.toml", "--tolerance", "nan"), "--tolerance: must be a percentage of 0 or more, got nan"),
    (("--hosts", "h.toml", "--destroy-data", "/dev/sdz"), "--destroy-data cannot be used with --hosts: raw devices "
                                                           "are run on one host at a time"),
    (("-t", ""), "--target: is empty: give a directory (. is the current one) or leave the option out"),
    (("-t", " ", "--hosts", "h.toml"), "--target: is empty"),
    (("--all-volumes", "-t", "/mnt"), "--target: give a target or --all-volumes, not both"),
    (("--all-volumes", "--destroy-data", "/dev/sdz"), "--destroy-data: --all-volumes writes test files on mounted "
                                                      "volumes, never a raw device"),
    (("-p", ""), "--profile: is empty: give a value or leave the option out"),
    (("--duration", ""), "--duration: is empty"),
    (("--duration", "soon"), "--duration:"),
    (("--duration", "-1s"), "--duration: a duration cannot be negative"),
    (("--file-size", "big"), "--file-size:"),
    (("--file-size", " "), "--file-size: is empty"),
    (("--repeat", "0"), "--repeat: must be at least 1"),
    (("--interval", "1us"), "--interval: unknown duration unit 'us'"),
    (("--interval", ""), "--interval: is empty: give a duration such as 500ms or leave the option out"),
    (("--tag", ","), "--tag: is empty: give a tag or leave the option out"),
    (("--tag", "a\nb"), "--tag: 'a\\nb' is not a tag: it holds the control character '\\n'"),
    (("--param", "archive"), "--param: expected NAME=VALUE, got 'archive'"),
    (("--param", "a=1", "--param", "a=2"), "--param: a is given twice ('1' and '2')"),
])
def test_labtui_run_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _run_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


def test_labtui_check_reads_each_option_into_its_request():
    from labtui.run.request import DEFAULT_CONFIRM, CheckRequest, Overrides, RunRequest

    assert _check_request() == CheckRequest(run=RunRequest(), confirm=DEFAULT_CONFIRM)
    asked = _check_request("-b", "20240501-1", "-p", "cdm-nvme", "-t", "/mnt/x", "-e", "fio", "--tolerance", "20",
                           "--repeat", "4", "--confirm", "0", "--fail-on", "P99, latency", "--fail-on", "cpu,p99",
                           "--duration", "3s", "--file-size", "16M", "--param", "archive=/a", "--destroy-data",
                           "/dev/sdz", "--hosts", "lab.toml", "--one-at-a-time")
    assert asked == CheckRequest(
        run=RunRequest(profile="cdm-nvme", target="/mnt/x", engine="fio", overrides=Overrides(3.0, 16 * 2**20, 4),
                       params=(("archive", "/a"),), destroy_data="/dev/sdz", hosts="lab.toml", one_at_a_time=True),
        baseline="20240501-1", tolerance=20.0, confirm=0, fail_on=("p99", "latency", "cpu"))
    assert asked.run.given("file_size") == "16M"


@pytest.mark.parametrize(("options", "says"), [
    (("-t", ""), "--target: is empty"),
    (("--tolerance", "-3"), "--tolerance: must be a percentage of 0 or more, got -3"),
    (("--fail-on", "p98"), "--fail-on: unknown metric 'p98' (choose from latency, p99, cpu)"),
    (("--repeat", "0"), "--repeat: must be at least 1"),
    (("--confirm", "101"), "--confirm: must be from 0 to 100 (0 decides on the first pass), got 101"),
    (("--duration", ""), "--duration: is empty"),
    (("--file-size", "1Q"), "--file-size:"),
    (("--param", "=1"), "--param: expected NAME=VALUE, got '=1'"),
])
def test_labtui_check_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _check_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)
