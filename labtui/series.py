"""Interval series: merging neighbouring intervals honestly, and bounding a result's series.

Samples are exact counts, so combining intervals stays honest: a merged interval sums the I/Os,
bytes and seconds of its parts and derives its rates from those; mean latency is weighted by
I/Os and CPU by seconds. A p99 of merged intervals cannot be derived from their p99s: the
highest is kept (the worst the interval saw, never flattering).

A run's series grows with duration / interval: fio at `--interval 10ms` for four hours is 1.4
million samples, far past what a result file may hold (the store refuses to read files over
its MAX_FILE_BYTES). So a result keeps at most MAX_SAMPLES intervals in all; a step past its
share has groups of `series_merged` neighbouring intervals merged into one (merging fixed-size
batches keeps a mean's interval estimate sound: it is the batch-means method). The step's own
figures never come from the series, so the bound changes none of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace

from labtui.model.result import RunResult, Sample

# Intervals kept per result: five hours of one-second samples are kept as measured. Such a file
# is about 3 MB and reads back in under two seconds (measured: 50,000 samples made 8 MB, 4 s).
MAX_SAMPLES = 20_000
# A step never gets fewer than this many intervals, however many steps share the bound.
MIN_PER_STEP = 200


def _weighted(pairs: Iterable[tuple[float | None, float]]) -> float | None:
    """The mean of values weighted by their counts, over the values that exist."""
    total = weight = 0.0
    for value, count in pairs:
        if value is not None and count > 0:
            total += value * count
            weight += count
    return total / weight if weight else None


def merge_samples(samples: Sequence[Sample]) -> Sample:
    """Consecutive intervals as one: counts and seconds summed, mean latency weighted by I/Os."""
    if len(samples) == 1:
        return samples[0]
    read_p99 = [s.read_lat_p99_ms for s in samples if s.read_lat_p99_ms is not None]
    write_p99 = [s.write_lat_p99_ms for s in samples if s.write_lat_p99_ms is not None]
    temps = [s.drive_temp_c for s in samples if s.drive_temp_c is not None]
    speeds = [s.link_gts for s in samples if s.link_gts is not None]
    widths = [s.link_width for s in samples if s.link_width is not None]
    counts = [s.thermal_transitions for s in samples if s.thermal_transitions is not None]
    return Sample(
        t=samples[-1].t,
        seconds=sum(s.seconds for s in samples),
        read_ios=sum(s.read_ios for s in samples),
        read_bytes=sum(s.read_bytes for s in samples),
        write_ios=sum(s.write_ios for s in samples),
        write_bytes=sum(s.write_bytes for s in samples),
        read_lat_mean_ms=_weighted((s.read_lat_mean_ms, s.read_ios) for s in samples),
        read_lat_p99_ms=max(read_p99) if read_p99 else None,
        write_lat_mean_ms=_weighted((s.write_lat_mean_ms, s.write_ios) for s in samples),
        write_lat_p99_ms=max(write_p99) if write_p99 else None,
        cpu_percent=_weighted((s.cpu_percent, s.seconds) for s in samples),
        engine_cpu_percent=_weighted((s.engine_cpu_percent, s.seconds) for s in samples),
        # A merged interval was CPU-bound if any part of it was: the flag must never vanish.
        engine_bound=True if any(s.engine_bound for s in samples) else None,
        # The drive: its hottest reading, its narrowest and slowest link, its last thermal count.
        drive_temp_c=max(temps) if temps else None,
        link_gts=min(speeds) if speeds else None,
        link_width=min(widths) if widths else None,
        thermal_transitions=max(counts) if counts else None,
    )


def group_size(count: int, max_points: int) -> int:
    """How many neighbouring intervals one point merges to show `count` in at most `max_points`."""
    return 1 if max_points <= 0 or count <= max_points else math.ceil(count / max_points)


def downsample(samples: Sequence[Sample], max_points: int) -> list[Sample]:
    """At most `max_points` intervals, each merging a run of consecutive ones (the newest kept whole)."""
    size = group_size(len(samples), max_points)
    if size == 1:
        return list(samples)
    # Groups are counted from the newest end, so the latest interval is never half a bucket.
    first = len(samples) % size
    out = [merge_samples(samples[:first])] if first else []
    out += [merge_samples(samples[i : i + size]) for i in range(first, len(samples), size)]
    return out


def bound_result(result: RunResult, max_samples: int = MAX_SAMPLES, *, min_per_step: int = MIN_PER_STEP) -> RunResult:
    """`result` with at most about `max_samples` intervals in all (itself when already within)."""
    counts = [len(s.samples) for s in result.steps]
    if sum(counts) <= max_samples:
        return result
    share = _share(counts, max_samples, min_per_step)
    steps = []
    for step in result.steps:
        size = group_size(len(step.samples), share)
        if size == 1:
            steps.append(step)
            continue
        steps.append(replace(step, samples=tuple(downsample(step.samples, share)),
                             series_merged=size * (step.series_merged or 1)))
    return replace(result, steps=tuple(steps))


def _share(counts: list[int], budget: int, floor: int) -> int:
    """The most intervals any one step keeps so that all of them fit in `budget`: short series
    keep everything, and what they leave is shared by the long ones."""
    remaining, steps = budget, len(counts)
    for count in sorted(counts):
        fair = remaining // steps
        if count > fair:
            return max(floor, fair)
        remaining -= count
        steps -= 1
    return max(floor, remaining)
