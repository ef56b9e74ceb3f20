"""Import existing DiskSpd (XML or text) and fio (JSON, json+) results as labtui results."""

from __future__ import annotations

HELP = "import DiskSpd or fio result files"


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="DiskSpd XML/text or fio JSON output files")
    parser.add_argument("--json", action="store_true", help="print the imported results as JSON on stdout")
    parser.add_argument("--tag", action="append", default=[], help="tag the imported results (repeatable)")


def run(args) -> int:
    """Each file imports whole or not at all; a bad file is reported and the others still import."""
    import sys
    from dataclasses import replace

    from labtui.commands.common import open_store, print_json
    from labtui.engine.importers import import_file
    from labtui.errors import LabtuiError
    from labtui.report import fmt_iops, fmt_mib
    from labtui.store import result_to_json

    store = open_store()
    saved = []
    failures = []
    for name in args.files:
        try:
            results = import_file(name)
        except LabtuiError as exc:
            failures.append(str(exc))
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
            failures.append(f"{name}: {exc}")
            continue
        saved.extend((name, result, path) for result, path in done)
    if args.json:
        print_json({"results": [result_to_json(result) for _, result, _ in saved]})
    else:
        for name, result, path in saved:
            steps = ", ".join(f"{s.name}: {fmt_iops(s.total.iops)} IOPS {fmt_mib(s.total.mib_s)} MiB/s" for s in result.steps)
            engine = " ".join(x for x in (result.engine.name, result.engine.version) if x)
            host = f" ({result.host.name})" if result.host.name else ""
            print(f"{name}{host}: {engine}, {result.status}, {steps} -> {result.id}")
    for message in failures:
        print(f"labtui: error: {message}", file=sys.stderr)
    return 2 if failures else 0
