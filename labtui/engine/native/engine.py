"""The native engine: labtui's own I/O loop, the default, needing nothing installed.

A step's `threads` are logical workers, each keeping its `outstanding` I/Os in flight with its own
offset stream; labtui.engine.native.plan decides what carries them: on O_DIRECT files one io_uring
ring (kernel AIO where io_uring is missing) per process, at most one process per CPU, each driving
the slots of several logical workers, or one process per worker where `native_workers =
"per-thread"` asks for DiskSpd's shape; with the page cache on (or where neither ring exists) one
process per worker with a thread per I/O in flight, and one blocking call per I/O where a process
has one in flight. The loop that ran and the processes are recorded in each step's result
(`backend`, `processes`) and its command line. This process only coordinates: it publishes the
measure window, samples the processes' live counters once per interval, and merges their exact
final counts and latency histograms into the step result (labtui.engine.native.figures).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mmap
import os
import pickle
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

from labtui import __version__
from labtui.engine import subproc
from labtui.engine.base import CpuAdvice, Engine, EngineFailed, EngineUnavailable, Job, ensure_cleared
from labtui.engine.cpu import CpuMeter
from labtui.engine.events import Event, RunWarning, SampleTaken, SteadyRound, StepFinished
from labtui.engine.limits import StepNeeds
from labtui.engine.native import common as nc
from labtui.engine.native.figures import Sampler, partial_result, round_figure, step_result, window_result
from labtui.engine.native.plan import BACKENDS, MODES, Carriage, plan
from labtui.engine.native.verifier import merge, written
from labtui.engine.verify import CHECKSUM, run_tag
from labtui.model.profile import Step
from labtui.model.result import Sample
from labtui.settings import EngineSettings
from labtui.units import format_duration, format_size

START_TIMEOUT = 30.0  # seconds for all workers to open the file and get ready
STOP_GRACE = 1.0  # seconds workers get to drain in-flight I/Os before being killed
# A step that has not finished this long after its end was planned is declared hung.
OVERRUN = 10.0
FAILURE_WAIT = 1.0  # seconds a worker that failed to start gets to hand in why


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


# -P: Python puts the current directory first on the path of `-m`, so a `labtui/` another user left where root
# ran labtui (cd /tmp) was imported as the worker, and ran as root; the worker's labtui is PYTHONPATH's (_child_env).
WORKER = (sys.executable, "-P", "-m", "labtui.engine.native.worker")


def _child_env() -> dict[str, str]:
    # The worker imports labtui from wherever this process did, installed or not.
    root = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@dataclass(frozen=True)
class StepObservation:
    """What a native step did beyond its result, handed to `EngineSettings.observe`."""

    all_phase_ios: int  # warm-up and drain included
    traces: list[list]  # per logical worker, its first `trace_offsets` (offset, is_write) records
    workers: list[dict]  # per logical worker, in order: what it did in the window ("r_ios", "w_lat_ns" ...)
    carriage: Carriage  # the loop and the processes that carried the logical workers
    pids: list[int]  # the processes' ids, one per group of `carriage`


class NativeEngine(Engine):
    name = "native"
    title = "native"
    cpu_advice = CpuAdvice(
        own="this figure is the engine's limit, not the disk's: try more threads or -e fio",
        crowded=("this figure is the CPUs' limit, not the disk's: the workers waited for a CPU (other work, or more "
                 "threads than CPUs); try a quieter machine, fewer threads, or -e fio"),
    )
    settings_keys = ("native_backend", "native_workers", "overrun_seconds")
    preview_order = 2

    def __init__(self, settings: EngineSettings | None = None) -> None:
        super().__init__(settings)
        # Per run (its id), the 4 KiB units its verified write steps put a block in: a later verified read
        # that finds no header of the run in one of them found a lost write, not a block never written.
        self._wrote: dict[str, int] = {}
        self._granule: dict[str, int] = {}  # per run, the smallest block its verified writes wrote

    @classmethod
    def io_threads(cls, step: Step) -> int:
        # The blocking loop (the page cache on) runs a thread per I/O in flight in one process; the others one.
        return step.outstanding if step.cache == "on" else 1

    def check_available(self) -> None:
        # Pure Python: always available; only a mistyped native_backend or native_workers setting can stop it.
        wanted = self.settings.native_backend or "auto"
        if wanted != "auto" and wanted not in BACKENDS:
            raise EngineUnavailable(
                f"native_backend must be auto or one of {', '.join(BACKENDS)}, got {wanted!r} (in config.toml)"
            )
        mode = self.settings.native_workers or "auto"
        if mode not in MODES:
            raise EngineUnavailable(f"native_workers must be one of {', '.join(MODES)}, got {mode!r} (in config.toml)")

    def version(self) -> str | None:
        return __version__

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        direct = step.cache == "off"
        mix = {0: "read", 100: "write"}.get(step.write_percent, f"{100 - step.write_percent}/{step.write_percent} read/write")
        through = " + O_DSYNC (write-through)" if step.write_through and step.writes else ""
        return (
            f"labtui native: {self.carriage(step).describe()}, {step.outstanding} outstanding each, "
            f"{format_size(step.block_size)} {step.pattern} {mix}, {'O_DIRECT' if direct else 'page cache on'}{through}, "
            f"{format_duration(step.warmup)} warm-up + {_measured_time(step)}, "
            f"latency {'on' if step.latency else 'off'}, "
            + (f"verified ({CHECKSUM} per 4 KiB, every read checked), " if step.verify else "")
            + f"file {path} ({format_size(file_size)})"
        )

    def needs(self, step: Step) -> StepNeeds:
        carriage = self.carriage(step)
        if carriage.loop == "threads":
            why = "one per I/O in flight with the page cache on" if step.cache == "on" else "one per I/O in flight"
            return StepNeeds(threads=step.threads * step.outstanding, why_threads=why)
        # Its processes; kernel AIO reserves an event per I/O in flight, io_uring a ring each.
        return StepNeeds(threads=carriage.processes,
                         aio_events=step.threads * step.outstanding if carriage.backend == "aio" else 0)

    def carriage(self, step: Step) -> Carriage:
        """The loop and the processes that carry `step`'s logical workers on this machine."""
        return plan(step, step.cache == "off", self.settings.native_backend or "auto", self.settings.missing_backends,
                    mode=step.native_workers or self.settings.native_workers or "auto", cpus=self.settings.cpus)

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        self.partial_result = None
        ensure_cleared(job, step.writes)
        carriage = self.carriage(step)
        if step.verify and carriage.backend == "sync":
            raise EngineFailed("a verified step needs O_DIRECT with io_uring or kernel AIO (the loops that check "
                               "what they read); here only blocking calls through the page cache can run")
        if carriage.note:
            yield RunWarning(carriage.note)
        seed = secrets.randbits(48)
        # Verified blocks carry the run's tag: a later step of the run checks what an earlier one wrote.
        tag = run_tag(job.run_id or f"step-{seed}") if step.verify else 0
        control_fd = _shared_file(nc.CONTROL_BYTES)
        control_map = mmap.mmap(control_fd, nc.CONTROL_BYTES)
        control = memoryview(control_map).cast("d")
        workers: list[_Worker] = []
        maps: list = [control_map]
        try:
            for i, group in enumerate(carriage.groups):
                live_fd = _shared_file(nc.LIVE_BYTES)
                cfg = {
                    "path": job.engine_path,
                    "shown": str(job.path),  # how messages name it
                    "file_size": job.file_size,
                    "block_size": step.block_size,
                    "pattern": step.pattern,
                    "write_percent": step.write_percent,
                    "outstanding": step.outstanding,
                    "direct": step.cache == "off",
                    "write_through": step.write_through and step.writes,
                    "latency": step.latency,
                    "workers": list(group),  # the logical workers this process carries
                    "threads": step.threads,  # of the step's, each with its share of the file
                    "seed": seed + i * 7_919,
                    "backend": carriage.backend,
                    "trace": self.settings.trace_offsets,
                    "control_fd": control_fd,
                    "live_fd": live_fd,
                    "parent": os.getpid(),  # the worker dies with this process (see worker.py)
                    # The worker checks what it opened is what the runner holds: no window
                    # between this process's check and the worker's open.
                    "identity": job.hold.identity() if job.hold is not None else None,
                }
                if step.verify:
                    # The run's verified writes' smallest block: a larger read finds several writes in a block.
                    cfg["verify"] = {"tag": tag, "process": i, "granule": self._granule.get(job.run_id or "")}
                try:
                    live_map = mmap.mmap(live_fd, nc.LIVE_BYTES)
                    maps.append(live_map)
                    proc = await asyncio.create_subprocess_exec(
                        *WORKER, json.dumps(cfg),
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        pass_fds=(control_fd, live_fd), env=_child_env(),
                    )
                finally:
                    os.close(live_fd)
                workers.append(_Worker(proc, memoryview(live_map).cast("q"), len(group)))
            await self._wait_ready(workers)
            async for event in self._measure(step, job, workers, control, carriage):
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
                       carriage: Carriage) -> AsyncIterator[Event]:
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
        sampler = Sampler(workers, step.latency, step.block_size, t_go,
                          lanes=step.outstanding if carriage.loop == "threads" else 1)
        meter = CpuMeter()
        samples: list[Sample] = []
        readings = [sampler.prev]  # the workers' cumulative counters where each round began and ended
        marks = [sampler.cpu_mark()] if rule is not None else []  # and their CPU time there
        figures: list[float] = []
        state = None
        t_stop = t_end
        if step.warmup <= 0:
            sampler.begin_window(t_measure, t_end)
            meter.start()
        measuring = step.warmup <= 0  # readings[0] is where the measured phase began
        failed: list[_Worker] = []
        for i, tick in enumerate(ticks):
            phase = "measure" if tick > t_measure + 1e-9 else "warmup"
            try:
                delay = tick - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                if phase == "measure" and i == len(ticks) - 1:
                    await _window_closed(sampler, t_end + (self.settings.overrun_seconds or OVERRUN))
            except asyncio.CancelledError:
                # Nothing can be yielded any more: what was measured goes to the runner this way.
                if measuring:
                    self.partial_result = partial_result(step, job, sampler.window_base, sampler.window_now(), samples,
                                                          meter.stop(), self.command_line(step, job.path, job.file_size))
                raise
            # A worker that exited having counted its window (DONE) has not failed: on a loaded
            # machine every worker ended before the parent woke for its last sample, which was
            # dropped (the samples then held 12,862 of the step's 17,693 reads).
            failed = [w for w in workers if w.live[nc.STATE] == nc.FAILED or (w.exited and w.live[nc.STATE] != nc.DONE)]
            if failed:
                break
            sample = sampler.take(tick - t_measure, measured=phase == "measure")
            if abs(tick - t_measure) < 1e-9:
                sampler.begin_window(t_measure, t_end)
                meter.start()
                phase = "warmup"
                readings = [sampler.prev]
                marks = [sampler.cpu_mark()] if rule is not None else []
                measuring = True
            if sample is not None:
                if phase == "measure":
                    samples.append(sample)
                yield SampleTaken(job.index, phase, sample)
            if judge is not None and rule is not None and i in boundaries:
                readings.append(sampler.prev)
                marks.append(sampler.cpu_mark())
                figures.append(round_figure(rule, readings[-2], readings[-1], step.block_size))
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
                self.partial_result = partial_result(step, job, sampler.window_base, sampler.window_now(), samples,
                                                      cpu_percent, self.command_line(step, job.path, job.file_size),
                                                      window_done=not failed)
            raise
        if self.settings.observe is not None:
            # Every I/O the workers completed, warm-up and drain included (what the device saw), and
            # with trace_offsets each worker's offsets: for whoever injected the observer (tests).
            per_worker = sorted((w for f in finals for w in f.get("workers") or ()), key=lambda w: w["worker"])
            self.settings.observe(StepObservation(sum(w.live[nc.R_IOS] + w.live[nc.W_IOS] for w in workers),
                                                  [t for f in finals for t in f.get("traces") or ()],
                                                  per_worker, carriage, [w.proc.pid for w in workers]))
        for note in dict.fromkeys(f["fallback"] for f in finals if f.get("fallback")):
            yield RunWarning(note)
        errors = [f.get("error") for f in finals if f.get("error")]
        self._remember(step, job.run_id, finals)
        checked = merge([f.get("verify") or {} for f in finals], step.block_size, job.file_size,
                        self._wrote.get(job.run_id or "", 0)) if step.verify and step.reads else None
        problem = checked.problem() if checked is not None else None
        status, error = ("failed", errors[0]) if errors else ("failed", problem) if problem else ("completed", None)
        result = step_result(step, job, finals, t_stop - t_measure, samples, cpu_percent,
                              self.command_line(step, job.path, job.file_size), status, error)
        if checked is not None:
            result = replace(result, verify=checked)
        if rule is not None and judge is not None:
            if state is None:
                state = judge(rule, figures, step.duration)
            result = window_result(result, state, readings, step, marks)
        yield StepFinished(job.index, result)

    def _remember(self, step: Step, run_id: str | None, finals: list[dict]) -> None:
        """What a write step leaves for the run's later verified reads: the 4 KiB units its verified writes put a
        block in (where one without the run's header is a lost write) and the smallest block written (a read
        checks each such granule against its own write). An unverified write may have put data with no header
        over them: the units are no longer known, and its block size is a granule too."""
        if not step.writes or not run_id:
            return
        self._granule[run_id] = min(self._granule.get(run_id, step.block_size), step.block_size)
        if not step.verify:
            self._wrote.pop(run_id, None)
            return
        self._wrote[run_id] = self._wrote.get(run_id, 0) | written([f.get("verify") or {} for f in finals])

    async def _collect(self, workers: list[_Worker], deadline: float) -> list[dict]:
        try:
            return list(await asyncio.wait_for(asyncio.gather(*(w.result() for w in workers)),
                                               timeout=max(0.1, deadline - time.monotonic())))
        except TimeoutError:
            raise EngineFailed(
                "the native engine's workers overran the step by too much and were stopped (a hung disk?)"
            ) from None


