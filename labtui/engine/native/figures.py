"""The native engine's figures: live samples from the processes' counters, and the step's result.

The processes publish cumulative counters (labtui.engine.native.common); `Sampler` turns them into
one Sample per interval, and decides from the scheduler's figures whether the interval was
CPU-bound. When the step ends, `step_result` merges the processes' exact final counts and latency
histograms; a steady-state step's window and a cancelled step's part are cut from the live
counters' readings (`window_result`, `partial_result`).
"""

from __future__ import annotations

import operator
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

import psutil

from labtui.engine import cpubound, schedstat
from labtui.engine.base import Job, stopped_collecting
from labtui.engine.native import common as nc
from labtui.engine.native.histogram import BUCKETS, PERCENTILES, percentiles
from labtui.model.profile import SteadyRule, Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, SteadyState, StepResult, settled
from labtui.units import format_duration


class Process(Protocol):
    """What the sampler reads of a worker process: its pid, its live counters, how many logical workers it carries."""

    live: memoryview
    carried: int

    @property
    def pid(self) -> int: ...

    @property
    def exited(self) -> bool: ...


class Sampler:
    """Turns the processes' cumulative live counters into per-interval samples."""

    def __init__(self, workers: Sequence[Process], latency: bool, block_size: int, t_go: float, lanes: int = 1) -> None:
        self.workers = workers
        self.lanes = lanes  # I/O threads per process (the blocking loop's, one per I/O in flight)
        self.latency = latency
        self.block_size = block_size
        self.t_go_ns = int(t_go * 1e9)  # a worker that has not published yet counts from the start
        self.prev = self.read()
        self.prev_cpu = psutil.cpu_times()
        self.prev_sched = self._sched()
        self.window_ns = (0, 0)  # the measure window (monotonic ns), once it began
        self.prev_window: tuple | None = None  # the window's own counts at the last measured sample
        self.window_base: tuple = ()  # where the window began, as a reading (begin_window)

    def begin_window(self, t_measure: float, t_end: float) -> None:
        """Where the measured phase begins: its samples count the I/Os the processes completed in
        the window (their M_* counters), from its first instant, so that they add up to the
        step's measured totals exactly; a warm-up sample the parent read late never leaks in."""
        self.window_ns = (int(t_measure * 1e9), int(t_end * 1e9))
        self.prev_window = (0, 0, 0, 0, self.window_ns[0])
        # Where the window began, as a reading: its own counts (none yet), and the running latency
        # histograms as the parent last read them (a cancelled step's percentiles come from them).
        self.window_base = (*self.prev_window, self.prev[5], self.prev[6])

    def window_now(self) -> tuple:
        """The window so far as a reading (labtui.engine.native.figures._span's): its own counts,
        the running histograms."""
        now = self.read()
        return (*self.read_window(), now[5], now[6])

    def read_window(self) -> tuple:
        """The processes' counts of the measure window so far, and their mean publication instant
        clamped into the window (a process that has not crossed its start has counted nothing yet)."""
        lo, hi = self.window_ns
        lives = [w.live for w in self.workers]
        counts = [sum(live[k] for live in lives) for k in (nc.MR_IOS, nc.MW_IOS, nc.MR_LAT, nc.MW_LAT)]
        return (*counts, sum(min(hi, max(lo, live[nc.BEAT])) for live in lives) // max(1, len(lives)))

    def window_closed(self) -> bool:
        """Whether every process's window counts are final: it crossed the window's end, or ended
        (one process that ended early is not all of them: the thread-per-I/O loop's second process
        was still finishing its I/Os, and the last sample missed 28 % of the step's)."""
        return all(w.exited or w.live[nc.M_DONE] or w.live[nc.STATE] in (nc.DONE, nc.FAILED) for w in self.workers)

    def _sched(self) -> tuple[float, list]:
        return time.monotonic(), [schedstat.sched_times(w.pid) for w in self.workers]

    def _engine_load(self, machine_percent: float | None) -> tuple[float | None, bool | None]:
        """The busiest worker's CPU % of the interval, and whether the interval was CPU-bound."""
        now = self._sched()
        (t0, before), (t1, after) = self.prev_sched, now
        self.prev_sched = now
        loads = [cpubound.WorkerLoad((b[0] - a[0]) / 1e9, (b[1] - a[1]) / 1e9, self.lanes, carried=w.carried)
                 for w, a, b in zip(self.workers, before, after) if a is not None and b is not None]
        if not loads or t1 <= t0:
            return None, None
        top, reason = cpubound.verdict(loads, t1 - t0, machine_percent)
        return top, True if reason else None

    def cpu_mark(self) -> int | None:
        """The CPU time the workers' own threads have used so far (ns, their scheduler's run time), read
        with the counters where a steady-state round ends; None where one of them says nothing (ended)."""
        marks = [schedstat.sched_times(w.pid) for w in self.workers]
        return sum(m[0] for m in marks if m is not None) if all(marks) else None

    def read(self) -> tuple:
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

    def take(self, t: float, measured: bool = False) -> Sample | None:
        """The interval since the last sample; `measured`: of the measure window's own counts."""
        now = self.read()
        cpu = psutil.cpu_times()
        prev, self.prev = self.prev, now
        prev_cpu, self.prev_cpu = self.prev_cpu, cpu
        counts, base = now, prev
        if measured and self.prev_window is not None:
            counts = self.read_window()
            base, self.prev_window = self.prev_window, counts
        seconds = (counts[4] - base[4]) / 1e9
        if seconds <= 0:
            if counts is not now:
                self.prev_window = base  # nothing published since: the next sample counts from there
            return None
        r_ios, w_ios = counts[0] - base[0], counts[1] - base[1]
        r_mean = (counts[2] - base[2]) / r_ios / 1e6 if r_ios and self.latency else None
        w_mean = (counts[3] - base[3]) / w_ios / 1e6 if w_ios and self.latency else None
        r_p99 = w_p99 = None
        # The interval's p99 from the running histograms between the parent's two readings: an
        # interval's tail, where the first and last measured ones may hold a few I/Os of the phase
        # beside (the window's own percentiles are the step's, from the processes' final counts).
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


def round_figure(rule: SteadyRule, before: tuple, after: tuple, block_size: int) -> float:
    """A round's tracked figure from the workers' cumulative counters at its two ends."""
    ios = (after[0] - before[0]) + (after[1] - before[1])
    seconds = (after[4] - before[4]) / 1e9
    latency = ((after[2] - before[2]) + (after[3] - before[3])) / ios / 1e6 if ios else None
    figure = rule.figure_of(ios, ios * block_size, seconds, latency)
    return figure if figure is not None else 0.0


def window_result(result: StepResult, state: SteadyState, readings: list[tuple], step: Step,
                  cpu_marks: Sequence[int | None] = ()) -> StepResult:
    """The step's result as its measurement window measured it (SNIA reports the window).

    The counts are the workers' exact cumulative ones at the window's two ends (published with
    their own timestamps); latency comes from the histograms' difference over it. Extremes are
    not kept per round: the window's min and max are unknown, its percentiles are not. The CPU
    time is the workers' between the window's ends (`cpu_marks`, one per reading: Sampler.cpu_mark),
    not the whole measured phase's: over 5 rounds' I/Os, 25 rounds' CPU read five times as much
    CPU per I/O. None where not measured.
    """
    rounds = len(readings) - 1
    if rounds < 1:
        return replace(result, steady_state=state)
    first = max(0, rounds - state.window)
    window = _span(result, readings[first], readings[-1], step)
    cpu = None
    begun, ended = (cpu_marks[first], cpu_marks[-1]) if len(cpu_marks) == len(readings) else (None, None)
    if begun is not None and ended is not None:
        cpu = round((ended - begun) / 1e9, 6)
        if not cpu_measured({"cpu_seconds": cpu, "r_ios": window.read.ios, "w_ios": window.write.ios}):
            cpu = None
    return settled(replace(window, steady_state=state, cpu_seconds=cpu))


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


def partial_result(step: Step, job: Job, before: tuple, after: tuple, samples: list[Sample],
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


# Less CPU time than any engine spends issuing and counting one I/O: the native engine's loops spend
# 1.5-4 µs each (the cheapest, io_uring reaping batches of 32 random reads, ~2.8 µs on this 2-CPU
# machine), fio's C loop about 1 µs. A process that counted I/Os on less read its CPU clock at the
# wrong moments (both ends of its window read together: 0.0001 CPU-seconds for 18k I/Os, 5 ns each).
MIN_CPU_PER_IO = 1e-7  # seconds


def cpu_measured(final: dict) -> bool:
    """Whether a process's CPU time over its window (`cpu_seconds`) is a possible one for the I/Os
    it counted there: never negative, never under MIN_CPU_PER_IO for each of them."""
    cpu = final.get("cpu_seconds")
    if cpu is None or not cpu >= 0:
        return False
    ios = final.get("r_ios", 0) + final.get("w_ios", 0)
    return cpu >= ios * MIN_CPU_PER_IO


def step_result(step: Step, job: Job, finals: list[dict], seconds: float, samples: list[Sample], cpu_percent: float | None,
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
    ran = [f for f in finals if "cpu_seconds" in f]
    # A process whose CPU figure is impossible leaves the step's CPU time not measured (None), and
    # is left out of the CPU-bound verdict: never a figure that its counts contradict.
    cpu_seconds = round(sum(f["cpu_seconds"] for f in ran), 6) if all(map(cpu_measured, ran)) else None
    loads = [cpubound.WorkerLoad(f["cpu_seconds"], f.get("wait_seconds"),
                                 step.outstanding if f.get("backend") == "threads" else 1, f.get("cpu_window_seconds"),
                                 carried=len(f.get("workers") or ()) or 1)
             for f in ran if cpu_measured(f)]
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
        cpu_seconds=cpu_seconds,
        engine_cpu_percent=engine_cpu,
        engine_bound=bound if status == "completed" else None,
        backend="+".join(backends) or None,
        processes=len(finals),
        repetition=job.repetition,
        command_line=command_line,
        error=error,
        samples=tuple(samples),
    )
