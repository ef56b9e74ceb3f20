"""`check` on synthetic results of known distributions: the primary metric decides, the family is
corrected, doubtful and too-noisy lines are told apart from PASS and FAIL, each line says why."""

import json
import math
import random
from dataclasses import replace

import pytest

from labtui.analysis.checks import (
    DOUBT,
    FAIL,
    FAILED,
    INCONCLUSIVE,
    INFO,
    NOISY,
    PASS,
    PASSED,
    check,
    parse_fail_on,
)
from labtui.analysis.comparison import pooled
from labtui.errors import ValidationError
from labtui.model.profile import Step
from labtui.model.result import StepResult
from synthetic import MIXED, READ, WRITE, run_result


def noisy(mean, sd, n, rng):
    return [mean * rng.lognormvariate(0.0, sd) for _ in range(n)]


def line(report, step, metric):
    return next(l for l in report.lines if l.group.name == step and l.metric.key == metric)


def test_an_unchanged_quiet_disk_passes_and_only_throughput_decides():
    base = run_result("a", {READ: [50_000, 50_400, 49_600], WRITE: [40_000, 40_300, 39_700]}, cpu=20.0)
    same = run_result("b", {READ: [50_200, 50_600, 49_700], WRITE: [39_900, 40_400, 39_800]}, cpu=60.0,
                      minutes=5)
    report = check(base, same, 10)
    assert report.outcome == PASSED and report.passed and report.summary().startswith("PASS")
    assert {(l.group.name, l.metric.key) for l in report.gating} == {("Read 64K random", "iops"),
                                                                   ("Write 64K random", "iops")}
    assert {l.outcome for l in report.lines if not l.gating} == {INFO}  # latency, MiB/s and CPU (3x) only shown
    assert "2 lines tested together (Holm, 0.5 % family error), 3 vs 3 runs" in report.summary()
    read = line(report, "Read 64K random", "iops")
    assert "would have shown" in read.reason and read.unseen_pct < 10  # it could have seen a 10 % regression


def test_a_regression_beyond_tolerance_and_noise_fails_with_its_evidence():
    rng = random.Random(2)
    base = run_result("a", {READ: noisy(50_000, 0.02, 3, rng), WRITE: noisy(40_000, 0.02, 3, rng)})
    slower = run_result("b", {READ: noisy(35_000, 0.02, 3, rng), WRITE: noisy(40_000, 0.02, 3, rng)}, minutes=5)
    report = check(base, slower, 10)
    assert report.outcome == FAILED and report.needs_confirmation
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == FAIL and read.p_adjusted < 0.005 and read.p_adjusted >= read.p_worse
    assert "beyond the ±10 % tolerance: 3 vs 3 runs, t-test p=" in read.reason and "Holm-adjusted" in read.reason
    assert read.noise_pct == pytest.approx(2, abs=1.5) and read.test.df >= 4  # both sides' runs
    assert line(report, "Read 64K random", "latency_mean_ms").outcome == INFO  # worse too, but not asked for
    assert line(report, "Write 64K random", "iops").outcome == PASS
    assert report.summary().startswith("FAIL: 1 line regressed") and "Read 64K random IOPS -3" in report.summary()
    data = json.loads(json.dumps(report.to_json()))
    assert data["outcome"] == "fail" and data["passed"] is False


def test_fail_on_adds_latency_to_the_family():
    rng = random.Random(3)
    base = run_result("a", {READ: noisy(50_000, 0.01, 3, rng)}, latency_ms=1.0)
    later = run_result("b", {READ: noisy(50_000, 0.01, 3, rng)}, latency_ms=1.5, minutes=5)
    assert check(base, later, 10).outcome == PASSED
    report = check(base, later, 10, parse_fail_on(["p99,latency"]))
    assert line(report, "Read 64K random", "latency_p99_ms").outcome == FAIL
    assert len(report.gating) == 3 and report.outcome == FAILED


def test_fail_on_rejects_an_unknown_metric():
    with pytest.raises(ValidationError, match="unknown metric 'p95'"):
        parse_fail_on(["p99", "p95"])


def test_holm_corrects_for_the_number_of_steps():
    rng = random.Random(4)
    steps = [replace(READ, name=f"Read {i}", outstanding=i) for i in range(1, 9)]
    base = run_result("a", {s: noisy(50_000, 0.03, 3, rng) for s in steps})
    now = run_result("b", {s: noisy(50_000, 0.03, 3, rng) for s in steps}, minutes=5)
    report = check(base, now, 10)
    lines = sorted(report.gating, key=lambda l: l.p_worse)
    assert lines[0].p_adjusted == pytest.approx(min(1.0, 8 * lines[0].p_worse))
    assert all(l.p_adjusted >= l.p_worse for l in lines)


def test_worse_beyond_tolerance_but_not_beyond_noise_is_doubtful_and_asks_for_confirmation():
    base = run_result("a", {READ: [50_000, 56_000, 44_000], WRITE: [40_000, 40_400, 39_600]})
    dip = run_result("b", {READ: [44_000, 49_000, 39_000], WRITE: [40_000, 40_400, 39_600]}, minutes=5)
    report = check(base, dip, 10)
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == DOUBT and "not beyond the noise" in read.reason
    assert report.needs_confirmation and report.outcome == INCONCLUSIVE and not report.passed


