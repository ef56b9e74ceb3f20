"""`labtui run --all-volumes`: the profile on every eligible volume in turn, then their comparison.

What the seed post's script does with DiskSpd, with labtui's results: one result per volume (tagged
`volume:MOUNT`), each skipped volume named with its reason, and at the end the results compared
(the first volume is the reference). The machine's volumes come from `engine.devices` unless a
test passes them in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from labtui.analysis.comparison import DEFAULT_TOLERANCE_PCT
from labtui.errors import ExitCode
from labtui.machine.volume_sweep import Skipped, SweepTarget, plan_sweep

if TYPE_CHECKING:
    from rich.console import Console

    from labtui.analysis.comparison import Comparison
    from labtui.commands.stops import Stops
    from labtui.machine.devices import Disk, Volume
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.store import Store
    from labtui.run.request import RunRequest


def run_sweep(profile: Profile, store: Store, request: RunRequest, *, as_json: bool, yes: bool,
              volumes: list[Volume] | None = None, disks: list[Disk] | None = None, home: Path | None = None) -> int:
    """`request` (`labtui run --all-volumes`'s) on every volume that can take `profile` (its profile, read and
    overridden), each result tagged with its volume; its tolerance the smallest difference the volumes'
    comparison calls better or worse."""
    from labtui.commands.common import stderr
    from labtui.errors import LabtuiError
    from labtui.machine.devices import list_disks, list_volumes

    volumes = list_volumes() if volumes is None else volumes
    disks = list_disks() if disks is None else disks
    targets, skipped = plan_sweep(profile, volumes, disks, home or Path.home())
    err = stderr()
    for skip in skipped:
        err.print(f"labtui: skipping {skip.volume.mount_point} ({skip.volume.filesystem}): {skip_words(skip)}",
                  markup=False, highlight=False)
    if not targets:
        raise LabtuiError(f"no volume can be tested with {profile.name}: each one was skipped (see above)")
    if not yes and not _confirm(profile, targets, err):
        return ExitCode.DECLINED
    from labtui.commands.stops import Stops

    with Stops() as stops:
        stops.hold()  # after the prompt: Ctrl+C there still interrupts
        return asyncio.run(_sweep(profile, store, request, targets, skipped, stops, as_json=as_json,
                                  tolerance_pct=DEFAULT_TOLERANCE_PCT if request.tolerance is None
                                  else request.tolerance))


def _confirm(profile: Profile, targets: Sequence[SweepTarget], err: Console) -> bool:
    from labtui.commands.consent import go_ahead
    from labtui.units import format_size, human_duration

    err.print(f"labtui will run {profile.name} (about {human_duration(profile.planned_seconds)} each) on "
              f"{len(targets)} volume{'s' if len(targets) != 1 else ''}, writing a {format_size(profile.file_size)} "
              "test file on each, one after another:", markup=False)
    for t in targets:
        err.print(f"  {t.volume.mount_point} ({t.volume.filesystem} on {t.volume.device}): {t.directory}", markup=False)
    return go_ahead(err)


async def _sweep(profile: Profile, store: Store, request: RunRequest, targets: Sequence[SweepTarget],
                 skipped: list[Skipped], stops: Stops, *, as_json: bool,
                 tolerance_pct: float) -> int:
    """Each volume in turn, then the report. A stop signal ends the sweep where it is: a run it
    stops is saved as aborted, one that came between volumes lets no further volume start, and
    either way the results so far are reported whole (exit 1)."""
    from labtui.commands.common import print_json, result_json, stderr, stdout
    from labtui.commands.progress import execute
    from labtui.errors import LabtuiError
    from labtui.run.preflight import NoRoom

    err = stderr()
    results = []
    saved = []
    failed = False
    for n, target in enumerate(targets, 1):
        volume = target.volume
        if stops.received:
            _not_tested(stops.received[0], targets[n - 1:], err)
            failed = True
            break
        err.print(f"labtui: volume {n} of {len(targets)}: {volume.mount_point} ({volume.filesystem} on "
                  f"{volume.device})", markup=False, highlight=False)
        runner = replace(request, target=str(target.directory), tags=(*request.tags, target.tag)).runner(profile, store)
        try:
            await asyncio.to_thread(runner.preflight)
        except LabtuiError as exc:
            skipped.append(Skipped(volume, str(exc), exc.room_for_file if isinstance(exc, NoRoom) else None))
            err.print(f"labtui: skipping {volume.mount_point}: {skip_words(skipped[-1])}", markup=False,
                      highlight=False)
            continue
        if stops.received:  # it came while this volume was being looked at
            runner.close()
            _not_tested(stops.received[0], targets[n - 1:], err)
            failed = True
            break
        code = await execute(runner, as_json=False, stops=stops, report=False)
        result = runner.result
        if result is None:
            failed = True
            break
        results.append(result)
        saved.append((runner.saved_path, runner.save_error))
        failed = failed or code != ExitCode.OK
        if result.status == "aborted":
            err.print("labtui: the sweep was stopped; the volumes after this one were not tested", markup=False)
            break
    ended = len(stops.received)
    comparison = _comparison(results, store, tolerance_pct)
    if as_json:
        print_json({
            "results": [result_json(r) | {"volume": t, "saved_to": str(p) if p else None, "save_error": e}
                        for r, t, (p, e) in zip(results, [_volume_of(r) for r in results], saved)],
            "skipped": [{"mount_point": s.volume.mount_point, "filesystem": s.volume.filesystem,
                         "device": s.volume.device, "reason": s.reason} for s in skipped],
            "comparison": comparison.to_json() if comparison is not None else None,
            "stopped_by": stops.stopped_by if ended else None,
        })
    else:
        _print(results, saved, skipped, comparison, stdout())
    late = stops.since(ended)
    if late is not None:
        err.print(f"labtui: {late} came after the sweep had ended; its results are saved and were printed whole",
                  style="yellow", markup=False, highlight=False)
    return ExitCode.FAILED if failed else ExitCode.OK


def skip_words(skip: Skipped) -> str:
    """Why a volume was skipped; for want of room, how to make room as `labtui run` says it (no -t here:
    --all-volumes chooses the targets)."""
    if skip.room_for_file is None:
        return skip.reason
    from labtui.commands.common import room_said
    from labtui.run.preflight import NoRoom

    return str(room_said(NoRoom(skip.reason, room_for_file=skip.room_for_file), target=""))


def _not_tested(signal_name: str, left: Sequence[SweepTarget], err: Console) -> None:
    names = ", ".join(t.volume.mount_point for t in left)
    err.print(f"labtui: stopped by {signal_name} between volumes: {names} not tested", style="yellow", markup=False,
              highlight=False)


def _volume_of(result: RunResult) -> str | None:
    return next((t.removeprefix("volume:") for t in result.tags if t.startswith("volume:")), None)


def _comparison(results: list[RunResult], store: Store, tolerance_pct: float) -> Comparison | None:
    from labtui.analysis.comparison import compare
    from labtui.analysis.known_noise import hint_from_store

    done = [r for r in results if r.status == "completed"]
    return compare(done, tolerance_pct, hint=hint_from_store(store, done)) if len(done) > 1 else None


def _print(results: list[RunResult], saved: list[tuple[Path | None, str | None]], skipped: list[Skipped],
           comparison: Comparison | None, out: Console) -> None:
    from rich.text import Text

    from labtui.render.comparison import comparison_renderable
    from labtui.render.result_tables import result_steps_table

    for result, (path, error) in zip(results, saved):
        out.print(Text(f"{_volume_of(result)}: {result.id} ({result.status})", style="bold"))
        out.print(result_steps_table(result))
        if error is None:
            out.print(f"saved to {path}", soft_wrap=True, markup=False, highlight=False)
        else:
            out.print(f"NOT saved: {error}", soft_wrap=True, markup=False, highlight=False)
    if skipped:
        out.print(Text("Skipped volumes", style="bold"))
        for s in skipped:
            out.print(f"  {s.volume.mount_point} ({s.volume.filesystem}): {skip_words(s)}", soft_wrap=True,
                      markup=False, highlight=False)
    if comparison is not None:
        out.print(Text("The volumes compared (A is the first)", style="bold"))
        out.print(comparison_renderable(comparison))
    elif results:
        out.print("Only one volume was tested: nothing to compare it with.", markup=False)
