"""`labtui check` (labtui/commands/check.py): its options read and refused before anything runs."""

import random

import pytest

from cli_calls import refusal, run
from labtui.cli import build_parser
from labtui.commands import check
from labtui.errors import ValidationError
from labtui.results.store import Store
from synthetic import READ, WRITE, run_result


def _check_request(*options: str):
    return check.parse(build_parser().parse_args(["check", *options]))


@pytest.mark.parametrize(("options", "says"), [
    # An empty --baseline quietly meant "the baseline marked for the target's disk": another result.
    (("--baseline", ""), "--baseline: is empty: give a result's id or a unique beginning of it or leave the option out"),
    (("--baseline", " "), "--baseline: is empty"),
    (("-p", ""), "--profile: is empty: give a profile's name or leave the option out"),
    (("-e", " "), "--engine: is empty: give an engine's name or leave the option out"),
    # --hosts "" checked here, --destroy-data "" was as if left out, --fail-on "" or "," asked for nothing more.
    (("--hosts", ""), "--hosts: is empty: give a hosts file or leave the option out"),
    (("--destroy-data", " "), "--destroy-data: is empty: give the raw device (/dev/NAME) or leave the option out"),
    (("--fail-on", ""), "--fail-on: is empty: give a metric (latency, p99, cpu) or leave the option out"),
    (("--fail-on", "p99", "--fail-on", ", "), "--fail-on: is empty"),
])
def test_an_empty_baseline_profile_or_engine_is_refused_in_one_line(options, says):
    with pytest.raises(ValidationError) as refused:
        _check_request(*options)
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
    # 150 was taken: no IOPS can fall by 150 %, so nothing could ever fail.
    (("--tolerance", "100"), "--tolerance: must be below 100 (a drop of 100 % is no I/O at all"),
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


def test_echo_n_into_labtui_check_writes_nothing_and_exits_4(labtui_home, tmp_path, monkeypatch, capsys):
    # `echo n | labtui check` ran the re-run: off a terminal it asked nothing.
    import io

    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, TARGET, run_result

    target = tmp_path / "target"
    target.mkdir()
    baseline = run_result("20261101-120000-aaaa", {READ: [50_000]}, target=TARGET)
    Store(labtui_home).save_result(baseline)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["check", "--baseline", baseline.id, "-t", str(target), "--file-size", "1M", "--duration", "1s"]) == 4
    out, err = capsys.readouterr()
    assert out == "" and "Go ahead? [y/N] n (read from stdin)" in err, err
    assert err.rstrip().endswith("Not started: nothing was written.")
    assert list(target.iterdir()) == [] and [r.id for r in Store(labtui_home).summaries()[0]] == [baseline.id]


def noisy(mean, sd, n, rng):
    return [mean * rng.lognormvariate(0.0, sd) for _ in range(n)]


def run_check(tmp_path, monkeypatch, capsys, passes):
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "home"))
    base = run_result("20261101-120000-base", {READ: [40_000, 50_000, 60_000], WRITE: [32_000, 40_000, 48_000]})
    Store().save_result(base)
    target = tmp_path / "target"
    target.mkdir()
    given = iter(passes)
    ran = []

    def drive(runner):
        ran.append(runner.profile.repeat)
        return next(given)

    args = build_parser().parse_args(["check", "--baseline", base.id, "-t", str(target), "--file-size", "1M",
                                      "--confirm", "4", "--yes"])
    code = check.run(args, drive=drive)
    out = capsys.readouterr()
    return code, out.out, out.err, ran


def decided(out):
    """The answer is the first line; one verdict line only (the deciding pass's), with one number of runs."""
    first = out.splitlines()[0]
    assert first.startswith(("Passed:", "Failed:", "Cannot tell:")), out
    verdicts = [line for line in out.splitlines() if line.startswith(("PASS:", "FAIL:", "CANNOT TELL:"))]
    assert len(verdicts) == 1, out
    import re

    assert len(set(re.findall(r"(\d+) runs each|(\d+) re-runs|--repeat (\d+)", out))) <= 1, out


def test_a_noisy_first_pass_is_extended_and_says_so(tmp_path, monkeypatch, capsys):
    # As fast as the baseline on average, as spread out: nothing looks worse, nothing can be told.
    first = run_result("20261101-121000-once", {READ: [38_000, 52_000, 61_000], WRITE: [31_000, 41_000, 49_000]},
                       minutes=10)
    extra = run_result("20261101-122000-more", {READ: [40_000, 60_000, 45_000, 57_000],
                                                WRITE: [33_000, 47_000, 36_000, 45_000]}, minutes=20)
    code, out, err, ran = run_check(tmp_path, monkeypatch, capsys, [first, extra])
    assert ran == [3, 4]
    assert "the first pass is too noisy to tell (" in err and "% from run to run); pass 2 of 2: adding 4 fresh runs, " \
           "judged together with it" in err
    assert "looks worse" not in err
    # The plan said up front, with the time of both passes: the second is no surprise.
    assert "the plan: run each of quick-sanity's 2 steps 3 times (one result) on " in err
    assert "; if those look slower or are too noisy to tell, 4 more runs of each step settle it (about " in err
    assert "Pass 1 of 2: 3 runs; too noisy to tell alone, so pass 2 adds to them" in out
    assert "Pass 2 of 2: those 3 runs and 4 more, together (this decides)" in out
    assert "fresh runs, judged on their own" not in out
    decided(out)
    assert code in (0, 3)


