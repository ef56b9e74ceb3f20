"""Re-run a baseline's profile and judge it: PASS (exit 0), FAIL (exit 1), or cannot tell (exit 3).

The baseline is a set of runs (labtui.results.baselines); the re-run runs the profile as many times as
the baseline has runs (at least 3) and is judged by labtui.analysis.checks. A failing or doubtful first
pass is confirmed by fresh runs judged on their own: the first pass was picked for looking bad,
so only new runs can show that it reproduces.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from labtui.commands.common import decimal_number, whole_number
from labtui.run.request import DEFAULT_CONFIRM

if TYPE_CHECKING:
    from labtui.analysis.checks import CheckReport
    from labtui.commands.stops import Stops
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.store import Store
    from labtui.run.request import CheckRequest
    from labtui.run.runner import Runner

HELP = "re-run a baseline's profile: exit 0 PASS, 1 FAIL (a regression), 3 too noisy to tell"
DEFAULT_TOLERANCE_PCT = 10.0
MIN_RUNS = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", "-b", metavar="ID",
                        help="a result to check against, with the runs added to its baseline "
                             "(default: the baseline marked for the target's disk)")
    parser.add_argument("-p", "--profile", help="with no --baseline: whose baseline to use when the disk has several")
    parser.add_argument("-t", "--target", metavar="DIR",
                        help="directory to run in (default: the baseline's target; with no --baseline, the current one)")
    parser.add_argument("-e", "--engine", help="engine for the re-run (default: the baseline's)")
    parser.add_argument("--tolerance", type=decimal_number, default=None, metavar="PCT",
                        help=f"regression in percent that fails the check (default {DEFAULT_TOLERANCE_PCT:g})")
    parser.add_argument("--repeat", type=whole_number, metavar="N",
                        help=f"runs of the profile in the re-run (default: as many as the baseline has, at least "
                             f"{MIN_RUNS})")
    parser.add_argument("--confirm", type=whole_number, default=DEFAULT_CONFIRM, metavar="N",
                        help="when the re-run fails or is doubtful, run the profile N more times and judge those "
                             f"runs on their own (default {DEFAULT_CONFIRM}; 0 decides on the first pass)")
    parser.add_argument("--fail-on", action="append", default=[], metavar="METRIC",
                        help="also fail on these metrics: latency (mean), p99, cpu (the engine's CPU time per I/O; the "
                             "whole machine's CPU is never judged) (comma-separated or repeated; "
                             "by default only throughput, and wall time for command steps, decide)")
    parser.add_argument("--duration", help="override every I/O step's duration (e.g. 3s) for a quick check")
    parser.add_argument("--file-size", metavar="SIZE", help="override the test file size (e.g. 256M) for a quick check")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a profile parameter for the re-run (default: the baseline's values)")
    parser.add_argument("--json", action="store_true", help="print the check as JSON on stdout")
    parser.add_argument("--explain", action="store_true",
                        help="after each pass's table, how the check decides: the tests, Holm's correction over the "
                             "steps, and what decided each line")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--destroy-data", metavar="/dev/NAME",
                        help="for a raw block device target with write steps: name the device to allow them")
    from labtui.commands.fleet import add_arguments as fleet_arguments

    fleet_arguments(parser, run=False)


def parse(args: argparse.Namespace) -> CheckRequest:
    """`labtui check`'s options as the request they make (LabtuiError, one line naming the option, for a
    value that is wrong whatever the baseline is)."""
    return request(baseline=args.baseline, profile=args.profile, target=args.target, engine=args.engine,
                   tolerance=args.tolerance, repeat=args.repeat, confirm=args.confirm, fail_on=args.fail_on,
                   duration=args.duration, file_size=args.file_size, params=args.param,
                   destroy_data=args.destroy_data, hosts=args.hosts, one_at_a_time=args.one_at_a_time)


def request(*, baseline: str | None = None, profile: str | None = None, target: str | None = None,
            engine: str | None = None, tolerance: float | None = None, repeat: int | None = None,
            confirm: int = DEFAULT_CONFIRM, fail_on: Sequence[str] = (), duration: str | None = None,
            file_size: str | None = None, params: Sequence[str] = (), destroy_data: str | None = None,
            hosts: str | None = None, one_at_a_time: bool = False) -> CheckRequest:
    """A check request from its options as typed: `labtui check`'s, and what a host's agent is sent
    (the same texts), refused alike (ValidationError naming the option)."""
    from labtui.analysis.checks import FAIL_ON, parse_fail_on
    from labtui.commands.common import given, overrides_given
    from labtui.commands.compare import tolerance as tolerance_given
    from labtui.errors import ValidationError
    from labtui.model.profile import MAX_REPEAT
    from labtui.params import parse_assignments
    from labtui.run.request import CheckRequest, RunRequest

    # An empty -t must not quietly mean the current directory, nor an empty --baseline the disk's marked one.
    given(target, "--target", "a directory (. is the current one)")
    given(baseline, "--baseline", "a result's id or a unique beginning of it")
    given(profile, "--profile", "a profile's name")
    given(engine, "--engine", "an engine's name")
    # An empty --hosts ran the check here, an empty --destroy-data as if it were left out.
    given(hosts, "--hosts", "a hosts file")
    given(destroy_data, "--destroy-data", "the raw device (/dev/NAME)")
    tolerance_given(tolerance, DEFAULT_TOLERANCE_PCT)
    metrics = parse_fail_on(fail_on)
    if repeat is not None and repeat < 1:
        raise ValidationError("must be at least 1", "--repeat")
    if not 0 <= confirm <= MAX_REPEAT:
        raise ValidationError(f"must be from 0 to {MAX_REPEAT} (0 decides on the first pass), got {confirm}",
                              "--confirm")
    overrides, typed = overrides_given(duration, file_size, repeat)
    run = RunRequest(profile=profile, target=target, engine=engine, overrides=overrides,
                     params=tuple(parse_assignments(params).items()), destroy_data=destroy_data, hosts=hosts,
                     one_at_a_time=one_at_a_time, as_given=typed)
    return CheckRequest(run=run, baseline=baseline, tolerance=tolerance, confirm=confirm,
                        fail_on=tuple(name for metric in metrics for name, m in FAIL_ON.items() if m == metric))


def choose_baseline(store: Store, request: CheckRequest) -> tuple[list[RunResult], str]:
    """The baseline's runs (the marked result first) and a sentence saying how they were chosen."""
    from labtui.errors import LabtuiError, NotFoundError
    from labtui.machine import devices
    from labtui.results import baselines

    if request.baseline:
        result = store.find_result(request.baseline)
        if result.status != "completed":
            raise LabtuiError(f"result {result.id} is {result.status}: check against a completed result")
        entry = baselines.holding(store, result.id)
        if entry is None or entry.result_id != result.id:
            return [result], f"baseline {result.id} (given)"
        how = f"baseline {result.id} (given)"
    else:
        target = request.run.target or "."
        entry = baselines.find(store, devices.target_info(target), devices.host_info().name, request.run.profile)
        how = f"baseline {entry.result_id}, marked for {entry.profile} on {entry.disk}"
    runs = []
    for rid in entry.result_ids:
        try:
            runs.append(store.find_result(rid))
        except LabtuiError as exc:
            if rid == entry.result_id:
                raise NotFoundError(
                    f"the baseline for {entry.profile} on {entry.disk} is result {rid}, which cannot be read "
                    f"({exc}); mark another with `labtui baseline ID`"
                ) from None
            raise LabtuiError(f"run {rid} of the baseline for {entry.profile} on {entry.disk} cannot be read "
                              f"({exc}); drop it with `labtui baseline {rid} --clear`") from None
    if len(runs) > 1:
        how += f" with {len(runs) - 1} more result{'s' if len(runs) > 2 else ''} ({', '.join(r.id for r in runs[1:])})"
    return runs, how


