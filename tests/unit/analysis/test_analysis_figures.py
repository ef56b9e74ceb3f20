"""One figure against another (labtui/analysis/figures.py): the verdict at the tolerance, what single runs may
claim, the hint from known noise."""

import pytest

from labtui.analysis.comparison import compare
from labtui.analysis.figures import SMALL, UNKNOWN, WORSE, KnownNoise
from synthetic import READ, run_result


def row(comparison, step_name, metric):
    group = next(g for g in comparison.groups if g.name == step_name)
    return group.row(metric)


@pytest.mark.parametrize("drop", [0.02, 0.3, 0.9])
def test_single_runs_never_claim_whatever_the_difference(drop):
    a = run_result("a", {READ: [100_000]})
    b = run_result("b", {READ: [100_000 * (1 - drop)]}, minutes=5)
    delta = row(compare([a, b]), "Read 64K random", "iops").deltas[1]
    assert delta.verdict == UNKNOWN and not delta.claim and delta.test is None
    assert delta.relative_pct == pytest.approx(-drop * 100)
    assert delta.basis == "single runs" and "single runs cannot tell it from noise" in delta.reason
    assert "--repeat" in delta.hint  # nothing known about this disk: measure the noise
    data = compare([a, b]).to_json()["steps"][0]["metrics"][0]["deltas"][1]
    assert data["verdict"] == "noise unknown" and data["claim"] is False and data["decided_by"] == "single runs"


def test_the_hint_says_how_many_runs_from_what_is_known_about_the_disk():
    a = run_result("a", {READ: [100_000]})
    b = run_result("b", {READ: [90_000]}, minutes=5)
    known = KnownNoise(0.05, 12, "in 12 earlier runs of quick-sanity on this disk")
    delta = row(compare([a, b], hint=lambda step, metric: known), "Read 64K random", "iops").deltas[1]
    assert delta.verdict == UNKNOWN and delta.known is known
    assert delta.hint == "about 5 runs each would tell a 10 % change (noise 5.0 % in 12 earlier runs of quick-sanity " \
        "on this disk)"
    assert delta.reason.endswith("; " + delta.hint)


def test_the_verdict_flips_at_the_tolerance_with_repetitions_too():
    a = run_result("a", {READ: [100_000, 100_020, 99_980]})
    inside = run_result("b", {READ: [v * 0.951 for v in (100_000, 100_020, 99_980)]}, minutes=5)
    outside = run_result("c", {READ: [v * 0.949 for v in (100_000, 100_020, 99_980)]}, minutes=5)
    c = compare([a, inside, outside])
    iops = row(c, "Read 64K random", "iops")
    assert iops.deltas[1].verdict == SMALL and iops.deltas[1].test.p_value < 0.001  # real, but small
    assert "within the ±5 % tolerance" in iops.deltas[1].reason and not iops.deltas[1].claim
    assert iops.deltas[2].verdict == WORSE and iops.deltas[2].claim


def test_one_run_against_repetitions_uses_their_spread():
    reps = run_result("a", {READ: [50_000, 50_500, 49_500, 50_200]})
    single_far = run_result("b", {READ: [40_000]}, minutes=5)
    single_near = run_result("c", {READ: [48_000]}, minutes=5)
    c = compare([reps, single_far, single_near], tolerance_pct=1)
    iops = row(c, "Read 64K random", "iops")
    assert iops.deltas[1].verdict == WORSE and iops.deltas[1].test.method == "prediction"
    assert iops.deltas[1].basis == "4 vs 1 runs, prediction p<0.001"
    assert iops.deltas[2].verdict == WORSE and iops.deltas[2].test.p_value < 0.05
