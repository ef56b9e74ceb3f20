"""Comparison of results: steps matched by workload, figures with their run-to-run noise, differences, verdicts.

Pure (no Textual, no rich): the CLI's `compare` and `check` and the TUI's Compare screen all
read the same `Comparison`. The first result is the reference; every other one is compared with
it, metric by metric.

Matching: a step belongs with the steps of the other results that run the same workload
(`Step.workload_key()`: block size, pattern, write mix, threads, outstanding, cache), whatever
they are called or wherever they sit. When a profile holds the same workload several times
(configmgr-sql reads for 60 s and for 300 s) the n-th one matches the n-th one, and the group
says so. A step whose only difference is the cache mode (a file system that refused O_DIRECT
runs it buffered) is still matched, with a warning.

Verdicts: only run-to-run noise (repetitions) can show a difference to be real. A difference is
"better" or "worse" when it is larger than the tolerance and significant (two-sided, 95 %) by a
t-test of the log figures: Welch's across repetitions on both sides, a prediction t-test for one
run against repetitions. Each step's noise is pooled with the other steps' of the same result
(labtui.analysis.stats: moderated toward their typical noise, never below its own). Significant but
smaller than the tolerance is "within tolerance"; not significant is "within noise"; single
runs on both sides are "noise unknown": the difference is shown and never called.
Interval samples only describe how steady each run was.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from statistics import fmean, median
from typing import Any

from labtui.analysis.bottleneck import analyse, compared
from labtui.analysis.stats import (
    ALPHA,
    CONFIDENCE,
    Noise,
    Prior,
    Spread,
    TestResult,
    log_values,
    noise_of,
    noise_prior,
    prediction,
    runs_needed,
    spread_of_repetitions,
    steadiness,
    welch_of,
)
from labtui.engine import cpubound
from labtui.errors import LabtuiError
from labtui.model import MIB, RunResult, Sample, Step, StepResult
from labtui.results.profile_file import step_to_table
from labtui.units import format_duration, format_size

DEFAULT_TOLERANCE_PCT = 5.0
BETTER, WORSE = "better", "worse"  # the only claims
NOISE = "within noise"  # the run-to-run noise could explain the difference
SMALL = "within tolerance"  # real by the noise, but smaller than the tolerance
UNKNOWN = "noise unknown"  # single runs: nothing tells the difference from noise
VERDICTS = (BETTER, WORSE, NOISE, SMALL, UNKNOWN)
CLAIMS = (BETTER, WORSE)
HINT_CHANGE = 0.10  # the sample-size hint: runs that would tell a change this large


# --------------------------------------------------------------------------- metrics


@dataclass(frozen=True)
class Metric:
    """One figure compared between results, and which way is better."""

    key: str
    label: str
    unit: str
    higher_is_better: bool
    value: Callable[[StepResult], float | None] = field(repr=False, compare=False)
    series: Callable[[Sample, Step], float | None] | None = field(default=None, repr=False, compare=False)
    # Whole-machine CPU use includes whatever else the machine did: shown, but never a failed check.
    gates_check: bool = True

    @property
    def better(self) -> str:
        return "higher" if self.higher_is_better else "lower"


def _mean_latency(sample: Sample, step: Step) -> float | None:
    reads, writes = sample.read_ios, sample.write_ios
    r, w = sample.read_lat_mean_ms, sample.write_lat_mean_ms
    if reads and writes and r is not None and w is not None:
        return (reads * r + writes * w) / (reads + writes)
    if reads and not writes:
        return r
    if writes and not reads:
        return w
    return None


def _p99_latency(sample: Sample, step: Step) -> float | None:
    # Percentiles of two directions do not combine; a mixed step has no per-interval p99.
    if step.write_percent == 0:
        return sample.read_lat_p99_ms
    if step.write_percent == 100:
        return sample.write_lat_p99_ms
    return None


IOPS = Metric("iops", "IOPS", "IOPS", True, lambda s: s.total.iops, lambda x, _: x.iops)
MIB_S = Metric("mib_s", "MiB/s", "MiB/s", True, lambda s: s.total.mib_s, lambda x, _: x.mib_s)
# CrystalDiskMark's unit, 10^6 bytes per second (4.86 % above MiB/s): shown beside MiB/s for a
# profile with decimal_units; the same measurement, so it never gates a check on its own.
MB_S = Metric("mb_s", "MB/s", "MB/s", True, lambda s: s.total.bytes_per_second / 1e6,
              lambda x, _: x.mib_s * MIB / 1e6, gates_check=False)
READ_IOPS = Metric("read_iops", "read IOPS", "IOPS", True, lambda s: s.read.iops, lambda x, _: x.read_iops)
WRITE_IOPS = Metric("write_iops", "write IOPS", "IOPS", True, lambda s: s.write.iops, lambda x, _: x.write_iops)
LATENCY_MEAN = Metric("latency_mean_ms", "mean latency", "ms", False, lambda s: s.latency.mean, _mean_latency)
LATENCY_P99 = Metric("latency_p99_ms", "p99 latency", "ms", False, lambda s: s.latency.p99, _p99_latency)
# A mixed step's p99 per direction: compared where a result has no p99 of both directions together
# (a plain fio JSON report has no histograms to merge them with).
READ_P99 = Metric("read_p99_ms", "read p99", "ms", False, lambda s: s.read_latency.p99,
                  lambda x, _: x.read_lat_p99_ms)
WRITE_P99 = Metric("write_p99_ms", "write p99", "ms", False, lambda s: s.write_latency.p99,
                   lambda x, _: x.write_lat_p99_ms)
CPU = Metric("cpu_percent", "CPU", "%", False, lambda s: s.cpu_percent, lambda x, _: x.cpu_percent, gates_check=False)
WALL = Metric("wall_seconds", "wall time", "s", False, lambda s: s.wall_seconds)

METRICS = (IOPS, MIB_S, MB_S, READ_IOPS, WRITE_IOPS, LATENCY_MEAN, LATENCY_P99, READ_P99, WRITE_P99, CPU, WALL)


def metrics_for(step: Step) -> tuple[Metric, ...]:
    """The metrics that mean something for a step of this kind."""
    if not step.is_io:
        return (WALL, CPU)
    mixed = 0 < step.write_percent < 100
    return (IOPS, MIB_S) + ((READ_IOPS, WRITE_IOPS) if mixed else ()) + (LATENCY_MEAN, LATENCY_P99, CPU)


# --------------------------------------------------------------------------- figures and deltas


@dataclass(frozen=True)
class Figure:
    """One result's value of one metric for one step, made of its repetitions, and its noise.

    `value` is the headline figure as the result's profile aggregates it: the mean of the
    repetitions, or (aggregate = "best", CrystalDiskMark's way) the best of them. The statistics
    (spread, interval, noise, every test) are of the repetitions themselves and their mean:
    a best-of figure is not a sample mean, and is never tested as one.
    """

    value: float
    values: tuple[float, ...]  # one per completed repetition, in order
    spread: Spread | None  # of the repetitions (None for a single run): the confidence interval shown
    logs: tuple[float, ...] | None = None  # the values' logarithms (None if any is zero)
    noise: Noise | None = None  # run-to-run noise of the logs, pooled across the result's steps
    steadiness: float | None = None  # how much the run's interval samples vary (CV; the median over runs)
    aggregate: str = "mean"  # how `value` is made of `values` (Profile.aggregate)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return fmean(self.values)

    @property
    def best(self) -> bool:
        """The headline is a best-of figure (not the mean) of several repetitions."""
        return self.aggregate == "best" and self.n > 1

    @property
    def aggregation(self) -> str:
        """How the headline was made, short: "best of 3", "mean of 3", "single run"."""
        if self.n <= 1:
            return "single run"
        return f"{'best' if self.aggregate == 'best' else 'mean'} of {self.n}"

    @property
    def stdev(self) -> float | None:
        """Standard deviation across repetitions (None for a single run)."""
        return self.spread.stdev if self.spread is not None else None

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
        """The confidence interval of the mean (of a best-of figure's repetitions too), or None for a single run.

        Every figure labtui measures is zero or more: the t interval of a few noisy repetitions can
        reach below zero ("-2,882 - 22,500 IOPS"), which no mean can be. It is cut at zero, which
        keeps its coverage (the true mean is never in the part cut off).
        """
        if self.spread is None:
            return None
        low, high = self.spread.interval(self.mean, confidence)
        return max(0.0, low), high

    def to_json(self, confidence: float = CONFIDENCE) -> dict[str, Any]:
        ci = self.interval(confidence)
        return {
            "value": self.value,
            "aggregate": self.aggregate if self.n > 1 else "single",
            "aggregation": self.aggregation,
            "mean": self.mean,
            "n": self.n,
            "values": list(self.values),
            "stdev": self.stdev,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "spread": self.spread.describe() if self.spread else None,
            "noise_pct": self.noise.relative_sd * 100 if self.noise else None,
            "noise": self.noise.describe() if self.noise else None,
            "steadiness_pct": self.steadiness * 100 if self.steadiness is not None else None,
        }


@dataclass(frozen=True)
class Delta:
    """A figure against the reference's: the difference, the verdict, and what decided it."""

    absolute: float
    relative_pct: float | None  # None when the reference is zero
    verdict: str  # one of VERDICTS; only BETTER and WORSE are claims
    beyond_tolerance: bool
    test: TestResult | None  # None where no run-to-run noise is known
    basis: str  # what decided it, short: "3 vs 3 runs, Welch p=0.004", "single runs"
    reason: str  # one sentence: the difference, the verdict and why
    hint: str | None = None  # how many runs would tell, where the noise is unknown
    runs: tuple[int, int] = (1, 1)  # reference's and other's

    @property
    def claim(self) -> bool:
        return self.verdict in CLAIMS

    def to_json(self) -> dict[str, Any]:
        return {
            "absolute": self.absolute,
            "relative_pct": self.relative_pct,
            "verdict": self.verdict,
            "claim": self.claim,
            "beyond_tolerance": self.beyond_tolerance,
            "decided_by": self.basis,
            "test": self.test.method if self.test else None,
            "p_value": self.test.p_value if self.test else None,
            "runs": list(self.runs),
            "reason": self.reason,
            "hint": self.hint,
        }


def fmt_p(p: float) -> str:
    """A p-value as a table shows it."""
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.3f}" if p < 0.1 else f"p={p:.2f}"


def judge(metric: Metric, reference: Figure, other: Figure, tolerance_pct: float, alpha: float = ALPHA,
          hint: str | None = None) -> Delta:
    """Compare `other` with `reference` for `metric`: a verdict, and what decided it."""
    absolute = other.value - reference.value
    relative = absolute / reference.value * 100.0 if reference.value else (0.0 if absolute == 0 else None)
    beyond = abs(relative) > tolerance_pct if relative is not None else absolute != 0
    change = f"{relative:+.1f} %" if relative is not None else f"{absolute:+.4g} {metric.unit}"
    if reference.best or other.best:
        # The t-test is of the repetitions' means: so is the size the tolerance is held against.
        # The best-of difference is shown; what is claimed rests on the means.
        on_means = other.mean - reference.mean
        mean_rel = on_means / reference.mean * 100.0 if reference.mean else None
        beyond = abs(mean_rel) > tolerance_pct if mean_rel is not None else on_means != 0
        means = f"{mean_rel:+.1f} %" if mean_rel is not None else f"{on_means:+.4g} {metric.unit}"
        change = f"{change} ({reference.aggregation} vs {other.aggregation}; the means {means})"
    runs = (reference.n, other.n)
    test = test_of(reference, other)
    if absolute == 0:
        return Delta(absolute, relative, NOISE, False, test, "no difference", "no difference", runs=runs)
    if test is None:
        if reference.logs is None or other.logs is None:
            basis = "zero figures: no relative test"
            reason = f"{change}: a figure of zero has no relative noise to test it against"
        else:
            basis = "single runs"
            reason = f"{change}: single runs cannot tell it from noise" + (f"; {hint}" if hint else "")
        return Delta(absolute, relative, UNKNOWN, beyond, None, basis, reason, hint, runs)
    basis = f"{runs[0]} vs {runs[1]} runs, {test.method} {fmt_p(test.p_value)}"
    if not test.significant(alpha):
        return Delta(absolute, relative, NOISE, beyond, test, basis,
                     f"{change} is within the run-to-run noise ({basis})", runs=runs)
    if not beyond:
        return Delta(absolute, relative, SMALL, False, test, basis,
                     f"{change} is real by the noise ({basis}) but within the ±{tolerance_pct:g} % tolerance",
                     runs=runs)
    improved = (absolute > 0) == metric.higher_is_better
    return Delta(absolute, relative, BETTER if improved else WORSE, True, test, basis,
                 f"{change} is beyond the ±{tolerance_pct:g} % tolerance and the run-to-run noise ({basis})",
                 runs=runs)


def test_of(reference: Figure, other: Figure) -> TestResult | None:
    """The t-test of the two figures' log means, where run-to-run noise is known on either side."""
    a, b = reference, other
    if a.logs is None or b.logs is None:
        return None
    if a.noise is not None and b.noise is not None:
        return welch_of(a.logs, a.noise, b.logs, b.noise)
    if a.noise is not None and b.n == 1:
        return prediction(b.logs[0], a.logs, a.noise, single_is_b=True)
    if b.noise is not None and a.n == 1:
        return prediction(a.logs[0], b.logs, b.noise, single_is_b=False)
    return None


test_of.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, whatever the name suggests


# --------------------------------------------------------------------------- the comparison


@dataclass(frozen=True)
class MetricRow:
    metric: Metric
    figures: tuple[Figure | None, ...]  # one per result; None where the result lacks the figure
    deltas: tuple[Delta | None, ...]  # one per result; the reference's (first) is always None

    def to_json(self, ids: Sequence[str], confidence: float) -> dict[str, Any]:
        return {
            "metric": self.metric.key,
            "label": self.metric.label,
            "unit": self.metric.unit,
            "better": self.metric.better,
            "figures": [f.to_json(confidence) | {"id": i} if f else None for f, i in zip(self.figures, ids)],
            "deltas": [d.to_json() | {"id": i} if d else None for d, i in zip(self.deltas, ids)],
        }


@dataclass(frozen=True)
class StepGroup:
    """The steps of the results that run one workload, and their figures metric by metric."""

    workload: tuple  # Step.workload_key() of the first step in the group
    occurrence: int  # 1 = the first step with this workload in its profile, 2 = the second ...
    steps: tuple[Step | None, ...]  # one per result; None where the result has no such step
    rows: tuple[MetricRow, ...]
    notes: tuple[str, ...] = ()

    @property
    def step(self) -> Step:
        return next(s for s in self.steps if s is not None)

    @property
    def name(self) -> str:
        return self.step.name

    @property
    def label(self) -> str:
        return self.step.label()

    def row(self, key: str) -> MetricRow | None:
        return next((r for r in self.rows if r.metric.key == key), None)

    def to_json(self, ids: Sequence[str], confidence: float) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "workload": step_to_table(self.step) | {"name": None},
            "occurrence": self.occurrence,
            "names": [s.name if s else None for s in self.steps],
            "notes": list(self.notes),
            "metrics": [r.to_json(ids, confidence) for r in self.rows],
        }


