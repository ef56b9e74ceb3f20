"""The readers DiskSpd's XML and text share (labtui.engine.diskspd.report): sizes, counts, figures and times in
DiskSpd's words, a hostile value refused in a line naming where it was."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from labtui.engine.diskspd.report import MAX_COUNT, count_of, figure_of, latency_summary, size_of, timestamp, undouble
from labtui.errors import ReportError
from labtui.model.result import LatencySummary


def test_a_log_that_doubled_every_backslash_is_undone_and_one_that_did_not_is_left_alone():
    assert undouble("path: 'C:\\\\dir\\\\file.dat'") == "path: 'C:\\dir\\file.dat'"
    assert undouble("\\\\server\\share") == "\\\\server\\share"  # a UNC path: no drive letter, kept


def test_sizes_in_diskspds_suffixes_and_what_is_not_a_size():
    assert size_of("4K") == 4096 and size_of("1 G") == 1 << 30 and size_of("0") == 0
    assert size_of(None) is None and size_of("") is None and size_of("lots") is None


def test_counts_are_whole_numbers_in_range_else_refused_naming_where():
    assert count_of(" 37162 ", "read count") == 37162 and count_of(str(MAX_COUNT), "x") == MAX_COUNT
    with pytest.raises(ReportError, match="read count is not a whole number: '12.5'"):
        count_of("12.5", "read count")
    with pytest.raises(ReportError, match="read count is out of range"):
        count_of(str(MAX_COUNT + 1), "read count")


def test_figures_keep_n_a_as_none_drop_units_and_refuse_the_impossible():
    assert figure_of("2.266", "mean") == 2.266 and figure_of("0.99%", "cpu") == 0.99 and figure_of("30.01s", "t") == 30.01
    assert figure_of("N/A", "mean") is None and figure_of(None, "mean") is None
    for bad in ("-1.0", "nan", "inf"):
        with pytest.raises(ReportError, match="mean is out of range"):
            figure_of(bad, "mean")
    with pytest.raises(ReportError, match="mean is not a number"):
        figure_of("fast", "mean")


def test_diskspds_time_stamp_is_utc_and_a_garbled_one_is_none():
    assert timestamp("2021/04/14 23:25:42 UTC") == datetime(2021, 4, 14, 23, 25, 42, tzinfo=UTC)
    assert timestamp("2021/13/40 99:00:00 UTC") is None and timestamp("yesterday") is None and timestamp(None) is None


def test_a_latency_with_no_figure_at_all_is_the_empty_summary():
    assert latency_summary(None, {"p50": None}) == LatencySummary()
    assert latency_summary(1.5, {"p50": 1.0, "p42": 7.0}) == LatencySummary(mean=1.5, p50=1.0)  # unknown points left out
