"""The comparison as people read it (labtui.render.comparison), on synthetic results: each figure with how far
its interval reaches, the change and its verdict with what decided it, and the Markdown form that parses back.
The comparison's arithmetic: tests/unit/analysis/."""

from __future__ import annotations

import io
import re
from dataclasses import replace

from labtui.analysis.comparison import compare
from labtui.render.comparison import comparison_markdown, fmt_change, fmt_figure, verdict_text
from markdown_tables import tables
from synthetic import READ, WRITE, run_result


def sample_results():
    a = run_result("20261101-120000-aaaa", {READ: [53_859.3, 54_001.7], WRITE: [52_319.1, 52_400.9]})
    b = run_result("20261101-130000-bbbb", {READ: [54_293.0]}, minutes=60)
    return [a, b]


def test_a_figure_says_its_interval_a_change_its_sign_and_a_verdict_what_decided_it():
    a = run_result("20261101-120000-aaaa", {READ: [1000.0, 1010.0, 990.0]})
    b = run_result("20261101-130000-bbbb", {READ: [500.0, 505.0, 495.0]}, minutes=60)
    row = compare([a, b]).groups[0].rows[0]  # IOPS first
    assert row.metric.label == "IOPS"
    assert fmt_figure(row.metric, row.figures[0]).startswith("1,000 ±") and fmt_figure(row.metric, None) == "-"
    delta = row.deltas[1]
    assert fmt_change(delta) == "-50.0 %" and fmt_change(None) == "-"
    assert verdict_text(delta).startswith("worse · 3 vs 3 runs") and verdict_text(None) == "-"
    single = compare([run_result("x1", {READ: [1000.0]}), run_result("x2", {READ: [1001.0]}, minutes=5)])
    assert fmt_figure(single.groups[0].rows[0].metric, single.groups[0].rows[0].figures[0]) == "1,000"  # no interval


def test_comparison_markdown_parses_back():
    a, b = sample_results()
    text = comparison_markdown(compare([a, replace(b, engine=replace(b.engine, name="fio"))]))
    found = tables(text)
    results_table = found[0]
    assert list(results_table[0]) == ["Step", "Metric", "A", "B", "B vs A", "Verdict"]
    read_iops = results_table[0]
    assert read_iops["Step"].startswith("Read 64K random") and read_iops["Metric"].startswith("IOPS")
    assert read_iops["B vs A"].endswith("%")
    assert any(row[""] == "engine" for row in found[1])  # the "what differs" table
    assert "**Warning:** engines differ" in text


def test_the_terminal_table_names_a_step_once_and_never_cuts_a_verdict_at_80_columns():
    # Imported steps are often named by their workload ("RND64K Q8T4 R"): said once, not twice.
    from rich.console import Console

    from labtui.render.comparison import comparison_renderable

    imported = replace(READ, name=READ.label())
    a = run_result("a", {imported: [3000], WRITE: [3000]})
    b = run_result("b", {imported: [3000], WRITE: [2400]}, minutes=5)

    def shown(width: int) -> str:
        console = Console(width=width, record=True, color_system=None)
        console.print(comparison_renderable(compare([a, b])))
        return console.export_text()

    wide = shown(120)
    assert wide.count(READ.label()) == 1
    assert "Write 64K random" in wide and WRITE.label() in wide
    narrow = shown(76)  # the Compare screen's table at 80 columns
    assert narrow.count("within noise") >= 4 and narrow.count("machine CPU") == 2 and "…" not in narrow


