"""fio's JSON reports: one job's report as a StepResult, with the checked access every reader shares.

Shared by the fio engine, which reads fio's `--status-interval` stream while it runs, and the
importer, which reads reports people kept. Both go through `job_step_result`, so a run and an
import of the same output give the same numbers. Finding the reports in fio's output is
output.py's; the live intervals between reports intervals.py's; a kept job's workload read back
from its options workload.py's.

fio 3.x counts bytes in `io_bytes` and times in ns (`lat_ns`, `clat_ns`); fio 2.x counted KiB in
`io_bytes` and µs in `lat`/`clat`; `bw_bytes` and `N` appear only in later 3.x.

I/O counts: every figure of a step (IOPS, MiB/s, the latency's weights, each interval) comes from
one count, the I/Os that completed. fio counts `total_ios` as I/Os are issued but `io_bytes` (and
the latency's `N`) as they complete; when a ramp_time ends it zeroes both, and the I/Os in flight
at that instant complete after it, counted in the bytes and not in `total_ios` (a fio 3.33 write
step: 30,419 ios, 30,447 I/Os' worth of bytes, so 14,948 IOPS x 64 KiB read 934.3 MiB/s beside
935.1). So labtui counts `io_bytes / bs` where every I/O of the direction is one block size
(exact), else the latency's `N` where fio records it (each completed I/O once), else `total_ios`,
the only count there is; fio's own "iops" (issued per second) is not used.

Latency: labtui's latency is the time from issuing an I/O to its completion, as the native
engine and DiskSpd measure it: fio's `lat` (submission + completion). fio prints percentiles for
`clat` only unless run with `lat_percentiles=1` (the fio engine asks for them). When a report has
no `lat` percentiles, every latency figure of that direction is taken from `clat` instead, so the
mean and the percentiles describe the same thing; `latency_source` says which was used.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any

from labtui.errors import ReportError
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, StepResult

_MAX_COUNT = 2**63 - 1
# fio's percentile keys ("99.000000") that labtui keeps, by LatencySummary field.
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9), ("p9999", 99.99))
AGGREGATE_JOB = "All clients"


# --------------------------------------------------------------------------- checked access


def _table(parent: dict, key: str, where: str) -> dict:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReportError(f"{where}.{key} is not a JSON object")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReportError(f"{where} is not a number: {str(value)[:40]!r}")
    if not math.isfinite(value) or value < 0 or value > _MAX_COUNT:
        raise ReportError(f"{where} is out of range: {value!r}")
    return value


def _count(block: dict, key: str, where: str, default: int | None = None) -> int:
    if key not in block:
        if default is None:
            raise ReportError(f"{where} has no {key!r}")
        return default
    return int(_number(block[key], f"{where}.{key}"))


def _optional(block: dict, key: str, where: str) -> float | None:
    return _number(block[key], f"{where}.{key}") if key in block else None


# --------------------------------------------------------------------------- reports and jobs


def report_jobs(report: dict) -> list[dict]:
    """The job entries of a report: `jobs`, or `client_stats` in client/server mode."""
    jobs = report.get("jobs", report.get("client_stats"))
    if not isinstance(jobs, list) or not all(isinstance(j, dict) for j in jobs):
        raise ReportError("its \"jobs\" are not a list of job objects")
    if not jobs:
        raise ReportError("it holds no jobs")
    return jobs


def report_version(report: dict) -> str | None:
    """fio's version without the "fio-" prefix ("3.36", "3.6-31-g4386"), if the report says."""
    version = report.get("fio version")
    if not isinstance(version, str) or not version.strip():
        return None
    return version.strip().removeprefix("fio-")


def is_legacy(report: dict) -> bool:
    """fio 2.x: KiB in io_bytes, µs latencies without the _ns suffix."""
    version = report_version(report)
    if version:
        major = re.match(r"(\d+)\.", version)
        if major:
            return int(major.group(1)) < 3
    jobs = report.get("jobs", report.get("client_stats"))
    job = jobs[0] if isinstance(jobs, list) and jobs and isinstance(jobs[0], dict) else {}
    read = job.get("read")
    if not isinstance(read, dict):
        read = {}
    return "clat" in read and "clat_ns" not in read


def job_name(job: dict) -> str:
    """The job's name; fio truncates `jobname`, `job options.name` keeps it whole."""
    name = job.get("jobname")
    name = name.strip() if isinstance(name, str) else ""
    options = job.get("job options")
    full = options.get("name") if isinstance(options, dict) else None
    if isinstance(full, str) and full.strip().startswith(name) and len(full.strip()) > len(name):
        name = full.strip()
    return name or "fio job"


