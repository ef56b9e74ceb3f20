"""fio's `--status-interval` reports as labtui's live samples: consecutive cumulative reports differenced.

fio's reports count from the job's start (and from zero again once its ramp_time ends): each
interval is what changed between two of them, its latency from the histogram bins where fio
keeps them. The samples of a step's measure add up to its final report's counts.
"""

from __future__ import annotations

from labtui.engine.fio.parse import NO_SIZES, PERCENTILES, BlockSizes, Counters, Latency, bins_percentiles, job_counters
from labtui.model.result import LatencySummary, Sample


def interval_sample(
    prev: Counters | None, cur: Counters, *, t_offset: float = 0.0, latency: bool = True,
    cpu_percent: float | None = None,
) -> Sample | None:
    """What happened between two cumulative reports (from zero when `prev` is None)."""
    base = prev or Counters(0, 0, 0, 0, 0, Latency(), Latency())
    seconds = (cur.runtime_ms - base.runtime_ms) / 1000.0
    if seconds <= 0:
        return None
    r_ios, w_ios = cur.read_ios - base.read_ios, cur.write_ios - base.write_ios
    r_bytes, w_bytes = cur.read_bytes - base.read_bytes, cur.write_bytes - base.write_bytes
    if min(r_ios, w_ios, r_bytes, w_bytes) < 0:
        return None
    r_mean, r_p99 = _interval_latency(base.read_latency, cur.read_latency) if latency else (None, None)
    w_mean, w_p99 = _interval_latency(base.write_latency, cur.write_latency) if latency else (None, None)
    return Sample(
        t=round(cur.runtime_ms / 1000.0 + t_offset, 6),
        seconds=round(seconds, 6),
        read_ios=r_ios,
        read_bytes=r_bytes,
        write_ios=w_ios,
        write_bytes=w_bytes,
        read_lat_mean_ms=r_mean,
        read_lat_p99_ms=r_p99,
        write_lat_mean_ms=w_mean,
        write_lat_p99_ms=w_p99,
        cpu_percent=cpu_percent,
    )


def _interval_latency(before: Latency, after: Latency) -> tuple[float | None, float | None]:
    n = after.n - before.n
    if n <= 0:
        return None, None
    mean_ms = (after.mean_ns * after.n - before.mean_ns * before.n) / n / 1e6
    p99 = None
    if after.bins is not None:
        old = before.bins or {}
        delta = {v: c - old.get(v, 0) for v, c in after.bins.items() if c - old.get(v, 0) > 0}
        value = bins_percentiles(delta, [99.0])[0] if delta else None
        scale = 1e3 if after.source in ("lat", "clat") else 1.0
        p99 = value * scale / 1e6 if value is not None else None
    return (mean_ms if mean_ms >= 0 else None), p99


def span_latency(before: Latency, after: Latency) -> LatencySummary:
    """Latency between two cumulative reports: the exact mean, percentiles from json+ histograms'
    difference; the extremes of a span are not reported (fio's min and max are the whole run's)."""
    n = after.n - before.n
    if n <= 0 or after.mean_ns <= 0:
        return LatencySummary()
    mean_ms = (after.mean_ns * after.n - before.mean_ns * before.n) / n / 1e6
    values: dict[str, float | None] = {field: None for field, _ in PERCENTILES}
    if after.bins is not None:
        old = before.bins or {}
        delta = {v: c - old.get(v, 0) for v, c in after.bins.items() if c - old.get(v, 0) > 0}
        scale = 1e3 if after.source in ("lat", "clat") else 1.0
        found = bins_percentiles(delta, [p for _, p in PERCENTILES]) if delta else [None] * len(PERCENTILES)
        values = {field: (v * scale / 1e6 if v is not None else None) for (field, _), v in zip(PERCENTILES, found)}
    return LatencySummary(mean=mean_ms if mean_ms >= 0 else None, **values)


def span_latency_both(before: Counters, after: Counters) -> LatencySummary:
    """Both directions' latency between two reports (histograms merged where both have them)."""
    merged_before = _merged_latency(before.read_latency, before.write_latency)
    merged_after = _merged_latency(after.read_latency, after.write_latency)
    return span_latency(merged_before, merged_after)


