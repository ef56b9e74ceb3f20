"""DiskSpd's text report (labtui.engine.diskspd.text_report), real files: Windows and the Linux port, read by
their labels whatever surrounds them; the counts are the reports' own `total:` lines."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES
from labtui.engine.diskspd.text_report import parse_text
from labtui.errors import ReportError

TEXT = FIXTURES / "diskspd-text"


def totals(text: str, table: str) -> tuple[int, int]:
    """(bytes, I/Os) of a table's `total:` line ("Read IO", "Write IO"), read here from the report itself."""
    block = text.split(table, 1)[1]
    found = re.search(r"^total:\s+(\d+)\s+\|\s+(\d+)\s+\|", block, flags=re.M)
    assert found is not None
    return int(found[1]), int(found[2])


def test_a_report_without_its_header_gives_each_directions_total_line_and_the_parameters():
    text = (TEXT / "diskspd-2.0.21a-rnd4k-rw70-30-L-D-noheader.txt").read_text(encoding="utf-8-sig")
    report = parse_text(text)
    assert report.variant == "text" and report.command_line is None and report.computer == "QuickTest2"
    (span,) = report.timespans
    assert (span.read.bytes, span.read.ios) == totals(text, "Read IO") == (102645760, 25060)
    assert (span.write.bytes, span.write.ios) == totals(text, "Write IO") == (43524096, 10626)
    assert span.test_seconds == span.read.seconds == 30.01 and span.cpu_percent == 0.82
    (target,) = span.targets
    assert (target.path, target.block_size, target.pattern, target.write_percent, target.outstanding) == (
        "diskspd.dat", 4096, "random", 30, 1)
    assert target.cache_off and target.write_through and target.file_size == 1 << 30
    assert span.latency.p99 == 4.713 and span.latency.max == 35.257


def test_a_transcript_with_a_prompt_and_prose_before_the_report_keeps_the_command_line_it_shows():
    text = (TEXT / "diskspd-2.0.17a-rnd4k-rw50-50-F2-o32-L-transcript.txt").read_text(encoding="utf-8-sig")
    report = parse_text(text)
    assert report.command_line is not None and report.command_line.endswith("-r -d600 C:\\testfile.foo")
    (span,) = report.timespans
    assert (span.duration_seconds, span.warmup_seconds, span.total_threads) == (600.0, 5.0, 2)
    assert (span.read.ios, span.write.ios) == (totals(text, "Read IO")[1], totals(text, "Write IO")[1])


def test_the_linux_ports_report_names_the_device_under_the_file():
    report = parse_text((TEXT / "diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt").read_text(encoding="utf-8-sig"))
    assert report.variant == "linux" and report.cpu_count == 16
    (span,) = report.timespans
    (target,) = span.targets
    assert target.device == "sdc" and target.file_size == 50 << 30 and target.outstanding == 128
    assert span.read.ios == 747070 and span.write.ios == 0 and not span.measure_latency


def test_a_report_cut_before_its_results_is_refused_in_one_line():
    text = (TEXT / "diskspd-2.0.21a-rnd4k-rw70-30-L-D-noheader.txt").read_text(encoding="utf-8-sig")
    with pytest.raises(ReportError) as caught:
        parse_text(text.split("Total IO", 1)[0])
    assert str(caught.value).strip() and "\n" not in str(caught.value)
