"""A run as it happens, kept as state from its event stream: what the Run screen draws.

The TUI's counterpart of the headless display in commands/progress.py: the same events, kept
as the current step, its phase and timings, its per-interval samples and its running figures
(current, mean, min, max), for widgets to draw on a timer. Pure (no Textual), fed events in tests.

Samples are exact counts, so combining intervals stays honest (labtui.series). The chart buffer
is bounded — when full, neighbouring intervals are merged pairwise — while the figures are
updated from every sample as it arrives, so the bound never changes a mean, a minimum or a maximum.
The charts' points (about two per cell of their width) are kept merged as samples arrive, so
drawing a frame costs the same after an hour as after a second.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from labtui.engine.events import (
    DriveSampled,
    Event,
    Paused,
    PreconditionProgress,
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    SteadyRound,
    StepFinished,
    StepStarted,
)
from labtui.model.profile import MIB, STEP_STARTUP_SECONDS, Step
from labtui.model.result import DriveReading, RunResult, Sample, SteadyState, StepResult
from labtui.series import merge_samples
from labtui.units import human_size

# Samples kept per step for the charts: an hour of one-second samples before the first merge.
BUFFER_CAPACITY = 4096


class SampleBuffer:
    """A step's intervals for its charts, at most `capacity` of them (older ones merged pairwise)."""

    def __init__(self, capacity: int = BUFFER_CAPACITY) -> None:
        self.capacity = max(2, capacity)
        self.samples: list[Sample] = []

    def append(self, sample: Sample) -> None:
        self.samples.append(sample)
        if len(self.samples) > self.capacity:
            pairs = self.samples
            self.samples = [merge_samples(pairs[i : i + 2]) for i in range(0, len(pairs) - 1, 2)]
            if len(pairs) % 2:
                self.samples.append(pairs[-1])

    def __len__(self) -> int:
        return len(self.samples)


class ChartPoints:
    """A step's intervals as at most `max_points` chart points, merged once as they arrive.

    Every point but the newest merges `size` consecutive intervals (counted from the first); the
    newest holds the intervals since, fewer than `size`. When the points would outnumber
    `max_points`, neighbours are merged pairwise and `size` doubles. Unlike `downsample`, which
    regroups the whole series on every call, each interval is merged about log2(n) times in all.
    """

    def __init__(self, max_points: int) -> None:
        self.max_points = max(2, max_points)
        self.size = 1
        self._full: list[Sample] = []  # points of `size` intervals each
        self._tail: list[Sample] = []  # the newest intervals (or merged runs of them)
        self._tail_count = 0  # how many intervals the tail holds
        self._tail_point: Sample | None = None  # the tail merged, until it changes

    def add(self, sample: Sample) -> None:
        self._tail.append(sample)
        self._tail_count += 1
        self._tail_point = None
        if self._tail_count >= self.size:
            self._full.append(merge_samples(self._tail))
            self._tail, self._tail_count = [], 0
        if len(self._full) + (1 if self._tail else 0) > self.max_points:
            full = self._full
            self._full = [merge_samples(full[i : i + 2]) for i in range(0, len(full) - 1, 2)]
            if len(full) % 2:
                # The odd one out starts the new, twice as long, tail.
                self._tail = [full[-1], *self._tail]
                self._tail_count += self.size
            self.size *= 2

    def points(self) -> list[Sample]:
        if self._tail and self._tail_point is None:
            self._tail_point = merge_samples(self._tail)
        return self._full + ([self._tail_point] if self._tail_point is not None else [])


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class Series:
    """One live quantity of a sample: its key, what it is called, its unit, and how to read it."""

    key: str
    direction: str  # "read", "write" or "" (both / the machine)
    quantity: str  # "IOPS", "MiB/s", "latency", "p99", "machine CPU"
    unit: str
    value: Callable[[Sample], float | None] = field(repr=False, compare=False)


def _lat(value: float | None, ios: int) -> float | None:
    return value if ios else None