def _merged_latency(read: Latency, write: Latency) -> Latency:
    n = read.n + write.n
    if not n:
        return Latency(source=read.source or write.source)
    bins = None
    if read.bins is not None and write.bins is not None and (read.source == write.source or not read.n or not write.n):
        bins = dict(read.bins)
        for value, count in write.bins.items():
            bins[value] = bins.get(value, 0) + count
    elif read.bins is not None and not write.n:
        bins = read.bins
    elif write.bins is not None and not read.n:
        bins = write.bins
    mean = (read.mean_ns * read.n + write.mean_ns * write.n) / n
    return Latency(LatencySummary(), n, mean, bins, read.source or write.source)


def empty_counters() -> Counters:
    """Where fio's counters start after its ramp (it resets them all)."""
    return Counters(0, 0, 0, 0, 0, Latency(), Latency())


def merge_samples(first: Sample, second: Sample) -> Sample:
    """One sample covering two consecutive intervals (for a final sliver too short to show)."""

    def mean(a: float | None, na: int, b: float | None, nb: int) -> float | None:
        parts = [(v, n) for v, n in ((a, na), (b, nb)) if v is not None and n]
        return sum(v * n for v, n in parts) / sum(n for _, n in parts) if parts else None

    return Sample(
        t=second.t,
        seconds=round(first.seconds + second.seconds, 6),
        read_ios=first.read_ios + second.read_ios,
        read_bytes=first.read_bytes + second.read_bytes,
        write_ios=first.write_ios + second.write_ios,
        write_bytes=first.write_bytes + second.write_bytes,
        read_lat_mean_ms=mean(first.read_lat_mean_ms, first.read_ios, second.read_lat_mean_ms, second.read_ios),
        write_lat_mean_ms=mean(first.write_lat_mean_ms, first.write_ios, second.write_lat_mean_ms, second.write_ios),
        cpu_percent=first.cpu_percent if second.cpu_percent is None else second.cpu_percent,
        read_lat_p99_ms=max((x for x in (first.read_lat_p99_ms, second.read_lat_p99_ms) if x is not None), default=None),
        write_lat_p99_ms=max((x for x in (first.write_lat_p99_ms, second.write_lat_p99_ms) if x is not None),
                             default=None),
    )


class SampleTracker:
    """Turns one job's consecutive cumulative reports into per-interval samples.

    fio counts from the job's start during ramp_time, then resets every counter when it ends;
    the first report with recorded latency is past the reset (fio records none while ramping).
    Measured samples always add up to the final report's counts.
    """

    def __init__(self, warmup: float, *, latency: bool = True, min_seconds: float = 0.25,
                 sizes: BlockSizes = NO_SIZES) -> None:
        self.warmup = warmup
        self.sizes = sizes  # each direction's block size, so its intervals count I/Os as the result does
        self.latency = latency
        self.min_seconds = min_seconds
        self.phase = "warmup" if warmup > 0 else "measure"
        self.measured: list[Sample] = []
        self._prev: Counters | None = None
        self._held: Sample | None = None

    def add(self, job: dict, legacy: bool = False, *, cpu_percent: float | None = None) -> tuple[str, Sample] | None:
        """(phase, sample) for the interval this report closes, or None if there is none to show."""
        counters = job_counters(job, legacy, sizes=self.sizes)
        if self.phase == "warmup" and counters.measuring:
            self.phase, self._prev = "measure", None
        elif self._prev is not None and counters.runtime_ms < self._prev.runtime_ms:
            self._prev = None  # fio reset its counters
        offset = -self.warmup if self.phase == "warmup" else 0.0
        sample = interval_sample(self._prev, counters, t_offset=offset, latency=self.latency, cpu_percent=cpu_percent)
        self._prev = counters
        if sample is None or self.phase == "warmup":
            return (self.phase, sample) if sample is not None else None
        if self._held is not None:
            sample, self._held = merge_samples(self._held, sample), None
        if sample.seconds < self.min_seconds:
            # A sliver (the first interval after ramp_time, or the final report right after the
            # last status one): shown merged with its neighbour rather than as a noisy spike.
            self._held = sample
            return None
        self.measured.append(sample)
        return self.phase, sample

    def finish(self) -> None:
        """Fold a held sliver into the last sample, once the stream has ended."""
        if self._held is not None:
            if self.measured:
                self.measured[-1] = merge_samples(self.measured[-1], self._held)
            else:
                self.measured.append(self._held)
            self._held = None
