"""What one step may ask of the machine (labtui.engine.limits): refused before anything is written, naming the
limit and what to change; kernel AIO events counted against what fs.aio-max-nr leaves (files injected)."""

from __future__ import annotations

import pytest

from labtui.engine.limits import MAX_IO_THREADS, StepNeeds, check
from labtui.errors import LabtuiError


def aio(tmp_path, limit: str, used: str):
    (tmp_path / "aio-max-nr").write_text(limit)
    (tmp_path / "aio-nr").write_text(used)
    return {"aio_max": tmp_path / "aio-max-nr", "aio_now": tmp_path / "aio-nr"}


def test_a_thread_per_io_past_the_cap_is_refused_with_what_to_change():
    cached = StepNeeds(threads=64 * 64, why_threads="one per I/O in flight with the page cache on")
    with pytest.raises(LabtuiError) as caught:
        check(cached, "Read 4K", 64, 64)
    said = str(caught.value)
    assert said == (f"step 'Read 4K' would start 4,096 threads (64 threads x 64 outstanding, one per I/O in flight "
                    f"with the page cache on); labtui starts at most {MAX_IO_THREADS:,} for a step: lower threads "
                    "or outstanding, or run it with cache off")
    check(StepNeeds(threads=MAX_IO_THREADS), "at the cap", 1, MAX_IO_THREADS)  # the cap itself starts


def test_aio_events_are_counted_against_what_other_programs_left_and_a_round_limit_suggested(tmp_path):
    needs = StepNeeds(threads=4, aio_events=4 * 1024)
    check(needs, "deep", 4, 1024, **aio(tmp_path, "65536", "0"))
    with pytest.raises(LabtuiError) as caught:
        check(needs, "deep", 4, 1024, **aio(tmp_path, "65536\n", "63000 \n"))
    assert str(caught.value) == ("step 'deep' needs 4,096 kernel AIO events (4 threads x 1024 outstanding) but "
                                 "fs.aio-max-nr is 65,536 with 2,536 free: lower threads or outstanding, or raise "
                                 "the limit (sysctl -w fs.aio-max-nr=131072)")
    check(needs, "deep", 4, 1024, **aio(tmp_path, "unreadable", "0"))  # no limit known: nothing refused
