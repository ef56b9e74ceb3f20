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
    # The script's columns cannot tell apart the rows of two results of one computer and disk: two
    # ways out, each said where they would mix.
    parser.add_argument("--with-ids", action="store_true",
                        help="configmgr-csv: the result's id and date as two more columns after the script's, so "
                             "the rows of several results of one disk can be told apart")
    parser.add_argument("--per-result", metavar="DIR",
                        help="configmgr-csv: one file per result in DIR, named by its id (ID.csv), each with the "
                             "script's columns exactly")


def run(args: argparse.Namespace) -> int:
    import sys

    from labtui.commands.common import given, open_store, warn_broken
    from labtui.errors import ValidationError
    from labtui.render.export import render

    given(args.per_result, "--per-result", "a directory")  # "" wrote the files into the current directory
    if args.format != "configmgr-csv":
        for flag, asked in (("--with-ids", args.with_ids), ("--per-result", args.per_result is not None)):
            if asked:
                raise ValidationError("goes with --format configmgr-csv (the script's columns, which say no result id)",
                                      flag)
    store = open_store()
    if args.ids:
        # Each result once, where first named: an id given again (or as a prefix) must not double its rows.
        results = list({r.id: r for r in map(store.find_result, dict.fromkeys(args.ids))}.values())
    else:
        results, broken = store.load_results()
        warn_broken(broken, listed_by="labtui history --broken")
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
    if args.format == "configmgr-csv":
        return _configmgr(results, with_ids=args.with_ids, per_result=args.per_result)
    sys.stdout.write(render(results, args.format))
    return 0


def _configmgr(results: list, *, with_ids: bool, per_result: str | None) -> int:
    """The script's CSV on stdout, or a file per result; refused where the rows of several results of
    one computer and disk would mix and neither way of telling them apart was asked for."""
    import sys
    from pathlib import Path

    from labtui.commands.common import stderr
    from labtui.errors import LabtuiError
    from labtui.machine.paths import exists, shown
    from labtui.render.export import configmgr_mixed, configmgr_rows, mixed_text, to_configmgr_csv
    from labtui.results.files import atomic_write

    if per_result is None:
        mixed = configmgr_mixed(results)
        if mixed and not with_ids:
            raise LabtuiError(f"{mixed_text(mixed)}: the script's columns cannot tell them apart. Add --with-ids "
                              "(the result id and date after the script's columns), or --per-result DIR (one file "
                              "per result, named by its id)")
        sys.stdout.write(to_configmgr_csv(results, with_ids=with_ids))
        return 0
    directory = Path(per_result).expanduser()
    if not exists(directory) or not directory.is_dir():  # exists: a name too long is one line too
        raise LabtuiError(f"--per-result: {shown(directory)} is not a directory that exists")
    files = [(directory / f"{r.id}.csv", r) for r in results if configmgr_rows([r])]
    taken = [shown(path) for path, _r in files if path.exists() or path.is_symlink()]
    if taken:
        raise LabtuiError(f"--per-result: {', '.join(taken)} exist{'s' if len(taken) == 1 else ''}: labtui never "
                          "replaces a file (choose another directory)")
    for path, result in files:
        try:
            atomic_write(path, to_configmgr_csv([result], with_ids=with_ids), exclusive=True)
        except OSError as exc:
            raise LabtuiError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
    stderr().print(f"labtui export: {len(files)} file{'s' if len(files) != 1 else ''} written in {shown(directory)}, one "
                   "per result, named by its id", markup=False, highlight=False, soft_wrap=True)
    return 0
