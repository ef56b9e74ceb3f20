"""Import results people already have: DiskSpd XML and text, fio JSON (json+, status streams).

The format is recognised from the content, never from the file name. Each format has one pure
parser from text to RunResults (`import_text`); `import_file` adds the file handling (size limit,
encodings, the file's time as a last resort for when the run happened). Every failure is a
ReportError whose message names the file and says what is wrong with it.

Imported results are ordinary results marked `source = "import"`, with the original engine and
version, the workload recovered from the file (its command line, DiskSpd profile or fio job
options, with the tool's defaults where it is silent, unchecked against labtui's own limits),
and the file's name.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from labtui.engine.diskspd import parse as ds
from labtui.engine.diskspd.report import DiskSpdReport
from labtui.engine.fio import intervals, output, parse as fr, workload
from labtui.errors import ReportError
from labtui.machine.checked_read import Unreadable, read_checked
from labtui.machine.paths import exists, shown
from labtui.model.profile import Profile
from labtui.model.result import (
    EngineInfo,
    HostInfo,
    LatencySummary,
    RunResult,
    Sample,
    StepResult,
    TargetInfo,
    new_result_id,
    now,
)
from labtui.printable import printable_fields

MAX_BYTES = 64 * 1024 * 1024  # the largest DiskSpd XML with -D on a long run is a few MiB
_YEAR = 366 * 86400.0


# --------------------------------------------------------------------------- files and text


def import_file(path: str | Path) -> list[RunResult]:
    """The results in one report file; ReportError("<path>: <reason>") if it holds none."""
    path = Path(path)
    data, mtime = _read_report(path)
    try:
        results = import_text(decode(data), path.name, file_time=mtime)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from None
    digest = file_digest(data)
    return [replace(r, source_digest=digest) for r in results]


def _read_report(path: Path) -> tuple[bytes, datetime]:
    """The bytes of a regular file of at most MAX_BYTES, and its modification time.

    Read through one checked descriptor (labtui.machine.checked_read): a FIFO does not hang the import, a
    symlink to /dev/zero is seen for what it is, and the size a file claims (0 for many special files) is not
    trusted."""
    exists(Path(path))  # a name or path longer than the system takes, a loop of links: one line
    try:
        data, info = read_checked(path, MAX_BYTES)
    except Unreadable as exc:
        if exc.kind == "missing":
            reason = "no such file"
        elif exc.kind == "directory":
            reason = "is a directory (name the report files in it)"
        elif exc.kind == "special":
            reason = f"is {exc.what}, not a report file"
        elif exc.kind == "large":
            reason = (f"{exc.size} bytes is too large for a DiskSpd or fio report" if exc.size is not None
                      else f"more than {MAX_BYTES} bytes is too large for a DiskSpd or fio report")
        else:
            reason = f"cannot read it: {exc.reason}"
        raise ReportError(f"{shown(path)}: {reason}") from None
    return data, datetime.fromtimestamp(info.st_mtime, UTC)


def file_digest(data: bytes) -> str:
    """What identifies a report whatever its name: importing the same bytes again finds the first import."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def decode(data: bytes) -> str:
    """The text of a report: UTF-8 or UTF-16 (PowerShell's `>` writes UTF-16 with a BOM)."""
    if not data.strip():
        raise ReportError("the file is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise ReportError("it starts like UTF-16 text but does not decode as such") from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")  # Windows code pages: the labels are ASCII either way
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r\f\v")
    if "\x00" in text or controls > max(2, len(text) // 100):
        raise ReportError("it holds binary data, not a DiskSpd or fio report")
    return text.lstrip("\ufeff")


def detect_format(text: str) -> str:
    """"diskspd-xml", "diskspd-text" or "fio-json", from what the text contains."""
    if ds.looks_like_xml(text):
        return "diskspd-xml"
    if "{" in text and re.search(r'"(fio version|jobs|client_stats)"\s*:', text):
        return "fio-json"
    if ds.looks_like_text(text):
        return "diskspd-text"
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            json.loads(stripped)
        except (ValueError, RecursionError):
            raise ReportError("not a DiskSpd or fio report (it looks like broken JSON without fio's keys)") from None
        if re.search(r'"(smartctl|json_format_version)"\s*:', text):
            # A drive's facts, not a benchmark: runs read them themselves (the Disks screen, `labtui disks`).
            raise ReportError("smartctl's output (a drive's health), not a benchmark report: labtui reads the drive "
                              "itself during every run, and `labtui disks` shows it now")
        raise ReportError("JSON, but not fio's output (it has no \"fio version\" or \"jobs\")")
    if stripped.startswith("<"):
        raise ReportError("XML, but not DiskSpd's (no <Results> with a <TimeSpan>)")
    raise ReportError("not a DiskSpd (XML or text) or fio JSON report")


def import_text(text: str, file_name: str, *, file_time: datetime | None = None) -> list[RunResult]:
    """The results in a report's text; `file_time` stands in when the report has no date."""
    kind = detect_format(text)
    if kind == "fio-json":
        results = _import_fio(text, file_name, file_time)
    else:
        results = [_import_diskspd(text, file_name, file_time)]
    results = [_with_latency_warnings(_measured(r)) for r in results]
    if all(s.error == NOTHING_MEASURED for r in results for s in r.steps):
        raise ReportError(f"it measured nothing: every {'job' if kind == 'fio-json' else 'timespan'} ran for 0 s")
    # Job names, paths, host names and messages are the report's text: none may hold escape codes.
    return [printable_fields(r) for r in results]


NOTHING_MEASURED = "the report measured nothing: its runtime is 0 s"


def _measured(result: RunResult) -> RunResult:
    """A step that ran for no time has no figures (0 IOPS would be a measurement): it failed."""
    steps = tuple(
        replace(s, status="failed", error=NOTHING_MEASURED)
        if s.status == "completed" and s.step.is_io and s.total.seconds <= 0 else s
        for s in result.steps
    )
    if steps == result.steps:
        return result
    failed = next(s for s in steps if s.status == "failed")
    return replace(result, steps=steps, status="failed", error=result.error or f"{failed.name}: {failed.error}")


# Rounding in the reports (DiskSpd prints 3 decimals of a ms, fio's percentiles are bucket values).
_SLACK = 0.02
_PERCENT = (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9), ("p9999", 99.99))


