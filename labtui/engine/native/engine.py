"""The native engine: labtui's own I/O loop, the default, needing nothing installed.

Like DiskSpd, a step's `threads` become that many worker processes (one interpreter each, so
the GIL never serialises them), each keeping its `outstanding` I/Os in flight: io_uring on
O_DIRECT files, kernel AIO where io_uring is missing or disabled, threads with the page cache
on (or where neither exists), one blocking call per I/O at queue depth 1. The loop that ran is
recorded in each step's result (`backend`); the `native_backend` setting picks one by name.
This process only coordinates: it publishes the measure window, samples the workers' live counters
once per interval, and merges their exact final counts and latency histograms into the step result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mmap
import operator
import os
import pickle
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import psutil

from labtui import __version__
from labtui.engine import cpubound, schedstat, subproc
from labtui.engine.base import CpuAdvice, Engine, EngineFailed, EngineUnavailable, Job, ensure_cleared, stopped_collecting
from labtui.engine.cpu import CpuMeter
from labtui.engine.events import Event, RunWarning, SampleTaken, SteadyRound, StepFinished
from labtui.engine.limits import StepNeeds
from labtui.engine.native import common as nc, uring, worker as nw
from labtui.engine.native.histogram import BUCKETS, PERCENTILES, percentiles
from labtui.errors import LabtuiError
from labtui.model.profile import SteadyRule, Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, SteadyState, StepResult, settled
from labtui.units import format_duration, format_size

START_TIMEOUT = 30.0  # seconds for all workers to open the file and get ready
STOP_GRACE = 1.0  # seconds workers get to drain in-flight I/Os before being killed
# A step that has not finished this long after its end was planned is declared hung.
OVERRUN = 10.0


def _shared_file(size: int) -> int:
    """A descriptor of `size` zeroed bytes of memory a child can inherit and map."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("labtui-native", 0)  # inheritable only where passed explicitly
    else:
        handle = tempfile.TemporaryFile()
        fd = os.dup(handle.fileno())
        handle.close()
    os.ftruncate(fd, size)
    return fd


def _child_env() -> dict[str, str]:
    # The worker imports labtui from wherever this process did, installed or not.
    root = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


BACKENDS = ("io_uring", "aio", "sync")


def missing_backends() -> dict[str, str]:
    """The I/O loops this machine cannot run, each with why (io_uring is probed once)."""
    missing = {}
    why = uring.probe()
    if why:
        missing["io_uring"] = why
    if nw.aio_syscalls() is None:
        missing["aio"] = "no kernel AIO on this system"
    return missing


