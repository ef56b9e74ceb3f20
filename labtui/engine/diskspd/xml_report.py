"""DiskSpd's XML report (`-Rxml`): its targets' counts summed per timespan (the XML has no total element)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from labtui.engine.diskspd.report import (
    MAX_COUNT,
    PERCENTILE_FIELDS,
    DiskSpdReport,
    Target,
    Timespan,
    count_of,
    figure_of,
    latency_summary,
    timestamp,
    undouble,
)
from labtui.errors import ReportError
from labtui.model.result import DirectionStats, LatencySummary, Sample


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
        started=timestamp(_find(system, "RunTime")),
        cpu_count=count_of(cpu_count, "ProcCount") if cpu_count else None,
        timespans=tuple(timespans),
    )


def _xml_target(node: ET.Element, where: str) -> Target:
    def number(name: str) -> int | None:
        value = _find(node, name)
        return count_of(value, f"{where}.{name}") if value else None

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
        path=undouble(_find(node, "Path") or "unknown"),
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
    seconds = figure_of(_find(node, "TestTimeSeconds"), f"{where} TestTimeSeconds")
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
                counts[key] += count_of(value, f"{where} {key}")
            size = _find(target, "FileSize")
            path = undouble(_find(target, "Path") or "")
            if size and path:
                sizes[path] = count_of(size, f"{where} FileSize")
    if any(v > MAX_COUNT for v in counts.values()):
        raise ReportError(f"{where}: the counts are out of range")
    targets = tuple(
        t if t.file_size or t.path not in sizes else Target(**{**t.__dict__, "file_size": sizes[t.path]}) for t in targets
    )
    latency = node.find("Latency")
    lat: dict[str, dict[str, float | None]] = {"Read": {}, "Write": {}, "Total": {}}
    if latency is not None:
        for bucket in latency.findall("Bucket"):
            point = figure_of(_find(bucket, "Percentile"), f"{where} latency percentile")
            name = PERCENTILE_FIELDS.get(round(point, 6)) if point is not None else None
            if name is None:
                continue
            for direction in lat:
                lat[direction][name] = figure_of(_find(bucket, f"{direction}Milliseconds"), f"{where} latency")
    means = {
        "Read": figure_of(_find(latency, "AverageReadMilliseconds"), f"{where} latency"),
        "Write": figure_of(_find(latency, "AverageWriteMilliseconds"), f"{where} latency"),
        "Total": figure_of(_find(latency, "AverageTotalMilliseconds"), f"{where} latency"),
    }
    cpu = figure_of(_find(node, "CpuUtilization/Average/UsagePercent"), f"{where} CPU")
    thread_count = _find(node, "ThreadCount")
    profile_threads = _find(profile, "ThreadCount") if profile is not None else None
    total_threads = count_of(profile_threads, "ThreadCount") if profile_threads and profile_threads != "0" else None
    return Timespan(
        number=number,
        duration_seconds=figure_of(_find(profile, "Duration"), f"{where} Duration"),
        warmup_seconds=figure_of(_find(profile, "Warmup"), f"{where} Warmup"),
        cooldown_seconds=figure_of(_find(profile, "Cooldown"), f"{where} Cooldown"),
        measure_latency=bool(_xml_bool(_find(profile, "MeasureLatency"))) or latency is not None,
        total_threads=total_threads or (count_of(thread_count, "ThreadCount") if thread_count else None),
        targets=targets,
        test_seconds=seconds,
        cpu_percent=cpu,
        read=DirectionStats(counts["ReadCount"], counts["ReadBytes"], seconds),
        write=DirectionStats(counts["WriteCount"], counts["WriteBytes"], seconds),
        latency=latency_summary(means["Total"], lat["Total"]),
        read_latency=latency_summary(means["Read"], lat["Read"]) if counts["ReadCount"] else LatencySummary(),
        write_latency=latency_summary(means["Write"], lat["Write"]) if counts["WriteCount"] else LatencySummary(),
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
    interval_ms = figure_of(_find(profile, "IoBucketDuration"), f"{where} IoBucketDuration") or 1000.0
    samples = []
    for bucket in buckets:
        a = bucket.attrib
        t_ms = figure_of(a.get("SampleMillisecond"), f"{where} bucket")
        reads = figure_of(a.get("Read"), f"{where} bucket") or 0
        writes = figure_of(a.get("Write"), f"{where} bucket") or 0
        if t_ms is None or interval_ms <= 0:
            continue
        samples.append(Sample(
            t=round(t_ms / 1000.0, 6),
            seconds=round(interval_ms / 1000.0, 6),
            read_ios=int(reads),
            read_bytes=int(reads) * block,
            write_ios=int(writes),
            write_bytes=int(writes) * block,
            read_lat_mean_ms=figure_of(a.get("ReadAvgLatencyMilliseconds"), f"{where} bucket") if reads else None,
            write_lat_mean_ms=figure_of(a.get("WriteAvgLatencyMilliseconds"), f"{where} bucket") if writes else None,
        ))
    return tuple(samples)