def test_a_first_pass_that_looks_worse_is_confirmed_on_its_own(tmp_path, monkeypatch, capsys):
    rng = random.Random(7)
    slow = run_result("20261101-121000-slow", {READ: noisy(20_000, 0.02, 3, rng), WRITE: noisy(16_000, 0.02, 3, rng)},
                      minutes=10)
    again = run_result("20261101-122000-slow", {READ: noisy(20_000, 0.02, 4, rng), WRITE: noisy(16_000, 0.02, 4, rng)},
                       minutes=20)
    code, out, err, ran = run_check(tmp_path, monkeypatch, capsys, [slow, again])
    assert ran == [3, 4]
    assert "the first pass looks worse (Read 64K random IOPS -" in err
    assert "pass 2 of 2: confirming with 4 fresh runs, judged on their own" in err
    assert "Pass 1 of 2: 3 runs; they looked slower, so pass 2 decides" in out
    assert "Pass 2 of 2: 4 fresh runs, judged on their own (this decides)" in out
    assert out.startswith("Failed: slower than the baseline at 64K random reads (-")
    decided(out)
    assert code == 1


def test_a_stop_from_the_local_side_between_a_hosts_passes_ends_its_check_aborted(tmp_path, monkeypatch, capsys):
    """On a fleet host (`check --hosts`), the local side's stop as the first pass ends starts no second
    pass and the check says ABORTED, as a signal between passes does here: the first pass asked for
    confirmation and decides nothing (the host reported the first pass's FAIL as the check's)."""
    import json
    import os

    from labtui.commands.agent import _Driver
    from labtui.commands.stops import Stops
    from labtui.fleet.channel import Channel

    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "home"))
    base = run_result("20261101-120000-base", {READ: [40_000, 50_000, 60_000], WRITE: [32_000, 40_000, 48_000]})
    Store().save_result(base)
    rng = random.Random(7)
    slow = run_result("20261101-121000-slow", {READ: noisy(20_000, 0.02, 3, rng), WRITE: noisy(16_000, 0.02, 3, rng)},
                      minutes=10)
    target = tmp_path / "target"
    target.mkdir()
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    os.close(out_read)  # nothing is sent once stopped
    channel = Channel(os.fdopen(read_end, "rb", buffering=0), out_write, silence=None)
    ran = []
    try:
        with Stops() as stops:
            driver = _Driver(channel, stops)
            driver.calls = 1  # the first pass (given below) ran through it

            def drive(runner):
                ran.append(runner.profile.repeat)
                if len(ran) > 1:
                    return driver(runner)
                # The first pass ends; the Fleet screen's Ctrl+X comes before the second starts.
                os.write(write_end, b'{"type": "stop", "by": "the Fleet screen"}\n')
                while channel.receive(timeout=5) is not None:
                    pass
                return slow

            args = build_parser().parse_args(["check", "--baseline", base.id, "-t", str(target), "--file-size", "1M",
                                              "--confirm", "4", "--yes", "--json"])
            code = check.run(args, drive=drive, stops=stops)
    finally:
        os.close(write_end)
        channel.close()
    out = capsys.readouterr()
    assert ran == [3, 4] and "confirming with 4 fresh runs" in out.err
    report = json.loads(out.out)
    assert code == 1 and report["outcome"] == "aborted" and not report["passed"]
    assert report["stopped_by"] == "the Fleet screen on the local labtui"
    assert report["summary"].startswith(
        "ABORTED: the check was stopped by the Fleet screen on the local labtui before its second pass: no verdict")
    assert report["runs"] == [slow.id] and [p["decides"] for p in report["passes"]] == [False]
    assert not list(target.iterdir())  # the second pass's runner made nothing