def latency_contradiction(lat: LatencySummary) -> str | None:
    """Why a step's latency figures cannot all be true, or None.

    The mean of I/Os of which a fraction p took at most q_p, and the rest at most max, is at
    most p*q_p + (1-p)*max (and at least p*min + (1-p)*q_p); percentiles never fall and never
    pass the extremes. A report that breaks these was edited or damaged.
    """
    def loose(x: float) -> float:
        return x * (1 + _SLACK) + 0.002

    points = [(label, getattr(lat, key)) for key, label in
              (("min", "min"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99"),
               ("p999", "p99.9"), ("p9999", "p99.99"), ("max", "max"))]
    known = [(label, v) for label, v in points if v is not None]
    for (a, x), (b, y) in zip(known, known[1:]):
        if x > loose(y):
            return f"{a} {x:.4g} ms is above {b} {y:.4g} ms"
    mean, low, high = lat.mean, lat.min, lat.max
    if mean is None:
        return None
    if high is not None and mean > loose(high):
        return f"the mean {mean:.4g} ms is above the maximum {high:.4g} ms"
    if low is not None and loose(mean) < low:
        return f"the mean {mean:.4g} ms is below the minimum {low:.4g} ms"
    for key, p in _PERCENT:
        q = getattr(lat, key)
        if q is None:
            continue
        share = p / 100.0
        if high is not None:
            most = share * q + (1 - share) * high
            if mean > loose(most):
                return (f"the mean is {mean:.4g} ms, but with {p:g} % of I/Os within {q:.4g} ms and the slowest at "
                        f"{high:.4g} ms it can be at most {most:.4g} ms")
        least = share * (low or 0.0) + (1 - share) * q
        if loose(mean) < least:
            return (f"the mean is {mean:.4g} ms, but with {100 - p:g} % of I/Os at {q:.4g} ms or more it is at "
                    f"least {least:.4g} ms")
    return None


def _with_latency_warnings(result: RunResult) -> RunResult:
    warnings = list(result.warnings)
    for step in result.steps:
        for which, lat in (("", step.latency), ("read ", step.read_latency), ("write ", step.write_latency)):
            why = latency_contradiction(lat)
            if why:
                warnings.append(f"{step.name}: the {which}latency figures contradict each other ({why}): the report "
                                "was edited or damaged, and they are kept as it gives them")
                break
    return replace(result, warnings=tuple(dict.fromkeys(warnings))) if len(warnings) > len(result.warnings) else result


def _profile(file_name: str, engine: str, steps: tuple, file_size: int, description: str) -> Profile:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(file_name).stem).strip("-._")[:80] or "imported"
    return Profile(
        name=stem,
        title=f"{engine} report {file_name}",
        description=description,
        file_size=file_size,
        free_space_margin=0,
        repeat=1,
        steps=tuple(s.step for s in steps),
        origin="import",
    )


