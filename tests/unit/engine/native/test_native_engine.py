"""The native engine on real small files: ratios, patterns, counts, latency, in every I/O loop.

Each counting guarantee (the window, the mix, sequential order, no warm-up leak) is checked in
each loop the engine can run: io_uring, kernel AIO and blocking calls (threads when more than
one I/O is in flight); the fallbacks between them are checked where a loop is missing. The
machine is said to have one CPU (EngineSettings.cpus): a ring loop then carries a step's two
threads in one process, and its counts per logical worker are checked too; steps of one thread
check a process that carries one.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from labtui.engine.base import Job
from labtui.engine.events import RunWarning, SampleTaken, StepFinished
from labtui.engine.native import uring, uring_loop as native_uring
from labtui.engine.native.engine import NativeEngine, StepObservation
from labtui.engine.native.plan import BACKENDS, plan
from labtui.engine.testfile import write_test_file
from labtui.model.profile import Step
from labtui.settings import EngineSettings

FILE_SIZE = 64 * 1024 * 1024
QUICK = dict(duration=0.4, warmup=0.0)  # for tests that look at what was issued, not at rates
# What each loop is recorded as: the blocking loop with several I/Os in flight runs threads.
RECORDED = {"io_uring": "io_uring", "aio": "aio", "sync": "threads"}
# How a step of two threads is carried on the one CPU the tests give the engine: a ring loop
# drives both in one process, the blocking loops run a process each.
CARRIED = {"io_uring": "2 logical workers on 1 process, io_uring", "aio": "2 logical workers on 1 process, aio",
           "sync": "2 logical workers on 2 processes, a thread per I/O in flight"}


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    if request.param == "io_uring" and uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    return request.param


@pytest.fixture(scope="module")
def test_file(disk_dir) -> Path:
    path = disk_dir / "engine-test.dat"
    write_test_file(path, FILE_SIZE, direct=True)
    return path


class Seen:
    """What the engine's observer was handed after the step: every I/O of all its phases, and the traces."""

    def __init__(self) -> None:
        self.observations: list[StepObservation] = []

    @property
    def all_phase_ios(self) -> int:
        return self.observations[-1].all_phase_ios

    @property
    def traces(self) -> list[list]:
        return self.observations[-1].traces


def run_step(step: Step, path: Path, size: int = FILE_SIZE, stall: float = 0.0, **settings):
    """One step; `stall`: the parent's step is held that long at its first measured sample (as on a
    loaded machine), so that the workers finish, and exit, before it reads the window's end."""
    settings.setdefault("cpus", 1)
    seen = Seen()
    engine = NativeEngine(EngineSettings(**settings, observe=seen.observations.append))
    events = []

    async def go():
        nonlocal stall
        async for event in engine.run_step(step, Job(path=path, file_size=size, interval=0.5)):
            if stall and isinstance(event, SampleTaken) and event.phase == "measure":
                await asyncio.sleep(stall)  # the step's generator waits, as on a busy machine
                stall = 0.0
            events.append(event)

    asyncio.run(go())
    finished = [e for e in events if isinstance(e, StepFinished)]
    assert len(finished) == 1 and events[-1] is finished[0]
    return finished[0].result, events, seen


def run_counted(step: Step, path: Path, enough: int, **settings):
    """run_step, again for 4 and then 16 times as long when a machine too busy for this test got
    fewer than `enough` I/Os done: these tests check what was issued and counted, never how fast."""
    for _ in range(3):
        result, events, seen = run_step(step, path, **settings)
        if result.status != "completed" or result.total.ios >= enough:
            break
        step = replace(step, duration=step.duration * 4)
    return result, events, seen


def mix_tolerance(write_percent: int, ios: int) -> float:
    """How far, in percentage points, a step's write share may stray from what it asked: 2 points,
    or 4 binomial standard deviations where a starved machine left few I/Os to count."""
    p = write_percent / 100
    return max(2.0, 400 * math.sqrt(p * (1 - p) / max(ios, 1)))


def step(**fields) -> Step:
    base = dict(name="t", block_size=4096, pattern="random", write_percent=0, threads=2, outstanding=4,
                duration=1.5, warmup=0.5, cache="off", latency=True)
    base.update(fields)
    return Step(**base)