def job_error(job: dict, where: str) -> str | None:
    code = job.get("error", 0)
    if isinstance(code, bool) or not isinstance(code, int):
        raise ReportError(f"{where}.error is not a number")
    if code == 0:
        return None
    reason = os.strerror(code) if 0 < code < 4096 else "unknown error"
    return f"fio reported error {code} ({reason})"


@dataclass(frozen=True)
class Latency:
    """One direction's latency as fio reported it, in labtui's terms."""

    summary: LatencySummary = LatencySummary()
    n: int = 0  # I/Os whose latency was recorded (weights the combined mean)
    mean_ns: float = 0.0
    bins: dict[int, int] | None = None  # json+ histogram: bucket value (ns) -> count
    source: str | None = None  # which block of the report: lat_ns, clat_ns, lat, clat


def _latency(block: dict, legacy: bool, ios: int, where: str) -> Latency:
    names = ("lat", "clat") if legacy else ("lat_ns", "clat_ns")
    to_ns = 1000.0 if legacy else 1.0
    stats = {name: _table(block, name, where) for name in names}
    chosen = next((n for n in names if "percentile" in stats[n] or "bins" in stats[n]), None)
    if chosen is None:
        chosen = next((n for n in names if stats[n]), None)
    if chosen is None or ios == 0:
        return Latency()
    stat = stats[chosen]
    here = f"{where}.{chosen}"
    mean = _optional(stat, "mean", here)
    n = _count(stat, "N", here, default=ios if mean else 0)
    if n == 0 or mean is None:
        return Latency(source=chosen)
    values: dict[str, float | None] = {}
    percentiles = _table(stat, "percentile", here)
    points = {}
    for key, value in percentiles.items():
        try:
            points[round(float(key), 6)] = _number(value, f"{here}.percentile")
        except ValueError:
            continue
    bins = _bins(stat, here)
    from_bins = bins_percentiles(bins, [p for _, p in PERCENTILES]) if bins else [None] * len(PERCENTILES)
    for (field, point), binned in zip(PERCENTILES, from_bins):
        value = points.get(point, binned)
        values[field] = value * to_ns / 1e6 if value is not None else None
    low, high = _optional(stat, "min", here), _optional(stat, "max", here)
    low_ms = low * to_ns / 1e6 if low is not None else None
    high_ms = high * to_ns / 1e6 if high is not None else None
    summary = LatencySummary(mean=mean * to_ns / 1e6, min=low_ms, max=high_ms, **_within(values, low_ms, high_ms))
    return Latency(summary, n, mean * to_ns, bins, chosen)


def _within(values: dict[str, float | None], low: float | None, high: float | None) -> dict[str, float | None]:
    """Percentiles held between the measured extremes.

    fio reports a percentile as the value of its histogram bucket, up to a few per cent above
    the latencies in it: its p99.99 can read 151.9 ms where the slowest I/O took 143.9 ms. The
    true percentile lies between min and max, so the nearer bound is the better figure.
    """
    out = {}
    for key, value in values.items():
        if value is not None and high is not None:
            value = min(value, high)
        if value is not None and low is not None:
            value = max(value, low)
        out[key] = value
    return out


def _bins(stat: dict, where: str) -> dict[int, int] | None:
    raw = stat.get("bins")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ReportError(f"{where}.bins is not a JSON object")
    bins: dict[int, int] = {}
    for key, value in raw.items():
        try:
            bucket = int(key)
        except ValueError:
            raise ReportError(f"{where}.bins has a bucket named {key[:20]!r}") from None
        bins[bucket] = bins.get(bucket, 0) + int(_number(value, f"{where}.bins"))
    return bins


def bins_percentiles(bins: dict[int, int], points: list[float]) -> list[int | None]:
    """Percentiles of a fio json+ histogram, computed the way fio computes the ones it prints."""
    total = sum(bins.values())
    out: list[int | None] = [None] * len(points)
    if total <= 0:
        return out
    order = sorted(range(len(points)), key=lambda i: points[i])
    j = 0
    cumulative = 0
    for value, count in sorted(bins.items()):
        cumulative += count
        while j < len(order) and cumulative >= points[order[j]] / 100.0 * total:
            out[order[j]] = value
            j += 1
        if j == len(order):
            break
    return out