def test_a_disk_too_noisy_to_tell_says_so_with_its_noise_and_how_many_runs_would_tell():
    rng = random.Random(5)
    base = run_result("a", {READ: noisy(50_000, 0.25, 3, rng), WRITE: noisy(40_000, 0.25, 3, rng)})
    again = run_result("b", {READ: noisy(50_000, 0.25, 3, rng), WRITE: noisy(44_000, 0.25, 3, rng)}, minutes=5)
    report = check(base, again, 10)
    assert report.outcome == INCONCLUSIVE and not report.failures
    unclear = report.noisy + report.doubtful
    assert unclear and all(l.noise_pct > 10 for l in unclear)
    summary = report.summary()
    assert summary.startswith("CANNOT TELL: too noisy to tell a regression of the ±10 % tolerance")
    assert "varies" in summary and "% from run to run" in summary and "runs" in report.runs_hint()


def test_single_runs_on_both_sides_cannot_tell():
    base = run_result("a", {READ: [50_000]})
    report = check(base, run_result("b", {READ: [20_000]}, minutes=5), 10)
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == NOISY and "single runs" in read.reason and report.outcome == INCONCLUSIVE


def test_a_single_run_baseline_is_judged_against_the_reruns_noise():
    rng = random.Random(6)
    base = run_result("a", {READ: [50_000], WRITE: [40_000]})
    throttled = run_result("b", {READ: noisy(2_000, 0.02, 3, rng), WRITE: noisy(2_000, 0.02, 3, rng)}, minutes=5)
    report = check(base, throttled, 10)
    assert report.outcome == FAILED
    assert "1 vs 3 runs, prediction" in line(report, "Read 64K random", "iops").reason


def test_a_real_but_small_regression_passes_and_says_so():
    base = run_result("a", {READ: [50_000, 50_050, 49_950], WRITE: [40_000, 40_040, 39_960]})
    small = run_result("b", {READ: [48_500, 48_550, 48_450], WRITE: [40_000, 40_040, 39_960]}, minutes=5)
    report = check(base, small, 10)
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == PASS and "real but within the ±10 % tolerance" in read.reason
    assert report.passed and "1 got measurably worse, within the tolerance" in report.summary()


def test_an_improvement_never_fails():
    rng = random.Random(7)
    base = run_result("a", {READ: noisy(50_000, 0.01, 3, rng)})
    faster = run_result("b", {READ: noisy(80_000, 0.01, 3, rng)}, minutes=5)
    assert check(base, faster, 10).outcome == PASSED


def test_a_step_missing_from_the_rerun_fails():
    base = run_result("a", {READ: [50_000, 50_100, 49_900], WRITE: [40_000, 40_100, 39_900]})
    partial = run_result("b", {READ: [50_000, 50_100, 49_900]}, status="aborted", minutes=5)
    report = check(base, partial, 10)
    assert report.outcome == FAILED and {l.reason for l in report.failures} == {"missing in the re-run"}


def test_command_steps_are_decided_by_wall_time():
    extract = Step(name="Extract archive", kind="command", command="zpaq x a.zpaq")

    def extraction(rid, seconds, minutes):
        base = run_result(rid, {READ: [1.0]}, minutes=minutes)
        steps = tuple(StepResult(step=extract, wall_seconds=s, exit_status=0, repetition=i + 1)
                      for i, s in enumerate(seconds))
        return replace(base, profile=replace(base.profile, name="zpaq-extract", steps=(extract,)), steps=steps)

    report = check(extraction("a", [600, 606, 594], 0), extraction("b", [900, 909, 891], 5), 10)
    [wall] = report.gating
    assert wall.metric.key == "wall_seconds" and wall.outcome == FAIL and wall.regression_pct == pytest.approx(50)


def test_mixed_steps_are_decided_by_their_total_throughput():
    base = run_result("a", {MIXED: [10_000, 10_050, 9_950]})
    report = check(base, run_result("b", {MIXED: [10_000, 10_050, 9_950]}, minutes=5), 10)
    assert [l.metric.key for l in report.gating] == ["iops"]


def test_a_baseline_of_several_results_pools_their_runs():
    a1 = run_result("a1", {READ: [50_000]})
    a2 = run_result("a2", {READ: [50_400, 49_700]}, minutes=2)
    report = check(pooled([a1, a2]), run_result("b", {READ: [50_100, 49_900, 50_200]}, minutes=5), 10)
    assert report.runs == (3, 3) and report.outcome == PASSED