def check_plan(first: Profile, second: Profile | None, directory: object, engine: str,
               before: RunResult | None = None) -> str:
    """The whole plan with its time, said before anything runs: the first pass, and the second one it may
    take (the time a person sets aside is the most it can take, not the first pass's). Command steps
    take as long as they took in `before` (the baseline), where it ran them; else the plan says their
    time is not known."""
    from labtui.commands.common import engine_words, run_seconds, runs_words, time_words
    from labtui.printable import shown
    from labtui.units import human_duration

    one = f"run {runs_words(first)} on {shown(str(directory))} with {engine_words(first, engine)}, " + time_words(
        first, before)
    if second is None:
        return f"the plan: {one}, and decide on those runs (--confirm 0)"
    plan = (f"the plan: {one}; if those look slower or are too noisy to tell, {second.repeat} more runs of each "
            f"step settle it ({time_words(second, before, ' more', whence=False)})")
    one_time, two_time = run_seconds(first, before), run_seconds(second, before)
    if one_time is None or two_time is None:
        return plan  # a command's time is not known: no "at most"
    return f"{plan}: at most {human_duration(one_time + two_time)} in all"


def _drive(runner: Runner, stops: Stops) -> RunResult | None:
    """Run with live progress on stderr; the saved result (None if none was, or it never started)."""
    import asyncio

    from labtui.commands.progress import execute

    runner.preflight()
    asyncio.run(execute(runner, as_json=False, stops=stops, report=False))
    return runner.result


