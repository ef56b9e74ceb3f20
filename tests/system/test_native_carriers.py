"""The native engine's logical workers on a real device: few processes carry many workers' I/Os.

A loop device over an image on the real disk, its I/O sent on to the disk with O_DIRECT
(`losetup --direct-io=on`), so each I/O stays in flight at the loop device for the disk's time:
the kernel's own counters say what the device saw. A step of 16 threads x 2 outstanding on a
machine of 2 CPUs (EngineSettings.cpus) runs on 2 processes, and the device has 32 I/Os in flight
(/sys/block/<dev>/inflight during the step), its completed requests those the workers counted;
with native_workers = "per-thread" every thread has a process of its own.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import psutil
import pytest

from labtui.engine.base import Job
from labtui.engine.events import StepFinished
from labtui.engine.native import uring
from labtui.engine.native.engine import NativeEngine, StepObservation
from labtui.model.profile import Step
from labtui.model.result import StepResult
from labtui.settings import EngineSettings
from loopdev import attach

IMAGE_MIB = 32
# Large enough blocks that each read takes the disk a while: the device's in-flight count then
# shows what the workers keep there, not how soon a loaded machine lets a process resubmit.
BLOCK = 128 * 1024
WORKER = "labtui.engine.native.worker"


@pytest.fixture(scope="module")
def slow_device(disk_dir: Path) -> Iterator[str]:
    """A loop device whose reads go to the real disk (data written, not holes: holes read as nothing)."""
    image = disk_dir / "carriers.img"
    with open(image, "wb") as f:
        f.write(os.urandom(IMAGE_MIB << 20))
        f.flush()
        os.fsync(f.fileno())
    with attach(image) as device:
        done = subprocess.run(["losetup", "--direct-io=on", device], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"the loop device cannot send its I/O on with O_DIRECT here: {done.stderr.strip()}")
        yield device
    image.unlink()


@dataclass
class Watched:
    """What the kernel said of the device and of this process's children while a step ran."""

    result: StepResult
    seen: StepObservation
    inflight: list[int] = field(default_factory=list)  # the device's reads in flight, sampled
    workers_alive: list[int] = field(default_factory=list)  # the engine's processes alive, sampled
    pids: set[int] = field(default_factory=set)  # every engine process seen alive
    completed: int = 0  # reads the device completed over the step (its stat's first field)


def watch_step(device: str, step: Step, **settings) -> Watched:
    name = Path(device).name
    stop = threading.Event()
    inflight: list[int] = []
    alive: list[int] = []
    pids: set[int] = set()

    def sample() -> None:
        me = psutil.Process()
        turn = 0
        while not stop.is_set():
            with open(f"/sys/block/{name}/inflight") as f:
                inflight.append(int(f.read().split()[0]))
            turn += 1
            if turn % 20 == 0:  # the process list costs more than the counter: every 20th turn
                found = set()
                for child in me.children():
                    try:
                        if WORKER in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                            found.add(child.pid)
                    except psutil.Error:
                        continue
                if found:
                    alive.append(len(found))
                    pids.update(found)
            time.sleep(0.0005)

    def reads_done() -> int:
        with open(f"/sys/block/{name}/stat") as f:
            return int(f.read().split()[0])

    observations: list[StepObservation] = []
    engine = NativeEngine(EngineSettings(observe=observations.append, **settings))

    async def go() -> StepResult | None:
        async for event in engine.run_step(step, Job(path=Path(device), file_size=IMAGE_MIB << 20, interval=0.5)):
            if isinstance(event, StepFinished):
                return event.result
        return None

    before = reads_done()
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = asyncio.run(go())
    finally:
        stop.set()
        sampler.join()
    assert result is not None and result.status == "completed", result and result.error
    return Watched(result, observations[-1], inflight, alive, pids, reads_done() - before)


