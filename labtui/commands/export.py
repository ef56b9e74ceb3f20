"""Export results as CSV, Markdown, JSON or the ConfigMgr script's CSV: one row per step, with the hardware and engine context."""

from __future__ import annotations

import argparse

HELP = "export results (all when no id is given) as csv, markdown, json or the ConfigMgr script's csv"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from labtui.render.export_formats import FORMATS

    parser.add_argument("ids", nargs="*", metavar="ID", help="result ids or unique prefixes (default: every result)")
    parser.add_argument("--format", "-f", choices=tuple(FORMATS), default="csv",
                        help="csv (default; opens in a spreadsheet), markdown, json, or configmgr-csv (the columns "
                             "of the post's Test-ConfigMgrWorkload.ps1: ComputerName, Test, Disk, IOPS, Mbps = MiB/s, "
                             "Latency, CPU)")


def run(args: argparse.Namespace) -> int:
    import sys

    from labtui.commands.common import open_store, warn_broken
    from labtui.render.export import render

    store = open_store()
    if args.ids:
        # Each result once, where first named: an id given again (or as a prefix) must not double its rows.
        results = list({r.id: r for r in map(store.find_result, dict.fromkeys(args.ids))}.values())
    else:
        results, broken = store.load_results()
        warn_broken(broken)
    if args.ids and args.format == "configmgr-csv":
        from labtui.commands.common import stderr
        from labtui.errors import LabtuiError
        from labtui.render.export import configmgr_omissions

        # Results the person named that its rows leave out (failed, aborted): said, never silently.
        omissions = configmgr_omissions(results)
        err = stderr()
        for _result, line, _whole in omissions:
            err.print(f"labtui export: {line}", markup=False, highlight=False, soft_wrap=True)
        if sum(whole for _result, _line, whole in omissions) == len(results):
            raise LabtuiError("none of the named results has a completed I/O step: the ConfigMgr CSV would have no rows")
    elif args.format == "configmgr-csv":
        from labtui.commands.common import stderr
        from labtui.render.export import configmgr_summary

        # Every result, none named: one line for what its rows leave out, not a line each.
        summary = configmgr_summary(results)
        if summary:
            stderr().print(f"labtui export: {summary}", markup=False, highlight=False, soft_wrap=True)
    sys.stdout.write(render(results, args.format))
    return 0