def run(args: argparse.Namespace, drive: Callable[[Runner], RunResult | None] | None = None,
        stops: Stops | None = None) -> int:
    """`labtui check`: its options read once (`parse`), then the check here or on every host (--hosts)."""
    asked = parse(args)
    if asked.run.hosts:
        from labtui.commands.fleet import run_fleet

        return run_fleet(asked, as_json=args.json, yes=args.yes)
    return check(asked, drive, stops, as_json=args.json, yes=args.yes, explain=args.explain)


def check(request: CheckRequest, drive: Callable[[Runner], RunResult | None] | None = None,
          stops: Stops | None = None, *, as_json: bool = False, yes: bool = False, explain: bool = False) -> int:
    """The check; `drive(runner)` runs each pass (default: live progress on stderr; the fleet agent streams).

    `stops` are the check's stop signals; a caller that drives the passes itself holds them and notes
    the stops that reach it otherwise (the fleet agent: its link's), so that a stop between passes
    ends the check aborted, with no verdict, here and on a host alike.
    """
    import contextlib
    from dataclasses import replace

    from labtui.analysis.checks import confirmed, parse_fail_on
    from labtui.analysis.comparison import pooled
    from labtui.commands.common import open_store, overridden, room_said, stderr
    from labtui.commands.compare import tolerance
    from labtui.commands.progress import confirm
    from labtui.commands.stops import Stops
    from labtui.errors import ExitCode
    from labtui.results import baselines
    from labtui.run.preflight import NoRoom
    from labtui.units import format_duration, format_size, human_duration

    store = open_store()
    pct = tolerance(request.tolerance, DEFAULT_TOLERANCE_PCT)
    fail_on = parse_fail_on(request.fail_on)
    asked = request.run
    trial = asked.overrides
    runs, how = choose_baseline(store, request)
    baseline = runs[0]
    base_runs = baselines.runs_per_step(runs)
    repeat = trial.repeat or max(MIN_RUNS, base_runs)
    stored = f"the profile stored in baseline {baseline.id} cannot be re-run"
    profile = overridden(baseline.profile, duration=trial.duration, file_size=trial.file_size, repeat=repeat,
                         stored=stored)
    # The second pass's runs are refused now, naming --confirm, not after a whole first pass.
    second = (overridden(profile, repeat=request.confirm, repeat_flag="--confirm", stored=stored)
              if request.confirm else None)
    target = asked.target or baseline.target.path
    # A profile of command steps only ran no I/O engine (its result says "command"): any will do.
    engine = asked.engine or (baseline.engine.name if baseline.profile.needs_test_file else "native")
    params = {**baseline.params, **asked.param_values}
    lock = None
    try:
        rerun = replace(asked, target=target, engine=engine, tags=("check",), params=tuple(params.items()))
        runner = rerun.runner(profile, store)
        # The preflight takes the disk's lock once the target is known to be usable (bad input is said
        # before a busy disk). The check holds it from then to its last pass: another run measuring it
        # between them would disturb the second pass's figures, and the check compares them with the first's.
        try:
            plan = runner.preflight()
        except NoRoom as exc:  # said as `labtui run` says it: how to make room
            raise room_said(exc) from None
        lock = runner.hand_over_lock()  # None where none could be taken: each run says so; a second pass takes it on
        err = stderr()
        err.print(f"labtui check: against {how}: {profile.name} on {baseline.target.disk_name}, "
                  f"{baseline.started.astimezone().strftime('%Y-%m-%d %H:%M')}, {base_runs} run"
                  f"{'s' if base_runs != 1 else ''} per step; tolerance ±{pct:g} %")
        err.print(f"labtui check: {check_plan(profile, second, plan.directory, engine, baseline)}")
        if base_runs < baselines.RECOMMENDED_RUNS:
            err.print(f"labtui check: the baseline has {base_runs} run{'s' if base_runs != 1 else ''} per step: its own "
                      f"noise is unknown and a check can only see large regressions; `labtui baseline {baseline.id} "
                      f"--more {baselines.RECOMMENDED_RUNS - base_runs}` adds runs")
        shorter = sorted({(s.duration, b.duration) for s, b in zip(profile.steps, baseline.profile.steps)
                          if s.is_io and s.duration != b.duration})
        file_size = trial.file_size
        if shorter or (file_size is not None and file_size != baseline.profile.file_size):
            err.print("labtui check: a quick check: " + "; ".join(
                [f"steps of {format_duration(b)} run for {format_duration(s)}" for s, b in shorter]
                + ([f"a {asked.given('file_size') or format_size(file_size)} test file instead of the baseline's"]
                   if file_size is not None else []))
                + ": short steps and small files can differ from the baseline for reasons of their own (caches, "
                  "warm-up); a FAIL is worth a full-length re-check")
        then = (f", then {second.repeat} more time{'s' if second.repeat != 1 else ''} (about "
                f"{human_duration(second.planned_seconds)}) if that cannot decide" if second is not None else "")
        if not yes and not confirm(runner, plan, then=then):
            return ExitCode.DECLINED
        reference = pooled(runs) if len(runs) > 1 else baseline
        confirming = replace(rerun, tags=("check", "confirmation"))

        # A caller's stops stay its own: it holds them on past the check (the agent, until its last message).
        with contextlib.nullcontext(stops) if stops is not None else Stops() as stops:
            if drive is None:
                # From the first run to the last line printed (not at the prompt above: Ctrl+C there
                # still interrupts). The fleet agent's own driver holds them from its first run.
                stops.hold()

                def drive_here(runner: Runner) -> RunResult | None:
                    return _drive(runner, stops)

                drive = drive_here
            pass_drive = drive
            first = pass_drive(runner)
            if first is None:
                err.print("FAIL: the re-run was stopped before anything was saved")
                return ExitCode.FAILED
            skipped: list[CheckReport] = []

            def more(report: CheckReport) -> RunResult | None:
                if stops.received:
                    skipped.append(report)  # a signal came after the first pass: the second never starts
                    return None
                runs_text = f"{request.confirm} fresh run{'s' if request.confirm > 1 else ''}"
                how = (f"pass 2 of 2: confirming with {runs_text}, judged on their own" if report.needs_confirmation
                       else f"pass 2 of 2: adding {runs_text}, judged together with it")
                err.print(f"labtui check: {report.second_pass()}; {how} (--confirm 0 decides on the first pass)")
                assert second is not None  # made before the first pass whenever --confirm asks for one
                extra = pass_drive(confirming.runner(second, store, target_lock=lock))
                if extra is None and stops.received:
                    skipped.append(report)  # it came as the second pass was about to start
                return extra

            reports, passes = confirmed(reference, first, pct, fail_on, more if request.confirm else None)
            ended = len(stops.received)
            stopped = stops.stopped_by if skipped or any(r.status == "aborted" for r in passes) else None
            if stopped is not None:
                code = _stopped(stopped, reports, passes, runs, skipped=bool(skipped), as_json=as_json)
            else:
                code = _verdict(reports, passes, runs, as_json=as_json, explain=explain)
            late = stops.since(ended)
            if late is not None:
                err.print(f"labtui check: {late} came after the check had ended; its runs are saved and its outcome "
                          "was printed whole", style="yellow", markup=False)
            return code
    finally:
        if lock is not None:
            lock.release()