def _combined(read: Latency, write: Latency) -> LatencySummary:
    """Both directions together: exact from json+ histograms, else mean/min/max only."""
    if not read.n:
        return write.summary
    if not write.n:
        return read.summary
    n = read.n + write.n
    mean_ms = (read.mean_ns * read.n + write.mean_ns * write.n) / n / 1e6
    lows = [x for x in (read.summary.min, write.summary.min) if x is not None]
    highs = [x for x in (read.summary.max, write.summary.max) if x is not None]
    values: dict[str, float | None] = {field: None for field, _ in PERCENTILES}
    if read.bins is not None and write.bins is not None and read.source == write.source:
        merged = dict(read.bins)
        for value, count in write.bins.items():
            merged[value] = merged.get(value, 0) + count
        to_ms = 1e3 / 1e6 if read.source in ("lat", "clat") else 1 / 1e6
        found = bins_percentiles(merged, [p for _, p in PERCENTILES])
        values = {field: (v * to_ms if v is not None else None) for (field, _), v in zip(PERCENTILES, found)}
    low, high = (min(lows) if lows else None), (max(highs) if highs else None)
    return LatencySummary(mean=mean_ms, min=low, max=high, **_within(values, low, high))


@dataclass(frozen=True)
class Counters:
    """One job's cumulative counters in one report: what consecutive reports are differenced on."""

    runtime_ms: int
    read_ios: int
    read_bytes: int
    write_ios: int
    write_bytes: int
    read_latency: Latency
    write_latency: Latency

    @property
    def measuring(self) -> bool:
        """fio records no latency during ramp_time: the first report with some is past it."""
        return self.read_latency.n + self.write_latency.n > 0


# The block size of each direction, read and write, where every I/O of it is that size (None: mixed).
BlockSizes = tuple[int | None, int | None]
NO_SIZES: BlockSizes = (None, None)


def direction_totals(job: dict, key: str, legacy: bool, where: str,
               block_size: int | None = None) -> tuple[int, int, int, Latency]:
    """(I/Os completed, bytes, runtime ms, latency) of one direction (the module's docstring: which count)."""
    block = _table(job, key, where)
    if not block:
        return 0, 0, 0, Latency()
    here = f"{where}.{key}"
    issued = _count(block, "total_ios", here)
    if "io_bytes" in block:
        size = _count(block, "io_bytes", here)
        if legacy and "io_kbytes" not in block:
            size *= 1024  # fio 2.x printed KiB under this name
    else:
        size = _count(block, "io_kbytes", here) * 1024
    runtime_ms = _count(block, "runtime", here, default=0)
    if size > _MAX_COUNT:
        raise ReportError(f"{here}.io_bytes is out of range")
    latency = _latency(block, legacy, issued, here)
    return completed_ios(issued, size, block_size, latency.n), size, runtime_ms, latency


def completed_ios(issued: int, size: int, block_size: int | None, recorded: int) -> int:
    """The I/Os that completed: the bytes over the block size where every I/O is one size and they
    divide exactly, else the I/Os whose latency fio recorded, else the I/Os it issued."""
    if block_size and size % block_size == 0:
        return size // block_size
    return recorded or issued


def job_counters(job: dict, legacy: bool = False, where: str = "job", sizes: BlockSizes = NO_SIZES) -> Counters:
    r_ios, r_bytes, r_ms, r_lat = direction_totals(job, "read", legacy, where, sizes[0])
    w_ios, w_bytes, w_ms, w_lat = direction_totals(job, "write", legacy, where, sizes[1])
    if not job.get("read") and not job.get("write"):
        raise ReportError(f"{where} has neither read nor write statistics")
    return Counters(max(r_ms, w_ms), r_ios, r_bytes, w_ios, w_bytes, r_lat, w_lat)


def latency_source(job: dict, legacy: bool = False) -> str | None:
    """Which latency block the figures come from ("lat_ns", "clat_ns", "lat", "clat")."""
    counters = job_counters(job, legacy)
    sources = {x.source for x in (counters.read_latency, counters.write_latency) if x.n and x.source}
    return sources.pop() if len(sources) == 1 else (" and ".join(sorted(sources)) if sources else None)