@dataclass(frozen=True)
class ContextRow:
    """One fact about the runs (disk model, engine, ...) as each result records it."""

    label: str
    values: tuple[str, ...]

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1


@dataclass(frozen=True)
class Comparison:
    results: tuple[RunResult, ...]
    groups: tuple[StepGroup, ...]
    context: tuple[ContextRow, ...]
    warnings: tuple[str, ...]
    tolerance_pct: float
    confidence: float = CONFIDENCE
    # Per group (in order): what limited the step across the results, in words (labtui.analysis.
    # bottleneck: the link, the CPU); None where nothing did but the drives themselves.
    bottlenecks: tuple[str | None, ...] = ()

    @property
    def letters(self) -> tuple[str, ...]:
        """Short names for the results in tables: A (the reference), B, C ..."""
        return tuple(_letter(i) for i in range(len(self.results)))

    @property
    def differences(self) -> tuple[ContextRow, ...]:
        return tuple(row for row in self.context if row.differs)

    @property
    def method(self) -> str:
        """How the verdicts were reached, in one paragraph for the output."""
        return (
            f"Differences are against {self.letters[0]}. Only run-to-run noise (repetitions) can show a difference "
            f"to be real: better or worse means larger than the ±{self.tolerance_pct:g} % tolerance and significant "
            f"at {self.confidence:.0%} (two-sided; each line on its own) by a t-test of the log figures, Welch's "
            "across repetitions, a prediction test for one run against repetitions, with each step's noise pooled "
            "with the other steps' of its result (never below its own). Within noise: not significant. Within "
            "tolerance: significant but smaller. Noise unknown: single runs on both sides cannot tell a "
            "difference from noise, whatever its size. Interval samples show how steady a run was, never a verdict."
        )

    @property
    def hints(self) -> tuple[str, ...]:
        """The sample-size hints of lines whose noise is unknown, each once."""
        seen: dict[str, None] = {}
        for group in self.groups:
            for row in group.rows:
                for delta in row.deltas:
                    if delta is not None and delta.verdict == UNKNOWN and delta.hint:
                        seen.setdefault(delta.hint)
        return tuple(seen)

    def to_json(self) -> dict[str, Any]:
        ids = [r.id for r in self.results]
        return {
            "tolerance_pct": self.tolerance_pct,
            "confidence": self.confidence,
            "method": self.method,
            "hints": list(self.hints),
            "results": [_result_json(r, letter) for r, letter in zip(self.results, self.letters)],
            "warnings": list(self.warnings),
            "context": [{"label": c.label, "values": list(c.values), "differs": c.differs} for c in self.context],
            "steps": [g.to_json(ids, self.confidence) | {"bottleneck": self.bottleneck(i)}
                      for i, g in enumerate(self.groups)],
            "bottleneck": [analyse(r).to_json() | {"id": r.id} for r in self.results],
        }

    def bottleneck(self, index: int) -> str | None:
        """What limited group `index` across the results, or None."""
        return self.bottlenecks[index] if index < len(self.bottlenecks) else None


