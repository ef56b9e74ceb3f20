"""Mark the runs a disk and profile are checked against (`labtui check`), add runs to them, or list them."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from labtui.commands.common import whole_number

if TYPE_CHECKING:
    from labtui.commands.stops import Stops
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.baselines import Baseline
    from labtui.results.store import Store
    from labtui.run.request import BaselineRequest
    from labtui.run.runner import Runner

HELP = "mark a result (and more runs) as the baseline for its disk and profile, add runs, clear, or list"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="result ids (or unique prefixes): the first is marked, the others join it as more runs "
                             "of the same profile on the same disk; without any, list the baselines")
    parser.add_argument("--add", action="store_true",
                        help="add the results to the first one's existing baseline instead of replacing it")
    parser.add_argument("--more", type=whole_number, metavar="N",
                        help="run each step of the baseline's profile N more times now (one more result, on its "
                             "target or -t DIR) and add those runs to the baseline")
    parser.add_argument("-t", "--target", metavar="DIR",
                        help="with --more: the directory to run in (default: the result's target)")
    parser.add_argument("--clear", action="store_true", help="stop using this result in a baseline")
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--yes", "-y", action="store_true", help="with --more: do not ask for confirmation")


def parse(args: argparse.Namespace) -> BaselineRequest:
    """`labtui baseline`'s options as the request they make; what is wrong whatever the results are, refused
    in one line naming the option (LabtuiError) before the store is read or anything is marked."""
    from labtui.commands.common import given
    from labtui.errors import LabtuiError, ValidationError
    from labtui.model.profile import MAX_REPEAT
    from labtui.results.store import EMPTY_ID
    from labtui.run.request import BaselineRequest

    if not args.ids and (args.clear or args.add or args.more is not None):
        raise LabtuiError("--clear, --add and --more need the id of a result")
    if any(not key.strip() for key in args.ids):  # "" is a prefix of every id: it would take the only result there is
        raise LabtuiError(EMPTY_ID)
    if args.clear and len(args.ids) > 1:
        raise LabtuiError("--clear takes one id")
    if args.clear and (args.add or args.more is not None):
        raise ValidationError("takes a result out of its baseline: not with --add or --more", "--clear")
    if args.more is not None and args.more < 1:
        raise ValidationError("must be at least 1", "--more")
    if args.more is not None and args.more > MAX_REPEAT:  # the profile's own rule, said before anything is read
        raise ValidationError(f"must be from 1 to {MAX_REPEAT}, got {args.more}", "--more")
    # An empty -t must not quietly mean the result's target.
    given(args.target, "--target", "a directory (. is the current one)")
    return BaselineRequest(ids=tuple(args.ids), add=args.add, clear=args.clear, more=args.more, target=args.target)


def run(args: argparse.Namespace) -> int:
    return carry_out(parse(args), as_json=args.json, yes=args.yes)


def carry_out(request: BaselineRequest, *, as_json: bool = False, yes: bool = False) -> int:
    """The request: the baselines listed, a result cleared, or results marked (and --more's runs added)."""
    from labtui.commands.common import open_store, print_json, stdout
    from labtui.results import baselines

    store = open_store()
    out = stdout()
    if not request.ids:
        return _list(store, as_json)
    results = [store.find_result(key) for key in request.ids]
    result = results[0]
    if request.clear:
        removed = baselines.clear(store, result.id)
        if as_json:
            print_json({"cleared": [_entry(b) for b in removed]})
        else:
            for b in removed:
                what = "the baseline" if b.result_id == result.id else "a run of the baseline"
                out.print(f"{result.id} is no longer {what} for {b.profile} on {b.disk}")
        return 0
    if request.more:
        _more_profile(result, request.more)  # a --more it cannot run is refused before anything is marked
    from labtui.commands.stops import Stops

    with Stops() as stops:
        code = _mark_and_more(store, results, request, stops, as_json=as_json, yes=yes)
    return code


def _mark_and_more(store: Store, results: list[RunResult], request: BaselineRequest, stops: Stops, *,
                   as_json: bool, yes: bool) -> int:
    """Mark (or add to) the baseline, run --more's runs and add them, and say what it now holds.

    A stop signal after the runs ended lets the runs join the baseline and this report out whole.
    """
    from labtui.commands.common import print_json, stdout
    from labtui.errors import ExitCode, ValidationError
    from labtui.results import baselines

    out = stdout()
    result = results[0]
    replaced = None
    left_out: list[str] = []
    # --more's runs are checked and asked for before anything is marked: a "no" at the prompt (or a disk
    # without room) marked the result all the same, replacing the disk's baseline, though it said "nothing
    # was added" and exited 4 ("nothing was written").
    asked = _more_asked(store, result, request, yes=yes) if request.more else None
    if request.add:
        baseline = baselines.add(store, result, results[1:])
    else:
        # Marking a baseline again holds just the runs named now: say which runs added before it leaves out.
        before = baselines.holding(store, result.id)
        baseline, replaced = baselines.mark(store, result, results[1:])
        if before is not None and before.result_id == result.id:
            left_out = [i for i in before.added if i not in baseline.result_ids]
    ended = 0
    if asked is not None:
        more = _ran(asked, stops)
        if more is None:
            return ExitCode.FAILED
        ended = len(stops.received)
        baseline = baselines.add(store, result, [more])
    runs = baselines.runs_per_step([store.find_result(i) for i in baseline.result_ids])
    if as_json:
        # A script is offered nothing: 'hint' is the command line that adds the runs a check needs (or null).
        need = baselines.RECOMMENDED_RUNS - runs
        print_json({"baseline": _entry(baseline), "replaced": _entry(replaced) if replaced else None,
                    "left_out": left_out, "runs_per_step": runs,
                    "hint": _more_command(result, need, request.target) if need > 0 and _can_more(result) else None})
        _late(stops, ended, request.more)
        return 0
    held = f" ({len(baseline.result_ids)} results)" if len(baseline.result_ids) > 1 else ""
    out.print(f"{result.id}{held} is now the baseline for {baseline.profile} on {baseline.disk}: "
              f"{runs} run{'s' if runs != 1 else ''} per step")
    if replaced:
        out.print(f"(it replaces {replaced.result_id})")
    if left_out:
        out.print(f"(the run{'s' if len(left_out) > 1 else ''} added to it before, {', '.join(left_out)}, "
                  f"{'are' if len(left_out) > 1 else 'is'} no longer part of it: `labtui baseline {result.id} "
                  f"{' '.join(left_out)} --add` adds {'them' if len(left_out) > 1 else 'it'} back)", style="yellow")
    if runs < baselines.RECOMMENDED_RUNS:
        need = baselines.RECOMMENDED_RUNS - runs
        try:
            _more_profile(result, need)
            why_not = None
        except ValidationError as exc:  # an import of a whole device's run stores no test file size: not re-run
            why_not = str(exc)
        if why_not is None:
            # With -t, where the runs a terminal is offered would run: the line to copy runs them there too.
            advice = (f"`{_more_command(result, need, request.target)}` runs each step {need} more "
                      f"time{'s' if need != 1 else ''} now (one result) and adds the runs (or mark a `labtui run "
                      f"--repeat {baselines.RECOMMENDED_RUNS}` result).")
        else:
            advice = (f"--more cannot add runs to it ({why_not}): add other results of this profile on this disk "
                      f"with `labtui baseline {result.id} OTHER... --add`.")
        out.print(f"With {runs} run{'s' if runs != 1 else ''} per step a check cannot tell how much this disk varies "
                  f"on its own, so it can only see large regressions. {advice}", style="yellow")
        if request.more is None and why_not is None and _offer(result, need, request.target):
            request = replace(request, more=need)
            more = _run_more(store, result, request, stops, yes=True)
            if more is None:
                return ExitCode.FAILED
            ended = len(stops.received)
            baseline = baselines.add(store, result, [more])
            runs = baselines.runs_per_step([store.find_result(i) for i in baseline.result_ids])
            out.print(f"{more.id} added: the baseline for {baseline.profile} on {baseline.disk} has {runs} runs "
                      "per step")
    _late(stops, ended, request.more)
    return 0


def _late(stops: Stops, ended: int, more: int | None) -> None:
    """Say so when a stop signal came after --more's runs had ended (they were added all the same)."""
    from labtui.commands.common import stderr

    late = stops.since(ended)
    if more and late is not None:
        with contextlib.suppress(OSError):
            stderr().print(f"labtui: {late} came after the runs had ended; they were added to the baseline and "
                           "this was printed whole", style="yellow", markup=False)


def _more_profile(result: RunResult, more: int) -> Profile:
    """The result's stored profile run `more` times; refused naming --more (or the stored profile's fault)."""
    from labtui.commands.common import overridden

    return overridden(result.profile, repeat=more, repeat_flag="--more",
                      stored=f"the profile stored in {result.id} cannot be re-run")


def _more_command(result: RunResult, need: int, target: str | None) -> str:
    """The command line that runs each step `need` more times and adds the runs (in `target`, if given)."""
    import shlex

    from labtui.printable import printable

    where = f" -t {printable(shlex.quote(target), one_line=True)}" if target else ""
    return f"labtui baseline {result.id} --more {need}{where}"


def _can_more(result: RunResult) -> bool:
    from labtui.errors import ValidationError

    try:
        _more_profile(result, 1)
    except ValidationError:
        return False
    return True


def _offer(result: RunResult, need: int, target: str | None) -> bool:
    """On an interactive terminal, offer to run the missing runs now (asked as every write is asked:
    commands.consent). Off one nothing is offered: a script that marks a baseline did not ask for runs."""
    import sys

    from labtui.commands.common import stderr
    from labtui.commands.consent import YES, answer
    from labtui.units import format_size

    if not sys.stdin.isatty():
        return False
    where = target or result.target.path
    size = f", a {format_size(result.profile.file_size)} test file" if result.profile.needs_test_file else ""
    said = answer(stderr(), f"Run each step of {result.profile.name} {need} more time{'s' if need != 1 else ''} now "
                            f"on {where}{size}, and add the runs? [y/N] ")
    return said is not None and said.lower() in YES


def _run_more(store: Store, result: RunResult, request: BaselineRequest, stops: Stops, *,
              yes: bool) -> RunResult | None:
    """Run the result's stored profile `request.more` times (one result) and return it (None if nothing saved)."""
    return _ran(_more_asked(store, result, request, yes=yes), stops)


def _more_asked(store: Store, result: RunResult, request: BaselineRequest, *, yes: bool) -> Runner:
    """The runner of --more's runs, its checks passed and the person's yes given (Declined for a no)."""
    from labtui.commands.common import engine_words, room_said, runs_words, stderr, time_words
    from labtui.commands.progress import confirm
    from labtui.errors import Declined
    from labtui.printable import shown
    from labtui.run.preflight import NoRoom

    assert request.more is not None
    profile = _more_profile(result, request.more)
    runner = request.more_run(result).runner(profile, store)
    try:
        plan = runner.preflight()
    except NoRoom as exc:  # the stored profile and its file size are the baseline's: room is made on the disk
        raise room_said(exc, file_size=None, profile=None) from None
    stderr().print(f"labtui baseline: running {runs_words(profile)} on {shown(plan.directory)} with "
                   f"{engine_words(profile, runner.options.engine)}, {time_words(profile, result)}, to add "
                   f"{request.more} run{'s' if request.more != 1 else ''} per step to the baseline of {result.id}")
    if not yes and not confirm(runner, plan):
        raise Declined("not run: nothing was marked or added to the baseline")
    return runner


def _ran(runner: Runner, stops: Stops) -> RunResult | None:
    """--more's runs run (one result): it, or None where nothing completed (said on stderr)."""
    import asyncio

    from labtui.commands.common import stderr
    from labtui.commands.progress import execute

    stops.hold()  # after the prompt: Ctrl+C there still interrupts
    asyncio.run(execute(runner, as_json=False, stops=stops, report=False))
    more = runner.result
    if more is None or more.status != "completed":
        stderr().print(f"the runs did not complete ({more.status if more else 'nothing saved'}); "
                       "nothing was added to the baseline")
        return None
    return more


def _entry(b: Baseline) -> dict[str, Any]:
    return {"disk": b.disk, "profile": b.profile, "result": b.result_id, "added": list(b.added),
            "marked": b.marked.isoformat()}


def _list(store: Store, as_json: bool) -> int:
    from rich import box
    from rich.table import Table

    from labtui.commands.common import print_json, stdout
    from labtui.errors import LabtuiError
    from labtui.results import baselines

    entries = baselines.load(store)
    rows = []
    for b in entries:
        try:
            result = store.find_result(b.result_id)
            state = f"{result.status}, {result.started.astimezone().strftime('%Y-%m-%d %H:%M')}"
        except LabtuiError as exc:
            state = f"missing: {exc}"
        rows.append((b, state))
    if as_json:
        print_json({"baselines": [_entry(b) | {"state": state} for b, state in rows]})
        return 0
    out = stdout()
    if not rows:
        out.print("no baselines yet: `labtui baseline ID` marks one")
        return 0
    from labtui.render.fitting import Either, Fitted
    from labtui.render.words import Words

    # The result's id is what `labtui check --baseline` takes: whole, never "20261202-0…". A disk or a
    # file-named profile folds at its words, hyphens and slashes.
    table = Table(box=box.SIMPLE_HEAD, title="Baselines", title_justify="left")
    for name in ("disk", "profile", "result", "state"):
        table.add_column(name, overflow="fold")
    for b, state in rows:
        more = f" + {len(b.added)} more" if b.added else ""
        runs = Either(b.result_id + more, b.result_id + more.replace(" + ", "\n+ ", 1))
        table.add_row(Words(b.disk), Words(b.profile), runs, Words(state))
    out.print(Fitted(table))
    return 0