@pytest.mark.parametrize(
    "pattern,write_percent",
    [("random", 0), ("random", 30), ("random", 70), ("random", 100), ("sequential", 0), ("sequential", 50)],
)
def test_read_write_ratio_is_what_was_asked(test_file, backend, pattern, write_percent):
    result, _, seen = run_counted(step(pattern=pattern, write_percent=write_percent, duration=1.0, warmup=0.3),
                                  test_file, 5000, native_backend=backend)
    assert result.status == "completed", result.error
    assert result.backend == RECORDED[backend]
    total = result.total.ios
    assert total > 0
    write_share = 100 * result.write.ios / total
    assert abs(write_share - write_percent) <= mix_tolerance(write_percent, total), (write_share, write_percent, total)
    if write_percent == 0:
        assert result.write.ios == 0
    if write_percent == 100:
        assert result.read.ios == 0
    # Each logical worker's own counts add up to the step's exactly, and each keeps the mix.
    workers = seen.observations[-1].workers
    assert [w["worker"] for w in workers] == [0, 1]
    assert sum(w["r_ios"] for w in workers) == result.read.ios
    assert sum(w["w_ios"] for w in workers) == result.write.ios
    assert sum(w["r_bytes"] + w["w_bytes"] for w in workers) == result.total.bytes
    for w in workers:
        ios = w["r_ios"] + w["w_ios"]
        assert ios > 0 and abs(100 * w["w_ios"] / ios - write_percent) <= mix_tolerance(write_percent, ios), w


def test_counts_rates_and_latency_are_self_consistent(test_file, backend):
    result, events, seen = run_step(step(block_size=65536, write_percent=50, duration=2.0), test_file,
                                    native_backend=backend)
    assert result.status == "completed"
    assert result.backend == RECORDED[backend] and CARRIED[backend] in result.command_line
    assert result.processes == (1 if backend != "sync" else 2) == len(seen.observations[-1].pids)
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
    # Live samples: warm-up ones are marked, measured ones kept; they cover the window and add up
    # to its exact totals, each direction (on a loaded machine the parent reads the live counters
    # late: a warm-up interval once leaked 10 % more I/Os into the measured samples than the step had).
    samples = [e for e in events if isinstance(e, SampleTaken)]
    assert {e.phase for e in samples} == {"warmup", "measure"}
    measured = [e.sample for e in samples if e.phase == "measure"]
    assert list(result.samples) == measured
    assert 3 <= len(measured) <= 5
    assert sum(s.read_ios for s in measured) == result.read.ios
    assert sum(s.write_ios for s in measured) == result.write.ios
    assert sum(s.seconds for s in measured) == pytest.approx(2.0, abs=1e-5)
    assert all(s.t > 0 and s.seconds > 0 for s in measured)
    # Each logical worker's latency is its own: its summed latencies add up to the step's mean.
    workers = seen.observations[-1].workers
    lat_ns = sum(w["r_lat_ns"] + w["w_lat_ns"] for w in workers)
    assert lat_ns / result.total.ios / 1e6 == pytest.approx(result.latency.mean)
    assert all(w["r_ios"] and w["w_ios"] and w["r_lat_ns"] > 0 and w["w_lat_ns"] > 0 for w in workers)


def test_a_parent_held_till_the_workers_exited_still_takes_the_window_s_last_sample(test_file, backend):
    # On a loaded machine (CI with -n 4) the workers finished the step and exited before the parent
    # woke for its last sample: an exited worker was taken for a failed one, the last sample was
    # dropped, and the samples added up to 12,862 of the step's 17,693 reads.
    result, events, _ = run_step(step(write_percent=50, duration=0.9, warmup=0.0), test_file, stall=1.5,
                                 native_backend=backend)
    assert result.status == "completed", result.error
    measured = [e.sample for e in events if isinstance(e, SampleTaken) and e.phase == "measure"]
    assert sum(s.read_ios for s in measured) == result.read.ios > 0
    assert sum(s.write_ios for s in measured) == result.write.ios > 0
    assert measured[-1].t == pytest.approx(0.9, abs=1e-6)


