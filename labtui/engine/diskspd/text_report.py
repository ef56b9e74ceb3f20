"""DiskSpd's text report, Windows (2.0.17a to 2.2) and the Linux port: its labels, not exact layouts."""

from __future__ import annotations

import re

from labtui.engine.diskspd.report import (
    FIGURE,
    RATE,
    DiskSpdReport,
    Target,
    Timespan,
    count_of,
    figure_of,
    latency_summary,
    size_of,
    timestamp,
    undouble,
)
from labtui.errors import ReportError
from labtui.model.result import DirectionStats, LatencySummary

_RESULTS = re.compile(r"^\s*Results for (timespan|job) (\d+):", re.M)
_SPAN_HEADER = re.compile(r"^\s*(?:timespan|job):\s*(\d+)\s*$", re.M)
_PERCENTILE_LABELS = {
    "min": "min", "50th": "p50", "90th": "p90", "95th": "p95", "99th": "p99", "3-nines": "p999",
    "4-nines": "p9999", "max": "max",
}


def parse_text(text: str) -> DiskSpdReport:
    text = undouble(text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"))
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
        started=timestamp(started.group(1)) if started else None,
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
        block_size=size_of(block.group(1)) if block else None,
        pattern=pattern,
        write_percent=write if write is not None and write <= 100 else None,
        threads=number(r"^\s*threads per file:\s*(\d+)"),
        outstanding=number(r"number of outstanding I/O operations(?: per thread)?:\s*(\d+)"),
        cache_off=cache_off,
        write_through=bool(re.search(r"writethrough on", body)),
        file_size=size_of(size.group(1)) if size else None,
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
            complete = all(v.isascii() and v.isdigit() if name in ("bytes", "I/Os") else bool(RATE.match(v))
                           for name, v in zip(header[1:], values))
            if len(values) < len(header) - 2 or not complete:
                raise ReportError(f"{where}: the \"{title}\" total: line is incomplete (is the file cut short?)")
            return dict(zip(header[1:], values)), sizes
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == len(header) and cells[0].isascii() and cells[0].isdigit():
            file_match = re.match(r"(.*) \((\d+(?:\.\d+)?\s*[A-Za-z]*)\)$", cells[-1], re.ASCII)
            if file_match:
                size = size_of(file_match.group(2))
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
        if name == "max" and not all(FIGURE.match(c) for c in cells[1:]):
            # The report's last line: DiskSpd prints every figure with 3 decimals, so a number
            # with fewer was cut.
            raise ReportError(f"{where}: the %-ile table's max row is cut short")
        for direction, cell in zip(("read", "write", "total"), cells[1:]):
            out[direction][name] = figure_of(cell, f"{where} %-ile table")
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
            total, read_count, write_count = (count_of(p, f"{where} {column}") for p in texts)
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
            ios=count_of(ios, f"{where} {name} I/Os"), bytes=count_of(size, f"{where} {name} bytes"), seconds=seconds
        )
    percentiles = _percentile_table(block, where)
    if params.get("latency") and not percentiles:
        raise ReportError(f"{where}: latency was measured but its %-ile table is missing (is the file cut short?)")
    means = {
        name: figure_of(_column(row, ("AvgLat", "AvgLat(ms)")), f"{where} {name} AvgLat")
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
        latency=latency_summary(means["total"], percentiles.get("total", {})),
        read_latency=latency_summary(means["read"], percentiles.get("read", {})) if read.ios else LatencySummary(),
        write_latency=latency_summary(means["write"], percentiles.get("write", {})) if write.ios else LatencySummary(),
    )
