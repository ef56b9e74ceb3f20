"""`labtui run` (labtui/commands/run.py): its options read and refused before anything runs."""

import pytest

from labtui.cli import build_parser
from labtui.commands import run as run_command
from labtui.errors import ValidationError


def test_an_empty_engine_is_refused_not_taken_for_the_default():
    with pytest.raises(ValidationError, match="^--engine: is empty: give an engine's name or leave the option out$"):
        run_command.parse(build_parser().parse_args(["run", "-e", " "]))


def _run_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import run as run_command

    return run_command.parse(build_parser().parse_args(["run", *options]))


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


def test_echo_n_into_labtui_run_writes_nothing_and_exits_4(labtui_home, tmp_path, monkeypatch, capsys):
    # Off a terminal `labtui run` asked nothing and wrote its test file: the "n" piped in is its answer now.
    import io

    from labtui.cli import main

    target = tmp_path / "target"
    target.mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["run", "-t", str(target), "--duration", "1s", "--file-size", "1M", "--json"]) == 4
    out, err = capsys.readouterr()
    assert out == ""  # no prompt in what a script reads as JSON
    assert "labtui will write a 1MiB test file in" in err and "Go ahead? [y/N] n (read from stdin)" in err
    assert err.rstrip().endswith("Not started: nothing was written.")
    assert list(target.iterdir()) == [] and not (labtui_home / "results").exists()
