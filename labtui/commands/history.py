"""List saved results, newest first, with each step's headline figures."""

from __future__ import annotations

HELP = "list saved results"


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--profile", help="only results of this profile")
    parser.add_argument("--tag", help="only results carrying this tag")
    parser.add_argument("--limit", type=int, default=0, help="at most this many (newest first)")


def summary(result) -> dict:
    return {
        "id": result.id,
        "started": result.started.isoformat(),
        "status": result.status,
        "host": result.host.name,
        "disk_model": result.target.model,
        "target": result.target.path,
        "profile": result.profile.name,
        "engine": result.engine.name,
        "source": result.source,
        "tags": list(result.tags),
        "steps": [
            {"name": s.name, "label": s.step.label(), "repetition": s.repetition, "status": s.status,
             "iops": s.total.iops, "mib_s": s.total.mib_s, "latency_mean_ms": s.latency.mean,
             "latency_p99_ms": s.latency.p99}
            for s in result.steps
        ],
    }


# Below this many columns the table leaves out the start time (the id holds it, in UTC) and the engine.
WIDE = 110


def history_table(results, *, wide: bool):
    """One row per result; a line per step in the figures columns. Ids, profiles and statuses are never cut."""
    from rich import box
    from rich.table import Table

    from labtui.report import fmt_iops, fmt_mib, fmt_time

    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("id", no_wrap=True)
    if wide:
        table.add_column("started", no_wrap=True)
    table.add_column("profile", no_wrap=True)
    if wide:
        table.add_column("engine", no_wrap=True)
    table.add_column("disk")
    table.add_column("status", no_wrap=True)
    table.add_column("IOPS", justify="right", no_wrap=True)
    table.add_column("MiB/s", justify="right", no_wrap=True)
    for r in results:
        cells = [r.id] + ([fmt_time(r)] if wide else []) + [r.profile.name] + ([r.engine.name] if wide else [])
        cells += [
            r.target.model or "unknown",
            r.status,
            "\n".join(fmt_iops(s.total.iops) for s in r.steps),
            "\n".join(fmt_mib(s.total.mib_s) for s in r.steps),
        ]
        table.add_row(*cells)
    return table


def run(args) -> int:
    from labtui.commands.common import open_store, print_json, stdout, warn_broken

    everything, broken = open_store().load_results()
    results = everything[::-1]
    if args.profile:
        results = [r for r in results if r.profile.name == args.profile]
    if args.tag:
        results = [r for r in results if args.tag in r.tags]
    if args.limit > 0:
        results = results[: args.limit]
    if args.json:
        print_json({
            "results": [summary(r) for r in results],
            "broken": [{"path": str(b.path), "reason": b.reason} for b in broken],
        })
        return 0
    warn_broken(broken)
    out = stdout()
    if not everything:
        out.print("no results yet: `labtui run -p quick-sanity -t DIR` makes one")
        return 0
    if not results:
        out.print(f"none of the {len(everything)} results match")
        return 0
    out.print(history_table(results, wide=out.width >= WIDE))
    return 0
