"""Matching steps across results (labtui/analysis/matching.py): by workload, not position or name; in order of
occurrence; what one result lacks is noted."""

from dataclasses import replace

import pytest

from labtui.analysis.comparison import compare
from labtui.analysis.figures import NOISE
from synthetic import READ, WRITE, run_result


def test_steps_are_matched_by_workload_not_position_or_name():
    a = run_result("a", {READ: [50_000], WRITE: [40_000]})
    renamed_read = replace(READ, name="4 x 8 reads")
    b = run_result("b", {WRITE: [40_000], renamed_read: [25_000]}, minutes=5)
    c = compare([a, b])
    assert [g.name for g in c.groups] == ["Read 64K random", "Write 64K random"]
    read = c.groups[0]
    assert [s.name for s in read.steps] == ["Read 64K random", "4 x 8 reads"]
    assert read.row("iops").figures[1].value == pytest.approx(25_000)
    assert read.row("iops").deltas[1].relative_pct == pytest.approx(-50)
    assert c.groups[1].row("iops").deltas[1].verdict == NOISE


def test_a_workload_only_in_one_result_is_listed_with_a_note():
    deeper = replace(READ, name="Read deep", outstanding=32)
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {READ: [50_000], deeper: [90_000]}, minutes=5)
    c = compare([a, b])
    assert len(c.groups) == 2
    extra = c.groups[1]
    assert extra.steps[0] is None and extra.row("iops").deltas[1] is None
    assert "not in A" in extra.notes


def test_repeated_workloads_match_by_order_of_occurrence():
    # configmgr-sql runs the same read workload for 60 s and then 300 s.
    r60, r300 = replace(READ, name="Read 60s", duration=60.0), replace(READ, name="Read 300s", duration=300.0)
    a = run_result("a", {r60: [50_000], r300: [48_000]})
    b = run_result("b", {r60: [50_100], r300: [30_000]}, minutes=5)
    c = compare([a, b])
    assert [(g.name, g.occurrence) for g in c.groups] == [("Read 60s", 1), ("Read 300s", 2)]
    assert c.groups[1].row("iops").deltas[1].relative_pct == pytest.approx(-37.5)
    assert any("matched by order of occurrence" in n for n in c.groups[0].notes)
    # A quick trial (one short read) against it: matched with the first, and the durations are noted.
    short = replace(READ, name="Read", duration=2.0)
    q = compare([a, run_result("q", {short: [49_000]}, minutes=9)])
    assert q.groups[0].steps[1].name == "Read" and q.groups[1].steps[1] is None
    assert any("durations differ" in n for n in q.groups[0].notes)
