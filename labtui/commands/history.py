"""List saved results, newest first, with each step's headline figures (from the summary index)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from labtui.analysis.listed_steps import listed_steps
from labtui.commands.common import whole_number
from labtui.model.verification import DATA_BAD, DATA_OK, DATA_PART, DATA_UNCHECKED

if TYPE_CHECKING:
    from rich.text import Text

    from labtui.render.fitting import Fitted
    from labtui.results.files import BrokenFile
    from labtui.results.summaries import ResultSummary, StepSummary

HELP = "list saved results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--profile", help="only results of this profile")
    parser.add_argument("--tag", help="only results carrying this tag")
    parser.add_argument("--limit", type=whole_number, default=None, metavar="N", help="at most this many (newest first)")
    parser.add_argument("--broken", action="store_true",
                        help="list the files of the results folder that are not whole results, and why")


def summary(row: ResultSummary) -> dict[str, Any]:
    """The `--json` entry of one result (a labtui.results.summaries.ResultSummary)."""
    return {
        "id": row.id,
        "started": row.started.isoformat(),
        "status": row.status,
        "host": row.host,
        "disk": row.disk_name,  # as the table names it: its model, else its device
        "disk_model": row.disk_model,
        "target": row.target,
        "profile": row.profile,
        "engine": row.engine,
        "source": row.source,
        "tags": list(row.tags),
        # A verified run: whether its data read back as written, in History's words (None: nothing verified).
        "read_back": None if row.read_back is None else {
            "mark": row.read_back.mark, "answer": row.read_back.words(row.id), "failed": row.read_back.failed,
            "whole": row.read_back.whole},
        # Every pass of every step (a --repeat 2 run: each step twice, by its repetition)...
        "steps": [_figures(s) | {"repetition": s.repetition} for s in row.steps],
        # ...and each step once, as the table shows it: its passes' mean (or best, as its profile
        # makes it). A reader of the first pass's IOPS read 56,387 where the table said 44,197.
        "figures": [_figures(listed.figures) | {"passes": listed.passes, "how": listed.how or "one pass"}
                    for listed in listed_steps(row)],
    }


def _figures(s: StepSummary) -> dict[str, Any]:
    return {"name": s.name, "label": s.label, "status": s.status, "iops": s.iops, "mib_s": s.mib_s,
            "latency_mean_ms": s.latency_mean_ms, "latency_p99_ms": s.latency_p99_ms, "cpu_bound": s.engine_bound}


# Below this many columns the table leaves out the start time (the id holds it, in UTC), the
# engine and tags go under the profile's name, and "completed" is said "done".
WIDE = 110


def history_table(results: Sequence[ResultSummary], *, wide: bool) -> Fitted:
    """One row per result; a line per step in the figures columns, each beside its step's short
    label. Ids, statuses and figures are never cut; a long profile name or disk model folds onto
    more lines. The engine is there wherever the profile is: native, fio and DiskSpd runs of one
    profile are different measurements. Narrow, the engine, the disk and the tags go under the
    profile's name and the labels are shorter ('RND64K R'); narrower than the ids and figures need
    beside them (60 columns), the profile is left out."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from labtui.render.fitting import Fitted
    from labtui.render.result_tables import bound_mark, fmt_iops, fmt_mib, fmt_time, short_label
    from labtui.render.words import Words

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True)
    if wide:
        table.add_column("started", no_wrap=True)
    # Imported results are named after their file (60 characters and more): that name folds onto
    # more lines rather than squeezing the id and the figures into ellipses.
    table.add_column("profile", overflow="fold", min_width=len("quick-sanity"))
    tagged = wide and any(r.tags for r in results)  # a column of blanks would only take room
    if wide:
        table.add_column("engine", no_wrap=True)
    if tagged:
        table.add_column("tags", overflow="fold")
    if wide:
        table.add_column("disk", overflow="fold")
    table.add_column("status", no_wrap=True)
    # Each figure beside its step's short label ("RND4K Q32T1 R"): "102,432 / 32,899" left the
    # reader to guess which step each was.
    table.add_column("step", no_wrap=True)
    table.add_column("IOPS", justify="right", no_wrap=True)
    table.add_column("MiB/s", justify="right", no_wrap=True)
    listed = [[step.figures for step in listed_steps(r)] for r in results]  # each step once, as its profile makes it
    for r, steps in zip(results, listed, strict=True):
        if wide:
            cells: list[str | Text | Words] = [r.id, fmt_time(r.started), Words(r.profile), r.engine,
                                               *([Words("\n".join(r.tags))] if tagged else [])]
        else:
            # Narrow, the engine, the disk and the tags take the lines under the profile's name: the
            # figures keep their steps' labels beside them.
            under = "\n".join([r.engine, r.disk_name,
                               *(["tags: " + ", ".join(r.tags)] if r.tags else [])])
            cells = [r.id, Words(Text.assemble(r.profile, "\n", (under, "dim")))]
        # A step that did not complete is marked on its line, as History's step line marks it: its
        # figures cover only the part that ran (the row's status speaks of the whole result).
        labels = Text("\n").join(step_label(s.label if wide else short_label(s.label), s.status) for s in steps)
        cells += [
            *([Words(r.disk_name)] if wide else []),
            status_cell(r, wide),
            labels,
            "\n".join(fmt_iops(s.iops) + bound_mark(s.engine_bound) for s in steps),
            "\n".join(fmt_mib(s.mib_s) + bound_mark(s.engine_bound) for s in steps),
        ]
        table.add_row(*cells)
    # The start time first (the id holds it, in UTC), then the disk, then the profile.
    return Fitted(table, optional=("started", "disk", "profile"))


