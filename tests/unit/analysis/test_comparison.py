"""Comparisons on synthetic results with known distributions: verdicts, matching, warnings, checks."""

import io
import json
import math
import random
import statistics
from dataclasses import replace

import pytest
from rich.console import Console

from labtui.analysis.comparison import compare, summarize
from labtui.analysis.figures import BETTER, NOISE, WORSE
from labtui.analysis.metrics import IOPS
from labtui.render.comparison import fmt_value, statistics_table
from synthetic import READ, WRITE, run_result


def verdicts(comparison, index=1):
    return {(g.name, r.metric.key): r.deltas[index].verdict for g in comparison.groups for r in g.rows
            if r.deltas[index] is not None and not r.metric.context}


def row(comparison, step_name, metric):
    group = next(g for g in comparison.groups if g.name == step_name)
    return group.row(metric)


def draws(mean, sd, n, seed):
    rng = random.Random(seed)
    return [rng.gauss(mean, sd) for _ in range(n)]


def test_identical_runs_are_within_noise():
    a = run_result("a", {READ: [50_000], WRITE: [40_000]})
    b = run_result("b", {READ: [50_000], WRITE: [40_000]}, minutes=5)
    c = compare([a, b])
    assert set(verdicts(c).values()) == {NOISE}
    assert row(c, "Read 64K random", "iops").deltas[1].relative_pct == 0
    assert c.warnings == ()


def test_repeated_runs_from_one_distribution_are_within_noise():
    a = run_result("a", {READ: draws(50_000, 2_500, 5, 1), WRITE: draws(40_000, 2_000, 5, 2)})
    b = run_result("b", {READ: draws(50_000, 2_500, 5, 3), WRITE: draws(40_000, 2_000, 5, 4)}, minutes=5)
    c = compare([a, b])
    assert set(verdicts(c).values()) == {NOISE}


def test_a_ten_percent_drop_with_small_spread_is_worse():
    a = run_result("a", {READ: draws(50_000, 250, 5, 1)})
    b = run_result("b", {READ: draws(45_000, 250, 5, 2)}, minutes=5)
    c = compare([a, b])
    iops = row(c, "Read 64K random", "iops")
    delta = iops.deltas[1]
    assert delta.verdict == WORSE
    assert delta.relative_pct == pytest.approx(-10, abs=1.5)
    assert delta.test.p_value < 1e-6 and "Welch" in delta.test.method
    # Latency is lower-is-better: the same drop makes it worse too, with the opposite sign.
    latency = row(c, "Read 64K random", "latency_mean_ms").deltas[1]
    assert latency.verdict == WORSE and latency.relative_pct > 0
    # And the other way round it is better.
    assert verdicts(compare([b, a]))[("Read 64K random", "iops")] == BETTER


def test_a_large_difference_with_a_large_spread_is_within_noise():
    a = run_result("a", {READ: [50_000, 58_000, 42_000]})
    b = run_result("b", {READ: [45_000, 53_000, 37_000]}, minutes=5)
    delta = row(compare([a, b]), "Read 64K random", "iops").deltas[1]
    assert delta.beyond_tolerance and delta.verdict == NOISE
    assert delta.test.p_value > 0.3 and "within the run-to-run noise" in delta.reason
    assert delta.basis.startswith("3 vs 3 runs, Welch p=")


def test_the_noise_of_a_step_is_pooled_with_its_neighbours_but_never_lowered():
    quiet = [100_000, 100_000 * 1.01, 100_000 * 0.99]
    steps = [replace(READ, name=f"Read {i}", outstanding=i) for i in range(1, 7)]
    lucky = [50_000, 50_010, 49_990]  # its own three runs happen to agree to 0.02 %
    a = run_result("a", {**dict.fromkeys(steps, quiet), WRITE: lucky})
    b = run_result("b", {**{s: [v * 0.995 for v in quiet] for s in steps}, WRITE: [49_200, 49_210, 49_190]},
                   minutes=5)
    c = compare([a, b], tolerance_pct=1)
    write = row(c, "Write 64K random", "iops")
    noise = write.figures[0].noise
    assert noise.variance > 10 * noise.own  # raised toward the other steps' 1 %
    assert noise.pooled_steps == 7 and noise.df > 2
    read = row(c, "Read 1", "iops").figures[0].noise  # above the pool: its own variance and freedom
    assert read.variance == pytest.approx(read.own) and read.df == 2
    noisy = [100_000, 130_000, 70_000]
    n = run_result("n", {**dict.fromkeys(steps, quiet), WRITE: noisy})
    assert row(compare([n]), "Write 64K random", "iops").figures[0].noise.variance == pytest.approx(
        row(compare([n]), "Write 64K random", "iops").figures[0].noise.own)  # never below its own


