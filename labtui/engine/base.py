"""The engine protocol and registry: every engine turns the same Step into its own form.

An engine runs one step at a time for the runner, which owns the test file, the order of
steps, cancellation and saving. `run_step` is an async generator: it yields SampleTaken and
RunWarning events while the step runs and a StepFinished with the step's full result last.
Cancelling the consuming task must stop every worker or child process within 2 s.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

import psutil

from labtui.engine.cpubound import MIN_SECONDS
from labtui.engine.events import Event
from labtui.engine.limits import StepNeeds
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.guard import DeviceLease
from labtui.model import SteadyRule, SteadyState, Step, StepResult
from labtui.settings import EngineSettings

# Judges a steady-state rule on the rounds so far (labtui.analysis.steady.judge): handed in by
# the front end, since the judging lives above the engine (which only measures the rounds).
SteadyJudge = Callable[[SteadyRule, Sequence[float], float], SteadyState]


class EngineUnavailable(LabtuiError):
    """The engine cannot run here (e.g. fio is not installed); the message says what to install."""


class EngineFailed(LabtuiError):
    """The engine ran but a step failed (I/O error, crash, hang); the message says why."""


class TargetHold(Protocol):
    """The runner's hold on what a step writes to: the test file it made, or the raw device it was
    cleared for. Engines verify it right before they open the target; workers compare what they
    opened with its identity."""

    path: Path

    def verify(self, when: str) -> None:
        """Raise LabtuiError unless the path still leads to what the runner holds."""

    def identity(self) -> dict[str, int]:
        """{"dev", "ino"} of a file or {"rdev"} of a device, to compare with fstat() after an open."""

    def check(self) -> str | None:
        """What changed about the path since the runner took hold of it, or None."""


@dataclass(frozen=True)
class Job:
    """What the runner hands an engine for one step."""

    path: Path  # the prepared test file (or raw device)
    file_size: int  # bytes of it the step may touch
    index: int = 0  # position of this step in the run
    total: int = 1
    repetition: int = 1
    raw_device: bool = False  # path is a block device the safety guard has cleared
    interval: float = 1.0  # seconds between live samples
    workdir: Path | None = None  # the target directory (command steps run there)
    disk: str | None = None  # kernel name of the target's disk, for counters (psutil)
    params: dict[str, str] = field(default_factory=dict)  # profile parameters (--param k=v)
    hold: TargetHold | None = None  # what the runner holds of `path` (None: a bare path, in tests)
    judge: SteadyJudge | None = None  # for steps run to steady state

    def steady_judge(self) -> SteadyJudge:
        if self.judge is None:
            raise LabtuiError("a step runs to steady state but nothing was given to judge its rounds (Job.judge)")
        return self.judge


def stopped_collecting(seconds: float, source: str) -> str:
    """An aborted step's error where the cancel came after its measure window, as its result was collected."""
    return (f"stopped as its result was being collected, after its whole {seconds:.1f} s measure: the figures "
            f"are of the whole window ({source})")


def ensure_cleared(job: Job, writes: bool) -> None:
    """The engines' own last line of defence, right before they open the target: no raw-device
    write the guard did not clear, and nothing but what the runner holds (its test file)."""
    if writes and devices.is_block_device(job.path) and not (job.raw_device and isinstance(job.hold, DeviceLease)):
        raise LabtuiError(f"refusing to write to raw device {job.path}: the safety guard did not clear it")
    if job.hold is not None:
        job.hold.verify("right before the engine opens it")


class Engine(ABC):
    """One way of generating I/O for a step: native, fio, DiskSpd."""

    name: ClassVar[str]
    # What a step that was cancelled had measured, for the aborted result (None: nothing useful),
    # and the warnings it had not yet yielded.
    partial_result: StepResult | None = None
    partial_warnings: tuple[str, ...] = ()

    def __init__(self, settings: EngineSettings | None = None) -> None:
        self.settings = settings or EngineSettings()

    @abstractmethod
    def check_available(self) -> None:
        """Raise EngineUnavailable with a one-line reason (what to install) if it cannot run."""

    def version(self) -> str | None:
        return None

    @abstractmethod
    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        """The exact invocation (or settings) this engine uses for `step`; shown to the user."""

    @abstractmethod
    def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        """Run one step; yield samples and warnings, then a StepFinished."""

    def needs(self, step: Step) -> StepNeeds:
        """What `step` (as it will run: cache "off" only where O_DIRECT works) takes from the machine.

        By default asynchronous I/O from a thread per `threads`; engines that start a thread per
        I/O in flight, or reserve kernel AIO events, say so.
        """
        return StepNeeds(threads=step.threads)


ENGINES: dict[str, str] = {
    "native": "labtui.engine.native.engine:NativeEngine",
    "fio": "labtui.engine.fio.engine:FioEngine",
    "diskspd": "labtui.engine.diskspd.engine:DiskSpdEngine",
}
# How each engine is named where people read it (without importing the engine).
ENGINE_TITLES: dict[str, str] = {"native": "native", "fio": "fio", "diskspd": "DiskSpd"}


def engine_title(name: str) -> str:
    return ENGINE_TITLES.get(name, name)


def engine_names() -> list[str]:
    names = []
    for name, spec in ENGINES.items():
        module = spec.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def engine_availability(settings: EngineSettings | None = None) -> list[tuple[str, str | None]]:
    """Each engine's name and why it cannot run here (None where it can): what this machine has."""
    found: list[tuple[str, str | None]] = []
    for name in engine_names():
        try:
            get_engine(name, settings).check_available()
            found.append((name, None))
        except LabtuiError as exc:
            found.append((name, str(exc)))
    return found


def get_engine(name: str, settings: EngineSettings | None = None) -> Engine:
    """The engine registered under `name`; LabtuiError for an unknown one."""
    spec = ENGINES.get(name)
    if spec is None or name not in engine_names():
        raise LabtuiError(f"unknown engine {name!r} (choose from {', '.join(engine_names())})")
    module_name, class_name = spec.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(settings)


class CpuMeter:
    """Whole-machine CPU use between start() and stop(), as DiskSpd's "avg. CPU" reports it."""

    def __init__(self) -> None:
        self._start: Any = None

    def start(self, times: Any = None) -> None:
        """Start now, or from an earlier `psutil.cpu_times()` snapshot."""
        self._start = times if times is not None else psutil.cpu_times()

    def stop(self) -> float | None:
        if self._start is None:
            return None
        return cpu_percent_between(self._start, psutil.cpu_times())


def cpu_percent_between(start: Any, end: Any, cpus: int | None = None) -> float | None:
    """Whole-machine CPU use between two `psutil.cpu_times()` snapshots; None where they are less
    than cpubound.MIN_SECONDS apart (the kernel counts CPU time in clock ticks: over 10 ms a CPU
    reads 0 or 100 % busy, and a 1 ms step read "no idle CPU (100 % busy)")."""
    busy = _busy(end) - _busy(start)
    total = sum(end) - sum(start)
    if total <= 0 or total < MIN_SECONDS * (cpus or os.cpu_count() or 1):
        return None
    return round(100.0 * busy / total, 2)


def _busy(times: Any) -> float:
    idle = getattr(times, "idle", 0.0) + getattr(times, "iowait", 0.0)
    return sum(times) - idle


def monotonic() -> float:
    return time.monotonic()
