"""DiskSpd's reports: its XML (`-Rxml`) and its text, Windows (2.0.17a to 2.2) and the Linux port.

Shared by the DiskSpd engine and the importer: `parse_report(text)` gives a `DiskSpdReport`, and
`timespan_result` turns one of its timespans into labtui's StepResult. Counts are DiskSpd's own
exact ones: the text's `total:` lines, or in XML the per-thread target counts summed (the XML has
no total element), over the measured seconds DiskSpd printed (`actual test time`).

Real files differ from what DiskSpd wrote (see tests/fixtures/SOURCES.md): a BOM, CRLF, tabs turned
into spaces, a prompt or prose before the report, a missing `Command Line:` line, backslashes
doubled by an escaped log, no trailing newline. The parsers look for DiskSpd's labels, not for
exact layouts.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime

from labtui.errors import ReportError, ValidationError
from labtui.model import DirectionStats, LatencySummary, Sample, Step, StepResult
from labtui.units import parse_size

_MAX_COUNT = 2**63 - 1


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


_FIGURE = re.compile(r"^(\d+\.\d{3}|N/A)$", re.ASCII)  # a %-ile table's cell
_RATE = re.compile(r"^(\d+\.\d{2,3}|N/A)$", re.ASCII)  # MiB/s, I/O per s, AvgLat, IopsStdDev, LatStdDev


def looks_like_xml(text: str) -> bool:
    return "<Results" in text and ("<TimeSpan" in text or "<System" in text)


def looks_like_text(text: str) -> bool:
    return bool(re.search(r"Results for (timespan|job) \d+", text)) or (
        "Input parameters:" in text and "Total IO" in text
    )


def parse_report(text: str) -> DiskSpdReport:
    """DiskSpd's XML or text report; ReportError if it is neither or is cut short."""
    if looks_like_xml(text):
        return parse_xml(text)
    if looks_like_text(text):
        return parse_text(text)
    raise ReportError("not a DiskSpd report (no <Results> XML and no \"Results for timespan\" text)")


# --------------------------------------------------------------------------- shared helpers


def _undouble(text: str) -> str:
    # Logs that escape backslashes turn C:\dir into C:\\dir everywhere; a real path never has
    # a doubled backslash after its drive letter, so such a file is undone whole.
    return text.replace("\\\\", "\\") if re.search(r"[A-Za-z]:\\\\", text) else text


def _size(text: str | None) -> int | None:
    if not text:
        return None
    try:
        return parse_size(text.strip().replace(" ", ""), allow_zero=True)
    except ValidationError:
        return None


