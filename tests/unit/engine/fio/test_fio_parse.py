"""fio's JSON output as the fio engine reads it: a stream split into reports as it arrives,
json+ histograms turned into the percentiles fio prints, and reports differenced into samples."""

from __future__ import annotations

import random

from conftest import FIXTURES
from labtui.engine.fio import intervals, output, parse as fr, workload

STREAM = (FIXTURES / "fio-json-stream/fio-3.33-jsonplus-status-interval-randrw4k-rw70-30-qd4-nj2.json").read_text()
SIGINT = (FIXTURES / "fio-json/fio-3.33-rw4k-qd16-sigint-prefix.json").read_text()


def test_stream_arriving_in_pieces_gives_the_same_reports():
    whole = output.split_output(STREAM).reports
    assert len(whole) == 5
    rng = random.Random(7)
    stream = output.ReportStream()
    pieces: list[dict] = []
    pos = 0
    while pos < len(STREAM):
        size = rng.randint(1, 9000)
        pieces += stream.feed(STREAM[pos : pos + size])
        pos += size
    pieces += stream.finish()
    assert pieces == list(whole)


def test_text_around_the_json_is_kept_as_messages():
    out = output.split_output(SIGINT)
    assert len(out.reports) == 1 and out.messages == ("fio: terminating on signal 2",)


def test_histogram_percentiles_are_the_ones_fio_prints():
    job = output.split_output(STREAM).reports[-1]["jobs"][0]
    for direction in ("read", "write"):
        lat = job[direction]["lat_ns"]
        bins = {int(k): v for k, v in lat["bins"].items()}
        points = [float(p) for p in lat["percentile"]]
        assert fr.bins_percentiles(bins, points) == list(lat["percentile"].values())


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


def test_option_parsing():
    assert workload.fio_size("128k,64k") == 131072 and workload.fio_size("4k-16k") == 4096 and workload.fio_size("1m") == 2**20
    assert workload.fio_size("100%%") is None and workload.fio_size("") is None
    assert workload.fio_seconds("5m") == 300 and workload.fio_seconds("10") == 10 and workload.fio_seconds("500ms") == 0.5
    assert workload.fio_seconds("soon") is None
    # fio reads ASCII digits only; "٤k" and "３０" are not its sizes or times.
    assert workload.fio_size("٤k") is None and workload.fio_seconds("３０") is None