def job_step_result(
    job: dict,
    step: Step,
    *,
    legacy: bool = False,
    repetition: int = 1,
    command_line: str | None = None,
    samples: tuple[Sample, ...] = (),
    cpu_percent: float | None = None,
    latency: bool = True,
    where: str = "job",
    sizes: BlockSizes | None = None,
) -> StepResult:
    """A job of fio's report as labtui's step result: fio's own exact counts and times.

    `sizes`: each direction's block size where it is one (default: the step's, as labtui's fio
    engine runs it; an import says what the job's options say, block_sizes())."""
    sizes = sizes if sizes is not None else (step.block_size, step.block_size)
    r_ios, r_bytes, r_ms, r_lat = direction_totals(job, "read", legacy, where, sizes[0])
    w_ios, w_bytes, w_ms, w_lat = direction_totals(job, "write", legacy, where, sizes[1])
    if not job.get("read") and not job.get("write"):
        raise ReportError(f"{where} has neither read nor write statistics")
    # A direction without I/O reports runtime 0; give it the job's time so its rates read 0/s.
    r_seconds = (r_ms or w_ms) / 1000.0
    w_seconds = (w_ms or r_ms) / 1000.0
    error = job_error(job, where)
    cpu_seconds = None
    usr, sys_, runtime = job.get("usr_cpu"), job.get("sys_cpu"), job.get("job_runtime")
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (usr, sys_, runtime)):
        # fio's usr/sys are percentages of the jobs' summed runtime (ms), group_reporting included.
        value = (_number(usr, f"{where}.usr_cpu") + _number(sys_, f"{where}.sys_cpu")) / 100.0 * _number(
            runtime, f"{where}.job_runtime"
        ) / 1000.0
        cpu_seconds = round(value, 6) if math.isfinite(value) else None
    return StepResult(
        step=step,
        status="failed" if error else "completed",
        read=DirectionStats(r_ios, r_bytes, r_seconds),
        write=DirectionStats(w_ios, w_bytes, w_seconds),
        latency=_combined(r_lat, w_lat) if latency else LatencySummary(),
        read_latency=r_lat.summary if latency else LatencySummary(),
        write_latency=w_lat.summary if latency else LatencySummary(),
        cpu_percent=cpu_percent,
        cpu_seconds=cpu_seconds,
        repetition=repetition,
        command_line=command_line,
        error=error,
        samples=samples,
    )


@dataclass(frozen=True)
class FioSteadyState:
    """A job's `steadystate` object: what fio's own check judged (fio 2.19 and later)."""

    criterion_name: str  # "iops_slope", "bw", ...
    limit_text: str  # as fio echoes it: "50.000000%"
    duration: int  # seconds in fio's window (ss_dur)
    attained: bool
    criterion: float  # fio's value: in % of the mean where the limit is, else in IOPS or bytes/s
    percent: bool
    slope: float | None
    max_deviation: float | None
    iops_mean: float | None
    bw_mean: float | None  # bytes/s
    iops: tuple[float, ...]  # fio's per-second data over its window, oldest first
    bw: tuple[float, ...]  # bytes/s


def job_steadystate(job: dict, where: str = "job") -> FioSteadyState | None:
    """The job's `steadystate` object, or None where fio judged none."""
    block = job.get("steadystate")
    if block is None:
        return None
    if not isinstance(block, dict):
        raise ReportError(f"{where}.steadystate is not a JSON object")
    here = f"{where}.steadystate"
    spec = block.get("ss")
    criterion = block.get("criterion")
    if not isinstance(spec, str) or ":" not in spec:
        raise ReportError(f"{here}.ss is not a criterion such as 'iops_slope:0.1%'")
    name, limit_text = spec.split(":", 1)
    percent = str(criterion).endswith("%")
    try:
        value = float(str(criterion).removesuffix("%"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ReportError(f"{here}.criterion is not a number: {str(criterion)[:30]!r}")
    data = _table(block, "data", here)

    def series(key: str) -> tuple[float, ...]:
        raw = data.get(key, [])
        if not isinstance(raw, list):
            raise ReportError(f"{here}.data.{key} is not a list")
        return tuple(_number(v, f"{here}.data.{key}") for v in raw)

    slope = block.get("slope")
    if slope is not None and (isinstance(slope, bool) or not isinstance(slope, (int, float))
                              or not math.isfinite(slope)):
        raise ReportError(f"{here}.slope is not a number: {str(slope)[:40]!r}")
    return FioSteadyState(
        criterion_name=name.lower(),
        limit_text=limit_text,
        duration=_count(block, "duration", here),
        attained=bool(_number(block.get("attained", 0), f"{here}.attained")),
        criterion=value,
        percent=percent,
        slope=float(slope) if slope is not None else None,  # falling IOPS have a negative slope
        max_deviation=_optional(block, "max_deviation", here),
        iops_mean=_optional(data, "iops_mean", f"{here}.data"),
        bw_mean=_optional(data, "bw_mean", f"{here}.data"),
        iops=series("iops"),
        bw=series("bw"),
    )


