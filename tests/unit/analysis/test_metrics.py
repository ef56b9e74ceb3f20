"""What is compared of a step (labtui/analysis/metrics.py): read and write of a mixed step apart, a command by its
wall time, intervals that describe and never decide."""

import statistics
from dataclasses import replace

import pytest

from labtui.analysis.comparison import compare
from labtui.analysis.figures import UNKNOWN
from synthetic import MIXED, READ, run_result


def row(comparison, step_name, metric):
    group = next(g for g in comparison.groups if g.name == step_name)
    return group.row(metric)


def test_command_steps_compare_by_wall_time_and_warn_when_their_parameters_differ():
    from labtui.model.profile import Step
    from labtui.model.result import StepResult

    extract = Step(name="Extract archive", kind="command", command="zpaq x {archive} -to {scratch}")

    def extraction(rid, seconds, archive, minutes):
        base = run_result(rid, {READ: [50_000]}, minutes=minutes)
        profile = replace(base.profile, name="zpaq-extract", steps=(extract,))
        return replace(base, profile=profile, params={"archive": archive},
                       steps=(StepResult(step=extract, wall_seconds=seconds, exit_status=0),))

    c = compare([extraction("a", 600.0, "/data/200g.zpaq", 0), extraction("b", 2220.0, "/data/200g.zpaq", 5)])
    wall = c.groups[0].row("wall_seconds")
    assert wall.deltas[1].relative_pct == pytest.approx(270) and wall.deltas[1].verdict == UNKNOWN
    assert not any("parameters differ" in w for w in c.warnings)
    assert next(r for r in c.context if r.label == "test file").values == ("none", "none")
    other = compare([extraction("a", 600.0, "/data/200g.zpaq", 0), extraction("b", 60.0, "/data/20g.zpaq", 5)])
    assert any("profile parameters differ (A archive=/data/200g.zpaq; B archive=/data/20g.zpaq)" in w
               for w in other.warnings)
    assert {r.label: r.values for r in other.differences}["parameters"] == (
        "archive=/data/200g.zpaq", "archive=/data/20g.zpaq")


def test_interval_samples_describe_steadiness_and_never_decide():
    steady_a = [[50_000 + d for d in (100, -100, 50, -50, 0, 80, -80, 20)]]
    steady_b = [[40_000 + d for d in (100, -100, 50, -50, 0, 80, -80, 20)]]
    a = run_result("a", {READ: [50_000]}, intervals={READ: steady_a})
    b = run_result("b", {READ: [40_000]}, intervals={READ: steady_b}, minutes=5)
    iops = row(compare([a, b]), "Read 64K random", "iops")
    assert iops.deltas[1].verdict == UNKNOWN and iops.deltas[1].test is None  # -20 %, yet single runs
    assert iops.figures[0].steadiness == pytest.approx(statistics.stdev(steady_a[0]) / statistics.fmean(steady_a[0]))
    assert compare([a, b]).to_json()["steps"][0]["metrics"][0]["figures"][0]["steadiness_pct"] < 0.2


def test_mixed_steps_compare_read_and_write_iops_separately():
    a = run_result("a", {MIXED: [10_000]})
    b = run_result("b", {MIXED: [12_000]}, minutes=5)
    keys = [r.metric.key for r in compare([a, b]).groups[0].rows]
    assert keys[:4] == ["iops", "mib_s", "read_iops", "write_iops"]