def choose_backend(step: Step, direct: bool, wanted: str = "auto",
                   missing: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """The I/O loop for `step`, and why it is not the one `wanted` (None when it is).

    io_uring first, then kernel AIO, both only where they are really asynchronous (O_DIRECT)
    and more than one I/O is in flight; blocking calls otherwise (measured: at queue depth 1
    one pread beats a submit and a reap). `wanted` (the `native_backend` setting) picks one
    by name; where it cannot run here the next that can is used, and the note says why.
    """
    missing = missing_backends() if missing is None else missing
    direct = direct and step.cache == "off"
    usable = [b for b in BACKENDS if b not in missing]
    if not direct:
        usable = ["sync"]  # kernel AIO and this io_uring loop are synchronous on buffered files
    if wanted == "auto":
        best = usable[0] if step.outstanding > 1 else "sync"
        return best, None
    if wanted not in BACKENDS:
        raise LabtuiError(f"native_backend must be auto or one of {', '.join(BACKENDS)}, got {wanted!r}")
    if wanted in usable:
        return wanted, None
    fallback = usable[0] if step.outstanding > 1 else "sync"
    why = missing.get(wanted) or "it needs O_DIRECT (cache off)"
    return fallback, f"the {wanted} I/O loop cannot run here ({why}): {fallback} ran instead"


@dataclass(frozen=True)
class StepObservation:
    """What a native step did beyond its result, handed to `EngineSettings.observe`."""

    all_phase_ios: int  # warm-up and drain included
    traces: list[list]  # per worker, its first `trace_offsets` (start, offset, ...) records


class NativeEngine(Engine):
    name = "native"
    title = "native"
    cpu_advice = CpuAdvice(
        own="this figure is the engine's limit, not the disk's: try more threads or -e fio",
        crowded=("this figure is the CPUs' limit, not the disk's: the workers waited for a CPU (other work, or more "
                 "threads than CPUs); try a quieter machine, fewer threads, or -e fio"),
    )
    settings_keys = ("native_backend", "overrun_seconds")
    preview_order = 2

    @classmethod
    def io_threads(cls, step: Step) -> int:
        # The blocking loop (the page cache on) runs a thread per I/O in flight in one process; the others one.
        return step.outstanding if step.cache == "on" else 1

    def check_available(self) -> None:
        # Pure Python: always available; only a mistyped native_backend setting can stop it.
        wanted = self.settings.native_backend or "auto"
        if wanted != "auto" and wanted not in BACKENDS:
            raise EngineUnavailable(
                f"native_backend must be auto or one of {', '.join(BACKENDS)}, got {wanted!r} (in config.toml)"
            )

    def version(self) -> str | None:
        return __version__

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        direct = step.cache == "off"
        mix = {0: "read", 100: "write"}.get(step.write_percent, f"{100 - step.write_percent}/{step.write_percent} read/write")
        through = " + O_DSYNC (write-through)" if step.write_through and step.writes else ""
        return (
            f"labtui native: {step.threads} worker process{'es' if step.threads > 1 else ''} x "
            f"{step.outstanding} outstanding, {format_size(step.block_size)} {step.pattern} {mix}, "
            f"{'O_DIRECT' if direct else 'page cache on'}{through} "
            f"({self._backend(step, direct)[0]}), "
            f"{format_duration(step.warmup)} warm-up + {_measured_time(step)}, "
            f"latency {'on' if step.latency else 'off'}, file {path} ({format_size(file_size)})"
        )

    def needs(self, step: Step) -> StepNeeds:
        backend, _ = self._backend(step, step.cache == "off")
        if backend == "sync":
            why = "one per I/O in flight with the page cache on" if step.cache == "on" else "one per I/O in flight"
            return StepNeeds(threads=step.threads * step.outstanding, why_threads=why)
        # One process per thread; kernel AIO reserves an event per I/O in flight, io_uring a ring each.
        return StepNeeds(threads=step.threads, aio_events=step.threads * step.outstanding if backend == "aio" else 0)

    def _backend(self, step: Step, direct: bool) -> tuple[str, str | None]:
        return choose_backend(step, direct, self.settings.native_backend or "auto", self.settings.missing_backends)

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        self.partial_result = None
        ensure_cleared(job, step.writes)
        direct = step.cache == "off"
        backend, note = self._backend(step, direct)
        if note:
            yield RunWarning(note)
        seed = secrets.randbits(48)
        control_fd = _shared_file(nc.CONTROL_BYTES)
        control_map = mmap.mmap(control_fd, nc.CONTROL_BYTES)
        control = memoryview(control_map).cast("d")
        workers: list[_Worker] = []
        maps: list = [control_map]
        try:
            for i in range(step.threads):
                live_fd = _shared_file(nc.LIVE_BYTES)
                cfg = {
                    "path": str(job.path),
                    "file_size": job.file_size,
                    "block_size": step.block_size,
                    "pattern": step.pattern,
                    "write_percent": step.write_percent,
                    "outstanding": step.outstanding,
                    "direct": direct,
                    "write_through": step.write_through and step.writes,
                    "latency": step.latency,
                    "worker": i,
                    "workers": step.threads,
                    "seed": seed + i * 7_919,
                    "backend": backend,
                    "trace": self.settings.trace_offsets,
                    "control_fd": control_fd,
                    "live_fd": live_fd,
                    "parent": os.getpid(),  # the worker dies with this process (see worker.py)
                    # The worker checks what it opened is what the runner holds: no window
                    # between this process's check and the worker's open.
                    "identity": job.hold.identity() if job.hold is not None else None,
                }
                try:
                    live_map = mmap.mmap(live_fd, nc.LIVE_BYTES)
                    maps.append(live_map)
                    proc = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "labtui.engine.native.worker", json.dumps(cfg),
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        pass_fds=(control_fd, live_fd), env=_child_env(),
                    )
                finally:
                    os.close(live_fd)
                workers.append(_Worker(proc, memoryview(live_map).cast("q")))
            await self._wait_ready(workers)
            async for event in self._measure(step, job, workers, control, backend):
                yield event
        finally:
            control[nc.C_STOP] = 1.0
            await _reap(workers)
            os.close(control_fd)
            for w in workers:
                w.live.release()
            control.release()
            for m in maps:
                with contextlib.suppress(BufferError):
                    m.close()

    async def _wait_ready(self, workers: list[_Worker]) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if all(w.live[nc.STATE] == nc.READY for w in workers):
                return
            for w in workers:
                if w.live[nc.STATE] == nc.FAILED or w.exited:
                    raise EngineFailed(await w.failure() or "a worker process could not start")
            if time.monotonic() > deadline:
                raise EngineFailed(f"worker processes did not get ready within {START_TIMEOUT:.0f} s")
            await asyncio.sleep(0.005)

    async def _measure(self, step: Step, job: Job, workers: list[_Worker], control: memoryview[float],
                       backend: str) -> AsyncIterator[Event]:
        interval = max(0.1, job.interval)
        rule = step.steady
        judge = job.steady_judge() if rule is not None else None
        # A steady-state step measures round after round without a pause, and ends early when
        # the rule holds: the workers get the latest end it may have, then a stop.
        rounds = rule.max_rounds if rule is not None else 1
        t_go = time.monotonic()
        t_measure = t_go + step.warmup
        t_end = t_measure + step.duration * rounds
        control[nc.C_MEASURE] = t_measure
        control[nc.C_END] = t_end
        control[nc.C_GO] = 1.0

        ticks = _ticks(t_go, t_measure, t_measure + step.duration, interval)
        boundaries = {len(ticks) - 1: 1}  # tick index -> the round it ends
        for k in range(2, rounds + 1):
            ticks += _ticks(t_measure, t_measure, t_measure + step.duration * k, interval,
                            begin=t_measure + step.duration * (k - 1))
            boundaries[len(ticks) - 1] = k
        sampler = _Sampler(workers, step.latency, step.block_size, t_go,
                           lanes=step.outstanding if backend == "sync" else 1)
        meter = CpuMeter()
        samples: list[Sample] = []
        readings = [sampler.prev]  # the workers' cumulative counters where each round began and ended
        figures: list[float] = []
        state = None
        t_stop = t_end
        if step.warmup <= 0:
            meter.start()
        measuring = step.warmup <= 0  # readings[0] is where the measured phase began
        failed: list[_Worker] = []
        for i, tick in enumerate(ticks):
            delay = tick - time.monotonic()
            if delay > 0:
                try:
                    await asyncio.sleep(delay)
                except asyncio.CancelledError:
                    # Nothing can be yielded any more: what was measured goes to the runner this way.
                    if measuring:
                        self.partial_result = _partial_result(step, job, readings[0], sampler._read(), samples,
                                                              meter.stop(), self.command_line(step, job.path, job.file_size))
                    raise
            failed = [w for w in workers if w.live[nc.STATE] == nc.FAILED or w.exited]
            if failed:
                break
            phase = "measure" if tick > t_measure + 1e-9 else "warmup"
            sample = sampler.take(tick - t_measure)
            if abs(tick - t_measure) < 1e-9:
                meter.start()
                phase = "warmup"
                readings = [sampler.prev]
                measuring = True
            if sample is not None:
                if phase == "measure":
                    samples.append(sample)
                yield SampleTaken(job.index, phase, sample)
            if judge is not None and rule is not None and i in boundaries:
                readings.append(sampler.prev)
                figures.append(_round_figure(rule, readings[-2], readings[-1], step.block_size))
                state = judge(rule, figures, step.duration)
                yield SteadyRound(job.index, state)
                if state.finished:
                    control[nc.C_STOP] = 1.0  # steady (or out of rounds): the workers stop now
                    t_stop = tick
                    break
        cpu_percent = meter.stop()

        overrun = self.settings.overrun_seconds or OVERRUN
        try:
            finals = await self._collect(workers, deadline=t_end + overrun + step.duration * 0.1)
        except asyncio.CancelledError:
            # Cancelled as the workers hand in their counts, the window measured (whole, or up to
            # a steady stop; a worker that failed cut it short): their live counters hold it.
            if measuring:
                self.partial_result = _partial_result(step, job, readings[0], sampler._read(), samples,
                                                      cpu_percent, self.command_line(step, job.path, job.file_size),
                                                      window_done=not failed)
            raise
        if self.settings.observe is not None:
            # Every I/O the workers completed, warm-up and drain included (what the device saw), and
            # with trace_offsets each worker's offsets: for whoever injected the observer (tests).
            self.settings.observe(StepObservation(sum(w.live[nc.R_IOS] + w.live[nc.W_IOS] for w in workers),
                                                  [f.get("trace", []) for f in finals]))
        for note in dict.fromkeys(f["fallback"] for f in finals if f.get("fallback")):
            yield RunWarning(note)
        errors = [f.get("error") for f in finals if f.get("error")]
        status, error = ("failed", errors[0]) if errors else ("completed", None)
        result = _step_result(step, job, finals, t_stop - t_measure, samples, cpu_percent,
                              self.command_line(step, job.path, job.file_size), status, error)
        if rule is not None and judge is not None:
            if state is None:
                state = judge(rule, figures, step.duration)
            result = _window_result(result, state, readings, step)
        yield StepFinished(job.index, result)

    async def _collect(self, workers: list[_Worker], deadline: float) -> list[dict]:
        try:
            return list(await asyncio.wait_for(asyncio.gather(*(w.result() for w in workers)),
                                               timeout=max(0.1, deadline - time.monotonic())))
        except TimeoutError:
            raise EngineFailed(
                "the native engine's workers overran the step by too much and were stopped (a hung disk?)"
            ) from None