def _letter(index: int) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return letters[index] if index < len(letters) else f"R{index + 1}"


def _result_json(result: RunResult, letter: str) -> dict[str, Any]:
    return {
        "letter": letter,
        "id": result.id,
        "started": result.started.isoformat(),
        "status": result.status,
        "profile": result.profile.name,
        "engine": result.engine.name,
        "disk_model": result.target.model,
        "target": result.target.path,
        "repeat": max((s.repetition for s in result.steps), default=0),
        "tags": list(result.tags),
    }


NoiseHint = Callable[[Step, Metric], str | None]


def compare(
    results: Sequence[RunResult],
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
    confidence: float = CONFIDENCE,
    hint: NoiseHint | None = None,
) -> Comparison:
    """Compare every result with the first. One result alone gives its figures and noise.

    `hint(step, metric)` says how many runs would tell a difference where single runs cannot
    (labtui.analysis.known_noise builds one from earlier runs of the same disk); without it the hint
    says to repeat the runs.
    """
    if not results:
        raise LabtuiError("nothing to compare: give at least one result")
    if not (tolerance_pct >= 0 and math.isfinite(tolerance_pct)):
        raise LabtuiError(f"the tolerance must be a percentage of 0 or more, got {tolerance_pct}")
    results = tuple(results)
    alpha = 1.0 - confidence
    masters = _match(results)
    letters = [_letter(i) for i in range(len(results))]
    raw = [_raw_figures(master, results) for master in masters]
    priors = _priors(raw, len(results))
    groups = []
    for master, (occs, rows) in zip(masters, raw):
        groups.append(_group(master, occs, rows, priors, letters, tolerance_pct, alpha, hint))
    warnings = (_warnings(results, masters, letters) + _steady_warnings(results, masters, letters)
                + engine_bound_warnings(results, letters))
    limits = compared(results, [[s.name if s else None for s in g.steps] for g in groups], letters)
    return Comparison(results, tuple(groups), _context(results), tuple(warnings), tolerance_pct, confidence,
                      tuple(limits))