def test_an_aborted_result_is_flagged():
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {READ: [50_000]}, status="aborted", minutes=5)
    assert any("is aborted" in w for w in compare([a, b]).warnings)


def test_summary_reports_mean_sd_and_confidence_interval_per_metric():
    summary = summarize(run_result("a", {READ: [10_000, 12_000, 14_000]}))
    figure = summary.groups[0].row("iops").figures[0]
    assert (figure.n, figure.value, figure.stdev) == (3, pytest.approx(12_000), pytest.approx(2_000))
    # A rate's interval is the t interval of its log figures, mapped back (as its tests are of the logs).
    logs = [math.log(v) for v in (10_000, 12_000, 14_000)]
    half = 4.302652729749462 * statistics.stdev(logs) / 3**0.5
    assert figure.interval() == (pytest.approx(math.exp(statistics.fmean(logs) - half)),
                                 pytest.approx(math.exp(statistics.fmean(logs) + half)))


def test_an_interval_never_leaves_what_is_possible():
    """Three wildly different runs: a plain t interval of their mean reaches below zero (IOPS), or a p99 to
    "0.000 – …", or CPU past 100 %. Each is computed where it is bounded, and stays inside."""
    step = replace(READ, write_percent=0)
    summary = summarize(run_result("a", {step: [2_000, 9_000, 30_000]}))
    iops = summary.groups[0].row("iops").figures[0]
    assert iops.mean - 4.302652729749462 * iops.stdev / 3**0.5 < 0  # what the plain interval did
    low, high = iops.interval()
    assert 0 < low < min(iops.values) and high > max(iops.values)
    p99 = summary.groups[0].row("latency_p99_ms").figures[0]
    assert p99.interval()[0] > 0
    text = Console(width=200, record=True, file=io.StringIO())
    text.print(statistics_table(summary))
    assert f"{fmt_value(IOPS, low)} – {fmt_value(IOPS, high)}" in text.export_text()
    assert " 0 – " not in text.export_text() and "0.000 –" not in text.export_text()
    # Its margin beside the figure says how far the interval reaches each way: "±" half its width said
    # the mean could be 100 % and more lower, below zero.
    from labtui.render.comparison import fmt_margin

    assert fmt_margin(iops) == f"+>999/-{(1 - low / iops.mean) * 100:.0f} %" == "+>999/-98 %"
    assert fmt_margin(p99).startswith("+") and "±" not in fmt_margin(p99)
    steady = summarize(run_result("s", {step: [10_000, 10_200, 10_400]})).groups[0].row("iops").figures[0]
    assert fmt_margin(steady) == "±5.0 %"  # nearly as far each way: one figure, the wider side's
    # The machine's CPU, a share of 0-100 %: a proportion's interval, never past 100 % (or below 0).
    busy = summarize(run_result("b", {READ: [10_000] * 3}, cpu=None))
    cpu_values = (45.8, 96.0, 99.5)
    members = [replace(s, cpu_percent=v) for s, v in zip(busy.results[0].steps, cpu_values)]
    cpu = summarize(replace(busy.results[0], steps=tuple(members))).groups[0].row("cpu_percent").figures[0]
    mean, sd = statistics.fmean(cpu_values), statistics.stdev(cpu_values)
    assert mean + 4.302652729749462 * sd / 3**0.5 > 100  # the plain interval: "45.8 % – 115.5 %"
    low, high = cpu.interval()
    assert 0 < low < 45.8 and 99.5 < high < 100
    at_the_bound = replace(cpu, values=(90.0, 100.0, 100.0))
    assert at_the_bound.interval()[1] == 100.0


