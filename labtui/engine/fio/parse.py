"""fio's JSON output: the reports in a stream of text, and one job's report as a StepResult.

Shared by the fio engine, which reads fio's `--status-interval` stream while it runs, and the
importer, which reads reports people kept. Both go through `job_step_result`, so a run and an
import of the same output give the same numbers.

What fio's output looks like in the wild (see tests/fixtures/SOURCES.md):
- text before the JSON (fio's own error lines, "fio: terminating on signal 2"), and several
  concatenated reports in a `--status-interval` stream, the final one last;
- duplicate keys (a repeated `filename`): the first value is kept, every value remembered;
- fio 3.x counts bytes in `io_bytes` and times in ns (`lat_ns`, `clat_ns`); fio 2.x counted KiB
  in `io_bytes` and µs in `lat`/`clat`; `bw_bytes` and `N` appear only in later 3.x.

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

import json
import math
import os
import re
import shlex
from dataclasses import dataclass
from typing import Any

from labtui.errors import ReportError, ValidationError
from labtui.model import DirectionStats, LatencySummary, Sample, Step, StepResult
from labtui.units import parse_duration, parse_size

_MAX_COUNT = 2**63 - 1
# fio's percentile keys ("99.000000") that labtui keeps, by LatencySummary field.
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9), ("p9999", 99.99))
AGGREGATE_JOB = "All clients"


class JsonObject(dict):
    """A JSON object that remembers every value of a repeated key; the first one is its value."""

    def __init__(self) -> None:
        super().__init__()
        self.repeated: dict[str, list[Any]] = {}


def _object_pairs(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject()
    for key, value in pairs:
        if key in obj:
            obj.repeated.setdefault(key, [obj[key]]).append(value)
        else:
            obj[key] = value
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_object_pairs)
_LINE_START_BRACE = re.compile(r"^[ \t]*\{", re.M)


@dataclass(frozen=True)
class FioOutput:
    reports: tuple[dict, ...]  # every complete fio report, in order (the final one last)
    messages: tuple[str, ...]  # the non-JSON lines around them (fio's errors and notices)
    first_error: str | None = None  # why the first JSON-looking part did not parse, if one did not
    tail_error: str | None = None  # why a JSON-looking part after the last complete report did not parse


def is_report(obj: Any) -> bool:
    return isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj)


def split_output(text: str) -> FioOutput:
    """The fio reports in `text` and the lines of other text around them."""
    reports: list[dict] = []
    messages: list[str] = []
    first_error: str | None = None
    starts = [m.end() - 1 for m in _LINE_START_BRACE.finditer(text)]
    if not starts and "{" in text:
        starts = [text.index("{")]
    pos = 0
    errors: list[tuple[int, str]] = []  # (where the part began, why it did not parse)
    last_report_end = 0
    for start in starts:
        if start < pos:
            continue
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            errors.append((start, f"invalid JSON at line {line}: {exc.msg}"))
            continue
        except RecursionError:
            errors.append((start, "JSON nested too deeply"))
            continue
        messages.extend(_lines(text[pos:start]))
        if is_report(obj):
            reports.append(obj)
            last_report_end = end
        else:
            messages.append(text[start:end][:200])
        pos = end
    messages.extend(_lines(text[pos:]))
    first_error = errors[0][1] if errors else None
    tail_error = next((why for at, why in errors if at >= last_report_end), None) if reports else None
    return FioOutput(tuple(reports), tuple(messages), first_error, tail_error)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class ReportStream:
    """Splits fio's stdout into reports as it arrives; fio closes each with "}" on its own line."""

    def __init__(self) -> None:
        self._buffer = ""
        self.messages: list[str] = []

    def feed(self, chunk: str) -> list[dict]:
        self._buffer += chunk
        reports: list[dict] = []
        while True:
            end = self._buffer.find("\n}\n")
            if end < 0:
                break
            segment, self._buffer = self._buffer[: end + 3], self._buffer[end + 3 :]
            reports.extend(self._split(segment))
        return reports

    def finish(self) -> list[dict]:
        segment, self._buffer = self._buffer, ""
        return self._split(segment)

    def _split(self, segment: str) -> list[dict]:
        out = split_output(segment)
        self.messages.extend(out.messages)
        return list(out.reports)


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


