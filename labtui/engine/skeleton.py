"""The shape of a new engine, to copy: a whole engine in the fewest lines, registered nowhere.

A new engine is a package, labtui/engine/NAME/ (engine.py with its Engine class; parse.py where it
reads a program's reports), and one line in registry.ENGINES. Its class says all labtui says of it:

- `name`, `title`, `cpu_advice`, `settings_keys` (keys it reads from config.toml: add them to
  labtui/settings.py too), `preview_order`: see Engine in base.py;
- `check_available()`: EngineUnavailable saying what to install, where it cannot run here;
- `command_line(step, path, file_size)`: what it runs for a step, as the Workload screen previews
  it and the result keeps it; a LabtuiError saying why, for a step it cannot express;
- `needs(step)`: the threads and kernel AIO events the step takes (the runner refuses a step the
  machine cannot start before a byte is written);
- `run_step(step, job)`: `ensure_cleared(job, ...)` right before opening the target, SampleTaken
  events while it runs (phase "warmup", then "measure", t counted from the measure's start), a
  StepFinished with the step's result last; a cancel stops everything it started within 2 s.
  Counts are exact and the samples add up to the result's counts.

This one issues one I/O at a time from one thread with os.preadv/os.pwritev and keeps every
I/O's latency (a real engine keeps a histogram: native/histogram.py); it gives no CPU-bound
verdict. What it cannot do (more threads or I/Os in flight, steady state) it refuses in
command_line and run_step, as a real engine must.
tests/unit/engine/test_base.py registers it and runs it with the others, so it cannot rot.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import mmap
import os
import random
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from statistics import fmean

from labtui.engine.base import Engine, EngineFailed, Job, ensure_cleared
from labtui.engine.cpu import CpuMeter
from labtui.engine.events import Event, SampleTaken, StepFinished
from labtui.errors import LabtuiError
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, StepResult
from labtui.units import format_size


class SkeletonEngine(Engine):
    name = "skeleton"
    title = "skeleton"

    def check_available(self) -> None:
        """Pure Python: it runs wherever labtui does (an engine that drives a program looks for it here)."""

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        _refuse(step)
        how = "O_DIRECT" if step.cache == "off" else "through the page cache"
        return (f"skeleton: {step.pattern} {format_size(step.block_size)} I/Os, {step.write_percent} % writes, "
                f"one at a time {how}, over {format_size(file_size)} of {path}")

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        self.partial_result = None  # a cancelled step keeps nothing of itself
        _refuse(step)
        ensure_cleared(job, step.writes)
        loop = _Loop(step, job)
        worker = asyncio.ensure_future(asyncio.to_thread(loop.run))
        shown = 0
        try:
            while not worker.done():
                await asyncio.wait({worker}, timeout=job.interval / 2)
                for sample in loop.samples[shown:]:  # the thread appends; a list's append is atomic
                    shown += 1
                    yield SampleTaken(job.index, "measure", sample)
            await worker  # raises what the loop raised
        except asyncio.CancelledError:
            loop.stop.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(worker), timeout=1.5)
            raise
        for sample in loop.samples[shown:]:
            yield SampleTaken(job.index, "measure", sample)
        read_ios, read_bytes, write_ios, write_bytes = loop.counts
        reads, writes = loop.latencies[False], loop.latencies[True]
        result = StepResult(
            step=step, repetition=job.repetition, command_line=self.command_line(step, job.path, job.file_size),
            read=DirectionStats(read_ios, read_bytes, loop.seconds),
            write=DirectionStats(write_ios, write_bytes, loop.seconds),
            latency=_summary(reads + writes), read_latency=_summary(reads), write_latency=_summary(writes),
            cpu_percent=loop.meter.stop(), backend="one pread or pwrite at a time", samples=tuple(loop.samples),
        )
        yield StepFinished(job.index, result)


def _summary(latencies: list[float]) -> LatencySummary:
    """Mean, extremes and percentiles (nearest rank) of latencies in seconds, in milliseconds."""
    if not latencies:
        return LatencySummary()
    ordered = sorted(latencies)

    def rank(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))] * 1000

    return LatencySummary(mean=fmean(ordered) * 1000, min=ordered[0] * 1000, max=ordered[-1] * 1000, p50=rank(50),
                          p90=rank(90), p95=rank(95), p99=rank(99), p999=rank(99.9), p9999=rank(99.99))


def _refuse(step: Step) -> None:
    if step.threads != 1 or step.outstanding != 1:
        raise LabtuiError("the skeleton engine runs one thread with one I/O in flight (threads = 1, outstanding = 1)")
    if step.steady is not None:
        raise LabtuiError("the skeleton engine cannot run a step to steady state")


class _Loop:
    """The I/O thread: the warm-up, then the measured window, each I/O counted in the interval it completed in."""

    def __init__(self, step: Step, job: Job) -> None:
        self.step, self.job = step, job
        self.stop = threading.Event()
        self.meter = CpuMeter()  # the machine's CPU over the measured window
        self.seconds = 0.0  # the measured window, once it ended
        self.counts = [0, 0, 0, 0]  # read I/Os, read bytes, write I/Os, write bytes in the measure
        self.latencies: dict[bool, list[float]] = {False: [], True: []}  # each I/O's, in seconds, by write
        self.samples: list[Sample] = []  # one per interval of the measure, each up to an I/O's completion

    def run(self) -> None:
        step, job = self.step, self.job
        flags = (os.O_RDWR if step.writes else os.O_RDONLY) | getattr(os, "O_CLOEXEC", 0)
        if step.cache == "off":
            flags |= getattr(os, "O_DIRECT", 0)
        try:
            fd = os.open(job.path, flags)
        except OSError as exc:
            raise EngineFailed(f"cannot open {job.path}: {exc.strerror}") from exc
        buffer = mmap.mmap(-1, step.block_size)  # page-aligned, as O_DIRECT needs
        buffer.write(os.urandom(step.block_size))
        try:
            self._loop(fd, buffer)
        except OSError as exc:
            raise EngineFailed(f"{'a write' if step.writes else 'a read'} failed on {job.path}: {exc.strerror}") from exc
        finally:
            buffer.close()
            os.close(fd)

    def _loop(self, fd: int, buffer: mmap.mmap) -> None:
        step = self.step
        blocks = max(self.job.file_size // step.block_size, 1)
        rng = random.Random()
        start = time.monotonic() + step.warmup  # the measure's
        end = start + step.duration
        measuring, last_t, last, position = False, 0.0, [0, 0, 0, 0], 0
        while not self.stop.is_set():
            block = rng.randrange(blocks) if step.pattern == "random" else position % blocks
            position += 1
            write = rng.random() * 100 < step.write_percent
            began = time.monotonic()
            done = (os.pwritev if write else os.preadv)(fd, [buffer], block * step.block_size)
            finished = time.monotonic()
            if finished > end:
                break
            if finished < start:
                continue
            if not measuring:
                measuring = True
                self.meter.start()
            self._count(write, done, finished - began)
            if finished - start - last_t >= self.job.interval:
                last_t, last = self._sample(finished - start, last_t, last), list(self.counts)
        if measuring and not self.stop.is_set():
            self.seconds = step.duration
            self._sample(self.seconds, last_t, last)

    def _count(self, write: bool, done: int, latency: float) -> None:
        base = 2 if write else 0
        self.counts[base] += 1
        self.counts[base + 1] += done
        self.latencies[write].append(latency)

    def _sample(self, t: float, last_t: float, last: list[int]) -> float:
        """Append the interval from `last_t` to `t` (its counts since `last`, its latencies); t."""
        read_ios, read_bytes, write_ios, write_bytes = (now - before for now, before in zip(self.counts, last))
        reads = _summary(self.latencies[False][len(self.latencies[False]) - read_ios:])
        writes = _summary(self.latencies[True][len(self.latencies[True]) - write_ios:])
        self.samples.append(Sample(
            t=round(t, 6), seconds=round(t - last_t, 6), read_ios=read_ios, read_bytes=read_bytes, write_ios=write_ios,
            write_bytes=write_bytes, read_lat_mean_ms=reads.mean, read_lat_p99_ms=reads.p99,
            write_lat_mean_ms=writes.mean, write_lat_p99_ms=writes.p99))
        return t
