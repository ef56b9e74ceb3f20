"""fio's `--status-interval` reports as live samples (labtui.engine.fio.intervals): differenced, the ramp as
warm-up, a sliver merged, and the measure's samples adding up to the final report's counts."""

from __future__ import annotations

from conftest import FIXTURES
from labtui.engine.fio import intervals, output, parse as fr

STREAM = (FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json").read_text()


def test_ramp_reports_are_warmup_and_the_rest_adds_up():
    reports = output.split_output(STREAM).reports
    tracker = intervals.SampleTracker(warmup=1.0)
    phases = []
    for report in reports:
        taken = tracker.add(report["jobs"][0])
        phases.append(taken[0] if taken else None)
    tracker.finish()
    assert phases[0] == "warmup" and set(phases[1:]) <= {"measure", None}
    final = fr.job_counters(reports[-1]["jobs"][0])
    assert sum(s.read_ios for s in tracker.measured) == final.read_ios
    assert sum(s.write_bytes for s in tracker.measured) == final.write_bytes
    assert all(s.read_lat_p99_ms and s.read_lat_mean_ms for s in tracker.measured[:3])


def test_a_sliver_is_merged_not_shown_alone():
    first = fr.Sample(t=1.0, seconds=1.0, read_ios=100, read_lat_mean_ms=1.0)
    sliver = fr.Sample(t=1.05, seconds=0.05, read_ios=10, read_lat_mean_ms=2.0)
    merged = intervals.merge_samples(first, sliver)
    assert (merged.t, merged.seconds, merged.read_ios) == (1.05, 1.05, 110)
    assert abs(merged.read_lat_mean_ms - 1.0909090909) < 1e-9