class _Worker:
    """One worker process, its live counters, and (once it ends) its final result."""

    def __init__(self, proc: asyncio.subprocess.Process, live: memoryview) -> None:
        self.proc = proc
        self.live = live
        self._result: dict | None = None

    @property
    def exited(self) -> bool:
        return self.proc.returncode is not None

    async def result(self) -> dict:
        if self._result is None:
            out, err = await self.proc.communicate()
            try:
                self._result = pickle.loads(out) if out else None
            except Exception:  # noqa: BLE001 - a garbled pipe is a dead worker
                self._result = None
            if not isinstance(self._result, dict):
                self._result = {"error": self._death(err)}
        return self._result

    async def failure(self) -> str | None:
        with contextlib.suppress(asyncio.TimeoutError):
            return (await asyncio.wait_for(self.result(), timeout=1.0)).get("error")
        return None

    def _death(self, stderr: bytes) -> str:
        code = self.proc.returncode
        how = subproc.exit_text(code)
        last = (stderr or b"").decode(errors="replace").strip().splitlines()
        return f"a worker process {how}" + (f": {last[-1]}" if last else "")


async def _reap(workers: list[_Worker]) -> None:
    """Stop every worker: they drain in-flight I/Os; stragglers are terminated, then killed."""
    async def settle(seconds: float) -> None:
        pending = [w.proc.wait() for w in workers if not w.exited]
        if pending:
            await asyncio.wait([asyncio.ensure_future(p) for p in pending], timeout=seconds)

    await settle(STOP_GRACE)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for w in workers:
            if not w.exited:
                with contextlib.suppress(ProcessLookupError):
                    w.proc.send_signal(sig)
        await settle(0.5)


