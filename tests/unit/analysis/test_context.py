"""What differs between the compared runs (labtui/analysis/context.py): context rows and warnings beside the
verdicts, never verdicts."""

from dataclasses import replace

import pytest

from labtui.analysis.comparison import compare
from synthetic import READ, TARGET, run_result


def test_cross_engine_comparison_warns():
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {READ: [50_000]}, engine="fio", minutes=5)
    c = compare([a, b])
    assert any("engines differ" in w and "A native" in w and "B fio" in w for w in c.warnings)
    assert next(r for r in c.context if r.label == "engine").differs


def test_cache_mode_difference_still_matches_and_warns():
    buffered = replace(READ, cache="on")
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {buffered: [400_000]}, minutes=5)
    c = compare([a, b])
    assert len(c.groups) == 1 and c.groups[0].row("iops").deltas[1].relative_pct == pytest.approx(700)
    assert any("cache modes differ" in w for w in c.warnings)
    assert any("cache modes differ" in n for n in c.groups[0].notes)


def test_context_differences_are_listed():
    other = replace(TARGET, pcie_width=8, firmware="731100WD")
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {READ: [50_000]}, target=other, minutes=5)
    differs = {r.label: r.values for r in compare([a, b]).differences}
    assert differs["firmware"] == ("620361WD", "731100WD")
    assert differs["PCIe link"] == ("8.0 GT/s PCIe x4", "8.0 GT/s PCIe x8")
    assert "disk model" not in differs