def test_a_plan_of_command_steps_says_what_runs_them_and_an_honest_time():
    # `labtui check` on a profile of command steps said "with native, about 0:00": native ran none of
    # them, and the commands took minutes.
    from dataclasses import replace

    from labtui.commands.common import engine_words, time_words
    from labtui.model.profile import Profile, Step

    extract = Step(name="Extract", kind="command", command="zpaq x a.zpaq", timeout=600.0)
    sync = Step(name="Sync", kind="command", command="sync", timeout=60.0)
    commands = Profile(name="zpaq-extract", steps=(extract, sync), repeat=3)
    plan = check.check_plan(commands, replace(commands, repeat=4), "/mnt/x", "native")
    assert "with native" not in plan and "0:00" not in plan, plan
    assert plan.startswith("the plan: run each of zpaq-extract's 2 steps 3 times (one result) on /mnt/x with its "
                           "commands alone (no I/O engine), for as long as its commands take; "), plan
    assert "at most" not in plan  # not known: not made up
    # A baseline that ran them: as long as they took there (2:00 and 0:10 each pass).
    base = run_result("20261101-120000-base", {READ: [40_000]})
    ran = [replace(base.steps[0], step=step, wall_seconds=wall)
           for step, wall in ((extract, 110.0), (sync, 8.0), (extract, 130.0), (sync, 12.0))]
    base = replace(base, steps=tuple(ran))
    plan = check.check_plan(commands, replace(commands, repeat=4), "/mnt/x", "native", base)
    assert ("for as long" not in plan and "about 6:30 (its commands as long as they took in 20261101-120000-base)"
            in plan and "(about 8:40 more): at most" in plan and "at most 15:10 in all" in plan), plan
    # I/O steps and commands: the engine runs the one, the commands themselves the others.
    mixed = Profile(name="mix", steps=(replace(READ, duration=30.0, warmup=0.0), sync))
    assert engine_words(mixed, "fio") == "fio and its command"
    assert time_words(mixed).startswith("about 0:3") and time_words(mixed).endswith(" and as long as its commands take")
    assert engine_words(Profile(name="io", steps=(READ,)), "fio") == "fio"


def test_check_refuses_an_empty_duration_too(labtui_home):
    assert "--duration: is empty" in refusal(run("check", "--duration", ""))
    assert "--target: is empty" in refusal(run("check", "-t", ""))


@pytest.mark.parametrize(("args", "message"), [
    (("check", "--repeat", "1000000"), "--repeat: must be from 1 to 100, got 1000000"),
    (("check", "--file-size", "1K"), "--file-size: the test file (1KiB) is smaller than one block (64KiB)"),
    # Refused before the first pass runs, not after it (it said "repeat: ..." once a pass had ended).
    (("check", "--confirm", "1000000"), "--confirm: must be from 0 to 100 (0 decides on the first pass), got 1000000"),
    (("baseline", "--more", "1000000"), "--more: must be from 1 to 100, got 1000000"),
    # Refused before the result is marked (it was marked, then -t refused as the runs were to start).
    (("baseline", "--more", "1", "-t", ""), "--target: is empty: give a directory (. is the current one) or leave the "
                                            "option out"),
])
def test_checks_and_baselines_name_the_option_typed_and_change_nothing(labtui_home, tmp_path, args, message):
    from factories import make_result
    from labtui.results.store import Store

    base = make_result("20240501-103005-beef")
    Store(labtui_home).save_result(base)
    target = tmp_path / "target"
    target.mkdir()
    command, *rest = args
    ids = [base.id] if command == "baseline" else ["-b", base.id]
    assert refusal(run(command, *ids, "-t", str(target), "--yes", *rest)) == f"labtui: error: {message}"
    assert not list(target.iterdir()) and not (labtui_home / "baselines.toml").exists()
    assert [p.name for p in (labtui_home / "results").iterdir() if p.suffix == ".toml"] == [f"{base.id}.toml"]


def test_a_check_refused_for_room_says_how_to_make_room_as_run_does(labtui_home, tmp_path, capsys):
    # check's re-run stopped at "not enough free space in DIR: ..." where `labtui run` says how to make room.
    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, TARGET, run_result

    target = tmp_path / "target"
    target.mkdir()
    baseline = run_result("20261101-120000-aaaa", {READ: [50_000]}, target=TARGET)
    Store(labtui_home).save_result(baseline)
    assert main(["check", "--baseline", baseline.id, "-t", str(target), "--file-size", "900T", "--yes"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"not enough free space in {target}: " in err, err
    assert "Make room: a smaller test file (--file-size, at most " in err and "another target (-t DIR)" in err, err
    assert list(target.iterdir()) == []


@pytest.mark.parametrize(("given", "says"), [("1e400", "that number is too large, got '1e400'"),
                                             ("nan", "must be a number, got 'nan'")])
def test_check_says_a_number_past_what_floats_hold_as_it_was_typed(labtui_home, capsys, given, says):
    # `check --tolerance 1e400` was refused as "got inf": float() made it inf before the range check.
    from labtui.cli import main

    with pytest.raises(SystemExit) as ended:
        main(["check", "--tolerance", given])
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err.count("\n") == 1
    assert f"--tolerance: {says}" in err, err