def _ticks(t_go: float, t_measure: float, t_end: float, interval: float, begin: float | None = None) -> list[float]:
    """Sample instants: every interval through warm-up, one exactly at the start of measuring,
    then every interval, the last exactly at the end. With `begin` (a later round of a
    steady-state step), only those from `begin` to the end."""
    ticks = []
    t = t_go + interval
    while begin is None and t < t_measure - 1e-6:
        ticks.append(t)
        t += interval
    if begin is None and t_measure > t_go:
        ticks.append(t_measure)
    t = (t_measure if begin is None else begin) + interval
    while t < t_end - 0.25 * interval:
        ticks.append(t)
        t += interval
    ticks.append(t_end)
    return ticks


class _Sampler:
    """Turns the workers' cumulative live counters into per-interval samples."""

    def __init__(self, workers: list[_Worker], latency: bool, block_size: int, t_go: float, lanes: int = 1) -> None:
        self.workers = workers
        self.lanes = lanes  # I/O threads per worker process (the blocking loop's, one per I/O in flight)
        self.latency = latency
        self.block_size = block_size
        self.t_go_ns = int(t_go * 1e9)  # a worker that has not published yet counts from the start
        self.prev = self._read()
        self.prev_cpu = psutil.cpu_times()
        self.prev_sched = self._sched()

    def _sched(self) -> tuple[float, list]:
        return time.monotonic(), [schedstat.sched_times(w.proc.pid) for w in self.workers]

    def _engine_load(self, machine_percent: float | None) -> tuple[float | None, bool | None]:
        """The busiest worker's CPU % of the interval, and whether the interval was CPU-bound."""
        now = self._sched()
        (t0, before), (t1, after) = self.prev_sched, now
        self.prev_sched = now
        loads = [cpubound.WorkerLoad((b[0] - a[0]) / 1e9, (b[1] - a[1]) / 1e9, self.lanes)
                 for a, b in zip(before, after) if a is not None and b is not None]
        if not loads or t1 <= t0:
            return None, None
        top, reason = cpubound.verdict(loads, t1 - t0, machine_percent)
        return top, True if reason else None

    def _read(self) -> tuple:
        r_ios = w_ios = r_lat = w_lat = beats = 0
        hist_r = hist_w = None
        for w in self.workers:
            live = w.live
            r_ios += live[nc.R_IOS]
            w_ios += live[nc.W_IOS]
            r_lat += live[nc.R_LAT]
            w_lat += live[nc.W_LAT]
            beats += live[nc.BEAT] or self.t_go_ns
            if self.latency:
                view = memoryview(live).cast("B").cast("q")
                hr = array("q", view[nc.HEADER : nc.HEADER + BUCKETS])
                hw = array("q", view[nc.HEADER + BUCKETS : nc.HEADER + 2 * BUCKETS])
                hist_r = hr if hist_r is None else array("q", map(operator.add, hist_r, hr))
                hist_w = hw if hist_w is None else array("q", map(operator.add, hist_w, hw))
        return r_ios, w_ios, r_lat, w_lat, beats / max(1, len(self.workers)), hist_r, hist_w

    def take(self, t: float) -> Sample | None:
        now = self._read()
        cpu = psutil.cpu_times()
        prev, self.prev = self.prev, now
        prev_cpu, self.prev_cpu = self.prev_cpu, cpu
        seconds = (now[4] - prev[4]) / 1e9
        if seconds <= 0:
            return None
        r_ios, w_ios = now[0] - prev[0], now[1] - prev[1]
        r_mean = (now[2] - prev[2]) / r_ios / 1e6 if r_ios and self.latency else None
        w_mean = (now[3] - prev[3]) / w_ios / 1e6 if w_ios and self.latency else None
        r_p99 = w_p99 = None
        if self.latency and now[5] is not None:
            if r_ios:
                r_p99 = _p99_ms(now[5], prev[5])
            if w_ios:
                w_p99 = _p99_ms(now[6], prev[6])
        busy = sum(cpu) - sum(prev_cpu)
        idle = (cpu.idle + getattr(cpu, "iowait", 0.0)) - (prev_cpu.idle + getattr(prev_cpu, "iowait", 0.0))
        cpu_percent = round(100.0 * (busy - idle) / busy, 2) if busy > 0 else None
        engine_cpu, engine_bound = self._engine_load(cpu_percent)
        return Sample(
            t=round(t, 6),
            seconds=round(seconds, 6),
            read_ios=r_ios,
            read_bytes=r_ios * self.block_size,
            write_ios=w_ios,
            write_bytes=w_ios * self.block_size,
            read_lat_mean_ms=r_mean,
            read_lat_p99_ms=r_p99,
            write_lat_mean_ms=w_mean,
            write_lat_p99_ms=w_p99,
            cpu_percent=cpu_percent,
            engine_cpu_percent=engine_cpu,
            engine_bound=engine_bound,
        )


