"""Show one result: its context, per-step figures and latency percentiles."""

from __future__ import annotations

import argparse

HELP = "show one result in full"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID", help="result id (or a unique prefix of one)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from rich.text import Text

    from labtui.analysis.comparison import summarize
    from labtui.commands.common import open_store, print_json, result_json, stdout
    from labtui.render.comparison import statistics_table
    from labtui.render.drive import drive_lines, series_lines
    from labtui.render.readback import readback_renderable
    from labtui.render.result_tables import (
        bottleneck_renderable,
        command_summary,
        context_table,
        latency_table,
        result_steps_table,
        shown_warnings,
    )
    from labtui.render.steady_state import steady_steps, steady_summary_lines

    result = open_store().find_result(args.id)
    if args.json:
        print_json(result_json(result))
        return 0
    out = stdout()
    readback = readback_renderable(result)
    if readback is not None:  # a verified run: did the data come back? first
        out.print(readback, highlight=False, soft_wrap=True)
    out.print(context_table(result))
    out.print(result_steps_table(result))
    statistics = statistics_table(summarize(result))
    if statistics.row_count:
        out.print(statistics)
    else:  # only finished steps are summarized: an empty table under its heading would say nothing
        out.print("statistics: none, no step finished", style="dim", highlight=False)
    limits = bottleneck_renderable(result)
    if limits is not None:
        out.print(limits, highlight=False, soft_wrap=False)
    # A repeated step's passes are told apart as in the steps table above ("Read 64K random #2").
    repeated = result.profile.repeat > 1 or any(s.repetition != 1 for s in result.steps)
    lat = latency_table(result.steps, names=[f"{s.name} #{s.repetition}" for s in result.steps] if repeated else True)
    if lat.row_count:
        out.print(lat)
    for s in steady_steps(result.steps):
        out.print("\n".join(steady_summary_lines(s)), highlight=False, soft_wrap=True, markup=False)
    said: set[tuple[str, str]] = set()
    for s in result.steps:
        if s.command_line and (s.name, s.command_line) not in said:  # every pass of a step runs the same one
            said.add((s.name, s.command_line))
            out.print(Text.assemble((s.name, "bold"), f": {s.command_line}"), soft_wrap=True)
        if s.step.kind == "command":
            out.print(command_summary(s), highlight=False, soft_wrap=True, markup=False)
            if s.error:
                out.print(f"  {s.status}: {s.error}", highlight=False, soft_wrap=True, markup=False)
            if s.output_tail:
                out.print("  last output:\n" + "\n".join(f"    {x}" for x in s.output_tail.splitlines()),
                          highlight=False, soft_wrap=True, markup=False)
    drive = drive_lines(result)
    if drive:
        out.print("\n".join(drive), highlight=False, soft_wrap=True, markup=False)
        for s in result.steps:
            series = series_lines(s)
            if series and (s.drops or len(result.steps) == 1):  # the series where it explains something
                out.print(f"{s.name}, the intervals the drive was read in:\n" + "\n".join(series),
                          highlight=False, soft_wrap=True, markup=False)
    for w in shown_warnings(result):  # steps CPU-bound alike: said once (the file keeps each)
        out.print(Text.assemble(("warning:", "yellow"), f" {w}"))
    return 0