@pytest.mark.parametrize("backend", ["io_uring", "aio"])
def test_sixteen_threads_of_two_run_on_two_processes_and_the_device_sees_32_in_flight(slow_device, backend):
    if backend == "io_uring" and uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    step = Step(name="Q2T16", block_size=BLOCK, threads=16, outstanding=2, duration=0.8, warmup=0.2)
    got = watch_step(slow_device, step, cpus=2, native_backend=backend)
    result, seen = got.result, got.seen
    # Two processes carried the sixteen workers, and said so.
    assert result.processes == 2 and len(seen.pids) == 2 and result.backend == backend
    assert f"16 logical workers on 2 processes, {backend}, 2 outstanding each" in result.command_line
    assert got.pids <= set(seen.pids) and max(got.workers_alive) <= 2
    # The device had every worker's two I/Os in flight at once, and never more.
    assert max(got.inflight) == 32, sorted(set(got.inflight))
    # It completed the reads the workers counted (warm-up and drain included), within 2 %.
    assert got.completed == pytest.approx(seen.all_phase_ios, rel=0.02)
    # Every logical worker did its own share, counted on its own: they add up to the step's.
    assert [w["worker"] for w in seen.workers] == list(range(16))
    assert all(w["r_ios"] > 0 and w["w_ios"] == 0 for w in seen.workers)
    assert sum(w["r_ios"] for w in seen.workers) == result.read.ios
    assert sum(w["r_lat_ns"] for w in seen.workers) / result.read.ios / 1e6 == pytest.approx(result.latency.mean)


def test_per_thread_mode_gives_every_thread_a_process_of_its_own(slow_device):
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    step = Step(name="Q2T4", block_size=BLOCK, threads=4, outstanding=2, duration=0.6, warmup=0.2,
                native_workers="per-thread")
    got = watch_step(slow_device, step, cpus=2)
    result, seen = got.result, got.seen
    assert result.processes == 4 and len(set(seen.pids)) == 4
    assert "4 logical workers on 4 processes (per-thread), io_uring" in result.command_line
    assert got.pids <= set(seen.pids) and max(got.workers_alive) <= 4
    assert max(got.inflight) == 8
    assert got.completed == pytest.approx(seen.all_phase_ios, rel=0.02)
    assert [w["worker"] for w in seen.workers] == [0, 1, 2, 3] and all(w["r_ios"] > 0 for w in seen.workers)


def test_a_step_whose_processes_each_carried_several_threads_and_kept_a_cpu_busy_is_marked_cpu_bound():
    """The step's verdict from its processes' own figures (synthetic: what two busy carriers hand in)."""
    from labtui.engine import cpubound
    from labtui.engine.native.figures import step_result

    step = Step(name="Q2T16", block_size=4096, threads=16, outstanding=2, duration=1.0, warmup=0.0)
    carrier = {"r_ios": 100_000, "w_ios": 0, "r_bytes": 100_000 * 4096, "w_bytes": 0, "r_lat_ns": 10**10,
               "w_lat_ns": 0, "cpu_seconds": 0.98, "wait_seconds": 0.01, "cpu_window_seconds": 1.0,
               "backend": "io_uring"}
    finals = [{**carrier, "workers": [{"worker": w} for w in range(8 * i, 8 * i + 8)]} for i in range(2)]
    result = step_result(step, Job(path=Path("/x"), file_size=1 << 30), finals, 1.0, [], 60.0, "cmd", "completed", None)
    assert result.processes == 2 and result.total.ios == 200_000
    assert result.engine_bound == "a process carrying 8 of the step's threads used 98 % of a CPU"
    assert cpubound.advice(result.engine_bound) == cpubound.CARRIED_ADVICE
    # One thread a process: the worker's own limit, as before carriers.
    single = [{**carrier, "workers": [{"worker": 0}]}]
    assert step_result(replace(step, threads=1), Job(path=Path("/x"), file_size=1 << 30), single, 1.0, [], 60.0, "cmd",
                       "completed", None).engine_bound == "a worker process used 98 % of a CPU"
