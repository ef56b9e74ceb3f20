"""DiskSpd's XML report (labtui.engine.diskspd.xml_report), real files: the counts are its threads' targets'
summed (the XML has no total), the parameters are its profile's, its samples its own timespans'."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES
from labtui.engine.diskspd.xml_report import parse_xml
from labtui.errors import ReportError

TWO_TARGETS = FIXTURES / "diskspd-xml/diskspd-2.1.0dev-seq1m-si-2targets-rw70-30-L-D.xml"


def test_two_targets_of_two_threads_each_are_summed_and_described_from_the_profile():
    text = TWO_TARGETS.read_text(encoding="utf-8-sig")
    report = parse_xml(text)
    assert (report.variant, report.version, report.computer, report.cpu_count) == ("xml", "2.1.0-dev", "disk-tester", 32)
    assert report.started is not None and report.started.isoformat() == "2024-03-24T16:35:48+00:00"
    (span,) = report.timespans
    # What the parser says against the XML's own per-thread elements, summed here independently.
    root = ET.fromstring(text)
    reads = sum(int(e.text or 0) for e in root.iter("ReadCount"))
    writes = sum(int(e.text or 0) for e in root.iter("WriteCount"))
    assert (span.read.ios, span.write.ios) == (reads, writes) == (4835, 2136)
    assert span.read.bytes == reads * 1048576 and span.read.seconds == span.test_seconds == 30.0
    assert [t.path for t in span.targets] == ["D:\\diskspd\\1GB.tmp", "E:\\diskspd\\1GB.tmp"]
    first = span.targets[0]
    assert (first.block_size, first.pattern, first.write_percent, first.threads, first.outstanding) == (
        1048576, "sequential", 30, 2, 8)
    assert first.cache_off and first.write_through and span.measure_latency
    assert (span.duration_seconds, span.warmup_seconds, span.total_threads) == (30.0, 2.0, 4)
    assert span.latency.min == 4.562 and span.latency.max == 2128.971 and span.latency.p99 == 1202.421
    assert len(span.samples) == 30  # its -D samples, one a second


def test_a_report_cut_short_is_refused_in_one_line():
    text = TWO_TARGETS.read_text(encoding="utf-8-sig")
    with pytest.raises(ReportError) as caught:
        parse_xml(text[: len(text) // 2])
    assert "\n" not in str(caught.value)
