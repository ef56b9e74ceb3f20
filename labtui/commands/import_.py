"""Import existing DiskSpd (XML or text) and fio (JSON, json+) results as labtui results."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from labtui.model.result import RunResult
    from labtui.results.summaries import ResultSummary

HELP = "import DiskSpd or fio result files"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="DiskSpd XML/text or fio JSON output files")
    parser.add_argument("--json", action="store_true", help="print the imported results as JSON on stdout")
    parser.add_argument("--tag", action="append", default=[], help="tag the imported results (repeatable)")


def run(args: argparse.Namespace) -> int:
    """Each file imports whole or not at all; a bad file is reported and the others still import.

    A file imported before (the same bytes, under any name) is not imported again: the command
    says which results it already is, and changes nothing.
    """
    import sys
    from dataclasses import replace

    from labtui.commands.common import open_store, print_json, tags_given
    from labtui.errors import ExitCode, LabtuiError, ValidationError
    from labtui.printable import printable
    from labtui.render.result_json import result_to_json
    from labtui.render.result_tables import fmt_iops, fmt_mib
    from labtui.results.imports import import_file

    if any(not name.strip() for name in args.files):  # "" was read as "." ("is a directory"), " " as a file's name
        raise ValidationError("is empty: give a DiskSpd or fio output file; nothing was imported", "FILE")
    store = open_store()
    args.tag = list(tags_given(args.tag))
    rows, _broken = store.summaries()
    saved: list[tuple[str, RunResult, Path]] = []
    known = []  # (file name, ids of the results it was imported as)
    failures = []
    for name in args.files:
        shown = printable(name, one_line=True)
        try:
            results = import_file(name)
        except LabtuiError as exc:
            failures.append(printable(str(exc), one_line=True))
            continue
        earlier = _earlier_imports(rows, results)
        if earlier:
            known.append((shown, earlier))
            continue
        done = []
        try:
            for result in results:
                result = replace(result, tags=tuple(dict.fromkeys((*result.tags, *args.tag))))
                done.append(store.save_result(result))
        except LabtuiError as exc:
            for result, _ in done:  # all of this file or nothing
                try:
                    store.delete_result(result.id)
                except LabtuiError:
                    pass
            failures.append(f"{shown}: {printable(str(exc), one_line=True)}")
            continue
        saved.extend((shown, result, path) for result, path in done)
        rows.extend(_as_rows(done))  # the same file twice on one command line imports once
    if args.json:
        print_json({"results": [result_to_json(result) for _, result, _ in saved],
                    "already_imported": [{"file": name, "ids": ids} for name, ids in known]})
    else:
        for name, result, _path in saved:
            steps = ", ".join(f"{s.name}: {fmt_iops(s.total.iops)} IOPS {fmt_mib(s.total.mib_s)} MiB/s"
                              if s.has_figures else f"{s.name}: - ({s.status}: no figures)" for s in result.steps)
            engine = " ".join(x for x in (result.engine.name, result.engine.version) if x)
            host = f" ({result.host.name})" if result.host.name else ""
            print(f"{name}{host}: {engine}, {result.status}, {steps} -> {result.id}")
        for name, ids in known:
            tags = " (its tags are left as they are: tag it in History)" if args.tag else ""
            print(f"{name}: already imported as {', '.join(ids)}; nothing changed{tags}")
    for message in failures:
        print(f"labtui: error: {message}", file=sys.stderr)
    return ExitCode.BAD_INPUT if failures else ExitCode.OK


def _earlier_imports(rows: list[ResultSummary], results: list[RunResult]) -> list[str]:
    """The ids under which these results (one file's) were imported before, if they were."""
    digest = results[0].source_digest if results else None
    same = [r.id for r in rows if r.source == "import" and digest and r.source_digest == digest]
    if same:
        return same
    # Imported before results carried the file's digest: the same file, start and engine.
    keys = {(r.source_file, r.started, r.engine.name) for r in results}
    return [r.id for r in rows if r.source == "import" and r.source_digest is None
            and (r.source_file, r.started, r.engine) in keys]


def _as_rows(done: list[tuple[RunResult, Path]]) -> list[ResultSummary]:
    from labtui.results.summaries import ResultSummary

    return [ResultSummary.of(result, path.name) for result, path in done]
