"""Show one result: its context, per-step figures and latency percentiles."""

from __future__ import annotations

HELP = "show one result in full"


def add_arguments(parser) -> None:
    parser.add_argument("id", help="result id (or a unique prefix of one)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args) -> int:
    from rich import box
    from rich.table import Table

    from rich.markup import escape

    from labtui.commands.common import open_store, print_json, result_json, stdout
    from labtui.compare import summarize
    from labtui.compare_report import statistics_table
    from labtui.report import command_summary, context_table, fmt_ms, result_steps_table

    result = open_store().find_result(args.id)
    if args.json:
        print_json(result_json(result))
        return 0
    out = stdout()
    out.print(context_table(result))
    out.print(result_steps_table(result))
    out.print(statistics_table(summarize(result)))
    lat = Table(box=box.SIMPLE_HEAD, title="Latency (ms)", title_justify="left")
    lat.add_column("step")
    for name in ("min", "mean", "p50", "p90", "p95", "p99", "p99.9", "p99.99", "max"):
        lat.add_column(name, justify="right")
    for s in result.steps:
        for label, summary in (("read", s.read_latency), ("write", s.write_latency)):
            if summary.measured:
                lat.add_row(
                    f"{s.name} {label}",
                    *(fmt_ms(getattr(summary, k)) for k in ("min", "mean", "p50", "p90", "p95", "p99", "p999", "p9999", "max")),
                )
    if lat.row_count:
        out.print(lat)
    for s in result.steps:
        if s.command_line:
            out.print(f"[bold]{escape(s.name)}[/]: {escape(s.command_line)}", highlight=False, soft_wrap=True, markup=True)
        if s.step.kind == "command":
            out.print(command_summary(s), highlight=False, soft_wrap=True, markup=False)
            if s.error:
                out.print(f"  {s.status}: {s.error}", highlight=False, soft_wrap=True, markup=False)
            if s.output_tail:
                out.print("  last output:\n" + "\n".join(f"    {x}" for x in s.output_tail.splitlines()),
                          highlight=False, soft_wrap=True, markup=False)
    for w in result.warnings:
        out.print(f"[yellow]warning:[/] {w}", highlight=False, markup=True)
    return 0
