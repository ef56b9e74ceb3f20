"""`labtui run`, `labtui check` and `labtui baseline` read their options once, into a RunRequest, CheckRequest
or BaselineRequest (labtui.commands.run.parse, labtui.commands.check.parse, labtui.commands.baseline.parse):
each option read, each refusal in one line, before the store, a hosts file or a profile is looked at."""

from __future__ import annotations

import pytest


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


def _baseline_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import baseline

    return baseline.parse(build_parser().parse_args(["baseline", *options]))


def test_labtui_baseline_reads_each_option_into_its_request():
    from labtui.run.request import BaselineRequest

    assert _baseline_request() == BaselineRequest()
    assert _baseline_request("--json", "--yes") == BaselineRequest()  # how it answers, not what it asks
    asked = _baseline_request("20240501-1", "2024050", "--add", "--more", "2", "-t", "/mnt/x")
    assert asked == BaselineRequest(ids=("20240501-1", "2024050"), add=True, more=2, target="/mnt/x")
    assert _baseline_request("20240501-1", "--clear") == BaselineRequest(ids=("20240501-1",), clear=True)
    # -t alone is where the runs a terminal is offered would run
    assert _baseline_request("20240501-1", "-t", ".").target == "."


def test_baseline_more_runs_the_results_profile_with_its_engine_and_parameters_through_a_run_request():
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import EngineInfo
    from labtui.results.store import builtin_profiles
    from labtui.run.request import BaselineRequest, Overrides, RunRequest

    result = replace(make_result(), engine=EngineInfo("fio", "3.33"), params={"n": "2"})
    asked = BaselineRequest(ids=(result.id,), more=2)
    assert asked.more_run(result) == RunRequest(target=result.target.path, engine="fio", overrides=Overrides(repeat=2),
                                                tags=("baseline",), params=(("n", "2"),))
    elsewhere = replace(asked, target="/mnt/x").more_run(result, 3)  # the runs a terminal is offered: its own count
    assert (elsewhere.target, elsewhere.overrides.repeat) == ("/mnt/x", 3)
    options = elsewhere.options()
    assert (options.engine, options.tags, options.params) == ("fio", ("baseline",), {"n": "2"})
    # A profile of command steps only ran no I/O engine (its result says "command"): the default one runs it.
    commands = replace(result, engine=EngineInfo("command", ""),
                       profile=next(p for p in builtin_profiles() if not p.needs_test_file))
    assert asked.more_run(commands).engine is None and asked.more_run(commands).options().engine == "native"


@pytest.mark.parametrize(("options", "says"), [
    (("--more", "2"), "--clear, --add and --more need the id of a result"),
    (("--add",), "--clear, --add and --more need the id of a result"),
    (("--clear",), "--clear, --add and --more need the id of a result"),
    (("--more", "0"), "--clear, --add and --more need the id of a result"),  # it listed the baselines
    (("",), "an ID is empty: give a result's id or a unique beginning of it"),  # "" began every id
    (("a", " "), "an ID is empty"),
    (("a", "b", "--clear"), "--clear takes one id"),
    (("a", "--clear", "--add"), "--clear: takes a result out of its baseline: not with --add or --more"),
    (("a", "--clear", "--more", "1"), "--clear: takes a result out of its baseline: not with --add or --more"),
    (("a", "--more", "0"), "--more: must be at least 1"),
    (("a", "--more", "101"), "--more: must be from 1 to 100, got 101"),
    (("a", "--more", "1", "-t", ""), "--target: is empty: give a directory (. is the current one) or leave the "
                                     "option out"),
    (("a", "-t", " "), "--target: is empty"),
])
def test_labtui_baseline_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _baseline_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)
