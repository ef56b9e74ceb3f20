"""DiskSpd's reports: its XML (`-Rxml`) and its text, Windows (2.0.17a to 2.2) and the Linux port.

Shared by the DiskSpd engine and the importer: `parse_report(text)` gives a `DiskSpdReport`, and
`timespan_result` turns one of its timespans into labtui's StepResult. Counts are DiskSpd's own
exact ones: the text's `total:` lines, or in XML the per-thread target counts summed (the XML has
no total element), over the measured seconds DiskSpd printed (`actual test time`).

Real files differ from what DiskSpd wrote (see tests/fixtures/SOURCES.md): a BOM, CRLF, tabs turned
into spaces, a prompt or prose before the report, a missing `Command Line:` line, backslashes
doubled by an escaped log, no trailing newline. The parsers look for DiskSpd's labels, not for
exact layouts. The XML is read in xml_report.py, the text in text_report.py; what both give
(DiskSpdReport, its targets and timespans) is in report.py.
"""

from __future__ import annotations

import re

from labtui.engine.diskspd.report import DiskSpdReport, Target, Timespan
from labtui.engine.diskspd.text_report import parse_text
from labtui.engine.diskspd.xml_report import parse_xml
from labtui.errors import ReportError
from labtui.model.profile import Step
from labtui.model.result import LatencySummary, Sample, StepResult


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
