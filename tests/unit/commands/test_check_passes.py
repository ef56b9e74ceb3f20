"""`labtui check`'s second pass as the user reads it: a confirmation when the first looked worse, an
extension when it was only noisy, each announced and titled for what it is (the passes injected)."""

from __future__ import annotations

import random

from labtui.cli import build_parser
from labtui.commands import check
from labtui.results.store import Store
from synthetic import READ, WRITE, run_result


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


def decided(out):
    """The answer is the first line; one verdict line only (the deciding pass's), with one number of runs."""
    first = out.splitlines()[0]
    assert first.startswith(("Passed:", "Failed:", "Cannot tell:")), out
    verdicts = [line for line in out.splitlines() if line.startswith(("PASS:", "FAIL:", "CANNOT TELL:"))]
    assert len(verdicts) == 1, out
    import re

    assert len(set(re.findall(r"(\d+) runs each|(\d+) re-runs|--repeat (\d+)", out))) <= 1, out


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
