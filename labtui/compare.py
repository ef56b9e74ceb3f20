"""Comparison of results: steps matched by workload, figures with their spread, differences, verdicts.

Pure (no Textual, no rich): the CLI's `compare` and `check` and the TUI's Compare screen all
read the same `Comparison`. The first result is the reference; every other one is compared with
it, metric by metric.

Matching: a step belongs with the steps of the other results that run the same workload
(`Step.workload_key()`: block size, pattern, write mix, threads, outstanding, cache), whatever
they are called or wherever they sit. When a profile holds the same workload several times
(configmgr-sql reads for 60 s and for 300 s) the n-th one matches the n-th one, and the group
says so. A step whose only difference is the cache mode (a file system that refused O_DIRECT
runs it buffered) is still matched, with a warning.

Verdicts: a difference is "better" or "worse" only when it is larger than the tolerance and,
where the spread is known, statistically significant (two-sided, 95 %); otherwise it is
"within noise". The spread comes from repetitions where a result has several (Welch's t-test;
one run against repetitions: a prediction t-test), else from the per-interval samples of
single runs (autocorrelation-corrected; see labtui.stats), else there is none and the
tolerance alone decides.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from statistics import fmean, median
from typing import Any, Callable, Sequence

from labtui.engine import cpubound
from labtui.errors import LabtuiError
from labtui.model import RunResult, Sample, Step, StepResult
from labtui.stats import (
    ALPHA,
    CONFIDENCE,
    REPETITIONS,
    Spread,
    TestResult,
    single_against,
    spread_of_intervals,
    spread_of_repetitions,
    welch,
)
from labtui.units import format_duration, format_size

DEFAULT_TOLERANCE_PCT = 5.0
BETTER, WORSE, NOISE = "better", "worse", "within noise"
VERDICTS = (BETTER, WORSE, NOISE)
PASS, FAIL, INFO = "PASS", "FAIL", "INFO"


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
READ_IOPS = Metric("read_iops", "read IOPS", "IOPS", True, lambda s: s.read.iops, lambda x, _: x.read_iops)
WRITE_IOPS = Metric("write_iops", "write IOPS", "IOPS", True, lambda s: s.write.iops, lambda x, _: x.write_iops)
LATENCY_MEAN = Metric("latency_mean_ms", "mean latency", "ms", False, lambda s: s.latency.mean, _mean_latency)
LATENCY_P99 = Metric("latency_p99_ms", "p99 latency", "ms", False, lambda s: s.latency.p99, _p99_latency)
CPU = Metric("cpu_percent", "CPU", "%", False, lambda s: s.cpu_percent, lambda x, _: x.cpu_percent, gates_check=False)
WALL = Metric("wall_seconds", "wall time", "s", False, lambda s: s.wall_seconds)

METRICS = (IOPS, MIB_S, READ_IOPS, WRITE_IOPS, LATENCY_MEAN, LATENCY_P99, CPU, WALL)


def metrics_for(step: Step) -> tuple[Metric, ...]:
    """The metrics that mean something for a step of this kind."""
    if not step.is_io:
        return (WALL, CPU)
    mixed = 0 < step.write_percent < 100
    return (IOPS, MIB_S) + ((READ_IOPS, WRITE_IOPS) if mixed else ()) + (LATENCY_MEAN, LATENCY_P99, CPU)


# --------------------------------------------------------------------------- figures and deltas


@dataclass(frozen=True)
class Figure:
    """One result's value of one metric for one step: the mean over its repetitions, and its spread."""

    value: float
    values: tuple[float, ...]  # one per completed repetition, in order
    spread: Spread | None  # repetitions where there are several, else the run's intervals, else None

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def stdev(self) -> float | None:
        """Standard deviation across repetitions (None for a single run)."""
        return self.spread.stdev if self.spread is not None and self.spread.basis == REPETITIONS else None

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
        """The confidence interval of the value, or None where no spread is known."""
        return self.spread.interval(self.value, confidence) if self.spread is not None else None

    def to_json(self, confidence: float = CONFIDENCE) -> dict[str, Any]:
        ci = self.interval(confidence)
        return {
            "mean": self.value,
            "n": self.n,
            "values": list(self.values),
            "stdev": self.stdev,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "spread": self.spread.describe() if self.spread else None,
        }


