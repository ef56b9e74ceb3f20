"""Re-run a baseline's profile and compare: PASS, or FAIL (exit 1) where a metric regressed beyond tolerance and noise."""

from __future__ import annotations

HELP = "re-run a baseline's profile and fail (exit 1) on a regression"
DEFAULT_TOLERANCE_PCT = 10.0


def add_arguments(parser) -> None:
    parser.add_argument("--baseline", "-b", metavar="ID",
                        help="the result to check against (default: the baseline marked for the target's disk)")
    parser.add_argument("-p", "--profile", help="with no --baseline: whose baseline to use when the disk has several")
    parser.add_argument("-t", "--target",
                        help="directory to run in (default: the baseline's target; with no --baseline, the current one)")
    parser.add_argument("-e", "--engine", help="engine for the re-run (default: the baseline's)")
    parser.add_argument("--tolerance", type=float, default=None, metavar="PCT",
                        help=f"regression in percent that fails the check (default {DEFAULT_TOLERANCE_PCT:g})")
    parser.add_argument("--repeat", type=int, metavar="N",
                        help="run the profile N times so only differences beyond the noise measured here fail "
                             "(default: the baseline's own repeat count)")
    parser.add_argument("--confirm", type=int, default=2, metavar="N",
                        help="when the first pass regresses, run N more passes and judge them all together "
                             "(default 2; 0 fails on the first pass)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a profile parameter for the re-run (default: the baseline's values)")
    parser.add_argument("--json", action="store_true", help="print the check as JSON on stdout")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--destroy-data", metavar="/dev/NAME",
                        help="for a raw block device target with write steps: name the device to allow them")


def choose_baseline(store, args):
    """The baseline result and a sentence saying how it was chosen (LabtuiError if there is none)."""
    from labtui import baselines
    from labtui.engine import devices
    from labtui.errors import LabtuiError, NotFoundError

    if args.baseline:
        result = store.find_result(args.baseline)
        if result.status != "completed":
            raise LabtuiError(f"result {result.id} is {result.status}: check against a completed result")
        return result, f"baseline {result.id} (given)"
    target = args.target or "."
    entry = baselines.find(store, devices.target_info(target), devices.host_info().name, args.profile)
    try:
        result = store.find_result(entry.result_id)
    except LabtuiError as exc:
        raise NotFoundError(
            f"the baseline for {entry.profile} on {entry.disk} is result {entry.result_id}, which cannot be read "
            f"({exc}); mark another with `labtui baseline ID`"
        ) from None
    return result, f"baseline {result.id}, marked for {entry.profile} on {entry.disk}"


def _drive(runner):
    """Run with live progress on stderr; the saved result (None if none was)."""
    import asyncio

    from labtui.commands.progress import execute

    runner.preflight()
    asyncio.run(execute(runner, as_json=False, report=False))
    return runner.result


def run(args) -> int:
    from dataclasses import replace

    from labtui.commands.common import open_store, print_json, stderr, stdout
    from labtui.commands.compare import tolerance
    from labtui.commands.progress import EXIT_FAILED, EXIT_OK, confirm
    from labtui.compare import check, pooled
    from labtui.compare_report import check_renderable
    from labtui.engine.runner import RunOptions, Runner
    from labtui.errors import ValidationError
    from labtui.params import parse_assignments

    store = open_store()
    pct = tolerance(args, DEFAULT_TOLERANCE_PCT)
    baseline, how = choose_baseline(store, args)
    if args.repeat is not None and args.repeat < 1:
        raise ValidationError("must be at least 1", "--repeat")
    if args.confirm < 0:
        raise ValidationError("must be 0 or more", "--confirm")
    try:
        profile = baseline.profile.with_overrides(repeat=args.repeat)
    except ValidationError as exc:
        raise ValidationError(f"the profile stored in baseline {baseline.id} cannot be re-run: {exc}") from None
    target = args.target or baseline.target.path
    # A profile of command steps only ran no I/O engine (its result says "command"): any will do.
    engine = args.engine or (baseline.engine.name if baseline.profile.needs_test_file else "native")
    params = {**baseline.params, **parse_assignments(args.param)}
    options = RunOptions(engine=engine, tags=("check",), destroy_data=args.destroy_data, params=params)
    runner = Runner(profile, target, store, options)
    plan = runner.preflight()
    err = stderr()
    err.print(f"labtui check: {how}: {profile.name} on {baseline.target.model or 'unknown disk'}, "
              f"{baseline.started.astimezone().strftime('%Y-%m-%d %H:%M')}; re-running on {plan.directory} "
              f"with {engine}, tolerance ±{pct:g} %")
    if not args.yes and not confirm(runner, plan):
        return 2
    first = _drive(runner)
    if first is None:
        err.print("FAIL: the re-run was stopped before anything was saved")
        return EXIT_FAILED
    runs = [first]
    report = check(baseline, first, pct)
    if not report.passed and first.status == "completed" and args.confirm:
        # One slow run on a busy machine is not yet a regression: it must reproduce.
        what = ", ".join(f"{f.group.name} {f.metric.label}" for f in report.failures[:3])
        err.print(f"labtui check: {len(report.failures)} metric(s) regressed on the first pass ({what}); "
                  f"confirming with {args.confirm} more pass{'es' if args.confirm > 1 else ''} "
                  "(--confirm 0 skips this)")
        extra = _drive(Runner(profile.with_overrides(repeat=args.confirm), target, store,
                              replace(options, tags=("check", "confirmation"))))
        if extra is not None:
            runs.append(extra)
            if extra.status == "completed":
                report = check(baseline, pooled(runs), pct)
    unfinished = next((r for r in runs if r.status != "completed"), None)
    if args.json:
        print_json(report.to_json() | {"run_status": unfinished.status if unfinished else "completed",
                                       "runs": [r.id for r in runs]})
    else:
        out = stdout()
        if len(runs) > 1:
            passes = sum(max((s.repetition for s in r.steps), default=0) for r in runs)
            out.print(f"judged across {passes} runs of the profile: the first and {passes - 1} to confirm it")
        out.print(check_renderable(report))
        if unfinished is not None:
            out.print(f"FAIL: the re-run is {unfinished.status}: {unfinished.error or 'see the result'}",
                      style="bold red")
        out.print(f"re-run saved as {' and '.join(r.id for r in runs)}; baseline {baseline.id}")
    return EXIT_OK if report.passed and unfinished is None else EXIT_FAILED
