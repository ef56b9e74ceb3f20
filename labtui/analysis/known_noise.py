"""What earlier runs of a disk and profile say about its run-to-run noise: the hints of single-run comparisons.

Two single runs cannot tell a difference from noise, but the store often knows how much this
disk varies: repetitions inside earlier results, and single runs of the same profile on the same
disk on other occasions (their spread includes what changes between sessions, so it is the more
honest figure). Both are pooled on the log scale and turned into "about N runs each would tell
a 10 % change". Only a hint: it never decides a verdict, since the noise then may not be now's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from labtui.analysis.comparison import NoiseHint
from labtui.analysis.figures import KnownNoise
from labtui.analysis.metrics import Metric
from labtui.analysis.stats import variance
from labtui.model.profile import Step
from labtui.model.result import RunResult, result_disk
from labtui.results.store import Store
from labtui.results.summaries import ResultSummary

# The figures the summary index keeps per step, by metric key.
_FIELDS = {"iops": "iops", "mib_s": "mib_s", "latency_mean_ms": "latency_mean_ms",
           "latency_p99_ms": "latency_p99_ms", "cpu_percent": "cpu_percent", "wall_seconds": "wall_seconds",
           "read_p99_ms": "read_p99_ms", "write_p99_ms": "write_p99_ms"}
MIN_DF = 2  # fewer than three values say too little about the noise to hint with


def noise_from(rows: Sequence[ResultSummary], step_name: str, metric_key: str) -> tuple[float, int] | None:
    """The pooled relative noise of one step's figure over the given results, and how many runs it rests on."""
    field = _FIELDS.get(metric_key)
    if field is None:
        return None
    singles: list[float] = []
    weighted, df_total, runs = 0.0, 0, 0
    for row in rows:
        values = [getattr(s, field) for s in row.steps if s.name == step_name and s.status == "completed"]
        logs = [math.log(v) for v in values if v is not None and v > 0 and math.isfinite(v)]
        if len(logs) >= 2:
            weighted += variance(logs) * (len(logs) - 1)
            df_total += len(logs) - 1
            runs += len(logs)
        elif len(logs) == 1:
            singles.append(logs[0])
    if len(singles) >= 2:
        weighted += variance(singles) * (len(singles) - 1)
        df_total += len(singles) - 1
        runs += len(singles)
    if df_total < MIN_DF:
        return None
    return math.sqrt(math.expm1(weighted / df_total)), runs


def hint_for(rows: Sequence[ResultSummary], results: Sequence[RunResult]) -> NoiseHint:
    """A compare() hint from the store's other completed results of the compared disks and profiles."""
    kinds = {(result_disk(r), r.profile.name) for r in results}
    ids = {r.id for r in results}
    earlier = [r for r in rows if r.status == "completed" and r.id not in ids and (r.disk, r.profile) in kinds]
    profiles = sorted({p for _, p in kinds})

    def hint(step: Step, metric: Metric) -> KnownNoise | None:
        known = noise_from(earlier, step.name, metric.key)
        if known is None:
            return None
        sd, runs = known
        return KnownNoise(sd, runs, f"in {runs} earlier runs of {', '.join(profiles)} on this disk")

    return hint


def hint_from_store(store: Store, results: Sequence[RunResult]) -> NoiseHint | None:
    """The hint from a store's summary index (None if it cannot be read: the hint is a nicety)."""
    from labtui.errors import LabtuiError

    try:
        rows, _broken = store.summaries()
    except (LabtuiError, OSError):
        return None
    return hint_for(rows, results)
