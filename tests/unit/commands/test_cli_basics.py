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