def pooled(runs: Sequence[RunResult]) -> RunResult:
    """Several runs of one profile as one result holding all their repetitions (for comparing).

    In memory only: each run stays its own saved result. The context is the first run's.
    """
    if not runs:
        raise ValueError("nothing to pool")
    steps: list[StepResult] = []
    offset = 0
    for run in runs:
        steps += [replace(s, repetition=s.repetition + offset) for s in run.steps]
        offset += max((s.repetition for s in run.steps), default=0)
    first = runs[0]
    return replace(first, id="+".join(r.id for r in runs), ended=runs[-1].ended, steps=tuple(steps),
                   profile=replace(first.profile, repeat=max(offset, 1)))


def summarize(result: RunResult) -> Comparison:
    """One result's figures per step and metric with their spread (mean, sd, 95 % CI)."""
    return compare([result])


def statistics_json(summary: Comparison) -> list[dict[str, Any]]:
    """The first result's figures per step and metric: n, mean, sd, confidence interval, basis."""
    return [
        {
            "name": group.name,
            "label": group.label,
            "occurrence": group.occurrence,
            "metrics": [
                {"metric": row.metric.key, **row.figures[0].to_json(summary.confidence)}
                for row in group.rows
                if row.figures[0] is not None
            ],
        }
        for group in summary.groups
        if group.steps[0] is not None
    ]