SERIES = (
    Series("read_iops", "read", "IOPS", "IOPS", lambda s: s.read_iops),
    Series("write_iops", "write", "IOPS", "IOPS", lambda s: s.write_iops),
    Series("read_mib_s", "read", "MiB/s", "MiB/s", lambda s: s.read_mib_s),
    Series("write_mib_s", "write", "MiB/s", "MiB/s", lambda s: s.write_mib_s),
    Series("read_lat_ms", "read", "latency", "ms", lambda s: _lat(s.read_lat_mean_ms, s.read_ios)),
    Series("write_lat_ms", "write", "latency", "ms", lambda s: _lat(s.write_lat_mean_ms, s.write_ios)),
    Series("read_p99_ms", "read", "p99", "ms", lambda s: _lat(s.read_lat_p99_ms, s.read_ios)),
    Series("write_p99_ms", "write", "p99", "ms", lambda s: _lat(s.write_lat_p99_ms, s.write_ios)),
    # The whole machine's, as compare calls it: beside the CPU-bound note (the engine's own CPU) a bare "CPU"
    # read as the engine's (issue 39, item 12: context, not the engine's figure).
    Series("cpu", "", "machine CPU", "%", lambda s: s.cpu_percent),
)
SERIES_BY_KEY = {s.key: s for s in SERIES}


@dataclass
class Extremes:
    minimum: float | None = None
    maximum: float | None = None

    def add(self, value: float | None) -> None:
        if value is None or not math.isfinite(value):
            return
        self.minimum = value if self.minimum is None else min(self.minimum, value)
        self.maximum = value if self.maximum is None else max(self.maximum, value)


@dataclass(frozen=True)
class FigureRow:
    """One line of the figures table: a series now, over the measured time, and its extremes."""

    series: Series
    current: float | None
    mean: float | None  # None where a mean means nothing (a p99 of p99s)
    minimum: float | None
    maximum: float | None


def directions(step: Step) -> tuple[str, ...]:
    """The directions a step's I/O goes: read, write or both (a command's disk traffic: either)."""
    if not step.is_io:
        return ("read", "write")
    return tuple(d for d, on in (("read", step.reads), ("write", step.writes)) if on)