def passes_note(results: Sequence[ResultSummary]) -> str:
    """Under the table, where a step ran more than once: its figure is its passes' mean (or best), not
    one pass's, and where each pass is ('' where every step ran once)."""
    hows = sorted({listed.how.split(";")[0].split(" of ")[0] for r in results for listed in listed_steps(r)
                   if listed.passes > 1 and " of " in listed.how})
    if not hows:
        return ""
    return (f"a step run more than once shows the {' or '.join(hows)} of its passes, as its profile makes it; "
            "`labtui show ID` lists each pass (history --json: 'figures' as here, 'steps' each pass)")


# A verified run's read-back beside its status, styled as the History screen styles it.
READ_BACK_STYLES = {DATA_OK: "green", DATA_BAD: "bold red", DATA_PART: "yellow", DATA_UNCHECKED: "yellow"}


def status_cell(r: ResultSummary, wide: bool) -> Text:
    """The result's status ('done' where narrow, as History says it at 80 columns) and, for a verified run,
    on the line under it whether its data read back as written, in the History screen's words ('data ok',
    'data BAD'): under, not beside, so the column keeps its width and the table its start times."""
    from rich.text import Text

    from labtui.render.result_tables import NARROW_STATUS

    status = Text(r.status if wide else NARROW_STATUS.get(r.status, r.status))
    if r.read_back is not None:
        mark = r.read_back.mark
        status.append("\n").append(mark, READ_BACK_STYLES[mark])
    return status


def step_label(label: str, status: str) -> Text:
    """'RND64K Q8T4 R', and the step's status after it where it did not complete."""
    from rich.text import Text

    from labtui.render.result_tables import STATUS_STYLES

    if status == "completed":
        return Text(label)
    return Text.assemble(label, " ", (status, STATUS_STYLES.get(status, "")))


def run(args: argparse.Namespace) -> int:
    from labtui.commands.common import given, open_store, print_json, stdout, warn_broken
    from labtui.errors import ValidationError
    from labtui.printable import printable

    # An empty filter matched every result, as if it had not been given.
    given(args.profile, "--profile", "a profile's name")
    given(args.tag, "--tag", "a tag")
    if args.limit is not None and args.limit < 1:
        raise ValidationError(f"must be 1 or more, got {args.limit} (leave it out to list every result)", "--limit")
    everything, broken = open_store().summaries()
    if args.broken:
        return _list_broken(broken, as_json=args.json)
    results = everything[::-1]
    if args.profile:
        results = [r for r in results if r.profile == args.profile]
    if args.tag:
        results = [r for r in results if args.tag in r.tags]
    if args.limit is not None:
        results = results[: args.limit]
    if args.json:
        print_json({
            "results": [summary(r) for r in results],
            "broken": [{"path": str(b.path), "reason": b.reason} for b in broken],
        })
        return 0
    warn_broken(broken, listed_by="labtui history --broken")
    out = stdout()
    if not everything:
        out.print("no results yet: `labtui run -p quick-sanity -t DIR` makes one")
        return 0
    if not results:
        # Said with what was asked and, for a profile, what there is: a mistyped name is seen at once.
        asked = " and ".join(f"{flag} {printable(value, one_line=True)}"
                             for flag, value in (("--profile", args.profile), ("--tag", args.tag)) if value)
        names = sorted({r.profile for r in everything})
        there = f" (their profiles: {printable(', '.join(names[:8]), one_line=True)}{', ...' if len(names) > 8 else ''})"
        out.print(f"none of the {len(everything)} results match {asked}{there if args.profile else ''}")
        return 0
    out.print(history_table(results, wide=out.width >= WIDE))
    note = passes_note(results)
    if note:
        out.print(note, markup=False, highlight=False)
    if any(s.engine_bound for r in results for s in r.steps):
        from labtui.render.result_tables import CPU_MARK

        out.print(f"{CPU_MARK} CPU-bound: that figure is the CPUs' (or the engine's) limit, not the disk's "
                  "(`labtui show ID` says why)", markup=False, highlight=False)
    return 0


def _list_broken(broken: Sequence[BrokenFile], *, as_json: bool) -> int:
    """`history --broken`: each file of the results folder that is not a whole result, and why."""
    from labtui.commands.common import print_json, stdout
    from labtui.printable import printable

    if as_json:
        print_json({"broken": [{"path": str(b.path), "reason": b.reason} for b in broken]})
        return 0
    out = stdout()
    if not broken:
        out.print("every file in the results folder is a whole result", markup=False, highlight=False)
        return 0
    for item in broken:
        out.print(printable(f"{item.path}: {item.reason}"), markup=False, highlight=False, soft_wrap=True)
    return 0
