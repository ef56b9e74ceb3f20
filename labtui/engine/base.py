"""The engine protocol: every engine turns the same Step into its own form (the registry: registry.py).

An engine runs one step at a time for the runner, which owns the test file, the order of
steps, cancellation and saving. `run_step` is an async generator: it yields SampleTaken and
RunWarning events while the step runs and a StepFinished with the step's full result last.
Cancelling the consuming task must stop every worker or child process within 2 s.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Protocol

from labtui.engine.events import Event
from labtui.engine.limits import StepNeeds
from labtui.engine.rundir import RunDirectory
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.guard import DeviceLease
from labtui.model.profile import SteadyRule, Step
from labtui.model.result import SteadyState, StepResult
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
    run_id: str = ""  # the run's result id: verified blocks carry a tag made of it (labtui.engine.verify)
    # `path` through labtui's descriptor of the run's own directory (labtui.engine.rundir), which no
    # one else can re-point; None: `path` itself (a raw device, a bare path in tests).
    open_path: str | None = None
    run_dir: RunDirectory | None = None  # the run's own directory (command steps make their scratch directories in it)

    @property
    def engine_path(self) -> str:
        """What the engine opens: `path` as `open_path` leads to it, or `path`. Messages and the command
        line shown name `path`."""
        return self.open_path or str(self.path)

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


@dataclass(frozen=True)
class CpuAdvice:
    """What an engine tells a person whose step was limited by the CPU, not the disk (labtui.engine.cpubound)."""

    # One of its workers was its own limit: it issued I/O as fast as one CPU let it.
    own: str = "this figure is the engine's limit, not the disk's: try more threads"
    # Its workers waited for a CPU (other work, or more of them than CPUs): more threads only wait longer.
    crowded: str = ("this figure is the CPUs' limit, not the disk's: the engine's workers waited for a CPU (other "
                    "work, or more threads than CPUs); try a quieter machine or fewer threads")


class Engine(ABC):
    """One way of generating I/O for a step: native, fio, DiskSpd.

    Everything labtui says of an engine is said here, by the engine: its name (`-e NAME`, the
    result's engine), its title where people read it, what to do about a step it could not drive
    harder than its own CPU allowed, the config.toml keys it reads, where its command line stands
    in the Workload screen's preview, and that command line. registry.py lists the engines; a new
    one starts from skeleton.py.
    """

    name: ClassVar[str]  # `-e NAME`, the result's engine; a word of lower-case letters
    title: ClassVar[str]  # how people read its name: "DiskSpd"
    # What to do about a step whose figure was this engine's limit (labtui.engine.cpubound).
    cpu_advice: ClassVar[CpuAdvice] = CpuAdvice()
    # The config.toml keys it reads (fields of labtui.settings.EngineSettings; the contract test
    # checks they are keys labtui.settings knows).
    settings_keys: ClassVar[tuple[str, ...]] = ()
    # Where its command line stands in the Workload screen's preview of a step, lower first.
    preview_order: ClassVar[int] = 100
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

    def refusal(self, step: Step) -> str | None:
        """Why this engine cannot run `step` as it asks (one line: what it cannot do and what can), or None."""
        return None

    def needs(self, step: Step) -> StepNeeds:
        """What `step` (as it will run: cache "off" only where O_DIRECT works) takes from the machine.

        By default asynchronous I/O from a thread per `threads`; engines that start a thread per
        I/O in flight, or reserve kernel AIO events, say so.
        """
        return StepNeeds(threads=step.threads)

    @classmethod
    def io_threads(cls, step: Step) -> int:
        """The I/O threads each of its worker processes runs for `step`: the CPU-bound verdict shares
        a worker's CPU among them (labtui.engine.cpubound.WorkerLoad.lanes)."""
        return 1