def test_what_decided_a_verdict_folds_at_its_words_rather_than_losing_its_p_value_at_80_columns():
    from rich.console import Console

    from labtui.render.comparison import comparison_renderable, short_basis

    a = run_result("a", {READ: [20_894, 26_100, 15_700], WRITE: [39_391, 47_000, 31_400]})
    b = run_result("b", {READ: [15_913, 21_500, 10_300], WRITE: [35_169, 40_900, 29_400]}, minutes=5)
    comparison = compare([a, b])
    bases = {short_basis(d) for g in comparison.groups for row in g.rows
             if (d := row.deltas[1]) is not None and d.basis not in ("no difference", "context")}
    assert all(basis.startswith("3 vs 3, p=") for basis in bases)
    console = Console(width=74, record=True, color_system=None)  # the Compare screen's table at 80 columns
    console.print(comparison_renderable(comparison))
    lines = console.export_text().splitlines()
    assert "…" not in "\n".join(lines)
    for basis in bases:  # each basis whole: "(3 vs 3," on one line, its p-value right under it
        p = basis.split(", ")[1]
        assert any(line.rstrip().endswith((f"({basis})", f"{p})")) for line in lines), basis
    # Where the width allows, the verdict and what decided it share a line: a row is one line high.
    wide = Console(width=114, record=True, color_system=None)  # the Compare screen at 120 columns
    wide.print(comparison_renderable(comparison))
    text = wide.export_text()
    assert all(f"({basis})" in text for basis in bases)


def test_a_cpu_bound_steps_verdict_is_kept_but_marked_and_dim_where_the_answer_says_it_tells_nothing():
    from rich.console import Console

    from labtui.analysis.checks import FAIL, FAILED, check
    from labtui.render.comparison import check_renderable, comparison_renderable
    from labtui.render.fitting import Fitted

    a = run_result("a", {READ: [50_000, 50_500, 49_500], WRITE: [40_000, 40_400, 39_600]})
    b = run_result("b", {READ: [39_000, 39_400, 38_600], WRITE: [40_000, 40_400, 39_600]}, minutes=5)
    b = replace(b, steps=tuple(replace(s, engine_bound="a worker process used 98 % of a CPU") if s.step == READ
                               else s for s in b.steps))
    comparison = compare([a, b])
    assert comparison.groups[0].rows[0].deltas[1].verdict == "worse"  # the verdict itself is kept

    def console(colour: str | None) -> Console:
        return Console(width=120, color_system=colour, record=True, file=io.StringIO())  # type: ignore[arg-type]

    segments = list(console("standard").render(comparison_renderable(comparison)))
    worse = [s.style for s in segments if s.text == "worse"]
    assert worse and all(s is not None and s.dim and s.color is None for s in worse), worse  # not red: void step
    assert sum(s.text.startswith("(CPU-bound, 3 vs 3") for s in segments) == len(worse) == 4  # the read's rows

    # Only a claim is marked ("within noise" claims nothing), and in the verdict's brackets: beside the word it
    # widened the column, and a CPU-bound comparison no longer fitted the Compare screen's 76 columns.
    def narrow(results) -> str:
        shown = Console(width=76, color_system=None, record=True, file=io.StringIO())
        shown.print(comparison_renderable(compare(results)))
        return shown.export_text()

    every = replace(a, steps=tuple(replace(s, engine_bound="a worker process used 98 % of a CPU") for s in a.steps))
    text = narrow([every, b])
    assert "worse (CPU-bound," in text and "within noise (CPU-bound" not in text
    assert re.search(r"^ *step +metric +A +B +B vs A +verdict *$", text, re.M), text  # a table, not records

    def verdict_width(results) -> int | None:
        tables = [p.table for p in comparison_renderable(compare(results)).renderables if isinstance(p, Fitted)]
        return next(c.min_width for t in tables for c in t.columns if c.header == "verdict")

    assert verdict_width([every, b]) == verdict_width([a, b]) == len("within noise")  # the mark never widens it
    rows = tables(comparison_markdown(comparison))[0]
    assert rows[0]["Verdict"].startswith("worse, CPU-bound · 3 vs 3 runs") and rows[0]["Step"].startswith("Read")
    assert all("CPU-bound" not in r["Verdict"] for r in rows if r["Step"].startswith("Write"))
    # A check keeps its outcome and exit (FAIL: it decides), the line marked as its answer says it.
    report = check(a, b, 10)
    assert report.outcome == FAILED and report.lines[0].outcome == FAIL
    plain = console(None)
    plain.print(check_renderable(report))
    text = plain.export_text()
    assert "FAIL, CPU-bound" in text and "INFO, CPU-bound" not in text and "PASS, CPU-bound" not in text
