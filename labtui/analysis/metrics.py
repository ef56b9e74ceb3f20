"""The figures a comparison compares, and which way is better: IOPS, MiB/s, latency, wall time, CPU.

Each metric reads a step's figure from its result and, where it has one, its figure per interval
sample (how steady a run was). Pure: no Textual, no Rich.

The whole machine's CPU use is context, never judged: it counts whatever else the machine did (on
a shared lab box another user's load moves it while labtui's own CPU holds steady), so it is shown
beside the figures with no verdict and no p-value. What the engine itself spent per I/O is labtui's
own cost, and a metric like the others ("engine CPU per I/O"), which `check --fail-on cpu` gates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, median

from labtui.model.profile import MIB, Step
from labtui.model.result import Sample, StepResult


@dataclass(frozen=True)
class Metric:
    """One figure compared between results, and which way is better."""

    key: str
    label: str
    unit: str
    higher_is_better: bool
    value: Callable[[StepResult], float | None] = field(repr=False, compare=False)
    series: Callable[[Sample, Step], float | None] | None = field(default=None, repr=False, compare=False)
    # Shown beside the figures as what the machine was doing, never judged (no verdict, no test).
    context: bool = False
    percent: bool = False  # a share of 0-100 % (its interval is a proportion's), not a rate or a time

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
              lambda x, _: x.mib_s * MIB / 1e6)
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
CPU = Metric("cpu_percent", "machine CPU", "%", False, lambda s: s.cpu_percent, lambda x, _: x.cpu_percent,
             context=True, percent=True)


def _engine_cpu_per_io(result: StepResult) -> float | None:
    ios = result.total.ios
    return result.cpu_seconds / ios * 1e6 if result.cpu_seconds is not None and ios > 0 else None


# The engine's own CPU time per I/O, in µs: what labtui spent, not what the machine did.
ENGINE_CPU = Metric("engine_cpu_us_per_io", "engine CPU per I/O", "µs", False, _engine_cpu_per_io)
WALL = Metric("wall_seconds", "wall time", "s", False, lambda s: s.wall_seconds)

METRICS = (IOPS, MIB_S, MB_S, READ_IOPS, WRITE_IOPS, LATENCY_MEAN, LATENCY_P99, READ_P99, WRITE_P99, ENGINE_CPU, CPU,
           WALL)


def primary(step: Step) -> Metric:
    """The metric that answers "is it faster?" for a step: throughput for I/O, wall time for a command."""
    return IOPS if step.is_io else WALL


def metrics_for(step: Step) -> tuple[Metric, ...]:
    """The metrics that mean something for a step of this kind."""
    if not step.is_io:
        return (WALL, CPU)
    mixed = 0 < step.write_percent < 100
    return (IOPS, MIB_S) + ((READ_IOPS, WRITE_IOPS) if mixed else ()) + (LATENCY_MEAN, LATENCY_P99, ENGINE_CPU, CPU)



def headline(metric: Metric, values: Sequence[float], aggregate: str = "mean") -> float:
    """The figure of a step's repetitions as a profile aggregates them: their mean, or the best
    (the highest where higher is better, else the lowest: CrystalDiskMark's max MB/s, min latency)."""
    if aggregate == "best":
        return max(values) if metric.higher_is_better else min(values)
    return fmean(values)




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


