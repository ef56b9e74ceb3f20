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


def run(args) -> int:
    from rich import box
    from rich.table import Table

    from labtui.commands.common import open_store, print_json, stdout, warn_broken
    from labtui.report import fmt_iops, fmt_mib, fmt_time

    results, broken = open_store().load_results()
    results.reverse()
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
    table = Table(box=box.SIMPLE_HEAD)
    for name in ("id", "date", "profile", "engine", "disk", "status", "IOPS / MiB/s per step"):
        table.add_column(name, no_wrap=name in ("id", "date"))
    for r in results:
        steps = "\n".join(f"{fmt_iops(s.total.iops)} / {fmt_mib(s.total.mib_s)}" for s in r.steps)
        table.add_row(r.id, fmt_time(r), r.profile.name, r.engine.name, r.target.model or "unknown", r.status, steps)
    out = stdout()
    if not results:
        out.print("no results yet: `labtui run -p quick-sanity -t DIR` makes one")
        return 0
    out.print(table)
    return 0
