"""A DiskSpd report read (labtui.engine.diskspd.parse): XML or text told apart, anything else refused; a
timespan as the step it ran and an equivalent command line."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from labtui.engine.diskspd.parse import parse_report, profile_command_line, size_arg, timespan_workload
from labtui.engine.diskspd.report import Target, Timespan
from labtui.errors import ReportError


def test_xml_and_text_are_told_apart_by_their_labels_and_anything_else_is_refused():
    xml = parse_report((FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml").read_text(encoding="utf-8-sig"))
    text = parse_report((FIXTURES / "diskspd-text/diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt").read_text(encoding="utf-8-sig"))
    assert (xml.variant, text.variant) == ("xml", "text")
    with pytest.raises(ReportError, match="not a DiskSpd report"):
        parse_report('{"fio version": "fio-3.33"}')


def test_a_timespan_is_the_step_it_ran_and_an_equivalent_command_line():
    report = parse_report((FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml").read_text(encoding="utf-8-sig"))
    (span,) = report.timespans
    step = timespan_workload(span, "QuickTest")
    assert (step.name, step.block_size, step.pattern, step.write_percent, step.threads, step.outstanding) == (
        "QuickTest", 4096, "random", 30, 1, 1)
    assert (step.duration, step.warmup, step.cache, step.latency, step.write_through) == (120.0, 15.0, "off", True, True)
    assert profile_command_line(span) == "diskspd -b4K -d120 -W15 -t1 -o1 -w30 -r4K -Sh -L -D diskspd.test"


def test_what_a_timespan_does_not_say_is_diskspds_default():
    step = timespan_workload(Timespan(number=1, test_seconds=10.0, targets=(Target(path="x"),)))
    assert (step.block_size, step.outstanding, step.threads, step.warmup, step.duration) == (65536, 2, 1, 5.0, 10.0)
    assert step.pattern == "sequential" and step.cache == "on"


def test_sizes_are_said_in_diskspds_suffixes_where_exact():
    assert [size_arg(n) for n in (4096, 1 << 20, 3 << 30, 6144, 1000)] == ["4K", "1M", "3G", "6K", "1000"]