def _measured_time(step: Step) -> str:
    """"10s", or for a steady-state step "1m rounds until snia holds (at most 25)"."""
    if not step.steady_state:
        return format_duration(step.duration)
    return f"{format_duration(step.duration)} rounds until {step.steady_state} holds (at most {step.steady_max_rounds})"


def _round_figure(rule: SteadyRule, before: tuple, after: tuple, block_size: int) -> float:
    """A round's tracked figure from the workers' cumulative counters at its two ends."""
    ios = (after[0] - before[0]) + (after[1] - before[1])
    seconds = (after[4] - before[4]) / 1e9
    latency = ((after[2] - before[2]) + (after[3] - before[3])) / ios / 1e6 if ios else None
    figure = rule.figure_of(ios, ios * block_size, seconds, latency)
    return figure if figure is not None else 0.0


def _window_result(result: StepResult, state: SteadyState, readings: list[tuple], step: Step) -> StepResult:
    """The step's result as its measurement window measured it (SNIA reports the window).

    The counts are the workers' exact cumulative ones at the window's two ends (published with
    their own timestamps); latency comes from the histograms' difference over it. Extremes are
    not kept per round: the window's min and max are unknown, its percentiles are not.
    """
    rounds = len(readings) - 1
    if rounds < 1:
        return replace(result, steady_state=state)
    first = max(0, rounds - state.window)
    return settled(replace(_span(result, readings[first], readings[-1], step), steady_state=state))


