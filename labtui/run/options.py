"""What a run is asked to do (RunOptions) and what its preflight found (Plan): the run layer's
terms, shared by the runner and its preflight."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from labtui.analysis import steady
from labtui.engine.base import SteadyJudge
from labtui.machine import guard
from labtui.machine.drive import DriveReader, run_reader
from labtui.model.result import TargetInfo
from labtui.run.drive_watch import EVERY
from labtui.run.target_lock import TargetLock
from labtui.settings import EngineSettings


@dataclass
class RunOptions:
    engine: str = "native"
    engine_settings: EngineSettings | None = None  # None: those of the store's config.toml
    tags: tuple[str, ...] = ()
    keep_file: bool = False
    interval: float = 1.0  # seconds between live samples
    params: dict[str, str] = field(default_factory=dict)  # profile parameters as given (--param name=value)
    # For a raw block device target: the device the person named to confirm its destruction,
    # and (where the person was shown it, as in the TUI) what was on it when they agreed.
    destroy_data: str | None = None
    consented: guard.DeviceFacts | None = None
    # Judges the rounds of steps run to steady state: SNIA's rule and fio's criteria, as every
    # front uses them; a test may hand in its own.
    judge: SteadyJudge = steady.judge
    # The disk's lock, held by the caller across its runs (a check's passes): a run on that disk
    # then uses it. None: the run takes its own in preflight and lets it go at its end.
    target_lock: TargetLock | None = None
    # The drive under the target, read before, during (every `drive_every` seconds) and after each step
    # (labtui.run.drive_watch): how to read a disk by its kernel name (None: not read at all).
    drive: Callable[[str], DriveReader | None] | None = run_reader
    drive_every: float = EVERY
    force: bool = False  # measure a drive that reports a critical warning all the same


@dataclass
class Plan:
    """What preflight found: where the test file goes and what is known about the target."""

    target: TargetInfo
    directory: Path  # the target directory, as named (command steps run there; the run's own directory is made in it)
    test_file: Path | None  # None for a profile of command steps only; in the run's own directory (rundir.py)
    created_dirs: list[Path]
    direct_io: bool  # whether O_DIRECT works in `directory` (decided when it exists)
    raw_device: bool = False  # the target is a block device the guard cleared
    file_size: int = 0  # bytes of the test file (or of the device) the steps use
    device: guard.DeviceFacts | None = None  # for a raw device: what was found on it (what a consent covers)
