"""A step stopped part-way, as `labtui show` and the Run summary print it: what a "not measured" means."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from factories import make_result
from labtui.cli import main
from labtui.model.result import DirectionStats, LatencySummary
from labtui.render.result_tables import latency_table, result_steps_table
from labtui.results.store import Store

STOPPED = "stopped 0.8 s into its 10s measure: the figures are of the part measured"


def text(renderable, width=100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def stopped_run():
    """quick-sanity stopped by SIGINT 0.8 s into its first step's measure, as the native engine keeps it: the
    workers' live counters and latency histograms, which give percentiles but no min or max."""
    result = make_result(status="aborted", error="stopped by SIGINT")
    first = result.steps[0]
    part = LatencySummary(mean=2.59, p50=2.38, p90=3.59, p95=3.95, p99=6.46, p999=8.36, p9999=9.37)
    stats = DirectionStats(ios=9303, bytes=9303 * 65536, seconds=0.757)
    aborted = replace(first, status="aborted", read=stats, latency=part, read_latency=part, error=STOPPED,
                      samples=first.samples[:1])
    return replace(result, steps=(aborted,))


def row(out: str, start: str) -> list[str]:
    return next(line for line in out.splitlines() if line.strip().startswith(start)).split()


def test_a_stopped_steps_unknown_min_and_max_say_why_not_a_bare_dash():
    out = text(latency_table(stopped_run().steps))
    cells = row(out, "Read 64K random read")
    assert "-" not in cells, out
    assert cells[4] == "n/a" and cells[-1] == "n/a" and cells[5] == "2.59", out  # min, mean, ..., max
    assert "n/a: not measured" in out and "stopped part-way" in out and "min or max" in out, out


def test_a_completed_steps_latency_has_no_footnote():
    out = text(latency_table(make_result().steps))
    assert "n/a" not in out and "0.050" in out and "12.00" in out, out


def test_the_steps_table_says_how_far_a_stopped_step_got():
    out = text(result_steps_table(stopped_run()))
    assert "Read 64K random (aborted)" in out and STOPPED in " ".join(out.split()), out


def test_show_explains_a_stopped_steps_figures(labtui_home, capsys, monkeypatch):
    saved = Store().save_result(stopped_run())[0]
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["show", saved.id]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert STOPPED in flat and "n/a: not measured" in flat, out
    assert max(map(len, out.splitlines())) <= 80
