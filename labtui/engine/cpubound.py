"""Engine-bound detection: when a step's figure measures the engine's CPU, not the disk.

A worker process that is on a CPU, or ready and waiting for one, almost all of the measured
time never waited for the disk: it issued I/O as fast as it could, so the IOPS it reports are
the engine's ceiling. The same holds when the machine had no idle CPU at all. Such a step is
marked with the reason, and every view of it (result, live view, `show`, `compare`, `--json`
warnings) says so instead of passing the figure off as the disk's.

The scheduler's own accounting decides: /proc/<pid>/task/<tid>/schedstat gives, per thread,
the nanoseconds spent running and waiting on a run queue (a worker starved by other work, or
held by a cgroup CPU quota, waits there rather than on the disk).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from labtui.engine import registry
from labtui.model.profile import Step
from labtui.model.result import step_pass

# A worker busy (running or runnable) this share of the window, or a machine idle less than
# this share of one CPU, was limited by the CPU.
THRESHOLD = 0.90
# A window shorter than this is too short to tell: the machine's CPU time is counted in clock
# ticks (USER_HZ, 100 a second), so over 10 ms a CPU reads 0 or 100 % busy; and a step that short
# says nothing of where its limit was. Neither its CPU figures nor a verdict are given.
MIN_SECONDS = 0.1
# With the page cache on, a worker that keeps a CPU busy is copying from memory: more threads or
# another engine only copy faster (fio's buffered I/O is the same copy); the disk is not measured.
CACHED = ("this figure is the page cache's limit (copying from memory), not the disk's: more threads or another "
          "engine only copy faster; set cache = \"off\" to measure the disk")
OWN_CPU = "a worker process used "  # how verdict() begins a reason where one worker was its own limit
# How verdict() begins a reason where a process carrying several of the step's threads (the native
# engine's default, at most one such process per CPU) kept a CPU busy: more threads only join the
# same processes, so the CPUs were the limit (CARRIED_ADVICE).
CARRYING = "a process carrying "
CARRIED_ADVICE = ("this figure is the CPUs' limit, not the disk's: the engine's processes (one per CPU, each carrying "
                  "several threads) kept the CPUs busy, and more threads would only join them; on a machine with "
                  "more (or idler) CPUs the disk's own limit would show")
# The I/O threads of one worker (the blocking loop with the page cache on) take turns at one Python
# interpreter: its lock (the GIL) runs Python for one of them at a time, and handing it over costs
# system time too. Measured 2026-12-02 on /dev/shm, cached 4 KiB random reads, 3 s each, 2 CPUs:
# 1 worker x 1 thread 375,147 IOPS at 100 % of a CPU; x 2 threads 223,843 at 128 %; x 4 136,505 at
# 160 %; x 8 156,059 at 136 %; 2 workers x 1 969,285. Where they keep a CPU's worth busy together,
# the interpreter paces them: more threads in it go slower, not faster.
SHARED = "share one Python interpreter"
INTERPRETER = ("this figure is labtui's limit, not the disk's: one worker's I/O threads take turns at its Python "
               "interpreter; use more worker processes with fewer outstanding each, or cache = \"off\" to measure the disk")


def advice(reason: str | None, engine: str = "native", cache_on: bool = False) -> str:
    """What to do about a CPU-bound step, for the reason verdict() gave (None: not known)."""
    if reason is not None and reason.startswith(CARRYING) and not cache_on:
        return CARRIED_ADVICE
    return advice_for(reason is None or reason.startswith(OWN_CPU), engine, cache_on,
                      interpreter=reason is not None and SHARED in reason)


def whose_limit(advice: str) -> str | None:
    """Whose limit a CPU-bound step's figure is, in the advice's own first words ("the CPUs' limit,
    not the disk's"), for a note that has one short line (the Run screen at 80 columns); None where
    an engine's advice does not begin "this figure is X's limit, not the disk's"."""
    m = re.match(r"this figure is (.+?)(?: \([^)]*\))?, not the disk's", advice)
    return f"{m.group(1)}, not the disk's" if m else None


def io_threads(step: Step, engine: str = "native") -> int:
    """The I/O threads each worker of `step` runs, as verdict() shares a worker's CPU among them
    (WorkerLoad.lanes): the engine says (Engine.io_threads; the native engine's blocking loop with
    the page cache on runs one per I/O in flight in one process)."""
    return registry.io_threads(engine, step)


def own_limit_now(engine_cpu_percent: float | None, lanes: int = 1) -> bool:
    """Whether a step marked CPU-bound while it runs is its busiest worker's own limit (a thread of
    it used THRESHOLD of a CPU: verdict()'s rule, by each of its `lanes` I/O threads' share), not
    the CPUs' (the workers waited for one). By the sum, four blocking threads at 40 % each "used
    160 % of a CPU" and the live note advised more threads while the step's verdict said they
    waited for a CPU."""
    return engine_cpu_percent is not None and engine_cpu_percent / max(lanes, 1) >= 100 * THRESHOLD


def interpreter_bound_now(engine_cpu_percent: float | None, lanes: int) -> bool:
    """Whether a step marked CPU-bound while it runs is paced by its busiest worker's interpreter:
    its `lanes` I/O threads together keep THRESHOLD of a CPU busy (verdict()'s rule, SHARED)."""
    return lanes > 1 and engine_cpu_percent is not None and engine_cpu_percent >= 100 * THRESHOLD


def advice_for(own_limit: bool, engine: str = "native", cache_on: bool = False, interpreter: bool = False) -> str:
    """What to do where one worker was its own limit (more threads; with the page cache on, the
    cache off), where its threads took turns at its interpreter (more processes, fewer threads),
    or where they waited for a CPU."""
    if interpreter:
        return INTERPRETER
    if own_limit and cache_on:
        return CACHED
    advice = registry.cpu_advice(engine)  # the engine's own words (Engine.cpu_advice)
    return advice.own if own_limit else advice.crowded


@dataclass(frozen=True)
class WorkerLoad:
    """What one worker process spent over a window, in seconds."""

    cpu_seconds: float
    wait_seconds: float | None = None  # ready to run but not running; None where not known
    # Threads issuing I/O in the process (the blocking loop runs one per I/O in flight): the
    # scheduler's figures are summed over them, so each one's share is the sum over this.
    lanes: int = 1
    # The wall time the figures were counted over (the worker's own readings); None: the window's.
    seconds: float | None = None
    carried: int = 1  # the step's threads (logical workers) the process carried

    def span(self, window: float) -> float:
        return self.seconds if self.seconds is not None else window




def busy_fraction(load: WorkerLoad, seconds: float) -> float:
    """Share of the window the worker (each of its I/O threads, on average) was running or waiting to run."""
    span = load.span(seconds)
    if span <= 0:
        return 0.0
    return (load.cpu_seconds + (load.wait_seconds or 0.0)) / (span * max(load.lanes, 1))


def too_short(seconds: float) -> bool:
    """Whether a window is too short for its CPU figures to mean anything (MIN_SECONDS)."""
    return seconds < MIN_SECONDS


def machine_idle_cpus(machine_cpu_percent: float | None, cpu_count: int | None) -> float | None:
    """Idle CPUs on average over the window (2 CPUs at 75 % busy: 0.5)."""
    if machine_cpu_percent is None or not cpu_count:
        return None
    return max(0.0, 100.0 - machine_cpu_percent) / 100.0 * cpu_count


def verdict(
    workers: Sequence[WorkerLoad],
    seconds: float,
    machine_cpu_percent: float | None,
    cpu_count: int | None = None,
) -> tuple[float | None, str | None]:
    """(the busiest worker's CPU use in % of one CPU, why the step was CPU-bound or None).

    Each worker's figures are divided by the wall time they were counted over (WorkerLoad.seconds,
    else the window's `seconds`): a share of a CPU can only be of the same interval. A window
    shorter than MIN_SECONDS is too short to tell: (None, None). A worker whose readings never
    spanned any time (it never woke within the window) has no figures and is left out.
    """
    workers = [w for w in workers if w.span(seconds) > 0]
    if too_short(seconds) or not workers:
        return None, None
    cpu_count = cpu_count if cpu_count is not None else os.cpu_count()
    busiest = max(workers, key=lambda w: busy_fraction(w, seconds))
    top = max(workers, key=lambda w: w.cpu_seconds / w.span(seconds))
    cpu_percent = round(100.0 * top.cpu_seconds / top.span(seconds), 1)
    # Its own limit where a thread of it ran nearly all the time: a worker of several I/O threads
    # (the blocking loop) by each one's share. By their sum, four threads on 1.5 CPUs "used 150 %
    # of a CPU" and the step was called the engine's limit, to be helped by more threads.
    own = max(workers, key=lambda w: w.cpu_seconds / max(w.lanes, 1) / w.span(seconds))
    own_span = own.span(seconds)
    own_share = own.cpu_seconds / max(own.lanes, 1) / own_span

    def own_limit() -> str:
        if own.carried > 1:
            return f"{CARRYING}{own.carried} of the step's threads used {100 * own.cpu_seconds / own_span:.0f} % of a CPU"
        each = f" ({100 * own_share:.0f} % for each of its {own.lanes} I/O threads)" if own.lanes > 1 else ""
        return f"{OWN_CPU}{100 * own.cpu_seconds / own_span:.0f} % of a CPU{each}"

    if own_share >= THRESHOLD:
        return cpu_percent, own_limit()
    busy = busy_fraction(busiest, seconds)
    if busy >= THRESHOLD:
        waited = 100.0 * (busiest.wait_seconds or 0.0) / (busiest.span(seconds) * max(busiest.lanes, 1))
        if busiest is own and waited < 100.0 * (1.0 - THRESHOLD):
            # It ran nearly all the time and hardly waited (89 % on a CPU, 4 % waiting): its own CPU
            # is the limit, not the others'; "waited for a CPU" would send the person to a quieter machine.
            return cpu_percent, own_limit()
        who = ("a worker process was" if busiest.lanes <= 1 else
               f"the {busiest.lanes} I/O threads of a worker process were, on average,")
        return cpu_percent, (
            f"{who} on a CPU or waiting for one {100 * busy:.0f} % of the time "
            f"({waited:.0f} % waiting: other work or a CPU quota held it back)"
        )
    # Threads of one worker together at a CPU's worth, not waiting for one: they take turns at its
    # interpreter (SHARED).
    shared = max(workers, key=lambda w: (w.lanes > 1, w.cpu_seconds / w.span(seconds)))
    shared_share = shared.cpu_seconds / shared.span(seconds)
    if shared.lanes > 1 and shared_share >= THRESHOLD:
        return cpu_percent, (f"{OWN_CPU}{100 * shared_share:.0f} % of a CPU: its {shared.lanes} I/O threads "
                             f"{SHARED}, which runs Python for one of them at a time")
    idle = machine_idle_cpus(machine_cpu_percent, cpu_count)
    if idle is not None and idle < 1.0 - THRESHOLD:
        return cpu_percent, f"the machine had no idle CPU ({machine_cpu_percent:.0f} % busy)"
    return cpu_percent, None


def warning(step_name: str, repetition: int, reason: str, engine: str = "native", cache_on: bool = False) -> str:
    """The run's warning for a CPU-bound step: it names the step and says "CPU-bound"."""
    return f"step {step_pass(step_name, repetition)} is CPU-bound: {reason}; {advice(reason, engine, cache_on)}"