def test_a_fast_drive_s_p99_interval_does_not_read_as_zero():
    # Issue 39, item 11: two runs with p99s of 2 and 3 µs: the interval's low end, 0.19 µs, above zero as
    # it must be, was shown "0.000 – 0.032" ms.
    from labtui.model.result import LatencySummary
    from labtui.render.result_tables import fmt_ms

    fast = summarize(run_result("a", {READ: [300_000] * 2}))
    members = [replace(s, latency=LatencySummary(mean=0.001, p99=p99), read_latency=LatencySummary(mean=0.001, p99=p99))
               for s, p99 in zip(fast.results[0].steps, (0.002, 0.003))]
    summary = summarize(replace(fast.results[0], steps=tuple(members)))
    low, high = summary.groups[0].row("latency_p99_ms").figures[0].interval()
    assert 0 < low < 0.0005 and 0.03 < high < 0.04
    text = Console(width=200, record=True, file=io.StringIO())
    text.print(statistics_table(summary))
    assert "0.00019 – 0.032" in text.export_text() and "0.000 –" not in text.export_text()
    assert [fmt_ms(v) for v in (0.0, 0.0004, 0.004, 0.25, 2.5, 250.0)] == ["0.000", "0.00040", "0.004", "0.250",
                                                                           "2.50", "250"]


def test_comparison_json_is_plain_json():
    a = run_result("a", {READ: [50_000, 51_000], WRITE: [40_000, 40_500]})
    b = run_result("b", {READ: [45_000, 45_500], WRITE: [40_000, 40_100]}, engine="fio", minutes=5)
    data = json.loads(json.dumps(compare([a, b]).to_json(), allow_nan=False))
    read = data["steps"][0]
    iops = read["metrics"][0]
    assert iops["metric"] == "iops" and iops["better"] == "higher"
    assert iops["figures"][0]["n"] == 2 and iops["figures"][0]["ci_low"] < iops["figures"][0]["mean"]
    assert iops["deltas"][0] is None and iops["deltas"][1]["verdict"] in (BETTER, WORSE, NOISE)
    assert data["warnings"] and "Welch" in data["method"]


def test_the_noise_column_is_the_step_s_own_and_the_pooled_noise_is_said_where_it_is_used():
    """'noise 8.3 %' stood beside an sd of 4.7 %: it was pooled with the other steps, said only in a footnote.
    A result's table shows each step's own noise (what its sd says); the pooled one the tests used is said
    by --explain, with the step's own beside it."""
    from labtui.render.comparison import comparison_explanation, noise_used

    rng = random.Random(3)
    quiet = [50_000 * rng.lognormvariate(0, 0.01) for _ in range(3)]
    noisy = [40_000 * rng.lognormvariate(0, 0.08) for _ in range(3)]
    other = replace(READ, name="Read 4K", block_size=4096)
    result = run_result("a", {READ: quiet, WRITE: noisy, other: [v * 3 for v in quiet]})
    summary = summarize(result)
    figure = summary.groups[0].row("iops").figures[0]
    own = statistics.stdev(math.log(v) for v in figure.values)
    assert figure.noise.own_relative_sd == pytest.approx(math.sqrt(math.expm1(own**2)))
    assert figure.noise.relative_sd > figure.noise.own_relative_sd  # pooled up toward the noisy step
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(statistics_table(summary))
    text = console.export_text()
    row = next(line for line in text.splitlines() if "Read 64K random" in line and "IOPS" in line)
    assert f"{figure.noise.own_relative_sd * 100:.1f} %" in row and f"{figure.noise.relative_sd * 100:.1f} %" not in row
    assert "this step's own repetitions" in " ".join(text.split())
    pooled = noise_used(compare([result, result]).groups[0], ("A", "B"))
    assert pooled.startswith(f"A {figure.noise.relative_sd * 100:.1f} % (pooled over 3 steps; its own runs "
                             f"{figure.noise.own_relative_sd * 100:.1f} %)")
    explained = Console(width=200, record=True, file=io.StringIO())
    explained.print(comparison_explanation(compare([result, result])))
    assert "the run-to-run noise its tests used: A " in explained.export_text()
