"""Comparison of results: steps matched by workload, figures with their run-to-run noise, differences, verdicts.

Pure (no Textual, no rich): the CLI's `compare` and `check` and the TUI's Compare screen all
read the same `Comparison`. The first result is the reference; every other one is compared with
it, metric by metric. The parts: which steps match (labtui.analysis.matching), the metrics
(labtui.analysis.metrics), each figure and its verdict (labtui.analysis.figures), the context and
warnings (labtui.analysis.context).

Each step's noise is pooled with the other steps' of the same result (labtui.analysis.stats:
moderated toward their typical noise, never below its own) before any verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from labtui.analysis.bottleneck import analyse, compared
from labtui.analysis.context import ContextRow, context_rows, engine_bound_warnings, steady_warnings, warnings_of
from labtui.analysis.figures import UNKNOWN, Delta, Figure, KnownNoise, figure_of, judge
from labtui.analysis.matching import Master, Occurrence, match, notes
from labtui.analysis.metrics import LATENCY_P99, MB_S, READ_P99, WRITE_P99, Metric, metrics_for
from labtui.analysis.stats import CONFIDENCE, Prior, noise_of, noise_prior
from labtui.errors import LabtuiError
from labtui.model.profile import Step
from labtui.model.result import RunResult, StepResult
from labtui.results.profile_file import step_to_table

DEFAULT_TOLERANCE_PCT = 5.0


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
            "difference from noise, whatever its size. Interval samples show how steady a run was, never a verdict. "
            "The machine's CPU is context (it counts whatever else ran), never judged. The answer above the table "
            "rests on each step's throughput (a command step's wall time), and names what else differs: the link, "
            "the firmware, the engine, the cache mode, a CPU-bound step."
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


NoiseHint = Callable[[Step, Metric], KnownNoise | None]


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
    masters = match(results)
    letters = [_letter(i) for i in range(len(results))]
    raw = [_raw_figures(master, results) for master in masters]
    priors = _priors(raw, len(results))
    groups = []
    for master, (occs, rows) in zip(masters, raw):
        groups.append(_group(master, occs, rows, priors, letters, tolerance_pct, alpha, hint))
    warnings = (warnings_of(results, masters, letters) + steady_warnings(results, masters, letters)
                + engine_bound_warnings(results, letters))
    limits = compared(results, [[s.name if s else None for s in g.steps] for g in groups], letters)
    return Comparison(results, tuple(groups), context_rows(results), tuple(warnings), tolerance_pct, confidence,
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


_RawRow = tuple[Metric, list[Figure | None]]


def _raw_figures(master: Master, results: Sequence[RunResult]) -> tuple[list[Occurrence | None], list[_RawRow]]:
    """Each result's figures for a group's metrics, before their noise is pooled across steps."""
    occs = [master.members.get(i) for i in range(len(results))]
    first = next(o.step for o in occs if o is not None)
    rows = []
    metrics = metrics_for(first)
    if first.is_io and any(r.profile.decimal_units for r in results):
        metrics = (*metrics[:2], MB_S, *metrics[2:])
    for metric in metrics:
        figures = [figure_of(metric, o.members, results[i].profile.aggregate) if o else None for i, o in enumerate(occs)]
        if any(f is not None for f in figures):
            rows.append((metric, figures))
        if metric is LATENCY_P99 and 0 < first.write_percent < 100 and any(
                o is not None and f is None for o, f in zip(occs, figures)):
            # A result without a p99 of both directions: each direction's is compared instead.
            for direction in (READ_P99, WRITE_P99):
                each = [figure_of(direction, o.members, results[i].profile.aggregate) if o else None
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


def _group(master: Master, occs: Sequence[Occurrence | None], raw_rows: Sequence[_RawRow],
           priors: dict[tuple[int, str], Prior], letters: Sequence[str], tolerance_pct: float, alpha: float,
           hint: NoiseHint | None) -> StepGroup:
    steps = tuple(o.step if o else None for o in occs)
    rows = []
    for metric, raw in raw_rows:
        figures = tuple(_pooled_noise(f, priors.get((i, metric.key))) if f else None for i, f in enumerate(raw))
        reference = figures[0]
        deltas = tuple(
            _judged(metric, reference, f, tolerance_pct, alpha, hint, steps[i] or steps[0])
            if i and reference is not None and f is not None else None
            for i, f in enumerate(figures)
        )
        rows.append(MetricRow(metric, figures, deltas))
    return StepGroup(master.key, master.index + 1, steps, tuple(rows), tuple(notes(master, occs, letters)))


def _pooled_noise(figure: Figure, prior: Prior | None) -> Figure:
    if figure.noise is None or prior is None or figure.logs is None:
        return figure
    return replace(figure, noise=noise_of(figure.logs, prior))


def _judged(metric: Metric, reference: Figure, other: Figure, tolerance_pct: float, alpha: float,
            hint: NoiseHint | None, step: Step | None) -> Delta:
    """judge(), with what earlier runs say of the noise where single runs on both sides cannot."""
    if reference.n != 1 or other.n != 1:
        return judge(metric, reference, other, tolerance_pct, alpha)
    known = hint(step, metric) if hint is not None and step is not None else None
    text = known.hint() if known is not None else "repeat both runs (--repeat 3 or more) to measure the noise"
    return judge(metric, reference, other, tolerance_pct, alpha, text, known)


