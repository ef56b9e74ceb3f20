"""Saving bounds what it writes as reading bounds what it reads: a long run with fine intervals is
saved as a file labtui can read back, its series merged into longer intervals that keep the counts."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from factories import make_result
from labtui import series
from labtui.model.result import Sample
from labtui.results import store as store_module
from labtui.results.store import Store
from labtui.series import downsample, merge_samples
from synthetic import sample


def fine_series(count: int, *, interval: float = 0.01, seed: int = 7) -> tuple[Sample, ...]:
    """What fio at --interval 10ms reports: jittery counts, latencies with all their digits."""
    rng = random.Random(seed)
    samples = []
    for i in range(count):
        reads = rng.randint(900, 1100)
        samples.append(Sample(
            t=round((i + 1) * interval, 6), seconds=interval + rng.uniform(-1e-4, 1e-4),
            read_ios=reads, read_bytes=reads * 4096, write_ios=reads // 3, write_bytes=reads // 3 * 4096,
            read_lat_mean_ms=rng.uniform(0.05, 0.3), read_lat_p99_ms=rng.uniform(0.3, 2.0),
            write_lat_mean_ms=rng.uniform(0.05, 0.3), write_lat_p99_ms=rng.uniform(0.3, 2.0),
            cpu_percent=rng.uniform(5, 60)))
    return tuple(samples)


def long_result(samples_per_step: int):
    result = make_result()
    steps = tuple(replace(s, samples=fine_series(samples_per_step, seed=i)) for i, s in enumerate(result.steps))
    return replace(result, steps=steps)


def totals(samples) -> tuple:
    return (sum(s.read_ios for s in samples), sum(s.write_ios for s in samples),
            sum(s.read_bytes for s in samples), sum(s.write_bytes for s in samples))


def test_a_result_too_large_for_the_reader_is_saved_so_it_reads_back(tmp_path, monkeypatch):
    """The reader's cap, made small here so the test stays quick: the writer keeps under it."""
    monkeypatch.setattr(store_module, "MAX_FILE_BYTES", 512 * 1024)
    store = Store(tmp_path / "home")
    result = long_result(20_000)
    saved, path = store.save_result(result)
    assert path.stat().st_size <= 512 * 1024
    back = store.read_result(path)
    assert back == saved
    for before, after in zip(result.steps, back.steps):
        assert after.series_merged is not None and after.series_merged > 1
        assert len(after.samples) < len(before.samples)
        assert totals(after.samples) == totals(before.samples), "merging keeps every counted I/O"
        assert sum(s.seconds for s in after.samples) == pytest.approx(sum(s.seconds for s in before.samples))
        assert after.samples[-1].t == before.samples[-1].t
        # The step's own figures are untouched: they come from the engine's counts, not the series.
        assert (after.read, after.write, after.latency) == (before.read, before.write, before.latency)


def test_four_hours_at_ten_milliseconds_is_saved_readable_with_the_real_limits(tmp_path):
    store = Store(tmp_path / "home")
    hours = 4 * 3600 * 100  # samples in four hours at 10 ms
    result = long_result(hours // 40)  # a little of it, each step still past the bound: the same code path
    saved, path = store.save_result(result)
    assert path.stat().st_size < store_module.MAX_FILE_BYTES
    assert all(len(s.samples) == hours // 40 > series.MAX_SAMPLES for s in result.steps)
    assert sum(len(s.samples) for s in saved.steps) <= series.MAX_SAMPLES
    assert store.read_result(path) == saved


def test_a_short_series_is_saved_as_it_was():
    result = make_result()
    assert series.bound_result(result) is result
    assert all(s.series_merged is None for s in result.steps)


def test_merged_intervals_weigh_latency_by_ios_and_keep_the_worst_p99():
    a = Sample(t=1.0, seconds=1.0, read_ios=100, read_bytes=100, read_lat_mean_ms=1.0, read_lat_p99_ms=3.0,
               cpu_percent=10.0)
    b = Sample(t=3.0, seconds=2.0, read_ios=300, read_bytes=300, read_lat_mean_ms=2.0, read_lat_p99_ms=5.0,
               cpu_percent=40.0)
    merged = series.merge_samples((a, b))
    assert (merged.t, merged.seconds, merged.read_ios, merged.read_bytes) == (3.0, 3.0, 400, 400)
    assert merged.read_lat_mean_ms == pytest.approx((100 * 1.0 + 300 * 2.0) / 400)
    assert merged.read_lat_p99_ms == 5.0
    assert merged.cpu_percent == pytest.approx((10.0 * 1 + 40.0 * 2) / 3)
    assert merged.write_lat_mean_ms is None and merged.write_ios == 0


def test_merging_sums_counts_and_weights_latency_by_ios():
    merged = merge_samples([sample(1, 100, lat=1.0, p99=2.0), sample(2, 300, lat=3.0, p99=9.0, seconds=3.0, cpu=30)])
    assert (merged.t, merged.seconds, merged.read_ios, merged.read_bytes) == (2, 4.0, 400, 400 * 4096)
    assert merged.read_iops == 100.0
    assert merged.read_lat_mean_ms == pytest.approx((100 * 1 + 300 * 3) / 400)
    assert merged.read_lat_p99_ms == 9.0  # the worst, never an average of percentiles
    assert merged.cpu_percent == pytest.approx((10 * 1 + 30 * 3) / 4)
    assert merged.write_lat_mean_ms is None


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300), st.integers(1, 80))
def test_downsampling_keeps_every_io_and_second(counts, points):
    samples = [sample(i + 1.0, c) for i, c in enumerate(counts)]
    out = downsample(samples, points)
    assert len(out) <= points
    assert sum(s.read_ios for s in out) == sum(counts)
    assert sum(s.seconds for s in out) == pytest.approx(len(counts))
    assert out[-1].t == samples[-1].t
