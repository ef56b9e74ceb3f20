"""Mark a result as the baseline of its disk and profile (what `labtui check` compares with), or list them."""

from __future__ import annotations

HELP = "mark a result as the baseline for its disk and profile, clear one, or list them"


def add_arguments(parser) -> None:
    parser.add_argument("id", nargs="?", help="result id (or unique prefix) to mark; without it, list the baselines")
    parser.add_argument("--clear", action="store_true", help="stop using this result as a baseline")
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")


def run(args) -> int:
    from labtui import baselines
    from labtui.commands.common import open_store, print_json, stdout
    from labtui.errors import LabtuiError

    store = open_store()
    out = stdout()
    if args.id is None:
        if args.clear:
            raise LabtuiError("--clear needs the id of the baseline to clear")
        return _list(store, args.json)
    result = store.find_result(args.id)
    if args.clear:
        removed = baselines.clear(store, result.id)
        if args.json:
            print_json({"cleared": [_entry(b) for b in removed]})
        else:
            for b in removed:
                out.print(f"{result.id} is no longer the baseline for {b.profile} on {b.disk}")
        return 0
    baseline, replaced = baselines.mark(store, result)
    if args.json:
        print_json({"baseline": _entry(baseline), "replaced": _entry(replaced) if replaced else None})
        return 0
    out.print(f"{result.id} is now the baseline for {baseline.profile} on {baseline.disk}")
    if replaced and replaced.result_id != result.id:
        out.print(f"(it replaces {replaced.result_id})")
    return 0


def _entry(b) -> dict:
    return {"disk": b.disk, "profile": b.profile, "result": b.result_id, "marked": b.marked.isoformat()}


def _list(store, as_json: bool) -> int:
    from rich import box
    from rich.table import Table

    from labtui import baselines
    from labtui.commands.common import print_json, stdout
    from labtui.errors import LabtuiError

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
    table = Table(box=box.SIMPLE_HEAD, title="Baselines", title_justify="left")
    for name in ("disk", "profile", "result", "state"):
        table.add_column(name)
    for b, state in rows:
        table.add_row(b.disk, b.profile, b.result_id, state)
    out.print(table)
    return 0
