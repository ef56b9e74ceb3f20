"""A result's steps as a listing shows them: each step once, its passes as its profile aggregates them.

A result of `--repeat 3` (or of cdm-nvme, three passes and a discarded preparing one) holds every
pass of every step; a listing (History) shows each step's figure as the profile makes it, the mean
of the passes or the best of them (CrystalDiskMark's way), as Compare and `show` do. A pass is
known by its step's name, workload and place among the steps of its repetition (two steps of one
profile may share a name); a preparing pass (repetition 0) is not counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from statistics import fmean

from labtui.analysis.metrics import (
    IOPS,
    LATENCY_MEAN,
    LATENCY_P99,
    MIB_S,
    READ_P99,
    WALL,
    WRITE_P99,
    Metric,
    headline,
)
from labtui.results.summaries import ResultSummary, StepSummary


@dataclass(frozen=True)
class ListedStep:
    figures: StepSummary  # the step's figures as aggregated, in a step summary's shape
    passes: int  # the counted passes they are made of
    how: str  # "" for a single pass, else "mean of 3", "best of 3", "mean of 2; 1 aborted"
    members: tuple[int, ...] = ()  # where its passes are in the summary's steps, a preparing one too


def listed_steps(summary: ResultSummary) -> list[ListedStep]:
    """The result's steps in the order they first ran, each once."""
    groups: dict[tuple[str, str, str, int], list[int]] = {}
    seen: dict[int, Counter] = {}
    for i, step in enumerate(summary.steps):
        workload = (step.name, step.label, step.kind)
        counts = seen.setdefault(step.repetition, Counter())
        groups.setdefault((*workload, counts[workload]), []).append(i)
        counts[workload] += 1
    return [replace(_listed([summary.steps[i] for i in members], summary.aggregate), members=tuple(members))
            for members in groups.values()]


def _listed(passes: list[StepSummary], aggregate: str) -> ListedStep:
    counted = [p for p in passes if p.repetition > 0] or passes
    done = [p for p in counted if p.status == "completed"]
    if len(counted) == 1 or not done:
        return ListedStep(counted[0], len(counted), "")
    others = Counter(p.status for p in counted if p.status != "completed")
    how = f"{'best' if aggregate == 'best' and len(done) > 1 else 'mean'} of {len(done)}" if len(done) > 1 else "1 pass"
    how += "".join(f"; {n} {status}" for status, n in others.items())
    figures = replace(
        done[0],
        iops=_figure(IOPS, [p.iops for p in done], aggregate),
        mib_s=_figure(MIB_S, [p.mib_s for p in done], aggregate),
        latency_mean_ms=_figure(LATENCY_MEAN, [p.latency_mean_ms for p in done], aggregate),
        latency_p99_ms=_figure(LATENCY_P99, [p.latency_p99_ms for p in done], aggregate),
        read_p99_ms=_figure(READ_P99, [p.read_p99_ms for p in done], aggregate),
        write_p99_ms=_figure(WRITE_P99, [p.write_p99_ms for p in done], aggregate),
        cpu_percent=_mean([p.cpu_percent for p in done]),
        wall_seconds=_figure(WALL, [p.wall_seconds for p in done], aggregate),
        status=next(iter(others), "completed"),
        # A pass that was CPU-bound makes the step's figure partly the CPUs' limit: it keeps the mark.
        engine_bound=next((p.engine_bound for p in done if p.engine_bound), None),
    )
    return ListedStep(figures, len(counted), how)


def _figure(metric: Metric, values: list[float | None], aggregate: str) -> float | None:
    known = [v for v in values if v is not None]
    return headline(metric, known, aggregate) if known else None


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return fmean(known) if known else None