def _checked_step_times(result: StepResult, where: str) -> StepResult:
    step = result.step
    for name in ("duration", "warmup", "cooldown"):
        if getattr(step, name) > _YEAR:
            raise ReportError(f"{where}: its {name} is longer than a year")
    return replace(
        result,
        step=replace(step, duration=round(step.duration, 3), warmup=round(step.warmup, 3), cooldown=round(step.cooldown, 3)),
    )


def _when(value: float | None) -> datetime | None:
    """An epoch time in seconds, if it is a plausible one."""
    if value is None or not 0 < value < 4_102_444_800:  # before 2100
        return None
    return datetime.fromtimestamp(value, UTC)


# --------------------------------------------------------------------------- fio


def _import_fio(text: str, file_name: str, file_time: datetime | None) -> list[RunResult]:
    out = output.split_output(text)
    if not out.reports:
        reason = out.first_error or "no complete report"
        raise ReportError(f"the fio JSON is cut short or broken ({reason})")
    if out.tail_error:
        # A --status-interval stream cut short: its last whole report is a mid-run snapshot.
        raise ReportError(f"the fio JSON is cut short: the report after the last complete one is broken "
                          f"({out.tail_error})")
    report = out.reports[-1]
    legacy = fr.is_legacy(report)
    version = fr.report_version(report)
    jobs = fr.report_jobs(report)
    interrupted = next((m for m in out.messages if "terminating on signal" in m), None)
    fio_errors = [m for m in out.messages if not m.startswith("{")]
    ended_at = None
    for field_name, scale in (("timestamp_ms", 1e-3), ("timestamp", 1.0)):
        value = report.get(field_name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            ended_at = ended_at or _when(value * scale)
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, job in enumerate(jobs):
        key: tuple[str, ...]
        if "client_stats" in report:
            key = ("all",) if job.get("jobname") == fr.AGGREGATE_JOB else ("host", str(job.get("hostname")), str(job.get("port")))
        else:
            key = ("local",)
        groups.setdefault(key, []).append(i)
    results = []
    for key, group in groups.items():
        steps: list[StepResult] = []
        warnings: list[str] = []
        longest = 0.0
        starts: list[datetime] = []
        for series in _client_series(jobs, group) if key[0] == "host" else [[i] for i in group]:
            i = series[-1]
            job = jobs[i]
            where = f"job {fr.job_name(job)!r}"
            sizes = workload.block_sizes(job, report)
            counters = fr.job_counters(job, legacy, where, sizes)
            seconds = counters.runtime_ms / 1000.0
            if seconds > _YEAR:
                raise ReportError(f"{where}: its runtime is longer than a year")
            longest = max(longest, seconds)
            start = job.get("job_start")
            began = _when(start / 1000.0) if isinstance(start, (int, float)) and not isinstance(start, bool) else None
            if began:
                starts.append(began)
            step = workload.job_workload(job, report, seconds, legacy)
            if len(series) > 1:
                samples = _client_samples([jobs[j] for j in series], step.warmup, legacy, sizes)
            else:
                samples = _stream_samples(out.reports, i, step.warmup, legacy, sizes) if len(out.reports) > 1 else ()
            result = fr.job_step_result(
                job, step, legacy=legacy, command_line=workload.job_command_line(job, report), samples=samples, where=where,
                sizes=sizes,
            )
            mixed = [d for d, size, stats in (("read", sizes[0], result.read), ("write", sizes[1], result.write))
                     if stats.ios and (size is None or stats.bytes != stats.ios * size)]
            if mixed:
                warnings.append(
                    f"{where} {' and '.join(mixed)} I/Os are not all one size (bsrange, bssplit or short I/Os): its "
                    "IOPS count the I/Os that completed and its MiB/s their bytes, so IOPS x block size is not its "
                    "MiB/s")
            if result.status == "failed":
                details = "; ".join(fio_errors[:5])
                result = replace(result, error=f"{result.error}: {details}" if details else result.error)
            elif interrupted:
                result = replace(result, status="aborted", error=f"fio was interrupted ({interrupted.removeprefix('fio: ')})")
            steps.append(_checked_step_times(result, where))
            source = fr.latency_source(job, legacy)
            if source and "clat" in source:
                warnings.append(
                    f"latency is fio's completion latency ({source}): the report has no total-latency (lat) "
                    "percentiles, so submission latency is left out"
                )
            trim = job.get("trim")
            if isinstance(trim, dict) and isinstance(trim.get("total_ios"), int) and trim["total_ios"] > 0:
                warnings.append(f"{where} also did {trim['total_ios']} trims; labtui counts reads and writes only")
        if legacy:
            warnings.append(f"fio {version or '2.x'} reports KiB and microseconds; they were converted")
        failed = [s for s in steps if s.status == "failed"]
        status = "failed" if failed else ("aborted" if interrupted else "completed")
        error = failed[0].error if failed else (steps[0].error if interrupted else None)
        ended = ended_at or file_time or now()
        if ended_at is None:
            warnings.append("the report does not say when it ran: the time is the file's modification time")
        started = min(starts) if starts else ended - timedelta(seconds=longest)
        first = jobs[group[0]]
        host = None
        if key[0] == "host":
            host = f"{key[1]}:{key[2]}" if key[2] not in ("None", "") else key[1]
        elif key[0] == "all":
            host = fr.AGGREGATE_JOB
        disks = report.get("disk_util")
        disk = disks[0].get("name") if isinstance(disks, list) and disks and isinstance(disks[0], dict) else None
        options, _ = workload.job_options(first, report)
        file_size = workload.fio_size(options.get("size") or options.get("filesize")) or 0
        results.append(RunResult(
            id=new_result_id(started),
            status=status,
            started=started,
            ended=max(ended, started),
            host=HostInfo(name=host),
            target=TargetInfo(path=workload.job_target(first, report) or "unknown", disk=disk if isinstance(disk, str) else None),
            engine=EngineInfo("fio", version),
            profile=_profile(file_name, "fio", tuple(steps), file_size, f"imported from {file_name}"),
            steps=tuple(steps),
            source="import",
            source_file=file_name,
            error=error,
            warnings=tuple(dict.fromkeys(warnings)),
        ))
    return results


def _client_series(jobs: list[dict], indexes: list[int]) -> list[list[int]]:
    """One server's entries of a client-mode report, a list per job: with `--status-interval` the
    client keeps every interval report of a job in `client_stats` (cumulative, the final one
    last), so the entries of one job name and group are one job's reports, not jobs of their own."""
    series: dict[tuple[str, object], list[int]] = {}
    for i in indexes:
        group = jobs[i].get("groupid")
        # A report is anyone's: a groupid of [] or {} (no key of a dict) ended the import with a TypeError.
        key = (fr.job_name(jobs[i]), repr(group) if isinstance(group, (list, dict)) else group)
        series.setdefault(key, []).append(i)
    out: list[list[int]] = []
    for same in series.values():
        options = jobs[same[0]].get("job options")
        options = options if isinstance(options, dict) else {}
        clones = str(options.get("numjobs", "1")).strip() not in ("", "1") and "group_reporting" not in options
        # numjobs clones without group_reporting are reported one entry each under one name.
        out += [[i] for i in same] if clones else [same]
    return out


def _client_samples(reports: list[dict], warmup: float, legacy: bool,
                    sizes: fr.BlockSizes = fr.NO_SIZES) -> tuple[Sample, ...]:
    """Per-interval samples from one job's interval reports in a client-mode report."""
    tracker = intervals.SampleTracker(warmup, sizes=sizes)
    for job in reports:
        tracker.add(job, legacy)
    tracker.finish()
    return tuple(tracker.measured)


def _stream_samples(reports: tuple[dict, ...], index: int, warmup: float, legacy: bool,
                    sizes: fr.BlockSizes = fr.NO_SIZES) -> tuple[Sample, ...]:
    """Per-interval samples from a `--status-interval` stream, for the job at `index`."""
    tracker = intervals.SampleTracker(warmup, sizes=sizes)
    for report in reports:
        try:
            job = fr.report_jobs(report)[index]
        except (ReportError, IndexError):
            continue
        tracker.add(job, legacy)
    tracker.finish()
    return tuple(tracker.measured)


# --------------------------------------------------------------------------- DiskSpd


def _diskspd_target(report: DiskSpdReport, paths: list[str]) -> TargetInfo:
    # The Linux port names the block device under the file ("block device: vda"); the report
    # holds nothing more of the disk (no model, serial or size).
    names = {t.device for span in report.timespans for t in span.targets if t.device}
    name = names.pop() if len(names) == 1 else None
    return TargetInfo(path=", ".join(paths) or "unknown", device=f"/dev/{name}" if name else None, disk=name)


def _import_diskspd(text: str, file_name: str, file_time: datetime | None) -> RunResult:
    report = ds.parse_report(text)
    steps = []
    warnings: list[str] = []
    for span in report.timespans:
        step = ds.timespan_workload(span)
        name = step.label() if len(report.timespans) == 1 else f"timespan {span.number}: {step.label()}"
        step = replace(step, name=name)
        command = report.command_line or ds.profile_command_line(span)
        steps.append(_checked_step_times(ds.timespan_result(span, step, command_line=command), f"timespan {span.number}"))
        if len(span.targets) > 1:
            warnings.append(
                f"timespan {span.number} ran on {len(span.targets)} targets at once; its figures are their total, "
                "and the workload shown is the first target's"
            )
        if len({t.block_size for t in span.targets}) > 1:
            warnings.append(f"timespan {span.number}: the targets use different block sizes")
    started = report.started
    if started is None:
        warnings.append("the report does not say when it ran: the time is the file's modification time")
    ended = None
    if started is not None:
        spent = sum((s.warmup_seconds or 0) + s.test_seconds + (s.cooldown_seconds or 0) for s in report.timespans)
        ended = started + timedelta(seconds=min(spent, _YEAR))
    else:
        ended = file_time or now()
        spent = sum(s.test_seconds for s in report.timespans)
        started = ended - timedelta(seconds=min(spent, _YEAR))
    paths = list(dict.fromkeys(t.path for span in report.timespans for t in span.targets))
    file_size = next((t.file_size for span in report.timespans for t in span.targets if t.file_size), 0) or 0
    variant = {"xml": "XML", "text": "text", "linux": "Linux port text"}[report.variant]
    return RunResult(
        id=new_result_id(started),
        status="completed",
        started=started,
        ended=ended,
        host=HostInfo(
            name=report.computer,
            os="Linux" if report.variant == "linux" else "Windows",
            cpu_count=report.cpu_count,
        ),
        target=_diskspd_target(report, paths),
        engine=EngineInfo("diskspd", report.version, report.command_line),
        profile=_profile(file_name, "DiskSpd", tuple(steps), file_size, f"DiskSpd {variant} report {file_name}"),
        steps=tuple(steps),
        source="import",
        source_file=file_name,
        warnings=tuple(dict.fromkeys(warnings)),
    )