class LiveStep:
    """One step of the run: when it began, its samples, and its figures over the measured time."""

    def __init__(self, started: StepStarted, began: float, capacity: int = BUFFER_CAPACITY) -> None:
        self.started = started
        self.began = began
        self.buffer = SampleBuffer(capacity)  # the charted intervals: the warm-up's, then the measured ones
        self._points: ChartPoints | None = None
        self.last: SampleTaken | None = None
        self.result: StepResult | None = None
        self.ended: float | None = None
        self.steady: SteadyState | None = None  # a steady-state step's rounds so far, judged
        self.drive: list[tuple[float, DriveReading]] = []  # the drive's readings: seconds into the step, reading
        # The measured samples (warm-up excluded) merged into one: exact sums, from which the means derive.
        self._total: Sample | None = None
        self._extremes = {s.key: Extremes() for s in SERIES}

    @property
    def step(self) -> Step:
        return self.started.step

    @property
    def phase(self) -> str:
        if self.result is not None:
            return self.result.status
        if self.last is None:
            return "starting"
        return self.last.phase

    @property
    def engine_bound(self) -> bool:
        """Whether the engine is the limit: by the step's verdict once it ended, by the latest interval before."""
        if self.result is not None:
            return bool(self.result.engine_bound)
        return self.last is not None and self.last.phase == "measure" and bool(self.last.sample.engine_bound)

    @property
    def chart_phase(self) -> str | None:
        """What the chart shows: the warm-up until the first measured interval, then the measure
        window only (None: no interval yet)."""
        if self._total is not None:
            return "measure"
        return "warmup" if self.buffer.samples else None

    def add(self, event: SampleTaken) -> None:
        self.last = event
        if event.phase == "measure" and self._total is None:
            # Measuring begins: the chart starts over at the window's t = 0, as the figures and the
            # saved result do; kept on, a warm-up interval would merge into its first point.
            self.buffer = SampleBuffer(self.buffer.capacity)
            self._points = None
        if event.phase == "measure" or self._total is None:
            self.buffer.append(event.sample)
            if self._points is not None:
                self._points.add(event.sample)
        if event.phase != "measure":
            return
        sample = event.sample
        self._total = sample if self._total is None else merge_samples([self._total, sample])
        for series in SERIES:
            self._extremes[series.key].add(series.value(sample))

    def directions(self) -> tuple[str, ...]:
        return directions(self.step)

    @property
    def drive_now(self) -> DriveReading | None:
        """The drive's latest reading in this step (None: none yet, or it says nothing)."""
        return self.drive[-1][1] if self.drive else None

    def drive_temperatures(self) -> list[float]:
        return [r.temperature_c for _, r in self.drive if r.temperature_c is not None]

    def chart_points(self, max_points: int) -> list[Sample]:
        """The samples so far as at most `max_points` points; rebuilt from the buffer only when
        `max_points` changes (the chart was resized), otherwise kept up to date sample by sample."""
        if self._points is None or self._points.max_points != max(2, max_points):
            self._points = ChartPoints(max_points)
            for sample in self.buffer.samples:
                self._points.add(sample)
        return self._points.points()

    def figures(self) -> list[FigureRow]:
        """Rows for the directions this step drives, then CPU."""
        rows = []
        wanted = set(self.directions()) | {""}
        current = self.last.sample if self.last is not None else None
        for series in SERIES:
            if series.direction not in wanted:
                continue
            if series.quantity in ("latency", "p99") and self.step.is_io and not self.step.latency:
                continue
            extremes = self._extremes[series.key]
            mean = None
            if self._total is not None and series.quantity != "p99":
                mean = series.value(self._total)
            if series.quantity == "IOPS" and not self.step.is_io:
                # The disk's requests after the kernel merged them, from every process: not IOPS.
                series = replace(series, quantity="requests/s")
            rows.append(FigureRow(series, series.value(current) if current is not None else None, mean,
                                  extremes.minimum, extremes.maximum))
        return rows

    def elapsed(self, now: float) -> float:
        return (self.ended if self.ended is not None else now) - self.began

    @property
    def planned_seconds(self) -> float | None:
        """Warm-up, measured time and cool-down; None for a command (it takes as long as it takes).
        A steady-state step's is its longest (every round it may take)."""
        step = self.step
        if not step.is_io:
            return None
        return step.planned_seconds + step.cooldown