@dataclass(frozen=True)
class Delta:
    """A figure against the reference's: the difference, and what it means."""

    absolute: float
    relative_pct: float | None  # None when the reference is zero
    verdict: str  # BETTER, WORSE or NOISE
    beyond_tolerance: bool
    test: TestResult | None  # None where no spread is known on either side
    reason: str  # one line saying why this verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "absolute": self.absolute,
            "relative_pct": self.relative_pct,
            "verdict": self.verdict,
            "beyond_tolerance": self.beyond_tolerance,
            "test": self.test.method if self.test else None,
            "p_value": self.test.p_value if self.test else None,
            "reason": self.reason,
        }


def judge(
    metric: Metric, reference: Figure, other: Figure, tolerance_pct: float, alpha: float = ALPHA
) -> Delta:
    """Compare `other` with `reference` for `metric`: better, worse or within noise, and why."""
    absolute = other.value - reference.value
    relative = absolute / reference.value * 100.0 if reference.value else (0.0 if absolute == 0 else None)
    beyond = abs(relative) > tolerance_pct if relative is not None else absolute != 0
    test = _test(reference, other)
    change = f"{relative:+.1f} %" if relative is not None else f"{absolute:+.4g} {metric.unit}"
    if absolute == 0:
        return Delta(absolute, relative, NOISE, False, test, "no difference")
    if not beyond:
        return Delta(absolute, relative, NOISE, False, test, f"{change} is within the ±{tolerance_pct:g} % tolerance")
    if test is not None and not test.significant(alpha):
        return Delta(absolute, relative, NOISE, True, test,
                     f"{change}, but not significant: p = {test.p_value:.2g} ({test.method})")
    improved = (absolute > 0) == metric.higher_is_better
    evidence = (f"significant: p = {test.p_value:.2g} ({test.method})" if test is not None
                else "no spread known (single runs): the tolerance alone decides")
    return Delta(absolute, relative, BETTER if improved else WORSE, True, test,
                 f"{change} is beyond the ±{tolerance_pct:g} % tolerance; {evidence}")


def _test(reference: Figure, other: Figure) -> TestResult | None:
    a, b = reference.spread, other.spread
    a_reps = a is not None and a.basis == REPETITIONS
    b_reps = b is not None and b.basis == REPETITIONS
    if a_reps and b_reps:
        return welch(reference.value, a, other.value, b)
    if a_reps and other.n == 1:
        return single_against(other.value, a, reference.value)
    if b_reps and reference.n == 1:
        return single_against(reference.value, b, other.value)
    if a is not None and b is not None and not a_reps and not b_reps:
        return welch(reference.value, a, other.value, b)
    return None


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
            "workload": self.step.to_toml() | {"name": None},
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
            f"Differences are against {self.letters[0]}. A difference is better or worse only when it is larger "
            f"than the ±{self.tolerance_pct:g} % tolerance and, where the spread is known, significant at "
            f"{self.confidence:.0%} (two-sided): Welch's t-test across repetitions; one run against repetitions "
            "by a prediction t-test; single runs by their interval samples (lag-1 autocorrelation-corrected, "
            "assuming a stationary AR(1) series; they show how steady each run was, not run-to-run variation). "
            "With no spread known the tolerance alone decides. Otherwise: within noise."
        )

    def to_json(self) -> dict[str, Any]:
        ids = [r.id for r in self.results]
        return {
            "tolerance_pct": self.tolerance_pct,
            "confidence": self.confidence,
            "method": self.method,
            "results": [_result_json(r, letter) for r, letter in zip(self.results, self.letters)],
            "warnings": list(self.warnings),
            "context": [{"label": c.label, "values": list(c.values), "differs": c.differs} for c in self.context],
            "steps": [g.to_json(ids, self.confidence) for g in self.groups],
        }


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