def test_sequential_steps_really_advance_sequentially(test_file, backend):
    bs = 65536
    result, _, seen = run_step(step(pattern="sequential", block_size=bs, threads=1, outstanding=4, **QUICK), test_file,
                                 trace_offsets=300, native_backend=backend)
    assert result.status == "completed"
    (trace,) = seen.traces
    offsets = [off for off, _ in trace]
    assert offsets[0] == 0
    for a, b in zip(offsets, offsets[1:]):
        assert b == a + bs or (b == 0 and a == FILE_SIZE - bs), (a, b)


@pytest.mark.parametrize("pattern,write_percent", [("random", 30), ("sequential", 0), ("sequential", 100)])
def test_a_deep_queue_submitted_in_chunks_keeps_the_mix_the_order_and_the_window(test_file, pattern, write_percent):
    """io_uring at 13 in flight: freed slots go back in chunks, with a remainder."""
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    assert 13 % native_uring.submit_chunk(13)
    bs = 16384
    result, _, seen = run_counted(step(pattern=pattern, write_percent=write_percent, block_size=bs, threads=1,
                                         outstanding=13, duration=1.0, warmup=0.3), test_file,
                                    5000, trace_offsets=400, native_backend="io_uring")
    assert result.status == "completed", result.error
    assert result.backend == "io_uring"
    assert any(result.read.seconds == pytest.approx(w, abs=1e-9) for w in (1.0, 4.0, 16.0))  # the window, exactly
    total = result.total.ios
    assert total >= 400  # the trace's length, at least
    assert abs(100 * result.write.ios / total - write_percent) <= mix_tolerance(write_percent, total)
    assert result.latency.min > 0
    (trace,) = seen.traces
    assert len(trace) == 400
    if pattern == "sequential":
        offsets = [off for off, _ in trace]
        assert offsets[0] == 0
        assert all(b == a + bs or (b == 0 and a == FILE_SIZE - bs) for a, b in zip(offsets, offsets[1:]))


@pytest.mark.parametrize("write_percent", [0, 30])
def test_a_batch_counted_after_its_slots_went_back_keeps_its_own_latencies(test_file, write_percent):
    """io_uring counts a reaped batch after resubmitting its slots: each I/O's latency is still
    from its own submission. A slot's I/Os follow one another, so all the latencies measured in
    the window add up to no more than 20 slots x (the window + the longest I/O) (Little's law);
    a count from the resubmission's times would give latencies near 0 or below it."""
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    assert native_uring.TALLY_AFTER_SUBMIT and 20 >= native_uring.DEEP_QUEUE
    result, _, _ = run_counted(step(write_percent=write_percent, threads=1, outstanding=20, duration=1.0, warmup=0.3),
                               test_file, 200, native_backend="io_uring")
    assert result.status == "completed", result.error
    total = result.total.ios
    assert total > 0
    lat = result.latency
    assert 0 < lat.min <= lat.mean <= lat.max
    busy_ms = lat.mean * total
    assert busy_ms <= 20 * (1000 * result.read.seconds + lat.max)
    # And no less than one slot busy for most of the window: the I/Os' latencies are their own.
    assert busy_ms >= 0.5 * 1000 * result.read.seconds
    for d in (result.read_latency, result.write_latency) if write_percent else (result.read_latency,):
        assert 0 < d.min <= d.mean <= d.max


def test_a_process_carrying_several_workers_sends_each_batch_with_the_call_that_waits(test_file, monkeypatch):
    """Where a process carries several logical workers (they outnumber the CPUs, which are then the
    limit), its freed slots go to the kernel in the one io_uring_enter that also waits, never in
    chunks of calls of their own; the mix and each worker's counts stay exact. At 2 workers x 8 in
    flight the chunks of 2 took 2-4 calls per reaped batch of 4-5 I/Os."""
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    from labtui.engine.native import common as nc, worker

    calls = {"submit only": 0, "wait": 0}
    real = uring._syscall()

    def counted(number, *args):
        if number == uring.SYS_ENTER:
            calls["wait" if args[2] else "submit only"] += 1
        return real(number, *args)

    monkeypatch.setattr(uring, "_syscall", lambda: counted)
    control = memoryview(bytearray(nc.CONTROL_BYTES)).cast("d")
    live = memoryview(bytearray(nc.LIVE_BYTES)).cast("q")
    start = time.monotonic() + 0.02
    control[nc.C_MEASURE], control[nc.C_END], control[nc.C_GO] = start, start + 0.3, 1.0
    cfg = {"path": str(test_file), "file_size": FILE_SIZE, "block_size": 4096, "pattern": "random",
           "write_percent": 30, "outstanding": 8, "direct": True, "latency": True, "workers": [0, 1], "threads": 4,
           "seed": 5, "backend": "io_uring", "trace": 0}
    result = worker.work(cfg, control, live)
    assert "error" not in result, result
    ios = result["r_ios"] + result["w_ios"]
    assert ios > 100 and calls["wait"] > 10
    assert calls["submit only"] == 0, calls
    assert abs(100 * result["w_ios"] / ios - 30) <= mix_tolerance(30, ios)
    assert sum(w["r_ios"] + w["w_ios"] for w in result["workers"]) == ios
    assert all(w["r_ios"] and w["w_ios"] for w in result["workers"])