def test_an_unchanged_disk_rarely_fails_at_any_noise():
    # The property the benchmark measures at scale (benchmarks/verdicts.py): seeded, so it cannot flake.
    rng = random.Random(8)
    steps = [replace(READ, name=f"Read {i}", outstanding=i) for i in range(1, 5)]
    fails = 0
    for trial in range(150):
        sd = (0.02, 0.05, 0.1, 0.2, 0.3)[trial % 5]
        base = run_result("a", {s: noisy(50_000, sd, 3, rng) for s in steps})
        now = run_result("b", {s: noisy(50_000, sd, 3, rng) for s in steps}, minutes=5)
        fails += check(base, now, 10).outcome == FAILED
    assert fails <= 3


def test_a_noisy_single_run_baseline_passes_when_the_runs_bound_the_regression():
    # The acceptance check's case: one baseline run, three re-runs varying ~10 %, tolerance 30 %.
    # The t-test could not see a 30 % regression (2 degrees of freedom per step at a 0.25 % level),
    # but the re-run is faster, and the one-sided 95 % bound says it is not 30 % slower.
    base = run_result("a", {READ: [19_000], WRITE: [49_000]})
    again = run_result("b", {READ: [22_500, 22_900, 19_500], WRITE: [58_300, 56_500, 51_200]}, minutes=5)
    report = check(base, again, 30)
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == PASS and read.bounded and read.unseen_pct > 30
    assert 0 < read.bound_pct < 30 and "worse by at most" in read.reason and "95 % confidence" in read.reason
    assert report.passed and "bound it: with 95 % confidence" in report.summary()
    bounded = [l for l in report.gating if l.bounded]
    loosest = max(bounded, key=lambda l: l.bound_pct)
    if len(bounded) > 1:  # several lines: the sentence speaks of all of them, and names the loosest
        assert (f"none is worse by more than {loosest.bound_pct:.1f} % (the loosest bound: {loosest.group.name} "
                f"IOPS)") in report.summary()
    assert json.loads(json.dumps(report.to_json()))["lines"][0]["bound_pct"] == pytest.approx(read.bound_pct)


def test_the_same_noise_with_a_slower_rerun_cannot_tell():
    base = run_result("a", {READ: [19_000], WRITE: [49_000]})
    slower = run_result("b", {READ: [16_200, 17_900, 14_600], WRITE: [41_000, 44_500, 37_800]}, minutes=5)
    report = check(base, slower, 30)
    read = line(report, "Read 64K random", "iops")
    assert read.outcome == NOISY and not read.bounded and read.bound_pct > 30
    assert "allow one of up to" in read.reason and report.outcome == INCONCLUSIVE


def test_the_bound_is_the_one_sided_95_percent_confidence_limit():
    from labtui.analysis.checks import _bound
    from labtui.analysis.metrics import IOPS, LATENCY_MEAN
    from labtui.analysis.stats import TestResult

    # diff of the log means +0.1 with standard error 0.05 on 4 degrees of freedom: t(0.95, 4) = 2.131847
    test = TestResult("t-test", 0.1 / 0.05, 4.0, 0.0, 0.05)
    low, high = 0.1 - 2.131847 * 0.05, 0.1 + 2.131847 * 0.05
    assert _bound(IOPS, test) == pytest.approx(-(math.exp(low) - 1) * 100, rel=1e-5)  # throughput: a fall
    assert _bound(LATENCY_MEAN, test) == pytest.approx((math.exp(high) - 1) * 100, rel=1e-5)  # latency: a rise


def test_a_true_regression_of_the_tolerance_rarely_passes():
    # What the bound promises: a disk that truly got 10 % slower passes at most ~5 in 100 checks
    # (one line; with more lines each must hold). Seeded, so it cannot flake.
    rng = random.Random(9)
    passes = 0
    trials = 300
    for trial in range(trials):
        sd = (0.02, 0.05, 0.1)[trial % 3]
        base = run_result("a", {READ: noisy(50_000, sd, 1 + 2 * (trial % 2), rng)})
        now = run_result("b", {READ: noisy(45_000, sd, 3, rng)}, minutes=5)
        passes += check(base, now, 10).outcome == PASSED
    assert passes <= 0.08 * trials


def test_a_second_pass_says_why_it_is_run():
    base = run_result("a", {READ: [50_000, 56_000, 44_000], WRITE: [40_000, 40_400, 39_600]})
    dip = run_result("b", {READ: [44_000, 49_000, 39_000], WRITE: [40_000, 40_400, 39_600]}, minutes=5)
    assert check(base, dip, 10).second_pass() == "the first pass looks worse (Read 64K random IOPS -12.0 %)"
    rng = random.Random(5)
    base = run_result("a", {READ: noisy(50_000, 0.25, 3, rng), WRITE: noisy(40_000, 0.25, 3, rng)})
    again = run_result("b", {READ: noisy(50_000, 0.25, 3, rng), WRITE: noisy(44_000, 0.25, 3, rng)}, minutes=5)
    report = check(base, again, 10)
    assert not report.needs_confirmation and report.noisy
    worst = max(report.noisy, key=lambda l: l.noise_pct)
    assert report.second_pass() == (f"the first pass is too noisy to tell ({worst.group.name} IOPS varies "
                                    f"{worst.noise_pct:.0f} % from run to run)")