def compare(
    results: Sequence[RunResult],
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
    confidence: float = CONFIDENCE,
) -> Comparison:
    """Compare every result with the first. One result alone gives its figures and spreads."""
    if not results:
        raise LabtuiError("nothing to compare: give at least one result")
    if not (tolerance_pct >= 0 and math.isfinite(tolerance_pct)):
        raise LabtuiError(f"the tolerance must be a percentage of 0 or more, got {tolerance_pct}")
    results = tuple(results)
    alpha = 1.0 - confidence
    masters = _match(results)
    letters = [_letter(i) for i in range(len(results))]
    groups = []
    for master in masters:
        groups.append(_group(master, results, letters, tolerance_pct, alpha))
    warnings = _warnings(results, masters, letters) + _engine_bound_warnings(results, letters)
    return Comparison(results, tuple(groups), _context(results), tuple(warnings), tolerance_pct, confidence)


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
    # The same workload whatever the cache mode (an io key ends with it).
    return key[:-1] if key and key[0] == "io" else key


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


def _group(master: _Master, results: Sequence[RunResult], letters: Sequence[str], tolerance_pct: float,
           alpha: float) -> StepGroup:
    n = len(results)
    occs = [master.members.get(i) for i in range(n)]
    steps = tuple(o.step if o else None for o in occs)
    first = next(s for s in steps if s is not None)
    rows = []
    for metric in metrics_for(first):
        figures = tuple(_figure(metric, o.members) if o else None for o in occs)
        if all(f is None for f in figures):
            continue
        reference = figures[0]
        deltas = tuple(
            judge(metric, reference, f, tolerance_pct, alpha) if i and reference is not None and f is not None else None
            for i, f in enumerate(figures)
        )
        rows.append(MetricRow(metric, figures, deltas))
    return StepGroup(master.key, master.index + 1, steps, tuple(rows), tuple(_notes(master, occs, letters)))


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
        notes.append("cache modes differ: " + ", ".join(f"{l} {o.step.cache}" for l, o in present))
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


def _figure(metric: Metric, members: Sequence[StepResult]) -> Figure | None:
    done = [m for m in members if m.status == "completed"]
    values = [v for v in (metric.value(m) for m in done) if v is not None and math.isfinite(v)]
    if not values:
        return None
    if len(values) >= 2:
        spread = spread_of_repetitions(values)
    else:
        spread = spread_of_intervals(interval_series(metric, done[0])) if metric.series else None
    return Figure(fmean(values), tuple(values), spread)


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


def _params(result: RunResult) -> str:
    return ", ".join(f"{name}={value}" for name, value in sorted(result.params.items())) or "none"


_CONTEXT: tuple[tuple[str, Callable[[RunResult], Any]], ...] = (
    ("host", lambda r: r.host.name),
    ("disk model", lambda r: r.target.model),
    ("disk kind", lambda r: r.target.kind),
    ("serial", lambda r: r.target.serial),
    ("firmware", lambda r: r.target.firmware),
    ("PCIe link", lambda r: r.target.pcie_link),
    ("file system", lambda r: r.target.filesystem),
    ("target", lambda r: r.target.path),
    ("engine", _engine),
    ("cache", _cache),
    ("profile", lambda r: r.profile.name),
    ("test file", lambda r: format_size(r.profile.file_size) if r.profile.needs_test_file else "none"),
    ("parameters", _params),
    ("kernel", lambda r: r.host.kernel),
    ("source", lambda r: r.source if r.source != "import" else f"import of {r.source_file or 'a file'}"),
    ("status", lambda r: r.status),
)


def _context(results: Sequence[RunResult]) -> tuple[ContextRow, ...]:
    rows = []
    for label, get in _CONTEXT:
        rows.append(ContextRow(label, tuple(str(v) if v not in (None, "") else "unknown" for v in map(get, results))))
    return tuple(rows)


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


def _engine_bound_warnings(results: Sequence[RunResult], letters: Sequence[str]) -> list[str]:
    """One warning per result with CPU-bound steps: those figures are the engine's, not the disk's."""
    warnings = []
    for letter, r in zip(letters, results):
        names = list(dict.fromkeys(s.name for s in r.steps if s.engine_bound))
        if names:
            which = ", ".join(repr(n) for n in names)
            advice = cpubound.ADVICE.get(r.engine.name, cpubound.ADVICE["native"])
            warnings.append(f"{letter} ({r.id}) is CPU-bound in {which}: {advice}")
    return warnings