def _span(result: StepResult, before: tuple, after: tuple, step: Step) -> StepResult:
    """`result` with the figures between two readings of the workers' cumulative counters."""
    seconds = round((after[4] - before[4]) / 1e9, 6)
    r_ios, w_ios = after[0] - before[0], after[1] - before[1]
    bs = step.block_size
    read_latency = write_latency = latency = LatencySummary()
    if step.latency and after[5] is not None:
        hist_r = array("q", map(operator.sub, after[5], before[5]))
        hist_w = array("q", map(operator.sub, after[6], before[6]))
        r_lat, w_lat = after[2] - before[2], after[3] - before[3]
        read_latency = _latency(hist_r, r_lat, r_ios, None, None)
        write_latency = _latency(hist_w, w_lat, w_ios, None, None)
        latency = _latency(array("q", map(operator.add, hist_r, hist_w)), r_lat + w_lat, r_ios + w_ios, None, None)
    return replace(
        result,
        read=DirectionStats(r_ios, r_ios * bs, seconds),
        write=DirectionStats(w_ios, w_ios * bs, seconds),
        latency=latency,
        read_latency=read_latency,
        write_latency=write_latency,
    )


def _partial_result(step: Step, job: Job, before: tuple, after: tuple, samples: list[Sample],
                    cpu_percent: float | None, command_line: str, *, window_done: bool = False) -> StepResult | None:
    """What a step cancelled mid-measure had measured, as an aborted step (None: nothing yet).

    The workers' final counts never come (they are stopped, not asked to finish): the figures are
    their live cumulative counters from the start of the measured phase to their last publication,
    with the publications' own timestamps; latency comes from the histograms' difference, so its
    percentiles are known and its min and max are not.
    """
    seconds = (after[4] - before[4]) / 1e9
    if seconds <= 0 or after[0] + after[1] <= before[0] + before[1]:
        return None
    planned = step.duration * (step.steady.max_rounds if step.steady is not None else 1)
    error = (stopped_collecting(seconds, "the workers' live counters; latency min and max unknown") if window_done else
             f"stopped {seconds:.1f} s into its {format_duration(planned)} measure: the figures are of the part measured")
    aborted = StepResult(step=step, status="aborted", cpu_percent=cpu_percent, repetition=job.repetition,
                         command_line=command_line, samples=tuple(samples), error=error)
    return _span(aborted, before, after, step)


