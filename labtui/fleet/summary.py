"""The comparison that ends a fleet run: per step, the fastest and slowest host, and who differs beyond noise.

It is labtui's own comparison (labtui.analysis.comparison) of the hosts' results, the first host
of the hosts file that completed as the reference, as `labtui compare A B C` would do: so the
verdicts follow the same rules. Only better and worse are claims; with single runs the noise is
unknown and the fastest and slowest are only the largest and smallest figures, never called.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from labtui.analysis.comparison import Comparison, compare
from labtui.model.result import RunResult


@dataclass(frozen=True)
class StepSpread:
    """One step across the hosts: its headline figure per host, the extremes, and the claims."""

    step: str
    label: str
    metric: str  # the label of the metric ranked: "IOPS", or "wall time" for a command step
    unit: str
    higher_is_better: bool
    figures: tuple[tuple[str, float], ...]  # (host, value), best first
    differing: tuple[tuple[str, str, float | None, str], ...]  # (host, verdict, % vs reference, what decided)
    outliers: tuple[tuple[str, float], ...] = ()  # (host, % from the hosts' median): far from the others (_outliers)

    @property
    def fastest(self) -> tuple[str, float]:
        return self.figures[0]

    @property
    def slowest(self) -> tuple[str, float]:
        return self.figures[-1]

    @property
    def spread_pct(self) -> float | None:
        """How far the worst figure is from the best, in % of the best."""
        best, worst = self.fastest[1], self.slowest[1]
        return abs(best - worst) / best * 100 if best else None

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step, "label": self.label, "metric": self.metric, "unit": self.unit,
            "fastest": {"host": self.fastest[0], "value": self.fastest[1]},
            "slowest": {"host": self.slowest[0], "value": self.slowest[1]},
            "spread_pct": self.spread_pct,
            "figures": [{"host": h, "value": v} for h, v in self.figures],
            "beyond_noise": [{"host": h, "verdict": v, "relative_pct": p, "decided_by": b}
                             for h, v, p, b in self.differing],
            "outliers": [{"host": h, "from_median_pct": p} for h, p in self.outliers],
        }


@dataclass(frozen=True)
class HostsSummary:
    hosts: tuple[str, ...]  # in the comparison's order: the reference first
    comparison: Comparison
    steps: tuple[StepSpread, ...]
    # Which of each host's results are compared: "results" (a run's one), or a check's "first passes"
    # (run together; a confirmation pass runs alone, after the others, on an idler machine).
    compared: str = "results"

    @property
    def reference(self) -> str:
        return self.hosts[0]

    @property
    def noise_known(self) -> bool:
        """Whether any verdict could rest on run-to-run noise (some result has repetitions)."""
        return any(d is not None and d.test is not None
                   for g in self.comparison.groups for r in g.rows for d in r.deltas)

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "hosts": list(self.hosts), "compared": self.compared,
                "noise_known": self.noise_known,
                "steps": [s.to_json() for s in self.steps], "comparison": self.comparison.to_json()}


def summarize_hosts(named: Sequence[tuple[str, RunResult]], tolerance_pct: float,
                    compared: str = "results") -> HostsSummary | None:
    """The hosts' completed results compared (None with fewer than two); `compared` says which they are."""
    named = [(h, r) for h, r in named if r.status == "completed"]
    if len(named) < 2:
        return None
    hosts = tuple(h for h, _ in named)
    comparison = compare([r for _, r in named], tolerance_pct)
    steps = []
    for group in comparison.groups:
        row = group.row("iops") if group.step.is_io else group.row("wall_seconds")
        if row is None:
            continue
        figures = [(h, f.value) for h, f in zip(hosts, row.figures) if f is not None]
        if len(figures) < 2:
            continue
        figures.sort(key=lambda hv: hv[1], reverse=row.metric.higher_is_better)
        differing = tuple((h, d.verdict, d.relative_pct, d.basis) for h, d in zip(hosts, row.deltas)
                          if d is not None and d.claim)
        steps.append(StepSpread(group.name, group.label, row.metric.label, row.metric.unit,
                                row.metric.higher_is_better, tuple(figures), differing,
                                _outliers(figures, tolerance_pct)))
    return HostsSummary(hosts, comparison, tuple(steps), compared)


OUTLIER_MADS = 3.0  # how many (scaled) median absolute deviations from the hosts' median make a host far off
MIN_FOR_OUTLIERS = 5  # with fewer hosts, "the others" are too few to say who is far from them


def _outliers(figures: list[tuple[str, float]], tolerance_pct: float) -> tuple[tuple[str, float], ...]:
    """The hosts far from the others on a step: more than OUTLIER_MADS scaled median absolute
    deviations from the hosts' median, and more than the tolerance. A robust rule (one odd host
    does not move the median as it would the mean); it says where to look, not better or worse."""
    values = sorted(v for _, v in figures)
    if len(values) < MIN_FOR_OUTLIERS:
        return ()
    median = statistics.median(values)
    if not median:
        return ()
    mad = 1.4826 * statistics.median(abs(v - median) for v in values)
    limit = max(OUTLIER_MADS * mad, abs(median) * tolerance_pct / 100)
    return tuple((h, (v - median) / median * 100) for h, v in figures if abs(v - median) > limit)
