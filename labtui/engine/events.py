"""The typed event stream of a run. The TUI and the headless CLI consume the same events.

A run emits, in order: RunStarted, PrepareProgress (while the test file is written), then for
each step StepStarted, SampleTaken (one per interval, warm-up included), SteadyRound (after each
round of a step run to steady state), DriveSampled (every few seconds, where the drive says anything:
its temperature and link), StepFinished, and Paused before a pass the profile pauses
for; PreconditionProgress comes between the preparation and the first step of a profile that
preconditions; RunWarning may come at any time; RunFinished ends the stream (not sent if the
consumer cancelled the run: the runner still saves the aborted result and keeps it in `Runner.result`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labtui.model.profile import Profile, Step
from labtui.model.result import DriveReading, EngineInfo, RunResult, Sample, SteadyState, StepResult, TargetInfo


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    profile: Profile
    target: TargetInfo
    engine: EngineInfo
    steps_total: int  # passes: steps x repeat, plus a discarded preparing pass per step where the profile has one
    planned_seconds: float  # steps only, not the file preparation


@dataclass(frozen=True)
class PrepareProgress:
    bytes_done: int
    bytes_total: int
    seconds: float  # since preparation began

    @property
    def fraction(self) -> float:
        return self.bytes_done / self.bytes_total if self.bytes_total else 1.0


@dataclass(frozen=True)
class PreconditionProgress:
    """The sequential passes over the test file before the steps (the profile's `precondition`)."""

    bytes_done: int  # over all passes
    bytes_total: int  # passes x the file's size
    seconds: float  # since preconditioning began
    passes: int
    passes_done: int = 0

    @property
    def fraction(self) -> float:
        return self.bytes_done / self.bytes_total if self.bytes_total else 1.0

    @property
    def eta_seconds(self) -> float | None:
        """Time left at the rate so far; None before anything was written."""
        if self.bytes_done <= 0 or self.seconds <= 0:
            return None
        return (self.bytes_total - self.bytes_done) * self.seconds / self.bytes_done


@dataclass(frozen=True)
class StepStarted:
    index: int  # 0-based position in the run (repetitions included)
    total: int
    step: Step
    repetition: int  # 1-based; 0 is a preparing pass whose figures are discarded (Profile.discard_first)
    command_line: str | None  # the engine invocation / settings for this step


@dataclass(frozen=True)
class SampleTaken:
    index: int
    phase: str  # "warmup" or "measure"; only measured samples are kept in the result
    sample: Sample  # sample.t is negative during warm-up (seconds before measuring starts)


@dataclass(frozen=True)
class DriveSampled:
    """The drive read during a step (labtui.run.drive_watch): its temperature and link at `seconds` after
    the step began. Engines never send it: the runner does, beside theirs."""

    index: int
    seconds: float
    reading: DriveReading


@dataclass(frozen=True)
class SteadyRound:
    """A round of a steady-state step has ended: every round so far, judged (state.rounds[-1] is this one)."""

    index: int
    state: SteadyState


@dataclass(frozen=True)
class StepFinished:
    index: int
    result: StepResult


@dataclass(frozen=True)
class Paused:
    """The run idles before its next pass (the profile's `pause`: CrystalDiskMark's interval)."""

    seconds: float
    before: int  # the index of the pass that follows


@dataclass(frozen=True)
class RunWarning:
    message: str


@dataclass(frozen=True)
class RunFinished:
    result: RunResult
    path: Path | None  # where the store saved it


Event = (RunStarted | PrepareProgress | PreconditionProgress | StepStarted | SampleTaken | SteadyRound | DriveSampled
         | StepFinished | Paused | RunWarning | RunFinished)