async def _window_closed(sampler: Sampler, deadline: float) -> None:
    """Until every process has counted the window's end (each does at its first I/O past it, and
    publishes there), so the last sample ends where the window does; on a loaded machine that takes
    a process (its I/O threads each to finish an I/O, then its main thread) longer than an interval.
    At most until `deadline`, the overrun the workers are allowed anyway (a process stuck on an I/O:
    the step fails for it)."""
    while not sampler.window_closed() and time.monotonic() < deadline:
        await asyncio.sleep(0.002)


class _Worker:
    """One worker process, its live counters, and (once it ends) its final result."""

    def __init__(self, proc: asyncio.subprocess.Process, live: memoryview, carried: int = 1) -> None:
        self.proc = proc
        self.live = live
        self.carried = carried  # logical workers it carries
        self._result: dict | None = None
        self._reading: asyncio.Future[tuple[bytes, bytes]] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def exited(self) -> bool:
        return self.proc.returncode is not None

    async def result(self) -> dict:
        # Read by a task of its own, never cancelled with whoever waits (failure()'s timeout): a
        # cancelled communicate() drops what it had read, and the next one gets the rest alone.
        if self._reading is None:
            self._reading = asyncio.ensure_future(self.proc.communicate())
        if self._result is None:
            out, err = await asyncio.shield(self._reading)
            self._result = self._read(out, err)
        return self._result

    def _read(self, out: bytes, err: bytes) -> dict:
        """The worker's result from its stdout (worker.hand_in: the pickle's length, then the pickle)."""
        head = nc.RESULT_HEADER.size
        if len(out) >= head:
            (size,) = nc.RESULT_HEADER.unpack_from(out)
            if len(out) - head != size:
                # Said as what it is: a worker that exited 0 having handed in part of its result
                # read "a worker process exited with status 0", which reads as a crash.
                return {"error": f"a worker process's result came back cut short ({len(out) - head:,} of {size:,} "
                                 f"bytes; it {subproc.exit_text(self.proc.returncode)})"}
            try:
                result = pickle.loads(out[head:])
            except Exception:  # noqa: BLE001 - a garbled pipe is a dead worker
                result = None
            if isinstance(result, dict):
                return result
        return {"error": self._death(err)}

    async def failure(self) -> str | None:
        with contextlib.suppress(asyncio.TimeoutError):
            return (await asyncio.wait_for(self.result(), timeout=FAILURE_WAIT)).get("error")
        return None

    def _death(self, stderr: bytes) -> str:
        code = self.proc.returncode
        how = subproc.exit_text(code)
        last = (stderr or b"").decode(errors="replace").strip().splitlines()
        if code == 0 and not last:
            # Not a crash: it ended as it should, but what it handed in was nothing labtui could read.
            return "a worker process ended without handing in its result (exit status 0)"
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
    # Each one's pipes read to their end: a worker stopped before its result was collected (a failed or
    # cancelled step) may have written more than asyncio buffers, which pauses its reader. Its pipe then
    # never closes, nor does its transport: one collected after the event loop closed failed in its
    # destructor ("Exception ignored ... Event loop is closed"). A reaped worker's pipes end at once.
    reading = [asyncio.ensure_future(w.result()) for w in workers if w.exited]
    if reading:
        await asyncio.wait(reading, timeout=STOP_GRACE)


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


def _measured_time(step: Step) -> str:
    """"10s", or for a steady-state step "1m rounds until snia holds (at most 25)"."""
    if not step.steady_state:
        return format_duration(step.duration)
    return f"{format_duration(step.duration)} rounds until {step.steady_state} holds (at most {step.steady_max_rounds})"