# --------------------------------------------------------------------------- matching


@dataclass
class _Occurrence:
    """The n-th step with one workload in one result, with its repetitions."""

    key: tuple
    index: int  # 0-based occurrence among the result's steps with this workload
    count: int  # how many steps with this workload the result has
    members: list[StepResult]

    @property
    def step(self) -> Step:
        return self.members[0].step


@dataclass
class _Master:
    key: tuple
    index: int
    members: dict[int, _Occurrence]
    cache_mismatch: bool = False


def _loose(key: tuple) -> tuple:
    # The same workload whatever the cache mode and write-through (an io key ends with them).
    return key[:6] if key and key[0] == "io" else key


def _occurrences(result: RunResult) -> list[_Occurrence]:
    found: dict[tuple, _Occurrence] = {}
    counts: dict[int, Counter] = {}
    for sr in result.steps:
        key = sr.step.workload_key()
        seen = counts.setdefault(sr.repetition, Counter())
        index = seen[key]
        seen[key] += 1
        occurrence = found.setdefault((key, index), _Occurrence(key, index, 0, []))
        occurrence.members.append(sr)
    per_key = Counter(key for key, _ in found)
    for (key, _), occurrence in found.items():
        occurrence.count = per_key[key]
    return list(found.values())


def _match(results: Sequence[RunResult]) -> list[_Master]:
    masters: list[_Master] = []
    for ri, result in enumerate(results):
        left = []
        for occ in _occurrences(result):
            master = next((m for m in masters if m.key == occ.key and m.index == occ.index and ri not in m.members), None)
            if master is not None:
                master.members[ri] = occ
            else:
                left.append(occ)
        for occ in left:
            # Same workload but another cache mode: matched in order, and flagged.
            master = next((m for m in masters if _loose(m.key) == _loose(occ.key) and ri not in m.members), None)
            if master is not None:
                master.members[ri] = occ
                master.cache_mismatch = True
            else:
                masters.append(_Master(occ.key, occ.index, {ri: occ}))
    return masters


_RawRow = tuple[Metric, list[Figure | None]]