def _int(text: str, where: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ReportError(f"{where} is not a whole number: {text.strip()[:30]!r}") from None
    if not 0 <= value <= _MAX_COUNT:
        raise ReportError(f"{where} is out of range: {value}")
    return value


def _float(text: str | None, where: str) -> float | None:
    if text is None:
        return None
    text = text.strip().rstrip("%s")
    if text in ("", "N/A"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise ReportError(f"{where} is not a number: {text[:30]!r}") from None
    if not math.isfinite(value) or value < 0 or value > _MAX_COUNT:
        raise ReportError(f"{where} is out of range: {text[:30]!r}")
    return value


def _time(text: str | None) -> datetime | None:
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


_PERCENTILE_FIELDS = {
    0.0: "min", 50.0: "p50", 90.0: "p90", 95.0: "p95", 99.0: "p99", 99.9: "p999", 99.99: "p9999", 100.0: "max",
}


def _summary(mean: float | None, points: dict[str, float | None]) -> LatencySummary:
    if mean is None and not any(v is not None for v in points.values()):
        return LatencySummary()
    return LatencySummary(mean=mean, **{k: v for k, v in points.items() if k in LatencySummary.__dataclass_fields__})


# --------------------------------------------------------------------------- XML


def _find(parent: ET.Element | None, path: str) -> str | None:
    if parent is None:
        return None
    node = parent.find(path)
    return node.text.strip() if node is not None and node.text is not None else None


def _xml_bool(value: str | None) -> bool | None:
    return None if value is None else value.strip().lower() == "true"


def parse_xml(text: str) -> DiskSpdReport:
    start = text.find("<Results")
    end = text.rfind("</Results>")
    if start < 0 or end < 0:
        raise ReportError("the DiskSpd XML is cut short (no closing </Results>)")
    body = text[start : end + len("</Results>")]
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise ReportError(f"the DiskSpd XML does not parse: {exc}") from None
    system = root.find("System")
    profile_spans = root.findall("Profile/TimeSpans/TimeSpan")
    result_spans = root.findall("TimeSpan")
    if not result_spans:
        raise ReportError("the DiskSpd XML has no <TimeSpan> results")
    timespans = []
    for i, node in enumerate(result_spans):
        profile = profile_spans[i] if i < len(profile_spans) else None
        timespans.append(_xml_timespan(i + 1, profile, node))
    cpu_count = _find(result_spans[0], "ProcCount")
    return DiskSpdReport(
        variant="xml",
        version=_find(system, "Tool/Version"),
        computer=_find(system, "ComputerName"),
        started=_time(_find(system, "RunTime")),
        cpu_count=_int(cpu_count, "ProcCount") if cpu_count else None,
        timespans=tuple(timespans),
    )


def _xml_target(node: ET.Element, where: str) -> Target:
    def number(name: str) -> int | None:
        value = _find(node, name)
        return _int(value, f"{where}.{name}") if value else None

    if node.find("Random") is not None:
        pattern = "random"
    elif node.find("StrideSize") is not None or _xml_bool(_find(node, "SequentialScan")):
        pattern = "sequential"
    else:
        pattern = None
    cache_off = None
    for name in ("DisableAllCache", "DisableOSCache"):
        if _xml_bool(_find(node, name)):
            cache_off = True
    if cache_off is None and node.find("DisableOSCache") is not None:
        cache_off = False
    write = number("WriteRatio")
    through = _xml_bool(_find(node, "WriteThrough")) or _xml_bool(_find(node, "DisableAllCache"))
    return Target(
        path=_undouble(_find(node, "Path") or "unknown"),
        block_size=number("BlockSize"),
        pattern=pattern,
        write_percent=write if write is not None and write <= 100 else None,
        threads=number("ThreadsPerFile"),
        outstanding=number("RequestCount"),
        cache_off=cache_off,
        write_through=bool(through),
        file_size=number("FileSize"),
    )


def _xml_timespan(number: int, profile: ET.Element | None, node: ET.Element) -> Timespan:
    where = f"timespan {number}"
    targets = tuple(
        _xml_target(t, f"{where} target") for t in (profile.findall("Targets/Target") if profile is not None else [])
    )
    seconds = _float(_find(node, "TestTimeSeconds"), f"{where} TestTimeSeconds")
    if seconds is None:
        raise ReportError(f"{where} has no TestTimeSeconds")
    counts = {"ReadBytes": 0, "ReadCount": 0, "WriteBytes": 0, "WriteCount": 0}
    sizes: dict[str, int] = {}
    threads = node.findall("Thread")
    if not threads:
        raise ReportError(f"{where} has no <Thread> results")
    for thread in threads:
        for target in thread.findall("Target"):
            for key in counts:
                value = _find(target, key)
                if value is None:
                    raise ReportError(f"{where}: a thread's target has no {key}")
                counts[key] += _int(value, f"{where} {key}")
            size = _find(target, "FileSize")
            path = _undouble(_find(target, "Path") or "")
            if size and path:
                sizes[path] = _int(size, f"{where} FileSize")
    if any(v > _MAX_COUNT for v in counts.values()):
        raise ReportError(f"{where}: the counts are out of range")
    targets = tuple(
        t if t.file_size or t.path not in sizes else Target(**{**t.__dict__, "file_size": sizes[t.path]}) for t in targets
    )
    latency = node.find("Latency")
    lat: dict[str, dict[str, float | None]] = {"Read": {}, "Write": {}, "Total": {}}
    if latency is not None:
        for bucket in latency.findall("Bucket"):
            point = _float(_find(bucket, "Percentile"), f"{where} latency percentile")
            name = _PERCENTILE_FIELDS.get(round(point, 6)) if point is not None else None
            if name is None:
                continue
            for direction in lat:
                lat[direction][name] = _float(_find(bucket, f"{direction}Milliseconds"), f"{where} latency")
    means = {
        "Read": _float(_find(latency, "AverageReadMilliseconds"), f"{where} latency"),
        "Write": _float(_find(latency, "AverageWriteMilliseconds"), f"{where} latency"),
        "Total": _float(_find(latency, "AverageTotalMilliseconds"), f"{where} latency"),
    }
    cpu = _float(_find(node, "CpuUtilization/Average/UsagePercent"), f"{where} CPU")
    thread_count = _find(node, "ThreadCount")
    profile_threads = _find(profile, "ThreadCount") if profile is not None else None
    total_threads = _int(profile_threads, "ThreadCount") if profile_threads and profile_threads != "0" else None
    return Timespan(
        number=number,
        duration_seconds=_float(_find(profile, "Duration"), f"{where} Duration"),
        warmup_seconds=_float(_find(profile, "Warmup"), f"{where} Warmup"),
        cooldown_seconds=_float(_find(profile, "Cooldown"), f"{where} Cooldown"),
        measure_latency=bool(_xml_bool(_find(profile, "MeasureLatency"))) or latency is not None,
        total_threads=total_threads or (_int(thread_count, "ThreadCount") if thread_count else None),
        targets=targets,
        test_seconds=seconds,
        cpu_percent=cpu,
        read=DirectionStats(counts["ReadCount"], counts["ReadBytes"], seconds),
        write=DirectionStats(counts["WriteCount"], counts["WriteBytes"], seconds),
        latency=_summary(means["Total"], lat["Total"]),
        read_latency=_summary(means["Read"], lat["Read"]) if counts["ReadCount"] else LatencySummary(),
        write_latency=_summary(means["Write"], lat["Write"]) if counts["WriteCount"] else LatencySummary(),
        samples=_xml_samples(node, profile, targets, where),
    )


def _xml_samples(node: ET.Element, profile: ET.Element | None, targets: tuple[Target, ...], where: str) -> tuple[Sample, ...]:
    """DiskSpd's per-interval I/O counts (-D), as samples; bytes only where one block size is known."""
    buckets = node.findall("Iops/Bucket")
    if not buckets:
        return ()
    sizes = {t.block_size for t in targets}
    block = sizes.pop() if len(sizes) == 1 else None
    if not block:
        return ()
    interval_ms = _float(_find(profile, "IoBucketDuration"), f"{where} IoBucketDuration") or 1000.0
    samples = []
    for bucket in buckets:
        a = bucket.attrib
        t_ms = _float(a.get("SampleMillisecond"), f"{where} bucket")
        reads = _float(a.get("Read"), f"{where} bucket") or 0
        writes = _float(a.get("Write"), f"{where} bucket") or 0
        if t_ms is None or interval_ms <= 0:
            continue
        samples.append(Sample(
            t=round(t_ms / 1000.0, 6),
            seconds=round(interval_ms / 1000.0, 6),
            read_ios=int(reads),
            read_bytes=int(reads) * block,
            write_ios=int(writes),
            write_bytes=int(writes) * block,
            read_lat_mean_ms=_float(a.get("ReadAvgLatencyMilliseconds"), f"{where} bucket") if reads else None,
            write_lat_mean_ms=_float(a.get("WriteAvgLatencyMilliseconds"), f"{where} bucket") if writes else None,
        ))
    return tuple(samples)


# --------------------------------------------------------------------------- text


_RESULTS = re.compile(r"^\s*Results for (timespan|job) (\d+):", re.M)
_SPAN_HEADER = re.compile(r"^\s*(?:timespan|job):\s*(\d+)\s*$", re.M)
_PERCENTILE_LABELS = {
    "min": "min", "50th": "p50", "90th": "p90", "95th": "p95", "99th": "p99", "3-nines": "p999",
    "4-nines": "p9999", "max": "max",
}


def parse_text(text: str) -> DiskSpdReport:
    text = _undouble(text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"))
    linux = bool(re.search(r"^\s*Results for job \d+:", text, re.M)) or "System info:" in text
    command = re.search(r"^\s*Command Line:\s*(.+?)\s*$", text, re.M)
    computer = re.search(r"^\s*computer name:\s*(.+?)\s*$", text, re.M)
    started = re.search(r"^\s*start time:\s*(.+?)\s*$", text, re.M)
    cpus = re.search(r"^\s*(?:proc count|cpu count|processor count):\s*(\d+)", text, re.M)
    results = list(_RESULTS.finditer(text))
    if not results:
        raise ReportError("the DiskSpd text has no \"Results for timespan\" section")
    params = _text_parameters(text)
    timespans = []
    for i, match in enumerate(results):
        number = int(match.group(2))
        end = results[i + 1].start() if i + 1 < len(results) else len(text)
        block = text[match.end() : end]
        if linux:
            # The Linux port prints each job's parameters right before its results.
            block = block.split("Input parameters:", 1)[0]
        timespans.append(_text_timespan(number, params.get(number, {}), block, linux))
    return DiskSpdReport(
        variant="linux" if linux else "text",
        version=None,
        command_line=command.group(1) if command else None,
        computer=computer.group(1) if computer else None,
        started=_time(started.group(1)) if started else None,
        cpu_count=int(cpus.group(1)) if cpus and len(cpus.group(1)) < 7 else None,
        timespans=tuple(timespans),
    )


def _text_parameters(text: str) -> dict[int, dict]:
    """The "Input parameters" of each timespan (or Linux job): times, flags and targets."""
    spans: dict[int, dict] = {}
    for section in re.split(r"^\s*Input parameters:\s*$", text, flags=re.M)[1:]:
        section = _RESULTS.split(section, maxsplit=1)[0]
        section = re.split(r"^\s*System information:\s*$", section, flags=re.M)[0]
        headers = list(_SPAN_HEADER.finditer(section))
        if not headers:
            spans.setdefault(1, _span_parameters(section))
        for i, header in enumerate(headers):
            end = headers[i + 1].start() if i + 1 < len(headers) else len(section)
            spans[int(header.group(1))] = _span_parameters(section[header.end() : end])
    return spans


def _seconds(pattern: str, text: str) -> float | None:
    match = re.search(pattern + r"\s*(\d+(?:\.\d+)?)\s*s\b", text)
    return float(match.group(1)) if match else None


def _span_parameters(text: str) -> dict:
    parts = re.split(r"^\s*path:\s*'(.*)'\s*$", text, flags=re.M)
    head = parts[0]
    targets = []
    for path, body in zip(parts[1::2], parts[2::2]):
        targets.append(_text_target(path, body))
    total = re.search(r"^\s*total threads:\s*(\d+)", head, re.M)
    return {
        "duration": _seconds(r"duration:", head),
        "warmup": _seconds(r"warm up time:", head),
        "cooldown": _seconds(r"cool down time:", head),
        "latency": bool(re.search(r"^\s*measuring latency", head, re.M)),
        "total_threads": int(total.group(1)) if total and len(total.group(1)) < 7 else None,
        "targets": targets,
    }


def _text_target(path: str, body: str) -> Target:
    def number(pattern: str) -> int | None:
        match = re.search(pattern, body, re.M)
        return int(match.group(1)) if match and len(match.group(1)) < 10 else None

    if re.search(r"using random I/O", body):
        pattern = "random"
    elif re.search(r"using (interlocked )?sequential I/O", body):
        pattern = "sequential"
    else:
        pattern = None
    mix = re.search(r"performing mix test \(read/write ratio: (\d+)/(\d+)\)", body)
    if mix:
        write = int(mix.group(2))
    elif "performing write test" in body:
        write = 100
    elif "performing read test" in body:
        write = 0
    else:
        write = None
    if re.search(r"software cache disabled|using O_DIRECT", body):
        cache_off = True
    elif re.search(r"using software cache", body):
        cache_off = False
    else:
        cache_off = None
    block = re.search(r"^\s*block size:\s*(\S+)", body, re.M)
    size = re.search(r"^\s*(?:file )?size:\s*(\S+)", body, re.M)
    device = re.search(r"^\s*block device:\s*([A-Za-z0-9._-]+)\s*$", body, re.M)
    return Target(
        path=path,
        block_size=_size(block.group(1)) if block else None,
        pattern=pattern,
        write_percent=write if write is not None and write <= 100 else None,
        threads=number(r"^\s*threads per file:\s*(\d+)"),
        outstanding=number(r"number of outstanding I/O operations(?: per thread)?:\s*(\d+)"),
        cache_off=cache_off,
        write_through=bool(re.search(r"writethrough on", body)),
        file_size=_size(size.group(1)) if size else None,
        device=device.group(1) if device else None,
    )


def _table_totals(block: str, title: str, where: str) -> tuple[dict[str, str], dict[str, int]]:
    """The `total:` row of the "Total IO" / "Read IO" / "Write IO" table, by column name, and
    each target's size from the file column ("C:\\file (1GiB)")."""
    match = re.search(rf"^\s*{title}\s*$", block, re.M)
    if not match:
        raise ReportError(f"{where} has no \"{title}\" table")
    lines = block[match.end() :].lstrip("\n").split("\n")
    header = [c.strip() for c in lines[0].split("|")] if lines else []
    if not header or header[0] != "thread":
        raise ReportError(f"{where}: the \"{title}\" table has no header")
    sizes: dict[str, int] = {}
    for line in lines[1:]:
        stripped = line.strip()
        if stripped.startswith("total:"):
            values = [v.strip() for v in stripped[len("total:") :].split("|")]
            # Every column but the thread's and the file's: a line cut short has fewer.
            # The rates and latencies have 2 or 3 decimals: a line cut inside its last number has fewer.
            complete = all(v.isascii() and v.isdigit() if name in ("bytes", "I/Os") else bool(_RATE.match(v))
                           for name, v in zip(header[1:], values))
            if len(values) < len(header) - 2 or not complete:
                raise ReportError(f"{where}: the \"{title}\" total: line is incomplete (is the file cut short?)")
            return dict(zip(header[1:], values)), sizes
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == len(header) and cells[0].isascii() and cells[0].isdigit():
            file_match = re.match(r"(.*) \((\d+(?:\.\d+)?\s*[A-Za-z]*)\)$", cells[-1], re.ASCII)
            if file_match:
                size = _size(file_match.group(2))
                if size:
                    sizes[file_match.group(1)] = size
    raise ReportError(f"{where}: the \"{title}\" table has no total: line (is the file cut short?)")


def _column(row: dict[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        if name in row:
            return row[name]
    return None


def _percentile_table(block: str, where: str) -> dict[str, dict[str, float | None]]:
    """The last %-ile table of the results (the total one when there are several targets)."""
    tables = list(re.finditer(r"^\s*%-ile\s*\|\s*Read \(ms\)\s*\|\s*Write \(ms\)\s*\|\s*Total \(ms\)\s*$", block, re.M))
    if not tables:
        return {}
    # With several targets a table per target (under its path) comes first, the total one last.
    header_line = block.rfind("\n", 0, block.index("%-ile", tables[-1].start()))
    before = block[:max(header_line, 0)].rsplit("\n", 1)[-1].strip()
    if before not in ("", "total:", "Total latency distribution:"):
        raise ReportError(f"{where}: the targets' %-ile tables are there but not the total one (is the file cut short?)")
    out: dict[str, dict[str, float | None]] = {"read": {}, "write": {}, "total": {}}
    for line in block[tables[-1].end() :].split("\n"):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != 4:
            if out["total"]:
                break
            continue
        name = _PERCENTILE_LABELS.get(cells[0])
        if name is None:
            continue
        if name == "max" and not all(_FIGURE.match(c) for c in cells[1:]):
            # The report's last line: DiskSpd prints every figure with 3 decimals, so a number
            # with fewer was cut.
            raise ReportError(f"{where}: the %-ile table's max row is cut short")
        for direction, cell in zip(("read", "write", "total"), cells[1:]):
            out[direction][name] = _float(cell, f"{where} %-ile table")
    # DiskSpd ends the table with max; the total's max is the larger direction's (a number cut
    # in the last line would differ).
    highs = [out[d].get("max") for d in ("read", "write")]
    if "max" not in out["total"] or out["total"]["max"] is None:
        raise ReportError(f"{where}: the %-ile table stops before its max row (is the file cut short?)")
    if any(h is not None for h in highs) and out["total"]["max"] != max(h for h in highs if h is not None):
        raise ReportError(f"{where}: the %-ile table's total max is not the larger of read and write "
                          "(is the file cut short?)")
    return out


def _text_timespan(number: int, params: dict, block: str, linux: bool) -> Timespan:
    where = f"{'job' if linux else 'timespan'} {number}"
    actual = re.search(r"^\s*(?:actual )?test time:\s*(\d+(?:\.\d+)?)\s*s", block, re.M)
    if not actual:
        raise ReportError(f"{where} has no test time")
    seconds = float(actual.group(1))
    threads = re.search(r"^\s*thread count:\s*(\d+)", block, re.M)
    cpu = re.search(r"^\s*avg[.:]\s*\|?\s*(\d+(?:\.\d+)?)%", block, re.M)
    totals, sizes = _table_totals(block, "Total IO", where)
    reads, _ = _table_totals(block, "Read IO", where)
    writes, _ = _table_totals(block, "Write IO", where)
    for column in ("bytes", "I/Os"):
        parts = [_column(row, (column,)) for row in (totals, reads, writes)]
        texts = [p for p in parts if p is not None]
        if len(texts) == len(parts):
            total, read_count, write_count = (_int(p, f"{where} {column}") for p in texts)
            if read_count + write_count != total:
                raise ReportError(f"{where}: read and write {column} ({read_count} + {write_count}) do not add up to "
                                  f"the total ({total}): is the file cut short or edited?")
    stats = {}
    for name, row in (("read", reads), ("write", writes)):
        size = _column(row, ("bytes",))
        ios = _column(row, ("I/Os",))
        if size is None or ios is None:
            raise ReportError(f"{where}: the {name} total: line has no bytes or I/Os")
        stats[name] = DirectionStats(
            ios=_int(ios, f"{where} {name} I/Os"), bytes=_int(size, f"{where} {name} bytes"), seconds=seconds
        )
    percentiles = _percentile_table(block, where)
    if params.get("latency") and not percentiles:
        raise ReportError(f"{where}: latency was measured but its %-ile table is missing (is the file cut short?)")
    means = {
        name: _float(_column(row, ("AvgLat", "AvgLat(ms)")), f"{where} {name} AvgLat")
        for name, row in (("total", totals), ("read", reads), ("write", writes))
    }
    targets = tuple(
        t if t.file_size or t.path not in sizes else Target(**{**t.__dict__, "file_size": sizes[t.path]})
        for t in params.get("targets", [])
    )
    read, write = stats["read"], stats["write"]
    return Timespan(
        number=number,
        duration_seconds=params.get("duration"),
        warmup_seconds=params.get("warmup"),
        cooldown_seconds=params.get("cooldown"),
        measure_latency=bool(params.get("latency")) or bool(percentiles),
        total_threads=params.get("total_threads") or (int(threads.group(1)) if threads and len(threads.group(1)) < 7 else None),
        targets=targets,
        test_seconds=seconds,
        cpu_percent=float(cpu.group(1)) if cpu else None,
        read=read,
        write=write,
        latency=_summary(means["total"], percentiles.get("total", {})),
        read_latency=_summary(means["read"], percentiles.get("read", {})) if read.ios else LatencySummary(),
        write_latency=_summary(means["write"], percentiles.get("write", {})) if write.ios else LatencySummary(),
    )


# --------------------------------------------------------------------------- to labtui


def timespan_workload(span: Timespan, fallback_name: str = "DiskSpd") -> Step:
    """The step a timespan ran, from its first target (DiskSpd's defaults where it is silent)."""
    first = span.targets[0] if span.targets else Target(path="unknown")
    threads = first.threads or span.total_threads or 1
    step = Step(
        name=fallback_name,
        block_size=first.block_size or 64 * 1024,  # DiskSpd's default -b
        pattern=first.pattern or "sequential",
        write_percent=first.write_percent if first.write_percent is not None else 0,
        threads=threads,
        outstanding=first.outstanding or 2,  # DiskSpd's default -o
        duration=span.duration_seconds if span.duration_seconds else round(span.test_seconds, 6),
        warmup=span.warmup_seconds if span.warmup_seconds is not None else 5.0,
        cooldown=span.cooldown_seconds or 0.0,
        cache="off" if first.cache_off else "on",
        latency=span.measure_latency,
        write_through=first.write_through,
    )
    return step


def timespan_result(
    span: Timespan,
    step: Step,
    *,
    repetition: int = 1,
    command_line: str | None = None,
    samples: tuple[Sample, ...] | None = None,
) -> StepResult:
    """A timespan as labtui's step result (DiskSpd's own samples unless others are given)."""
    latency = step.latency or span.measure_latency
    return StepResult(
        step=step,
        read=span.read,
        write=span.write,
        latency=span.latency if latency else LatencySummary(),
        read_latency=span.read_latency if latency else LatencySummary(),
        write_latency=span.write_latency if latency else LatencySummary(),
        cpu_percent=span.cpu_percent,
        repetition=repetition,
        command_line=command_line,
        samples=span.samples if samples is None else samples,
    )


def size_arg(size: int) -> str:
    """A size in DiskSpd's suffixes (K, M, G), exact, else in bytes."""
    for suffix, factor in (("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{suffix}"
    return str(size)


def profile_command_line(span: Timespan) -> str:
    """An equivalent DiskSpd command line for an XML profile (the XML does not keep the real one)."""
    first = span.targets[0] if span.targets else None
    args = ["diskspd"]
    if first is not None:
        if first.block_size:
            args.append(f"-b{size_arg(first.block_size)}")
        if span.duration_seconds is not None:
            args.append(f"-d{span.duration_seconds:g}")
        if span.warmup_seconds is not None:
            args.append(f"-W{span.warmup_seconds:g}")
        if span.cooldown_seconds:
            args.append(f"-C{span.cooldown_seconds:g}")
        if first.threads:
            args.append(f"-t{first.threads}")
        elif span.total_threads:
            args.append(f"-F{span.total_threads}")
        if first.outstanding:
            args.append(f"-o{first.outstanding}")
        if first.write_percent is not None:
            args.append(f"-w{first.write_percent}")
        if first.pattern == "random" and first.block_size:
            args.append(f"-r{size_arg(first.block_size)}")
        elif first.pattern == "sequential":
            args.append("-s")
        if first.cache_off:
            args.append("-Sh" if first.write_through else "-Su")
        elif first.write_through:
            args.append("-Sw")
        if span.measure_latency:
            args.append("-L")
        if span.samples:
            args.append("-D")
    args.extend(t.path for t in span.targets)
    return " ".join(args)