def _verdict(reports: list[CheckReport], passes: list[RunResult], runs: list[RunResult], *, as_json: bool,
             explain: bool = False) -> int:
    """The check's outcome as it decided it: the plain answer, the passes' tables, the verdict, the exit code."""
    from labtui.analysis.answer import FAILED_ANSWER, Answer, check_answer
    from labtui.analysis.checks import FAILED, PASSED
    from labtui.analysis.readback import data_words, readback_answer
    from labtui.commands.common import print_json, stdout
    from labtui.errors import ExitCode
    from labtui.render.comparison import answer_renderable, check_renderable

    report = reports[-1]
    unfinished = next((r for r in passes if r.status != "completed"), None)
    answer = check_answer(report)
    lost = next((r for r in passes if any(s.verify is not None and s.verify.failed for s in r.steps)), None)
    if lost is not None:
        # Data that did not come back fails the check whatever the figures: said first, in its own words.
        answer = Answer(FAILED_ANSWER, f"Failed: {data_words(lost)}.")
    elif unfinished is not None:
        answer = Answer(FAILED_ANSWER, f"Failed: the re-run is {unfinished.status} "
                                       f"({unfinished.error or 'see the result'}); a check decides on complete runs.")
    readback = readback_answer(lost or passes[-1]) if passes else None  # a verified profile: did the data come back?
    if as_json:
        print_json(report.to_json() | {
            "answer": answer.to_json(),
            "readback": readback,
            "run_status": unfinished.status if unfinished else "completed",
            "runs": [r.id for r in passes],
            "baseline_runs": [r.id for r in runs],
            # Only the last pass decides: an earlier one's summary (and its runs hint) is its own, not the check's.
            "passes": [{"result": r.comparison.results[-1].id, "outcome": r.outcome, "summary": r.summary(),
                        "title": pass_title(reports, i), "decides": i == len(reports) - 1}
                       for i, r in enumerate(reports)],
        })
    else:
        out = stdout()
        if readback is not None and lost is None:
            # A verified profile is run to ask whether the data came back: that answer first, the speed's under it.
            out.print(readback, style="green", highlight=False, soft_wrap=True)
        out.print(answer_renderable([answer]))
        for i, r in enumerate(reports):
            out.print(check_renderable(r, pass_title(reports, i), verdict=i == len(reports) - 1, explain=explain,
                                       answer=answer))
        if unfinished is not None:
            out.print(f"FAIL: the re-run is {unfinished.status}: {unfinished.error or 'see the result'}",
                      style="bold red")
        out.print(f"re-run saved as {' and '.join(r.id for r in passes)}; baseline {', '.join(r.id for r in runs)}")
    if unfinished is not None or lost is not None or report.outcome == FAILED:
        return ExitCode.FAILED
    return ExitCode.OK if report.outcome == PASSED else ExitCode.CANNOT_TELL