def _raw_figures(master: _Master, results: Sequence[RunResult]) -> tuple[list[_Occurrence | None], list[_RawRow]]:
    """Each result's figures for a group's metrics, before their noise is pooled across steps."""
    occs = [master.members.get(i) for i in range(len(results))]
    first = next(o.step for o in occs if o is not None)
    rows = []
    metrics = metrics_for(first)
    if first.is_io and any(r.profile.decimal_units for r in results):
        metrics = (*metrics[:2], MB_S, *metrics[2:])
    for metric in metrics:
        figures = [_figure(metric, o.members, results[i].profile.aggregate) if o else None for i, o in enumerate(occs)]
        if any(f is not None for f in figures):
            rows.append((metric, figures))
        if metric is LATENCY_P99 and 0 < first.write_percent < 100 and any(
                o is not None and f is None for o, f in zip(occs, figures)):
            # A result without a p99 of both directions: each direction's is compared instead.
            for direction in (READ_P99, WRITE_P99):
                each = [_figure(direction, o.members, results[i].profile.aggregate) if o else None
                        for i, o in enumerate(occs)]
                if any(f is not None for f in each):
                    rows.append((direction, each))
    return occs, rows


def _priors(raw: Sequence[tuple[list, list[_RawRow]]], count: int) -> dict[tuple[int, str], Prior]:
    """Per result and metric: what its steps' repetitions say together about its relative noise."""
    estimates: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for _occs, rows in raw:
        for metric, figures in rows:
            for i, figure in enumerate(figures):
                if figure is not None and figure.noise is not None:
                    estimates.setdefault((i, metric.key), []).append((figure.noise.own, figure.noise.df))
    priors = {}
    for key, pairs in estimates.items():
        prior = noise_prior(pairs)
        if prior is not None:
            priors[key] = prior
    return priors


def _group(master: _Master, occs: Sequence[_Occurrence | None], raw_rows: Sequence[_RawRow],
           priors: dict[tuple[int, str], Prior], letters: Sequence[str], tolerance_pct: float, alpha: float,
           hint: NoiseHint | None) -> StepGroup:
    steps = tuple(o.step if o else None for o in occs)
    rows = []
    for metric, raw in raw_rows:
        figures = tuple(_pooled_noise(f, priors.get((i, metric.key))) if f else None for i, f in enumerate(raw))
        reference = figures[0]
        deltas = tuple(
            judge(metric, reference, f, tolerance_pct, alpha,
                  _hint(hint, steps[i] or steps[0], metric) if reference.n == 1 and f.n == 1 else None)
            if i and reference is not None and f is not None else None
            for i, f in enumerate(figures)
        )
        rows.append(MetricRow(metric, figures, deltas))
    return StepGroup(master.key, master.index + 1, steps, tuple(rows), tuple(_notes(master, occs, letters)))


def _pooled_noise(figure: Figure, prior: Prior | None) -> Figure:
    if figure.noise is None or prior is None or figure.logs is None:
        return figure
    return replace(figure, noise=noise_of(figure.logs, prior))


def _hint(hint: NoiseHint | None, step: Step | None, metric: Metric) -> str:
    known = hint(step, metric) if hint is not None and step is not None else None
    return known or "repeat both runs (--repeat 3 or more) to measure the noise"


def hint_from(relative_sd: float, source: str, change: float = HINT_CHANGE) -> str:
    """The sample-size hint for a figure whose noise is known from elsewhere (earlier runs)."""
    n = runs_needed(relative_sd, change)
    runs = f"about {n} runs each" if n is not None else "more than 100 runs each"
    return f"{runs} would tell a {change * 100:.0f} % change (noise {relative_sd * 100:.1f} % {source})"


def _notes(master: _Master, occs: Sequence[_Occurrence | None], letters: Sequence[str]) -> list[str]:
    notes = []
    count = max((o.count for o in occs if o), default=1)
    if count > 1:
        notes.append(f"{_ordinal(master.index + 1)} of {count} steps with this workload: matched by order of occurrence")
    present = [(letter, o) for letter, o in zip(letters, occs) if o]
    durations = {o.step.duration for _, o in present if o.step.is_io}
    if len(durations) > 1:
        notes.append("durations differ: " + ", ".join(f"{l} {format_duration(o.step.duration)}" for l, o in present))
    if master.cache_mismatch:
        if len({o.step.cache for _, o in present}) > 1:
            notes.append("cache modes differ: " + ", ".join(f"{l} {o.step.cache}" for l, o in present))
        if len({o.step.write_through for _, o in present}) > 1:
            notes.append("write-through differs (each write waits for the media with it): "
                         + ", ".join(f"{l} {'on' if o.step.write_through else 'off'}" for l, o in present))
    missing = [letter for letter, o in zip(letters, occs) if o is None]
    if missing:
        notes.append(f"not in {', '.join(missing)}")
    for letter, o in present:
        bad = [m for m in o.members if m.status != "completed"]
        if bad:
            reason = f": {bad[0].error}" if bad[0].error else ""
            notes.append(f"{letter}: {len(bad)} of {len(o.members)} repetitions {bad[0].status}{reason}")
    return notes


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def headline(metric: Metric, values: Sequence[float], aggregate: str = "mean") -> float:
    """The figure of a step's repetitions as a profile aggregates them: their mean, or the best
    (the highest where higher is better, else the lowest: CrystalDiskMark's max MB/s, min latency)."""
    if aggregate == "best":
        return max(values) if metric.higher_is_better else min(values)
    return fmean(values)