class LiveRun:
    """The whole run so far. `handle` every event in order; read the rest whenever drawing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, capacity: int = BUFFER_CAPACITY) -> None:
        self.clock = clock
        self.capacity = capacity
        self.started: RunStarted | None = None
        self.began: float | None = None
        self.prepare: PrepareProgress | None = None
        self.pause: tuple[Paused, float] | None = None  # the pause going on, and when it began
        self.precondition: PreconditionProgress | None = None
        self.steps: list[LiveStep] = []
        self.warnings: list[str] = []
        self.finished: RunFinished | None = None
        self.version = 0  # counts changes, so a drawer can skip a redraw when nothing is new

    @property
    def current(self) -> LiveStep | None:
        return self.steps[-1] if self.steps else None

    @property
    def preparing(self) -> bool:
        return self.prepare is not None and not self.steps and self.prepare.bytes_done < self.prepare.bytes_total

    @property
    def preconditioning(self) -> bool:
        p = self.precondition
        return p is not None and not self.steps and p.passes_done < p.passes

    @property
    def result(self) -> RunResult | None:
        return self.finished.result if self.finished is not None else None

    def handle(self, event: Event) -> None:
        now = self.clock()
        if isinstance(event, RunStarted):
            self.started, self.began = event, now
        elif isinstance(event, PrepareProgress):
            self.prepare = event
        elif isinstance(event, Paused):
            self.pause = (event, now)
        elif isinstance(event, PreconditionProgress):
            self.precondition = event
        elif isinstance(event, SteadyRound):
            if self.current is not None and self.current.started.index == event.index:
                self.current.steady = event.state
        elif isinstance(event, StepStarted):
            self.pause = None
            if self.current is not None and self.current.ended is None:
                self.current.ended = now
            self.steps.append(LiveStep(event, now, self.capacity))
        elif isinstance(event, SampleTaken):
            if self.current is not None:
                self.current.add(event)
        elif isinstance(event, DriveSampled):
            if self.current is not None and self.current.started.index == event.index:
                self.current.drive.append((event.seconds, event.reading))
        elif isinstance(event, StepFinished):
            step = self.current
            if step is not None and step.started.index == event.index:
                step.result = event.result
                step.ended = now
        elif isinstance(event, RunWarning):
            if event.message not in self.warnings:
                self.warnings.append(event.message)
        elif isinstance(event, RunFinished):
            self.finished = event
            if self.current is not None and self.current.ended is None:
                self.current.ended = now
        self.version += 1

    def elapsed(self) -> float:
        return self.clock() - self.began if self.began is not None else 0.0

    def step_startup(self, now: float) -> float:
        """What a step takes beyond its plan: as the run's finished steps took it, else the model's figure."""
        overruns = [s.elapsed(now) - s.planned_seconds for s in self.steps
                    if s.ended is not None and s.planned_seconds is not None]
        return max(0.0, sum(overruns) / len(overruns)) if overruns else STEP_STARTUP_SECONDS

    def eta_seconds(self) -> float | None:
        """Time left by the plan: the preparation's rate, then the steps' planned times.

        None where it cannot be known (a command step is running or yet to come).
        """
        if self.started is None:
            return None
        if self.finished is not None:
            return 0.0
        profile = self.started.profile
        if any(not s.is_io for s in profile.steps):
            return None
        now = self.clock()
        startup = self.step_startup(now)
        # The plan without its start-ups, less the steps begun, plus a start-up for each to come.
        plain = self.started.planned_seconds - STEP_STARTUP_SECONDS * self.started.steps_total
        begun = sum(s.planned_seconds or 0.0 for s in self.steps)
        left = max(0.0, plain - begun) + startup * max(0, self.started.steps_total - len(self.steps))
        if self.current is not None and self.current.ended is None:
            left += max(0.0, (self.current.planned_seconds or 0.0) + startup - self.current.elapsed(now))
        if self.current is None and self.prepare is not None:
            p = self.prepare
            rate = p.bytes_done / p.seconds if p.seconds > 0 else 0.0
            if rate <= 0:
                return None
            left += (p.bytes_total - p.bytes_done) / rate
        if self.current is None and self.precondition is not None:
            eta = self.precondition.eta_seconds
            if eta is None:
                return None
            left += eta
        return left


def precondition_text(p: PreconditionProgress) -> str:
    """'pass 1 of 2 · 1.2 GiB of 4 GiB at 850 MiB/s'"""
    rate = p.bytes_done / p.seconds if p.seconds > 0 else 0.0
    speed = f" at {rate / MIB:,.0f} MiB/s" if rate else ""
    current = min(p.passes, p.passes_done + 1)
    return f"pass {current} of {p.passes} · {human_size(p.bytes_done)} of {human_size(p.bytes_total)}{speed}"


def prepare_text(p: PrepareProgress) -> str:
    """'1.2 GiB of 4 GiB at 850 MiB/s'"""
    rate = p.bytes_done / p.seconds if p.seconds > 0 else 0.0
    speed = f" at {rate / MIB:,.0f} MiB/s" if rate else ""
    return f"{human_size(p.bytes_done)} of {human_size(p.bytes_total)}{speed}"


def pass_words(repetition: int) -> str:
    """A pass beside its step's name, in every front: " #2", " (preparing pass, not counted)", nothing for a first one."""
    if repetition == 0:
        return " (preparing pass, not counted)"
    return f" #{repetition}" if repetition > 1 else ""