def _p99_ms(now: array, prev: array | None) -> float | None:
    counts = array("q", map(operator.sub, now, prev)) if prev is not None else now
    value = percentiles(counts, [99.0])[0]
    return value / 1e6 if value is not None else None


def _latency(hist: array, lat_ns: int, ios: int, lo: int | None, hi: int | None) -> LatencySummary:
    if not ios or not any(hist):
        return LatencySummary()
    values = percentiles(hist, [p for _, p in PERCENTILES], lo, hi)
    ms = {name: (v / 1e6 if v is not None else None) for (name, _), v in zip(PERCENTILES, values)}
    return LatencySummary(
        mean=lat_ns / ios / 1e6,
        min=lo / 1e6 if lo is not None else None,
        max=hi / 1e6 if hi is not None else None,
        **ms,
    )


def _step_result(step: Step, job: Job, finals: list[dict], seconds: float, samples: list[Sample], cpu_percent: float | None,
                 command_line: str, status: str, error: str | None) -> StepResult:
    r_ios = sum(f.get("r_ios", 0) for f in finals)
    w_ios = sum(f.get("w_ios", 0) for f in finals)
    r_bytes = sum(f.get("r_bytes", 0) for f in finals)
    w_bytes = sum(f.get("w_bytes", 0) for f in finals)
    hist_r = array("q", bytes(8 * BUCKETS))
    hist_w = array("q", bytes(8 * BUCKETS))
    for f in finals:
        if "r_hist" in f:
            hist_r = array("q", map(operator.add, hist_r, array("q", f["r_hist"])))
            hist_w = array("q", map(operator.add, hist_w, array("q", f["w_hist"])))
    r_lat = sum(f.get("r_lat_ns", 0) for f in finals)
    w_lat = sum(f.get("w_lat_ns", 0) for f in finals)

    def extreme(key: str, pick: Callable[[list[int]], int]) -> int | None:
        values = [f[key] for f in finals if f.get(key) is not None]
        return pick(values) if values else None

    r_min, r_max = extreme("r_min", min), extreme("r_max", max)
    w_min, w_max = extreme("w_min", min), extreme("w_max", max)
    read_latency = _latency(hist_r, r_lat, r_ios, r_min, r_max) if step.latency else LatencySummary()
    write_latency = _latency(hist_w, w_lat, w_ios, w_min, w_max) if step.latency else LatencySummary()
    total_hist = array("q", map(operator.add, hist_r, hist_w))
    lows = [v for v in (r_min, w_min) if v is not None]
    highs = [v for v in (r_max, w_max) if v is not None]
    latency = (
        _latency(total_hist, r_lat + w_lat, r_ios + w_ios, min(lows) if lows else None, max(highs) if highs else None)
        if step.latency
        else LatencySummary()
    )
    cpu_seconds = sum(f.get("cpu_seconds", 0.0) for f in finals)
    loads = [cpubound.WorkerLoad(f.get("cpu_seconds", 0.0), f.get("wait_seconds"),
                                 step.outstanding if f.get("backend") == "threads" else 1, f.get("cpu_window_seconds"))
             for f in finals if "cpu_seconds" in f]
    engine_cpu, bound = cpubound.verdict(loads, seconds, cpu_percent)
    if cpubound.too_short(seconds):
        cpu_percent = None  # of a window this short the machine's clock ticks tell nothing
    backends = sorted({f["backend"] for f in finals if f.get("backend")})
    return StepResult(
        step=step,
        status=status,
        read=DirectionStats(r_ios, r_bytes, seconds),
        write=DirectionStats(w_ios, w_bytes, seconds),
        latency=latency,
        read_latency=read_latency,
        write_latency=write_latency,
        cpu_percent=cpu_percent,
        cpu_seconds=round(cpu_seconds, 6),
        engine_cpu_percent=engine_cpu,
        engine_bound=bound if status == "completed" else None,
        backend="+".join(backends) or None,
        repetition=job.repetition,
        command_line=command_line,
        error=error,
        samples=tuple(samples),
    )