def test_sequential_threads_each_stream_through_their_own_region(test_file, backend):
    bs = 65536
    result, _, seen = run_step(step(pattern="sequential", block_size=bs, threads=2, outstanding=2, **QUICK), test_file,
                                 trace_offsets=50, native_backend=backend)
    assert result.status == "completed"
    starts = sorted(trace[0][0] for trace in seen.traces)
    assert starts == [0, FILE_SIZE // 2]
    for trace in seen.traces:
        offsets = [off for off, _ in trace]
        assert all(b == a + bs for a, b in zip(offsets, offsets[1:]))


def test_random_offsets_are_aligned_spread_and_not_sequential(test_file, backend):
    bs = 4096
    result, _, seen = run_counted(step(block_size=bs, threads=1, outstanding=8, **QUICK), test_file, 600,
                                    trace_offsets=500, native_backend=backend)
    (trace,) = seen.traces
    offsets = [off for off, _ in trace]
    assert all(off % bs == 0 and 0 <= off <= FILE_SIZE - bs for off in offsets)
    # However many I/Os a loaded machine gets through in the step (up to the 500 traced): 16,384
    # offsets to draw from, so nearly all differ and hardly any follow one another.
    assert len(offsets) >= 100, len(offsets)
    sequential_pairs = sum(1 for a, b in zip(offsets, offsets[1:]) if b == a + bs)
    assert sequential_pairs < 5
    assert len(set(offsets)) >= 0.95 * len(offsets)
    assert max(offsets) > FILE_SIZE * 0.8 and min(offsets) < FILE_SIZE * 0.2


def test_page_cache_on_uses_the_blocking_loop(test_file):
    s = step(cache="on", write_percent=50, block_size=8192, threads=2, outstanding=3)
    assert plan(s, direct=False, missing={}, cpus=1).backend == "sync"
    result, _, seen = run_step(s, test_file, trace_offsets=100)
    assert result.status == "completed", result.error
    assert result.read.ios > 0 and result.write.ios > 0
    assert "page cache on" in result.command_line
    assert all(len(t) == 100 for t in seen.traces)


def test_latency_off_records_no_latency(test_file):
    result, _, _ = run_step(step(latency=False, **QUICK), test_file)
    assert result.total.ios > 0
    assert not result.latency.measured and result.latency.p99 is None


def test_an_io_error_fails_the_step_with_the_reason(disk_dir, backend):
    small = disk_dir / f"short-{backend}.dat"
    write_test_file(small, 1024 * 1024, direct=True)
    # The engine is told the file is 64 MiB: reads past its end come back short.
    result, _, _ = run_step(step(threads=1, outstanding=2, **QUICK), small, size=FILE_SIZE,
                            native_backend=backend)
    small.unlink()
    assert result.status == "failed"
    assert "short transfer" in result.error or "I/O error" in result.error


def test_queue_depth_one_uses_one_blocking_call_per_io(test_file):
    s = step(outstanding=1, threads=1, write_percent=50, pattern="sequential", block_size=16384)
    assert plan(s, direct=True, missing={}, cpus=1).backend == "sync"
    result, _, seen = run_step(s, test_file, trace_offsets=200)
    assert result.status == "completed", result.error
    assert abs(100 * result.write.ios / result.total.ios - 50) <= 5
    assert result.latency.p50 > 0 and "1 logical worker on 1 process, blocking calls" in result.command_line
    (trace,) = seen.traces
    offsets = [off for off, _ in trace]
    assert offsets[0] == 0 and all(b == a + 16384 for a, b in zip(offsets, offsets[1:]))


@pytest.mark.parametrize("pattern,write_percent", [("random", 0), ("random", 30), ("sequential", 50)])
def test_queue_depth_one_keeps_every_counting_guarantee_in_every_loop(test_file, backend, pattern, write_percent):
    # Queue depth 1 has its own loop where blocking calls run it (one pread/pwrite at a time, its
    # counts in locals for random reads): the window, the mix, the order and the latency
    # figures hold there as in the loops with several I/Os in flight.
    result, events, seen = run_step(step(threads=1, outstanding=1, pattern=pattern, write_percent=write_percent,
                                           duration=1.0, warmup=0.3), test_file, trace_offsets=300,
                                      native_backend=backend)
    assert result.status == "completed", result.error
    assert result.backend == backend  # one I/O in flight: the blocking loop is "sync", not threads
    assert result.total.seconds == pytest.approx(1.0, abs=1e-9)
    ios = result.total.ios
    assert 0 < ios < seen.all_phase_ios
    # Within 2 % as asked, or within four standard errors where a loaded machine left few I/Os
    # (one in flight on a shared disk can be a few hundred a second).
    share = write_percent / 100
    allowed = max(2.0, 400 * (share * (1 - share) / ios) ** 0.5)
    assert abs(100 * result.write.ios / ios - write_percent) <= allowed, (result.write.ios, ios)
    lat = result.latency
    assert 0 < lat.min <= lat.p50 <= lat.p99 <= lat.max and lat.min <= lat.mean <= lat.max
    (trace,) = seen.traces
    offsets = [off for off, _ in trace]
    assert len(offsets) == min(300, seen.all_phase_ios)
    assert all(off % 4096 == 0 and 0 <= off < FILE_SIZE for off in offsets)
    if pattern == "sequential":
        assert offsets[0] == 0 and all(b == a + 4096 for a, b in zip(offsets, offsets[1:]))
    else:
        assert len(set(offsets)) > 0.9 * len(offsets)
    # The live samples come from counters published every 50 ms, read by a parent that a loaded
    # machine may wake late: over two samples they agree with the exact count only roughly, but
    # they would be nothing if the counts kept in locals were never written back.
    samples = [e for e in events if isinstance(e, SampleTaken)]
    assert {e.phase for e in samples} == {"warmup", "measure"}
    live_sum = sum(e.sample.read_ios + e.sample.write_ios for e in samples if e.phase == "measure")
    assert 0.5 * ios <= live_sum <= 1.5 * ios, (live_sum, ios)


def test_queue_depth_one_random_reads_leak_no_warm_up_and_keep_their_extremes(test_file, backend):
    # Random reads at depth 1 count in locals, written back at each boundary: nothing of the
    # warm-up may reach the window, and the window's extremes are the window's own.
    result, events, seen = run_step(step(threads=1, outstanding=1, warmup=1.5, duration=0.5), test_file,
                                      native_backend=backend)
    assert result.status == "completed", result.error
    assert_no_warm_up_leak(result, events, seen)
    assert result.write.ios == 0 and result.total.seconds == pytest.approx(0.5, abs=1e-9)
    lat = result.latency
    assert 0 < lat.min <= lat.p50 <= lat.max
    assert result.read.iops == pytest.approx(result.read.ios / 0.5)
    assert lat.mean == pytest.approx(result.read_latency.mean)


def assert_no_warm_up_leak(result, events, seen) -> None:
    """The measured I/Os and those of the warm-up's first second add up to no more than all the workers did.

    The live samples of the warm-up that end a second or more before measuring begins (at the
    samples' 0.5 s interval: read by then even a second late) hold I/Os done before the window:
    none of them may be in the measured count. This holds whatever the load; the share of all
    I/Os that were measured (about a quarter here) does not: workers starved of CPU by other
    tests in the warm-up and not in the half second measured made it 0.6 and more without a leak.
    """
    early = sum(e.sample.read_ios + e.sample.write_ios for e in events
                if isinstance(e, SampleTaken) and e.phase == "warmup" and e.sample.t <= -1.0 + 1e-9)
    assert early > 0 and result.total.ios > 0, (early, result.total.ios)
    assert result.total.ios + early <= seen.all_phase_ios, (result.total.ios, early, seen.all_phase_ios)


def test_warm_up_ios_never_leak_into_the_measured_counts(test_file, backend):
    # 1.5 s of warm-up, 0.5 s measured: a leak would put warm-up I/Os in the measured counts.
    # Two threads on the one CPU: the ring loops carry both in one process (their counts per
    # logical worker); depth 1 (above) checks a process carrying one.
    result, events, seen = run_step(step(warmup=1.5, duration=0.5, threads=2, outstanding=4), test_file,
                                      native_backend=backend)
    assert result.status == "completed", result.error
    assert CARRIED[backend] in result.command_line
    assert_no_warm_up_leak(result, events, seen)
    # Nor into any logical worker's own counts: theirs add up to the step's.
    workers = seen.observations[-1].workers
    assert [w["worker"] for w in workers] == [0, 1] and sum(w["r_ios"] for w in workers) == result.read.ios
    assert result.total.seconds == pytest.approx(0.5, abs=1e-9)
    assert {e.phase for e in events if isinstance(e, SampleTaken)} == {"warmup", "measure"}


def test_a_missing_io_uring_runs_kernel_aio_records_it_and_warns(test_file):
    missing = {"io_uring": "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)"}
    result, events, _ = run_step(step(outstanding=8, threads=1, **QUICK), test_file, native_backend="io_uring",
                                 missing_backends=missing)
    assert result.status == "completed", result.error
    assert result.backend == "aio" and "1 logical worker on 1 process, aio" in result.command_line
    warnings = [e.message for e in events if isinstance(e, RunWarning)]
    assert len(warnings) == 1 and "kernel.io_uring_disabled" in warnings[0]
    # With neither asynchronous loop, threads carry the I/Os in flight.
    result, _, _ = run_step(step(outstanding=8, threads=1, **QUICK), test_file,
                            missing_backends={"io_uring": "no", "aio": "no"})
    assert result.status == "completed" and result.backend == "threads"


# A seccomp filter that refuses io_uring_setup, as container runtimes' default profiles do,
# installed in a child process that then runs a step (its workers inherit the filter).
_SECCOMP_CHILD = r"""
import asyncio, ctypes, json, sys
from pathlib import Path

def refuse_io_uring():
    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]
    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]
    code = (Filter * 4)(Filter(0x20, 0, 0, 0),              # load the system call number
                        Filter(0x15, 0, 1, 425),            # io_uring_setup?
                        Filter(0x06, 0, 0, 0x00050000 | 1), # then fail it with EPERM
                        Filter(0x06, 0, 0, 0x7FFF0000))     # else allow
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    assert libc.prctl(22, 2, ctypes.byref(Program(4, code)), 0, 0) == 0, ctypes.get_errno()  # SECCOMP_MODE_FILTER

from labtui.engine.native import uring
from labtui.engine.base import Job
from labtui.engine.events import RunWarning, StepFinished
from labtui.engine.native.engine import NativeEngine
from labtui.model.profile import Step

when, path, size = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
if when == "before-probe":
    refuse_io_uring()
probe = uring.probe()
if when == "after-probe":
    refuse_io_uring()  # the engine thinks io_uring works; its workers find it refused
step = Step(name="t", block_size=4096, threads=2, outstanding=8, duration=0.4, warmup=0.0)
out = {"probe": probe, "warnings": []}

async def go():
    async for e in NativeEngine().run_step(step, Job(path=path, file_size=size, interval=0.2)):
        if isinstance(e, RunWarning):
            out["warnings"].append(e.message)
        if isinstance(e, StepFinished):
            r = e.result
            out.update(status=r.status, error=r.error, backend=r.backend, ios=r.total.ios, command_line=r.command_line)

asyncio.run(go())
print(json.dumps(out))
"""


@pytest.mark.parametrize("when", ["before-probe", "after-probe"])
def test_io_uring_refused_by_a_seccomp_filter_falls_back_to_kernel_aio(test_file, when):
    import json
    import subprocess
    import sys

    if uring.probe():
        pytest.skip(f"io_uring cannot run here anyway: {uring.probe()}")
    out = subprocess.run([sys.executable, "-c", _SECCOMP_CHILD, when, str(test_file), str(FILE_SIZE)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["status"] == "completed", got
    assert got["backend"] == "aio" and got["ios"] > 0
    if when == "before-probe":
        # Known before the step: the command line says so and nothing needs a warning.
        assert "io_uring is disabled here" in got["probe"] and ", aio, 8 outstanding each" in got["command_line"]
        assert got["warnings"] == []
    else:
        assert got["probe"] is None
        assert len(got["warnings"]) == 1 and "kernel AIO ran instead" in got["warnings"][0]


def test_a_late_failure_message_is_not_lost_to_the_wait_for_it(monkeypatch, tmp_path):
    """A worker that failed to start gets FAILURE_WAIT to say why; on a loaded machine it may need
    longer. The wait's timeout cancelled the read of its output, which drops what it had read: the
    next read got the rest alone (here nothing), and the step a garbled reason."""
    from labtui.engine.native import common as nc, engine as native_engine
    from labtui.engine.native.engine import _Worker

    monkeypatch.setattr(native_engine, "FAILURE_WAIT", 0.1)
    written = tmp_path / "written"
    # The worker hands in its reason, then lingers (until its stdin closes) as a slow one would.
    script = ("import sys\nfrom labtui.engine.native.worker import hand_in\n"
              "hand_in({'error': 'no such file (x.dat)'}, sys.stdout.buffer)\n"
              f"open({str(written)!r}, 'w').close()\nsys.stdin.read()")

    async def go():
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        w = _Worker(proc, memoryview(bytearray(nc.LIVE_BYTES)).cast("q"))
        waits = []
        while not written.exists() or len(waits) < 2:
            waits.append(await w.failure())  # its reason is on its way; it has not exited
            if len(waits) > 200:
                break
        proc.stdin.close()
        return waits, await w.result()

    waits, then = asyncio.run(go())
    assert set(waits) == {None} and then == {"error": "no such file (x.dat)"}


def test_the_worker_is_never_a_labtui_planted_in_the_current_directory(tmp_path):
    """guard3: `python -m` looks in the current directory first: root running labtui from /tmp imported another
    user's /tmp/labtui/engine/native/worker.py as the worker, and ran it as root."""
    import subprocess

    from labtui.engine.native.engine import WORKER, _child_env

    planted = tmp_path / "labtui" / "engine" / "native"
    planted.mkdir(parents=True)
    for folder in (planted, planted.parent, planted.parent.parent):
        (folder / "__init__.py").write_text("")
    (planted / "worker.py").write_text(f"open({str(tmp_path / 'RAN')!r}, 'w').close()\n")
    out = subprocess.run([*WORKER, "{}"], cwd=tmp_path, env=_child_env(), capture_output=True, text=True, timeout=30)
    assert not (tmp_path / "RAN").exists(), "the planted worker ran"
    assert out.returncode != 0 and "KeyError: 'control_fd'" in out.stderr  # labtui's own worker, refusing '{}'


def test_a_stopped_worker_that_handed_in_more_than_was_read_leaves_no_transport_open_past_the_loop(monkeypatch):
    # A worker stopped before its result was collected (a failed or cancelled step) had written more to its
    # stdout than asyncio buffers: its reader was paused, the pipe never read to its end, and the transport
    # outlived the event loop. Collected later, its destructor failed: "Exception ignored ... Event loop is
    # closed" (tests/unit/engine/test_testfile.py, rarely). Once the workers are reaped their pipes are read out.
    import asyncio
    import gc
    import subprocess
    import sys

    from labtui.engine.native import engine as ne

    monkeypatch.setattr(ne, "STOP_GRACE", 0.1)
    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: ignored.append(f"{u.exc_type.__name__}: {u.exc_value}"))

    async def stopped_worker() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import sys, time; sys.stdout.buffer.write(bytes(1 << 20)); sys.stdout.flush(); "
                                  "time.sleep(30)",
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        await asyncio.sleep(0.3)  # its result is written (as far as the pipe takes it): nobody reads it
        await ne._reap([ne._Worker(proc, memoryview(bytearray(8)).cast("q"))])

    asyncio.run(stopped_worker())
    gc.collect()
    assert ignored == []