def pass_title(reports: list[CheckReport], index: int) -> str | None:
    """A pass's title in plain words where a check ran two: what it held, and which one decides."""
    if len(reports) < 2:
        return None
    first, second = reports[0].runs[1], reports[1].runs[1] - (reports[0].runs[1] if not
                                                              reports[0].needs_confirmation else 0)
    runs = f"{first} run{'s' if first != 1 else ''}"
    if reports[0].needs_confirmation:
        return (f"Pass 1 of 2: {runs}; they looked slower, so pass 2 decides" if index == 0 else
                f"Pass 2 of 2: {second} fresh runs, judged on their own (this decides)")
    return (f"Pass 1 of 2: {runs}; too noisy to tell alone, so pass 2 adds to them" if index == 0 else
            f"Pass 2 of 2: those {runs} and {second} more, together (this decides)")


def _stopped(signal_name: str, reports: list[CheckReport], passes: list[RunResult], runs: list[RunResult], *,
             skipped: bool, as_json: bool) -> int:
    """A check a stop signal cut short: ABORTED, exit 1, never a PASS or FAIL.

    A pass that was stopped measured only part of what it should, and a first pass that asked for a
    second one decides nothing on its own: no verdict can be drawn from what ran. What did run is
    kept (a stopped pass saved as aborted) and the complete passes are shown, without a verdict.
    """
    from labtui.commands.common import print_json, stdout
    from labtui.errors import ExitCode
    from labtui.render.comparison import check_renderable

    aborted = next((r for r in passes if r.status == "aborted"), None)
    if aborted is passes[0]:
        when = "during its first pass"
    elif aborted is not None:
        when = "during its second pass"
    else:
        when = "before its second pass" if skipped else "as it ended"
    kept = ", ".join(f"{r.id} ({r.status})" for r in passes)
    summary = (f"ABORTED: the check was stopped by {signal_name} {when}: no verdict, a check cut short decides "
               f"nothing; its runs are saved: {kept}")
    complete = [r for r, p in zip(reports, passes) if p.status == "completed"]
    if as_json:
        print_json({
            "passed": False,
            "outcome": "aborted",
            "summary": summary,
            "stopped_by": signal_name,
            "run_status": aborted.status if aborted else "completed",
            "baseline": runs[0].id,
            "runs": [r.id for r in passes],
            "baseline_runs": [r.id for r in runs],
            "passes": [{"result": r.comparison.results[-1].id, "outcome": r.outcome, "summary": r.summary(),
                        "decides": False} for r in complete],
        })
    else:
        out = stdout()
        for r in complete:
            out.print(check_renderable(r, "Pass 1 of 2 (complete, but pass 2 was stopped: it decides nothing "
                                          "alone)", verdict=False))
        out.print(summary, style="bold yellow", markup=False, highlight=False)
        out.print(f"baseline {', '.join(r.id for r in runs)}")
    return ExitCode.FAILED