def _figure(metric: Metric, members: Sequence[StepResult], aggregate: str = "mean") -> Figure | None:
    done = [m for m in members if m.status == "completed"]
    pairs = [(v, m) for v, m in ((metric.value(m), m) for m in done) if v is not None and math.isfinite(v)]
    if not pairs:
        return None
    values = [v for v, _ in pairs]
    logs = log_values(values)
    cvs = [c for c in (steadiness(interval_series(metric, m)) for _, m in pairs) if c is not None]
    return Figure(headline(metric, values, aggregate), tuple(values), spread_of_repetitions(values),
                  tuple(logs) if logs is not None else None,
                  noise_of(logs) if logs is not None else None,
                  median(cvs) if cvs else None, aggregate)


def interval_series(metric: Metric, result: StepResult) -> list[float]:
    """The metric per interval sample of a step, leaving out a short final (partial) interval."""
    if metric.series is None or not result.samples:
        return []
    typical = median(s.seconds for s in result.samples)
    values = []
    for sample in result.samples:
        if sample.seconds <= 0 or sample.seconds < 0.5 * typical:
            continue
        value = metric.series(sample, result.step)
        if value is not None and math.isfinite(value):
            values.append(value)
    return values


# --------------------------------------------------------------------------- context


def _engine(result: RunResult) -> str:
    return " ".join(x for x in (result.engine.name, result.engine.version) if x)


def _cache(result: RunResult) -> str:
    modes = sorted({s.step.cache for s in result.steps if s.step.is_io})
    return ", ".join(modes) if modes else "n/a"


def _write_through(result: RunResult) -> str:
    modes = sorted({"on" if s.step.write_through else "off" for s in result.steps if s.step.writes})
    return ", ".join(modes) if modes else "n/a"


def _figures(result: RunResult) -> str:
    # How, not how many: a single-run baseline and its 3-run check make their figures the same way.
    how = "best pass (max throughput, min latency)" if result.profile.aggregate == "best" else "mean of the passes"
    return how + ("; a preparing pass not counted" if result.profile.discard_first else "")


def _params(result: RunResult) -> str:
    return ", ".join(f"{name}={value}" for name, value in sorted(result.params.items())) or "none"


_CONTEXT: tuple[tuple[str, Callable[[RunResult], Any]], ...] = (
    ("host", lambda r: r.host.name),
    ("disk model", lambda r: r.target.model),
    ("disk kind", lambda r: r.target.kind),
    ("serial", lambda r: r.target.serial),
    ("firmware", lambda r: r.target.firmware),
    ("PCIe link", lambda r: r.target.pcie_link),
    ("SATA / SAS / USB link", lambda r: r.target.sata_speed or r.target.sas_speed or r.target.usb_speed),
    ("file system", lambda r: r.target.filesystem),
    ("target", lambda r: r.target.path),
    ("engine", _engine),
    ("cache", _cache),
    ("write-through", _write_through),
    ("figures", _figures),
    ("profile", lambda r: r.profile.shown_name),
    # An import whose report gives no size (fio on a whole device) stores 0: its size is unknown, not 0 bytes.
    ("test file", lambda r: (format_size(r.profile.file_size) if r.profile.file_size else None)
     if r.profile.needs_test_file else "none"),
    ("parameters", _params),
    ("kernel", lambda r: r.host.kernel),
    ("source", lambda r: r.source if r.source != "import" else f"import of {r.source_file or 'a file'}"),
    ("status", lambda r: r.status),
)


def _context(results: Sequence[RunResult]) -> tuple[ContextRow, ...]:
    rows = []
    for label, get in _CONTEXT:
        rows.append(ContextRow(label, tuple(str(v) if v not in (None, "") else "unknown" for v in map(get, results))))
    # Only where some result preconditioned or ran to steady state: older comparisons read as before.
    if any(r.precondition is not None or r.profile.precondition for r in results):
        rows.append(ContextRow("preconditioning", tuple(_preconditioning(r) for r in results)))
    if any(s.steady_state is not None for r in results for s in r.steps):
        rows.append(ContextRow("steady state", tuple(_steadiness(r) for r in results)))
    return tuple(rows)


def _preconditioning(result: RunResult) -> str:
    p = result.precondition
    if p is None:
        return "none" if not result.profile.precondition else "not done"
    return f"{p.passes} pass{'es' if p.passes != 1 else ''} ({format_size(p.bytes)})"