# --------------------------------------------------------------------------- check


@dataclass(frozen=True)
class CheckLine:
    """One metric of one step in a check: PASS, FAIL or INFO (shown, never failing)."""

    group: StepGroup
    metric: Metric
    baseline: Figure | None
    current: Figure | None
    delta: Delta | None
    outcome: str
    reason: str


@dataclass(frozen=True)
class CheckReport:
    comparison: Comparison
    lines: tuple[CheckLine, ...]

    @property
    def failures(self) -> tuple[CheckLine, ...]:
        return tuple(line for line in self.lines if line.outcome == FAIL)

    @property
    def passed(self) -> bool:
        return not self.failures and any(line.outcome == PASS for line in self.lines)

    @property
    def unresolved(self) -> tuple[CheckLine, ...]:
        """Passing lines that got worse beyond the tolerance, but not beyond the noise measured."""
        return tuple(
            line for line in self.lines
            if line.outcome == PASS and line.delta is not None and line.delta.beyond_tolerance
            and (line.delta.absolute < 0) == line.metric.higher_is_better
        )

    def summary(self) -> str:
        """The verdict line: PASS or FAIL with what it rests on."""
        tolerance = f"±{self.comparison.tolerance_pct:g} % tolerance"
        steps = len({id(line.group) for line in self.lines})
        if self.passed:
            text = f"PASS: no metric of {steps} step{'s' if steps != 1 else ''} regressed beyond the {tolerance} and beyond noise"
            if self.unresolved:
                n = len(self.unresolved)
                text += (f"; {n} got worse by more than the tolerance, but within noise too large to tell "
                         "(see the ± margins; re-check when the machine is quiet)")
            return text
        if not self.failures:
            return "FAIL: the re-run has no figure to compare with the baseline"
        what = "; ".join(f"{f.group.name} {f.metric.label} {_change(f.delta)}" for f in self.failures[:3])
        more = f" (and {len(self.failures) - 3} more)" if len(self.failures) > 3 else ""
        return f"FAIL: {len(self.failures)} metric{'s' if len(self.failures) != 1 else ''} regressed: {what}{more}"

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "summary": self.summary(),
            "unresolved": len(self.unresolved),
            "baseline": self.comparison.results[0].id,
            "result": self.comparison.results[-1].id,
            "tolerance_pct": self.comparison.tolerance_pct,
            "lines": [
                {
                    "step": line.group.name,
                    "label": line.group.label,
                    "metric": line.metric.key,
                    "baseline": line.baseline.value if line.baseline else None,
                    "current": line.current.value if line.current else None,
                    "relative_pct": line.delta.relative_pct if line.delta else None,
                    "verdict": line.delta.verdict if line.delta else None,
                    "outcome": line.outcome,
                    "reason": line.reason,
                }
                for line in self.lines
            ],
            "comparison": self.comparison.to_json(),
        }


def _change(delta: Delta | None) -> str:
    if delta is None:
        return "missing"
    return f"{delta.relative_pct:+.1f} %" if delta.relative_pct is not None else f"{delta.absolute:+.4g}"


def check(baseline: RunResult, current: RunResult, tolerance_pct: float) -> CheckReport:
    """Judge a re-run against its baseline: FAIL where a metric got worse beyond tolerance and noise."""
    comparison = compare([baseline, current], tolerance_pct)
    lines = []
    for group in comparison.groups:
        if group.steps[0] is None:
            continue  # a step the baseline never ran cannot regress
        for row in group.rows:
            base, now, delta = row.figures[0], row.figures[1], row.deltas[1]
            if base is None:
                continue
            if now is None or delta is None:
                outcome, reason = FAIL, "missing in the re-run"
            elif not row.metric.gates_check:
                outcome, reason = INFO, delta.reason
            elif delta.verdict == WORSE:
                outcome, reason = FAIL, delta.reason
            else:
                outcome, reason = PASS, delta.reason
            lines.append(CheckLine(group, row.metric, base, now, delta, outcome, reason))
    return CheckReport(comparison, tuple(lines))