def _direction(job: dict, key: str, legacy: bool, where: str,
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
    r_ios, r_bytes, r_ms, r_lat = _direction(job, "read", legacy, where, sizes[0])
    w_ios, w_bytes, w_ms, w_lat = _direction(job, "write", legacy, where, sizes[1])
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
    r_ios, r_bytes, r_ms, r_lat = _direction(job, "read", legacy, where, sizes[0])
    w_ios, w_bytes, w_ms, w_lat = _direction(job, "write", legacy, where, sizes[1])
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


# --------------------------------------------------------------------------- workload recovery


def job_options(job: dict, report: dict) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The job's options over the report's global ones, and every value of a repeated option."""
    merged: dict[str, str] = {}
    repeated: dict[str, list[str]] = {}
    glob = report.get("global options")
    if isinstance(glob, list):
        # client/server with several servers: one global table per server, with its address
        host, port = job.get("hostname"), job.get("port")
        match = [g for g in glob if isinstance(g, dict) and g.get("hostname") == host and str(g.get("port")) == str(port)]
        glob = match[0] if match else next((g for g in glob if isinstance(g, dict)), None)
    for table in (glob, job.get("job options")):
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if isinstance(key, str) and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                merged[key] = str(value)
        for key, values in getattr(table, "repeated", {}).items():
            repeated[key] = [str(v) for v in values if isinstance(v, (str, int, float))]
    return merged, repeated


# ASCII, as fio reads its options: a str pattern's \d (and str.isdigit) also take "٤" or "４".
_SIZE_TOKEN = re.compile(r"\d+(?:\.\d+)?\s*(?:[kmgtp]i?b?|b)?", re.I | re.ASCII)
_TIME_TOKEN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(us|usec|ms|msec|s|sec|m|min|h|d)?\s*$", re.I | re.ASCII)
_TIME_UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0,
               "h": 3600.0, "d": 86400.0}


def fio_size(value: str | None) -> int | None:
    """A fio size option's first size ("4k", "128k,64k", "4k-16k", "1m"), in bytes (k = 1024)."""
    if not value:
        return None
    value = value.strip()
    match = _SIZE_TOKEN.match(value)
    if not match or value[match.end() : match.end() + 1] not in ("", ",", "-", ":"):
        return None  # e.g. "100%": a share of the device, not a size
    try:
        return parse_size(match.group(0).replace(" ", ""), allow_zero=True)
    except ValidationError:
        return None


def fio_seconds(value: str | None) -> float | None:
    """A fio time option ("10" seconds, "5m", "500ms"), in seconds."""
    if not value:
        return None
    match = _TIME_TOKEN.match(value)
    if not match:
        return None
    seconds = float(match.group(1)) * _TIME_UNITS[(match.group(2) or "s").lower()]
    try:
        return parse_duration(round(seconds, 6), allow_zero=True)
    except ValidationError:
        return None


def _int_option(options: dict[str, str], key: str, default: int) -> int:
    value = options.get(key, "")
    return int(value) if value.isascii() and value.isdigit() and 0 < int(value) < 1_000_000 else default


def _flag(options: dict[str, str], key: str) -> bool | None:
    if key not in options:
        return None
    return options[key].strip().lower() in ("", "1", "true", "yes", "on")


_MIXED_SIZES = ("bsrange", "blocksize_range", "bssplit", "bs_unaligned", "blocksize_unaligned")


def block_sizes(job: dict, report: dict) -> BlockSizes:
    """Each direction's block size where every I/O of it is one size (fio's `bs=4k` or `bs=128k,64k`;
    its default 4 KiB); None where the job mixes sizes (bsrange, bssplit, a range in bs)."""
    options, _ = job_options(job, report)
    if any(key in options for key in _MIXED_SIZES):
        return NO_SIZES
    text = options.get("bs") or options.get("blocksize")
    if not text:
        return (4096, 4096)
    parts = [part.strip() for part in text.split(",")]

    def one(part: str) -> int | None:
        if not part or any(c in part for c in "-:/"):
            return None
        return fio_size(part)

    read = one(parts[0])
    return read, (one(parts[1]) if len(parts) > 1 else read)


def job_workload(job: dict, report: dict, measured_seconds: float, legacy: bool = False) -> Step:
    """The step a job ran, recovered from its options (fio's defaults where it did not say)."""
    options, _ = job_options(job, report)
    rw = (options.get("rw") or options.get("readwrite") or "read").split(":")[0].strip().lower()
    pattern = "random" if rw.startswith("rand") else "sequential"
    if rw in ("read", "randread"):
        write_percent = 0
    elif rw in ("write", "randwrite", "trimwrite", "randtrimwrite"):
        write_percent = 100
    else:
        read = _int_option(options, "rwmixread", -1)
        written = _int_option(options, "rwmixwrite", -1)
        write_percent = 100 - read if 0 <= read <= 100 else (written if 0 <= written <= 100 else 50)
    read_size, write_size = block_sizes(job, report)
    block = (write_size if write_percent == 100 else read_size) or read_size or write_size
    if not block:  # sizes that vary: their mean, by the completed I/Os' bytes
        r_ios, r_bytes, _, _ = _direction(job, "read", legacy, "job")
        w_ios, w_bytes, _, _ = _direction(job, "write", legacy, "job")
        ios = r_ios + w_ios
        block = (r_bytes + w_bytes) // ios if ios else 4096  # fio's default bs
    duration = fio_seconds(options.get("runtime")) or round(measured_seconds, 6)
    direct = _flag(options, "direct")
    buffered = _flag(options, "buffered")
    cache = "off" if direct or buffered is False else "on"
    return Step(
        name=job_name(job),
        block_size=block,
        pattern=pattern,
        write_percent=write_percent,
        threads=_int_option(options, "numjobs", 1),
        outstanding=_int_option(options, "iodepth", 1),
        duration=duration,
        warmup=fio_seconds(options.get("ramp_time")) or 0.0,
        cooldown=0.0,
        cache=cache,
        latency=True,
        # sync=1 / sync / dsync: every write waits for the media (fio's O_SYNC or O_DSYNC).
        write_through=str(options.get("sync", "")).strip().lower() in ("1", "true", "sync", "dsync"),
    )


def job_command_line(job: dict, report: dict) -> str:
    """The job's options as an equivalent fio command line (fio's JSON does not keep the real one)."""
    options, repeated = job_options(job, report)
    options.pop("hostname", None)
    options.pop("port", None)
    parts = ["fio", f"--name={shlex.quote(job_name(job))}"]
    for key, value in options.items():
        if key == "name":
            continue
        values = repeated.get(key) or [value]
        for item in values:
            parts.append(f"--{key}" if item == "" else f"--{key}={shlex.quote(item)}")
    return " ".join(parts)


def job_target(job: dict, report: dict) -> str | None:
    """The file(s) or directory the job ran on, as the options name them."""
    options, repeated = job_options(job, report)
    names = repeated.get("filename") or ([options["filename"]] if options.get("filename") else [])
    if names:
        return ", ".join(dict.fromkeys(names))
    return options.get("directory") or None