def _steadiness(result: RunResult) -> str:
    states = [s.steady_state for s in result.steps if s.step.is_io]
    judged = [st for st in states if st is not None]
    if not judged:
        return "timed steps"
    steady = sum(1 for st in judged if st.attained)
    timed = len(states) - len(judged)
    return f"{steady} of {len(judged)} steps steady" + (f", {timed} timed" if timed else "")


def _steady_state_of(occurrence: _Occurrence) -> str:
    """"steady after 7 rounds", "not steady after 25 rounds" or "timed" (its repetitions' first that is not steady)."""
    states = [m.steady_state for m in occurrence.members if m.status == "completed"]
    if not states or all(st is None for st in states):
        return "a timed step"
    unsteady = [st for st in states if st is None or not st.attained]
    pick = unsteady[0] if unsteady else states[0]
    return pick.verdict if pick is not None else "a timed step"


def _steady_warnings(results: Sequence[RunResult], masters: Sequence[_Master], letters: Sequence[str]) -> list[str]:
    """One warning per matched step where one side reached steady state and another did not."""
    warnings = []
    for master in masters:
        present = [(letters[i], occ) for i, occ in sorted(master.members.items())]
        verdicts = [(letter, _steady_state_of(occ)) for letter, occ in present]
        steady = [v.startswith("steady") for _, v in verdicts]
        if len(verdicts) < 2 or not any(steady) or all(steady):
            continue
        name = present[0][1].step.name
        warnings.append(
            f"steady state differs in {name!r} (" + ", ".join(f"{l} {v}" for l, v in verdicts) + "): a figure not "
            "at steady state may still include the drive's cache or its fresh blocks, so part of the difference "
            "is the drive's state, not the hardware"
        )
    return warnings


def _warnings(results: Sequence[RunResult], masters: Sequence[_Master], letters: Sequence[str]) -> list[str]:
    warnings = []
    engines = [r.engine.name for r in results]
    if len(set(engines)) > 1:
        warnings.append(
            "engines differ (" + ", ".join(f"{l} {e}" for l, e in zip(letters, engines)) + "): they issue and time "
            "I/O differently, so part of any difference is the engines'"
        )
    caches = [_cache(r) for r in results]
    if len(set(caches)) > 1 or any(m.cache_mismatch for m in masters):
        warnings.append(
            "cache modes differ (" + ", ".join(f"{l} {c}" for l, c in zip(letters, caches)) + "): buffered I/O "
            "(cache on) measures the page cache as much as the disk"
        )
    aggregates = [r.profile.aggregation_text(max((s.repetition for s in r.steps), default=1)) for r in results]
    if len({r.profile.aggregate for r in results}) > 1 and any(r.profile.aggregate == "best" for r in results):
        warnings.append(
            "figures are made differently (" + ", ".join(f"{l} {a}" for l, a in zip(letters, aggregates)) + "): a "
            "best-of figure is higher than the mean of the same runs; the verdicts compare the repetitions' means"
        )
    params = [_params(r) for r in results]
    if len(set(params)) > 1:
        warnings.append(
            "profile parameters differ (" + "; ".join(f"{l} {p}" for l, p in zip(letters, params)) + "): the command "
            "steps ran on different inputs (a larger archive takes longer to extract)"
        )
    for letter, r in zip(letters, results):
        if r.status != "completed":
            why = f": {r.error}" if r.error else ""
            warnings.append(f"{letter} ({r.id}) is {r.status}{why}; its figures cover only the steps that finished")
    if len(results) > 1:
        for i, letter in enumerate(letters[1:], 1):
            if not any(0 in m.members and i in m.members for m in masters):
                warnings.append(f"no step of {letter} runs a workload of {letters[0]}: nothing to compare")
    return warnings


def engine_bound_warnings(results: Sequence[RunResult], letters: Sequence[str]) -> list[str]:
    """One warning per result with CPU-bound steps: those figures are the engine's, not the disk's."""
    warnings = []
    for letter, r in zip(letters, results):
        bound = [s for s in r.steps if s.engine_bound]
        if bound:
            which = ", ".join(repr(n) for n in dict.fromkeys(s.name for s in bound))
            # One worker its own limit anywhere: more threads is the advice that can help.
            reasons = [s.engine_bound for s in bound if s.engine_bound]
            own = next((s for s in bound if s.engine_bound and s.engine_bound.startswith(cpubound.OWN_CPU)), None)
            # Its own limit with the page cache on: the cure is the cache off, not more threads.
            cached = own is not None and own.step.is_io and own.step.cache == "on"
            warnings.append(f"{letter} ({r.id}) is CPU-bound in {which}: "
                            f"{cpubound.advice(own.engine_bound if own else reasons[0], r.engine.name, cached)}")
    return warnings
