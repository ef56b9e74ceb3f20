"""The native engine on real small files: ratios, patterns, counts, latency, both I/O loops."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from labtui.engine.base import Job
from labtui.engine.events import SampleTaken, StepFinished
from labtui.engine.native import NativeEngine, backend_for
from labtui.engine.testfile import write_test_file
from labtui.model import Step

FILE_SIZE = 64 * 1024 * 1024


@pytest.fixture(scope="module")
def test_file(disk_dir) -> Path:
    path = disk_dir / "engine-test.dat"
    write_test_file(path, FILE_SIZE, direct=True)
    return path


def run_step(step: Step, path: Path, size: int = FILE_SIZE, **settings):
    engine = NativeEngine(settings)
    events = []

    async def go():
        async for event in engine.run_step(step, Job(path=path, file_size=size, interval=0.5)):
            events.append(event)

    asyncio.run(go())
    finished = [e for e in events if isinstance(e, StepFinished)]
    assert len(finished) == 1 and events[-1] is finished[0]
    return finished[0].result, events, engine


def step(**fields) -> Step:
    base = dict(name="t", block_size=4096, pattern="random", write_percent=0, threads=2, outstanding=4,
                duration=1.5, warmup=0.5, cache="off", latency=True)
    base.update(fields)
    return Step(**base)


@pytest.mark.parametrize(
    "pattern,write_percent",
    [("random", 0), ("random", 30), ("random", 70), ("random", 100), ("sequential", 0), ("sequential", 50)],
)
def test_read_write_ratio_is_what_was_asked(test_file, pattern, write_percent):
    result, _, _ = run_step(step(pattern=pattern, write_percent=write_percent), test_file)
    assert result.status == "completed", result.error
    total = result.total.ios
    assert total > 200
    write_share = 100 * result.write.ios / total
    assert abs(write_share - write_percent) <= 2.0, (write_share, write_percent)
    if write_percent == 0:
        assert result.write.ios == 0
    if write_percent == 100:
        assert result.read.ios == 0


def test_counts_rates_and_latency_are_self_consistent(test_file):
    result, events, _ = run_step(step(block_size=65536, write_percent=50, duration=2.0), test_file)
    assert result.status == "completed"
    for d in (result.read, result.write):
        assert d.seconds == pytest.approx(2.0, abs=1e-9)  # the measure window, exactly
        assert d.bytes == d.ios * 65536
        assert d.iops == pytest.approx(d.ios / d.seconds)
    assert result.total.ios == result.read.ios + result.write.ios
    lat = result.latency
    assert 0 < lat.min <= lat.p50 <= lat.p90 <= lat.p95 <= lat.p99 <= lat.p999 <= lat.p9999 <= lat.max
    assert lat.min <= lat.mean <= lat.max
    for d in (result.read_latency, result.write_latency):
        assert 0 < d.min <= d.p50 <= d.p99 <= d.max
    assert result.cpu_seconds is not None and result.cpu_seconds > 0
    assert result.command_line and "O_DIRECT" in result.command_line
    # Live samples: warm-up ones are marked, measured ones kept; their counts add up to the
    # exact total within the live counters' publishing lag.
    samples = [e for e in events if isinstance(e, SampleTaken)]
    assert {e.phase for e in samples} == {"warmup", "measure"}
    measured = [e.sample for e in samples if e.phase == "measure"]
    assert list(result.samples) == measured
    assert 3 <= len(measured) <= 5
    assert sum(s.read_ios + s.write_ios for s in measured) == pytest.approx(result.total.ios, rel=0.1)
    assert all(s.t > 0 and s.seconds > 0 for s in measured)


def test_sequential_steps_really_advance_sequentially(test_file):
    bs = 65536
    result, _, engine = run_step(step(pattern="sequential", block_size=bs, threads=1, outstanding=4), test_file,
                                 trace_offsets=300)
    assert result.status == "completed"
    (trace,) = engine.last_traces
    offsets = [off for off, _ in trace]
    assert offsets[0] == 0
    for a, b in zip(offsets, offsets[1:]):
        assert b == a + bs or (b == 0 and a == FILE_SIZE - bs), (a, b)


def test_sequential_threads_each_stream_through_their_own_region(test_file):
    bs = 65536
    result, _, engine = run_step(step(pattern="sequential", block_size=bs, threads=2, outstanding=2), test_file,
                                 trace_offsets=50)
    assert result.status == "completed"
    starts = sorted(trace[0][0] for trace in engine.last_traces)
    assert starts == [0, FILE_SIZE // 2]
    for trace in engine.last_traces:
        offsets = [off for off, _ in trace]
        assert all(b == a + bs for a, b in zip(offsets, offsets[1:]))


def test_random_offsets_are_aligned_spread_and_not_sequential(test_file):
    bs = 4096
    result, _, engine = run_step(step(block_size=bs, threads=1, outstanding=8), test_file, trace_offsets=500)
    (trace,) = engine.last_traces
    offsets = [off for off, _ in trace]
    assert all(off % bs == 0 and 0 <= off <= FILE_SIZE - bs for off in offsets)
    sequential_pairs = sum(1 for a, b in zip(offsets, offsets[1:]) if b == a + bs)
    assert sequential_pairs < 5
    assert len(set(offsets)) > 450
    assert max(offsets) > FILE_SIZE * 0.8 and min(offsets) < FILE_SIZE * 0.2


def test_page_cache_on_uses_the_blocking_loop(test_file):
    s = step(cache="on", write_percent=50, block_size=8192, threads=2, outstanding=3)
    assert backend_for(s, direct=False) == "sync"
    result, _, engine = run_step(s, test_file, trace_offsets=100)
    assert result.status == "completed", result.error
    assert result.read.ios > 0 and result.write.ios > 0
    assert "page cache on" in result.command_line
    assert all(len(t) == 100 for t in engine.last_traces)


def test_latency_off_records_no_latency(test_file):
    result, _, _ = run_step(step(latency=False), test_file)
    assert result.total.ios > 0
    assert not result.latency.measured and result.latency.p99 is None


def test_an_io_error_fails_the_step_with_the_reason(disk_dir):
    small = disk_dir / "short.dat"
    write_test_file(small, 1024 * 1024, direct=True)
    # The engine is told the file is 64 MiB: reads past its end come back short.
    result, _, _ = run_step(step(threads=1, outstanding=2, duration=1.0, warmup=0.0), small, size=FILE_SIZE)
    small.unlink()
    assert result.status == "failed"
    assert "short transfer" in result.error or "I/O error" in result.error


def test_queue_depth_one_uses_one_blocking_call_per_io(test_file):
    s = step(outstanding=1, threads=1, write_percent=50, pattern="sequential", block_size=16384)
    assert backend_for(s, direct=True) == "sync"
    result, _, engine = run_step(s, test_file, trace_offsets=200)
    assert result.status == "completed", result.error
    assert abs(100 * result.write.ios / result.total.ios - 50) <= 5
    assert result.latency.p50 > 0 and "O_DIRECT (sync)" in result.command_line
    (trace,) = engine.last_traces
    offsets = [off for off, _ in trace]
    assert offsets[0] == 0 and all(b == a + 16384 for a, b in zip(offsets, offsets[1:]))
