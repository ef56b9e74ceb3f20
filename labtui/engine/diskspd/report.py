"""What a DiskSpd report holds (its targets and timespans) and the readers its XML and text share.

The forms themselves are read by xml_report.py and text_report.py; parse.py picks one and turns a
timespan into labtui's StepResult.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from labtui.errors import ReportError, ValidationError
from labtui.model.result import DirectionStats, LatencySummary, Sample
from labtui.units import parse_size

MAX_COUNT = 2**63 - 1


@dataclass(frozen=True)
class Target:
    """One target (file or disk) of a timespan, as DiskSpd's input parameters describe it."""

    path: str
    block_size: int | None = None
    pattern: str | None = None  # random | sequential
    write_percent: int | None = None
    threads: int | None = None  # threads per file (-t)
    outstanding: int | None = None  # I/Os in flight per thread (-o)
    cache_off: bool | None = None
    write_through: bool = False  # hardware write cache bypassed (-Sh, -Sw)
    file_size: int | None = None
    device: str | None = None  # the block device under the file, where the Linux port names it


@dataclass(frozen=True)
class Timespan:
    number: int
    duration_seconds: float | None = None
    warmup_seconds: float | None = None
    cooldown_seconds: float | None = None
    measure_latency: bool = False
    total_threads: int | None = None  # -F, or the thread count DiskSpd reports
    targets: tuple[Target, ...] = ()
    test_seconds: float = 0.0
    cpu_percent: float | None = None
    read: DirectionStats = DirectionStats()
    write: DirectionStats = DirectionStats()
    latency: LatencySummary = LatencySummary()
    read_latency: LatencySummary = LatencySummary()
    write_latency: LatencySummary = LatencySummary()
    samples: tuple[Sample, ...] = ()


@dataclass(frozen=True)
class DiskSpdReport:
    variant: str  # "xml", "text" (Windows) or "linux" (the Linux port's text)
    version: str | None = None
    command_line: str | None = None
    computer: str | None = None
    started: datetime | None = None
    cpu_count: int | None = None
    timespans: tuple[Timespan, ...] = field(default=())


FIGURE = re.compile(r"^(\d+\.\d{3}|N/A)$", re.ASCII)  # a %-ile table's cell
RATE = re.compile(r"^(\d+\.\d{2,3}|N/A)$", re.ASCII)  # MiB/s, I/O per s, AvgLat, IopsStdDev, LatStdDev


def undouble(text: str) -> str:
    # Logs that escape backslashes turn C:\dir into C:\\dir everywhere; a real path never has
    # a doubled backslash after its drive letter, so such a file is undone whole.
    return text.replace("\\\\", "\\") if re.search(r"[A-Za-z]:\\\\", text) else text


def size_of(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return parse_size(text.strip().replace(" ", ""), allow_zero=True)
    except ValidationError:
        return None


def count_of(text: str, where: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ReportError(f"{where} is not a whole number: {text.strip()[:30]!r}") from None
    if not 0 <= value <= MAX_COUNT:
        raise ReportError(f"{where} is out of range: {value}")
    return value


def figure_of(text: str | None, where: str) -> float | None:
    if text is None:
        return None
    text = text.strip().rstrip("%s")
    if text in ("", "N/A"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise ReportError(f"{where} is not a number: {text[:30]!r}") from None
    if not math.isfinite(value) or value < 0 or value > MAX_COUNT:
        raise ReportError(f"{where} is out of range: {text[:30]!r}")
    return value


def timestamp(text: str | None) -> datetime | None:
    """DiskSpd's "2018/10/18 21:39:04 UTC"."""
    if not text:
        return None
    match = re.search(r"(\d{4})/(\d{1,2})/(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2})", text)
    if not match:
        return None
    try:
        year, month, day, hour, minute, second = (int(x) for x in match.groups())
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None


PERCENTILE_FIELDS = {
    0.0: "min", 50.0: "p50", 90.0: "p90", 95.0: "p95", 99.0: "p99", 99.9: "p999", 99.99: "p9999", 100.0: "max",
}


def latency_summary(mean: float | None, points: dict[str, float | None]) -> LatencySummary:
    if mean is None and not any(v is not None for v in points.values()):
        return LatencySummary()
    return LatencySummary(mean=mean, **{k: v for k, v in points.items() if k in LatencySummary.__dataclass_fields__})
