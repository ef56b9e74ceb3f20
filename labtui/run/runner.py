"""Runs a Profile on a target: safety checks, test file, steps, cleanup, saving the result.

`Runner.preflight()` checks everything that can be checked before a byte is written (engine
present, target usable, enough free space) and raises LabtuiError otherwise. `Runner.events()`
then runs the profile as an async stream of events (labtui.engine.events). Whatever happens —
completion, an engine failure, the consumer cancelling — the test file is removed (unless
kept on request) and the result, possibly partial, is saved through the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from labtui.analysis import steady
from labtui.analysis.drops import drop_words
from labtui.engine import cpubound, limits, subproc
from labtui.engine.base import Engine, Job, SteadyJudge
from labtui.engine.command.engine import CommandEngine
from labtui.engine.events import (
    Event,
    Paused,
    PreconditionProgress,
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    StepFinished,
    StepStarted,
)
from labtui.engine.guardian import Guardian
from labtui.engine.registry import get_engine
from labtui.engine.rundir import RunDirectory, TargetDir, run_dir_name, test_file_name
from labtui.engine.testfile import DeviceHold, TestFile, drop_file_cache, o_direct_supported, write_test_file
from labtui.errors import LabtuiError
from labtui.machine import devices, guard
from labtui.machine.drive import DriveReader, run_reader
from labtui.machine.paths import missing_refusal, nearest_existing
from labtui.model.profile import Profile, Step
from labtui.model.result import (
    DriveFacts,
    EngineInfo,
    Precondition,
    Preparation,
    RunResult,
    StepResult,
    TargetInfo,
    new_result_id,
    now,
    step_pass,
)
from labtui.params import hold_paths, resolve
from labtui.results.store import Store
from labtui.run import leftovers, target_lock
from labtui.run.drive_watch import EVERY, DriveWatch
from labtui.run.target_lock import TargetLock
from labtui.settings import EngineSettings
from labtui.units import format_size

MEMORY_FS = {"tmpfs", "ramfs", "devtmpfs"}


class _End:
    """The last item of a run's event queue: the stream ends there."""


_END = _End()
# How the run hands each event (and, last, _END) to the stream `Runner.events` yields.
Emit = Callable[[Event | _End], None]


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


class Runner:
    def __init__(self, profile: Profile, target: str | os.PathLike, store: Store, options: RunOptions | None = None):
        self.profile = profile
        self.target_arg = str(target)
        self.store = store
        self.options = options or RunOptions()
        # Engines read their settings (fio_path, diskspd_path) from the store's config.toml, unless
        # the options bring them (the TUI's, read once).
        settings = self.options.engine_settings
        problems: list[str] = []
        if settings is None:
            found = store.read_settings()
            settings, problems = found.settings.engines, found.engine_problems
        self.engine: Engine = get_engine(self.options.engine, settings)
        self.commands: CommandEngine | None = None  # runs the command steps, once parameters are resolved
        self.params: dict[str, str] = {}  # every parameter's value for this run (defaults included)
        # Until the run starts, an id for the preflight's test file name; the run takes its own as it
        # starts (a prompt may have waited minutes between the two: the id tells when it ran).
        self.run_id = new_result_id()
        self.plan: Plan | None = None
        self.result: RunResult | None = None
        self.saved_path: Path | None = None
        self.save_error: str | None = None  # why the result could not be saved (it is still in self.result)
        # time.monotonic() when the run's outcome was decided: a cancel asked for before it
        # (a key still queued in a busy UI) must still make the run aborted.
        self.ended_at: float | None = None
        # Why the consumer is cancelling the run ("stopped by SIGHUP"), set by the front end before it
        # cancels: the aborted result's error. None: the person running it cancelled it.
        self.stop_reason: str | None = None
        self._warnings: list[str] = list(problems)  # a setting of the wrong type, ignored: the run says so
        self._aborted_step: StepResult | None = None  # what the step cancelled mid-way had measured
        self.stopped_step: str | None = None  # which step a cancel stopped, how far in, when none of it is kept
        self._preparation: Preparation | None = None  # the test file's writing, once done
        self._precondition: Precondition | None = None  # the sequential passes, once done
        self._cancel_prepare = threading.Event()
        self._hold: TestFile | None = None  # the test file this run made, once made
        self._lease: guard.DeviceLease | None = None  # the raw device cleared for writing, held until the end
        self._lock: TargetLock | None = None  # the disk's lock this run took (not a caller's), held until the end
        self._guardian: Guardian | None = None  # cleans up should this process be killed mid-run
        self._marker: leftovers.RunMarker | None = None  # tells the next run about the test file, if this one is killed
        self._watch = DriveWatch(None)  # the drive, read around and during each step (made by preflight)
        self._drive_facts: DriveFacts | None = None  # the drive as preflight read it: the first step's "before"
        # The target directory preflight checked, held open: the run is bound to it, not to its name
        # (labtui.engine.rundir); labtui's own folder there once made; the run's own directory in it.
        self._target_dir: TargetDir | None = None
        self._folder: TargetDir | None = None
        self._run_dir: RunDirectory | None = None
        self._params_held: dict[str, int] = {}  # the file and directory parameters, opened by preflight

    # ------------------------------------------------------------------ preflight

    def preflight(self) -> Plan:
        """Check the run can go ahead, before anything is written. Raises LabtuiError.

        A run that passes holds the disk's lock (and a raw device's lease) until it ends, or until
        `close()` where it will not start after all; one that does not lets go of them at once.
        """
        if self.plan is not None:
            return self.plan
        try:
            plan = self._preflight()
            self._check_drive(plan)
            return plan
        except BaseException:
            self.close()
            raise

    def _check_drive(self, plan: Plan) -> None:
        """A drive that reports a critical warning (spare below its threshold, read-only media, a critical
        temperature) is not written to unless the person insists (--force): the run would wear a failing
        drive further, and its figures would be a failing drive's."""
        disk = plan.target.disk
        reader = self.options.drive(disk) if self.options.drive is not None and disk else None
        self._watch = DriveWatch(reader, self.options.drive_every, disk)
        facts = reader.facts() if reader is not None else None
        self._drive_facts = facts
        if facts is None or not facts.critical_warning:
            return
        message = (f"the drive under {plan.target.path} ({disk}) reports a critical warning: {facts.critical_warning} "
                   f"({facts.source})")
        if not self.options.force:
            raise LabtuiError(f"{message}; nothing was written. Back up what is on it; --force measures it anyway")
        self._warnings.append(f"{message}: measured anyway (--force)")

    def _preflight(self) -> Plan:
        self.profile.validate()
        self.store.check_writable()  # a result that cannot be saved must be known before the run, not after
        running = self._running_dir()
        if running is not None:
            # A run killed earlier may have left its test file (taking the free space this one needs).
            self._warnings += leftovers.clean_up(running)
        self.params = resolve(self.profile.params, self.options.params, f"profile {self.profile.name}")
        self.commands = CommandEngine(self.engine.settings, self.params)
        self._close_params()
        # The file and directory parameters as they were checked, held open: the steps get these.
        self.commands.held = self._params_held = hold_paths(self.profile.params, self.params)
        self.commands.run_dir_name = run_dir_name(self.run_id)
        path = Path(os.path.abspath(os.path.expanduser(self.target_arg)))
        if devices.is_block_device(path):
            # The safety guard speaks first: refusing a destructive write matters more than a
            # missing engine. A run already measuring the device comes before it: so does its lease.
            self._hold_disk(path)
            plan = self._preflight_raw(path)
            self.engine.check_available()
            self._check_limits(plan)
            self.plan = plan
            return self.plan
        if self.profile.needs_test_file:
            self.engine.check_available()
        command_steps = [(i, s) for i, s in enumerate(self.profile.steps) if not s.is_io]
        if command_steps:
            self.commands.check_available()
            for i, step in command_steps:
                self.commands.check_step(step, path, f"steps[{i + 1}]")
        existing, missing = nearest_existing(path)  # LabtuiError for a path that cannot be looked at
        if not missing and not existing.is_dir():
            kind = "a file" if existing.is_file() else "not a directory"
            raise LabtuiError(f"{path} exists and is {kind}: give a directory (labtui creates its own test file there)")
        if not existing.is_dir():
            raise LabtuiError(f"{existing} is not a directory")
        holder = devices.volume_of(existing)
        if holder is not None and holder.filesystem in devices.NOISE_FS:
            # /proc, /sys, /dev: "0 B free" or "permission denied" would send the person the wrong way.
            raise LabtuiError(f"{existing} is on {holder.filesystem}, a kernel file system with no disk behind it: "
                              "give a directory on the disk to test")
        try:
            st = os.statvfs(existing)
        except OSError as exc:
            raise LabtuiError(f"cannot inspect {existing}: {exc.strerror}") from exc
        # Read-only first: access() refuses writing there too, and "permission denied" would send
        # the person after file modes instead of the mount.
        if st.f_flag & getattr(os, "ST_RDONLY", 1):
            volume = devices.volume_of(existing)
            if volume is not None and volume.mount_point == str(existing):
                what = f"{existing} is mounted read-only"
            elif volume is not None:
                what = f"{existing} is on {volume.mount_point}, which is mounted read-only"
            else:
                what = f"{existing} is on a read-only file system"
            raise LabtuiError(f"{what}: give a target on a writable file system (or remount it read-write)")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise LabtuiError(f"permission denied: cannot write in {existing}")
        # A missing directory (but labtui's own folder at a mount point) is refused: a typo, most often.
        refusal = missing_refusal(path, missing, holder.mount_point if holder else None)
        if refusal:
            raise LabtuiError(refusal)
        # From here the run is bound to the directory checked, not to its name: everything it makes
        # is made through this descriptor (a link swapped in at the prompt redirects nothing).
        try:
            self._target_dir = TargetDir.open(existing)
        except OSError as exc:
            raise LabtuiError(f"cannot open {existing}: {_reason(exc)}") from exc
        # A target that cannot be used at all is said above, before the lock: it is the person's to
        # fix, not a reason to wait. The lock comes before the free space: another run's test file
        # takes some, and "not enough free space" would send the person the wrong way.
        self._hold_disk(path)
        st = os.fstatvfs(self._target_dir.fd)
        shortfall = self.profile.space_shortfall(st.f_bavail * st.f_frsize)
        if shortfall:
            raise LabtuiError(f"not enough free space in {existing}: {shortfall}")
        target = devices.target_info(path)
        # A memory file system may accept O_DIRECT (tmpfs does since Linux 6.6), yet its files
        # live in the page cache: there is no disk to bypass the cache to.
        in_memory = target.filesystem in MEMORY_FS
        plan = Plan(
            target=target,
            directory=path,
            test_file=self._test_file_path(path) if self.profile.needs_test_file else None,
            created_dirs=list(reversed(missing)),
            direct_io=o_direct_supported(existing, dir_fd=self._target_dir.fd) and not in_memory,
            file_size=self.profile.file_size,
        )
        self._check_limits(plan)
        # What was found (the disk, its lock, the free space) is of the directory held only if its
        # name led there all along: one swapped meanwhile is refused, not measured as the other.
        moved = self._target_dir.moved()
        if moved:
            raise LabtuiError(f"{existing} changed while labtui checked it ({moved}): nothing was written; "
                              "check who else can write its parent directory, then try again")
        self.plan = plan
        return self.plan

    def _test_file_path(self, directory: Path) -> Path:
        """Where the test file is, as people read it: in the run's own directory in `directory`."""
        return directory / run_dir_name(self.run_id) / test_file_name(self.run_id)

    def _hold_disk(self, path: Path) -> None:
        """From here to the run's end no other labtui run measures the disk of `path`: TargetBusy if one does."""
        held = self.options.target_lock
        if held is not None and held.fd >= 0 and held.key == target_lock.target_key(path):
            return  # the caller's, held across its runs
        self._lock, problem = target_lock.hold(path)
        if problem is not None and problem not in self._warnings:
            self._warnings.append(problem)

    def _check_limits(self, plan: Plan) -> None:
        """Refuse a step the machine cannot start (threads, kernel AIO events) before any byte is written."""
        for step in self.profile.steps:
            if not step.is_io:
                continue
            why = self.engine.refusal(step)
            if why is not None:
                raise LabtuiError(f"step {step.name!r}: {why}")
            running = replace(step, cache="on") if step.cache == "off" and not plan.direct_io else step
            limits.check(self.engine.needs(running), step.name, step.threads, step.outstanding)

    def _preflight_raw(self, path: Path) -> Plan:
        """A raw device: reading is fine; writing only when the guard clears it."""
        if any(not s.is_io for s in self.profile.steps):
            raise LabtuiError(f"{path} is a block device: command steps need a directory on a mounted file system")
        writes = self.profile.writes
        facts, lease = guard.clear_raw_target(path, writes=writes, confirm=self.options.destroy_data,
                                              consented=self.options.consented)
        size = min(self.profile.file_size, facts.size_bytes or 0)
        largest = max(s.block_size for s in self.profile.steps)
        if size < largest:
            if lease is not None:
                lease.close()
            raise LabtuiError(f"{path} is smaller than one block ({format_size(largest)})")
        # Held from here to the end of the run: nobody can mount or mkfs it after the consent.
        self._lease = lease
        if not writes:
            self._warnings.append(
                f"read-only run on raw device {path}: parts never written may be answered without touching "
                "the media (trimmed or thin-provisioned blocks), which flatters read figures"
            )
        return Plan(
            target=devices.target_info(path),
            directory=path.parent,
            # The device itself, not a link to it: a re-pointed link cannot redirect the engines.
            test_file=Path(facts.path),
            created_dirs=[],
            direct_io=o_direct_supported(path.parent, device=path),
            raw_device=True,
            file_size=size,
            device=facts,
        )

    # ------------------------------------------------------------------ running

    async def events(self) -> AsyncIterator[Event]:
        """Run the profile, yielding events. Cancelling the consumer aborts the run cleanly."""
        plan = self.preflight()
        queue: asyncio.Queue[Event | _End] = asyncio.Queue()
        task = asyncio.create_task(self._run(plan, queue.put_nowait), name=f"labtui-run-{self.run_id}")
        # However the run ends (even by a bug before its last event), the stream ends with it.
        task.add_done_callback(lambda _task: queue.put_nowait(_END))
        try:
            while True:
                event = await queue.get()
                if isinstance(event, _End):
                    break
                yield event
            await task  # re-raises what the run raised, if anything
        finally:
            if not task.done():
                task.cancel()
                # Wait for the run's own cleanup (workers reaped, file removed, result saved).
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.shield(asyncio.wait({task}))

    async def run(self) -> RunResult:
        """Run to the end, discarding events; returns the saved result."""
        async for _ in self.events():
            pass
        assert self.result is not None
        return self.result

    async def _run(self, plan: Plan, emit: Emit) -> None:
        started = now()
        self.run_id = new_result_id(started)
        if plan.test_file is not None and not plan.raw_device:
            plan.test_file = self._test_file_path(plan.directory)
        if self.commands is not None:
            self.commands.run_dir_name = run_dir_name(self.run_id)
        # A profile of command steps only runs no I/O engine: say so rather than name an idle one.
        if self.profile.needs_test_file:
            engine_info = EngineInfo(self.engine.name, self.engine.version())
        else:
            engine_info = EngineInfo(CommandEngine.name)
        passes = self.profile.passes()
        steps_total = len(passes)
        guardian = self._guardian = Guardian.start()
        subproc.watcher.set(guardian)  # this task's engine processes die with labtui
        emit(RunStarted(self.run_id, self.profile, plan.target, engine_info, steps_total, self.profile.planned_seconds))
        results: list[StepResult] = []
        status, error = "completed", None
        cancelled = False
        try:
            if not plan.raw_device:
                self._make_run_dir(plan, emit)
            for message in self._warnings:
                emit(RunWarning(message))
            if plan.test_file is not None and not plan.raw_device:
                await self._prepare(plan, emit)
            if self.profile.precondition:
                await self._precondition_target(plan, emit)
            for index, (_position, step, repetition) in enumerate(passes):
                pause = self.profile.pause_before(step) if index else 0.0
                if pause > 0:
                    # Idle between passes (CrystalDiskMark's interval, the post's script's 5 s): the
                    # drive settles, nothing is measured.
                    emit(Paused(pause, index))
                    await asyncio.sleep(pause)
                hold = self._hold or self._lease
                if hold is not None and step.is_io:
                    hold.verify(f"before step {index + 1}")
                if self._lease is not None and step.writes:
                    self._lease.note_writes(plan.file_size)
                step = self._effective_step(step, plan, emit)
                step_result = await self._run_step(step, plan, index, steps_total, repetition, emit)
                if repetition > 0:
                    results.append(step_result)  # a discarded preparing pass (0) is shown live, never kept
                if step_result.status != "completed":
                    status, error = "failed", step_result.error or f"step {step.name!r} failed"
                    break
                if step.cooldown > 0:
                    await asyncio.sleep(step.cooldown)
        except asyncio.CancelledError:
            cancelled = True
            status, error = "aborted", self.stop_reason or "cancelled by the user"
            if self._aborted_step is not None and self._aborted_step.repetition > 0:
                results.append(self._aborted_step)
            elif self.stopped_step is not None:
                self._warnings.append(self.stopped_step)
            raise
        except (LabtuiError, OSError, InterruptedError) as exc:
            status, error = "failed", _reason(exc)
        except Exception as exc:  # noqa: BLE001 - an engine bug must still leave a saved, failed result
            status, error = "failed", f"internal error: {type(exc).__name__}: {exc}"
        finally:
            self.ended_at = time.monotonic()
            self._cleanup(plan)
            result = RunResult(
                id=self.run_id,
                status=status,
                started=started,
                ended=now(),
                host=devices.host_info(),
                target=plan.target,
                engine=engine_info,
                profile=self.profile,
                steps=tuple(results),
                tags=tuple(self.options.tags),
                error=error,
                warnings=tuple(self._warnings),
                params=dict(self.params),
                preparation=self._preparation,
                precondition=self._precondition,
            )
            self.result = result
            try:
                result, self.saved_path = self.store.save_result(result)
                self.result = result
            except LabtuiError as exc:
                self.save_error = str(exc)
            except Exception as exc:  # noqa: BLE001 - the measured result must still reach the person
                self.save_error = f"internal error: {type(exc).__name__}: {exc}"
            guardian.close()  # everything is cleaned up: it can go
            if not cancelled:
                if error:
                    emit(RunWarning(f"run {status}: {error}"))
                if self.save_error is not None:
                    emit(RunWarning(f"the result was not saved: {self.save_error}"))
                emit(RunFinished(result, self.saved_path))
                emit(_END)

    def _make_run_dir(self, plan: Plan, emit: Emit) -> None:
        """labtui's own folder (if it is to be made) and the run's own directory, through the target
        directory's descriptor; the marker that tells the next run about them should this one be killed."""
        target, guardian = self._target_dir, self._guardian
        assert target is not None and guardian is not None  # preflight opened it; _run started the guardian
        moved = target.moved()
        if moved:
            message = (f"{target.path} changed after it was checked ({moved}): the run goes on in the directory "
                       "that was checked, not where its name leads now")
            self._warnings.append(message)
            emit(RunWarning(message))
        where = target
        if plan.created_dirs:
            try:
                where = self._folder = target.make_folder(plan.directory.name)
            except OSError as exc:
                raise LabtuiError(f"cannot create {plan.directory}: {_reason(exc)}") from exc
            guardian.watch_dir(plan.directory.name, target.fd, *_identity(where.fd))
        name = run_dir_name(self.run_id)
        running = self._running_dir()
        if running is not None:
            try:
                self._marker = leftovers.RunMarker.create(running, self.run_id, plan.directory / name)
                guardian.watch_file(self._marker.path, *self._marker.identity(), marker=True)
            except OSError as exc:
                message = (f"cannot note the run in {running} ({_reason(exc)}): should labtui be killed, the next "
                           f"run will not know that {plan.directory / name} is its directory")
                self._warnings.append(message)
                emit(RunWarning(message))
        try:
            self._run_dir = RunDirectory.create(where, name)
        except FileExistsError:
            raise LabtuiError(f"cannot create {plan.directory / name}: something of that name is already there; "
                              "labtui did not make it and leaves it alone") from None
        except OSError as exc:
            raise LabtuiError(f"cannot create {plan.directory / name}: {_reason(exc)}") from exc
        if self._marker is not None:
            self._marker.record_dir(self._run_dir.dev, self._run_dir.ino)
        guardian.watch_dir(name, where.fd, self._run_dir.dev, self._run_dir.ino)

    async def _prepare(self, plan: Plan, emit: Emit) -> None:
        assert plan.test_file is not None
        guardian = self._guardian
        assert guardian is not None  # _run started it
        total = plan.file_size
        begun = time.monotonic()
        loop = asyncio.get_running_loop()

        def progress(done: int) -> None:
            loop.call_soon_threadsafe(emit, PrepareProgress(done, total, time.monotonic() - begun))

        run_dir = self._run_dir
        assert run_dir is not None  # _make_run_dir made it
        try:
            self._hold = TestFile.create(plan.test_file, dir_fd=run_dir.fd)
            if self._marker is not None:
                self._marker.record(self._hold.dev, self._hold.ino, plan.file_size)
            guardian.watch_file(plan.test_file, self._hold.dev, self._hold.ino, dir_fd=run_dir.fd)
        except FileExistsError:
            what = "a symbolic link" if plan.test_file.is_symlink() else "a file"
            raise LabtuiError(
                f"cannot create the test file {plan.test_file}: {what} of that name is already there; "
                "labtui did not create it and leaves it alone"
            ) from None
        except OSError as exc:
            raise LabtuiError(f"cannot create the test file {plan.test_file}: {_reason(exc)}") from exc
        emit(PrepareProgress(0, total, 0.0))
        direct = await self._write_whole(self._hold, total, plan.direct_io, progress, f"the test file {plan.test_file}")
        # Creating the file to its flush: what a person waits for before the first step.
        self._preparation = Preparation(total, round(time.monotonic() - begun, 6), direct)

    async def _write_whole(self, hold: TestFile | DeviceHold, size: int, direct: bool, progress: Callable[[int], None],
                           what: str) -> bool:
        """Write `size` bytes of random data sequentially over `hold` (in a thread); whether with O_DIRECT."""
        worker = asyncio.ensure_future(
            asyncio.to_thread(write_test_file, hold, size, direct=direct, progress=progress, cancel=self._cancel_prepare)
        )
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            # The writer thread cannot be killed; tell it to stop and wait (it checks per 4 MiB).
            self._cancel_prepare.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(worker), timeout=1.5)
            raise
        except OSError as exc:
            raise LabtuiError(f"cannot write {what}: {_reason(exc)}") from exc

    async def _precondition_target(self, plan: Plan, emit: Emit) -> None:
        """SNIA's preconditioning: the whole test file (or the device's share) written sequentially,
        `precondition` times over, before the first step; each pass's time is kept."""
        hold = self._hold or self._lease
        assert hold is not None and plan.test_file is not None
        passes, size = self.profile.precondition, plan.file_size
        total = passes * size
        hold.verify("before preconditioning")
        if self._lease is not None:
            self._lease.note_writes(size)
        loop = asyncio.get_running_loop()
        begun = time.monotonic()
        pass_seconds: list[float] = []
        target: TestFile | guard.DeviceLease | _DeviceWriter = hold
        if self._lease is not None:
            # The lease holds the device read-only; the writes go through a descriptor of their
            # own, checked to be that very device (what the engines' workers check too).
            target = _DeviceWriter.open(self._lease)
        try:
            direct = await self._precondition_passes(plan, emit, target, passes, size, total, loop, begun, pass_seconds)
        finally:
            if target is not hold:
                target.close()
        seconds = round(time.monotonic() - begun, 6)
        self._precondition = Precondition(passes, total, seconds, tuple(pass_seconds), direct)
        emit(PreconditionProgress(total, total, seconds, passes, passes))

    async def _precondition_passes(self, plan: Plan, emit: Emit, target: TestFile | guard.DeviceLease | _DeviceWriter,
                                   passes: int, size: int, total: int, loop: asyncio.AbstractEventLoop, begun: float,
                                   pass_seconds: list[float]) -> bool:
        """Every pass, each one's time in `pass_seconds`; whether all went with O_DIRECT."""
        direct = True
        emit(PreconditionProgress(0, total, 0.0, passes))
        for done_passes in range(passes):
            before = done_passes * size

            def progress(done: int, before: int = before, done_passes: int = done_passes) -> None:
                loop.call_soon_threadsafe(emit, PreconditionProgress(
                    before + done, total, time.monotonic() - begun, passes, done_passes))

            started = time.monotonic()
            direct = await self._write_whole(target, size, plan.direct_io, progress, str(plan.test_file)) and direct
            pass_seconds.append(round(time.monotonic() - started, 6))
        return direct

    def _effective_step(self, step: Step, plan: Plan, emit: Emit) -> Step:
        """The step as it will really run: cache off falls back to on where O_DIRECT is refused."""
        if step.is_io and step.cache == "off" and not plan.direct_io:
            fs = plan.target.filesystem or "this file system"
            why = "keeps its files in memory" if fs in MEMORY_FS else "refuses O_DIRECT"
            message = (
                f"{fs} at {plan.directory} {why}: cache-off steps cannot bypass the page cache, so they run "
                f"with the page cache ON and are recorded as cache = \"on\"; their numbers measure memory, not a disk"
            )
            if message not in self._warnings:
                self._warnings.append(message)
                emit(RunWarning(message))
            return replace(step, cache="on")
        if step.is_io and step.cache == "on" and self._hold is not None:
            drop_file_cache(self._hold)
        return step

    async def _run_step(self, step: Step, plan: Plan, index: int, total: int, repetition: int, emit: Emit) -> StepResult:
        hold = (self._hold or self._lease) if step.is_io else None
        job = Job(
            path=plan.test_file or plan.directory,
            file_size=plan.file_size,
            raw_device=plan.raw_device,
            index=index,
            total=total,
            repetition=repetition,
            interval=self.options.interval,
            workdir=plan.directory,
            disk=plan.target.disk,
            params=dict(self.params),
            hold=hold,
            judge=self.options.judge,
            run_id=self.run_id,
            open_path=self._hold.bound_path if hold is not None and hold is self._hold else None,
            run_dir=self._run_dir,
        )
        engine = self._engine_for(step)
        command_line = engine.command_line(step, job.path, job.file_size)
        watch = self._watch
        before, self._drive_facts = self._drive_facts or await watch.facts(), None
        emit(StepStarted(index, total, step, repetition, command_line))
        finished: StepResult | None = None
        began, phase = time.monotonic(), None
        measured_from: float | None = None  # time.monotonic() when measuring began (the drive's readings' clock)
        try:
            async with watch.watching(index, emit):
                async for event in engine.run_step(step, job):
                    if isinstance(event, StepFinished):
                        finished = event.result  # sent below, with the drive in it
                        continue
                    if isinstance(event, SampleTaken):
                        phase = event.phase
                        if phase == "measure" and measured_from is None:
                            measured_from = time.monotonic() - event.sample.t
                        if phase == "measure":
                            watch.interval_ended()
                    elif isinstance(event, RunWarning) and event.message not in self._warnings:
                        self._warnings.append(event.message)
                    emit(event)
        except asyncio.CancelledError:
            # What the engine kept of the step: aborted part-way, or whole where the cancel came
            # during its cleanup (a command step's cleanup command).
            self._aborted_step = engine.partial_result
            self._warnings += [w for w in engine.partial_warnings if w not in self._warnings]
            if self._aborted_step is None:
                self.stopped_step = stopped_text(step, index, total, repetition, time.monotonic() - began, phase)
            raise
        except (LabtuiError, OSError) as exc:
            finished = StepResult(step=step, status="failed", repetition=repetition, command_line=command_line,
                                  error=_reason(exc))
        if finished is None:
            finished = StepResult(step=step, status="failed", repetition=repetition, command_line=command_line,
                                  error="the engine ended without a result")
        finished = watch.finish(finished, measured_from, before, await watch.facts())
        emit(StepFinished(index, finished))
        for drop in finished.drops:  # said as it happens; the result keeps it with its step
            emit(RunWarning(f"step {step_pass(step.name, repetition)}: the throughput dropped {drop_words(drop)} "
                            f"({drop.evidence})"))
        changed = job.hold.check() if job.hold is not None else None
        if changed is not None and finished.status == "completed":
            # An engine that opens its target by name (fio, DiskSpd) may have followed the new name.
            what = "the device cleared for it" if plan.raw_device else "the file labtui created"
            finished = replace(finished, status="failed", error=(
                f"{job.path} stopped being {what} during the step ({changed}): the engine may have written "
                "elsewhere, and the figures are not the target's"))
        if finished.engine_bound:
            message = cpubound.warning(step.name, repetition, finished.engine_bound, engine.name,
                                       finished.step.is_io and finished.step.cache == "on")
            if message not in self._warnings:
                self._warnings.append(message)
                emit(RunWarning(message))
        state = finished.steady_state
        if state is not None and not state.attained and finished.status == "completed":
            # Said where a script looks (the result's warnings), as a CPU-bound step is: its figures are
            # no steady state's, though the step completed.
            message = (f"step {step_pass(step.name, repetition)} was {state.verdict}: its figures are the last "
                       f"{state.window} rounds', not a steady state's")
            self._warnings.append(message)
            emit(RunWarning(message))
        return finished

    def _engine_for(self, step: Step) -> Engine:
        if step.is_io:
            return self.engine
        assert self.commands is not None  # made by preflight
        return self.commands

    def _running_dir(self) -> Path:
        return self.store.running_dir

    def close(self) -> None:
        """Let go of what preflight holds (the raw device, the disk's lock, the target directory) when the
        run will not start after all."""
        self._close_lease()
        self._release_disk()
        self._close_target()

    def _close_target(self) -> None:
        for held in (self._run_dir, self._folder, self._target_dir):
            if held is not None:
                held.close()
        self._run_dir = self._folder = self._target_dir = None
        self._close_params()

    def _close_params(self) -> None:
        held, self._params_held = self._params_held, {}
        if self.commands is not None and self.commands.held is held:
            self.commands.held = {}  # never a descriptor number closed here (it may be reused)
        for fd in held.values():
            with contextlib.suppress(OSError):
                os.close(fd)

    def _close_lease(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.close()

    def hand_over_lock(self) -> TargetLock | None:
        """The disk's lock this run's preflight took, now the caller's: held across its runs (a check's
        passes, given them as `RunOptions.target_lock`) until it releases it. None if none was taken."""
        lock, self._lock = self._lock, None
        return lock

    def _release_disk(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    def _cleanup(self, plan: Plan) -> None:
        try:
            self._clean_up_files(plan)
        finally:
            self._close_target()
            self._release_disk()  # last: removing the test file is the run's I/O too

    def _clean_up_files(self, plan: Plan) -> None:
        self._cancel_prepare.set()
        self._close_lease()
        hold, self._hold = self._hold, None
        if hold is not None:
            try:
                left = None if self.options.keep_file else hold.remove()
            except OSError as exc:
                left = _reason(exc)
            finally:
                hold.close()
            if left is not None:
                # Only the file this run made is ever removed: what stands under its name now is not.
                self._warnings.append(f"did not remove {hold.path}: it is no longer the file labtui created ({left}); "
                                      "it is left as it is")
            if self._guardian is not None:
                self._guardian.forget_file(hold.path, dir_fd=hold.dir_fd)
        kept = self._remove_dirs(plan)
        marker, self._marker = self._marker, None
        if marker is not None and not kept:
            marker.remove()
            if self._guardian is not None:
                self._guardian.forget_file(marker.path, marker=True)
        elif marker is not None:
            marker.abandon()  # what it names is still there: the next run looks again

    def _remove_dirs(self, plan: Plan) -> bool:
        """The run's own directory, then labtui's folder if this run made it (each only once empty, and
        only if its name still leads to it); whether the run's directory stays (kept or not removable)."""
        run_dir, guardian = self._run_dir, self._guardian
        if run_dir is None:
            return False
        if self.options.keep_file and test_file_name(self.run_id) in run_dir.leftovers():
            if guardian is not None:  # kept on request, in its directory: the person's now
                guardian.forget_dir(run_dir.name)
                if self._folder is not None:
                    guardian.forget_dir(plan.directory.name)
            return False
        left = run_dir.remove()
        if left is not None:
            self._warnings.append(f"did not remove {run_dir.path}: {left}; it is left as it is")
        elif guardian is not None:
            guardian.forget_dir(run_dir.name)
        folder = self._folder
        if folder is not None and left is None:
            parent = self._target_dir
            assert parent is not None
            with contextlib.suppress(OSError):
                if _identity_at(parent.fd, plan.directory.name) == (folder.dev, folder.ino):
                    os.rmdir(plan.directory.name, dir_fd=parent.fd)  # only if still empty: never what someone put there
            if guardian is not None:
                guardian.forget_dir(plan.directory.name)
        return left is not None


class _DeviceWriter:
    """A write descriptor of the raw device a lease holds, opened without following a re-pointed name."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @classmethod
    def open(cls, lease: guard.DeviceLease) -> _DeviceWriter:
        lease.verify("before preconditioning")
        fd = os.open(lease.path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            if os.fstat(fd).st_rdev != lease.rdev:
                raise LabtuiError(f"refusing to write to {lease.path}: it is no longer the device cleared for it")
        except BaseException:
            os.close(fd)
            raise
        return cls(fd)

    def close(self) -> None:
        os.close(self.fd)


def stopped_text(step: Step, index: int, total: int, repetition: int, seconds: float, phase: str | None) -> str:
    """What the result says of the step a cancel stopped, when the engine keeps nothing of it: its figures
    would be of a part of the step (with its warm-up, or with workers still starting), not of the step."""
    which = f"step {index + 1} of {total}, {step_pass(step.name, repetition)}"
    where = {"warmup": "in its warm-up", "measure": "while measuring"}.get(phase or "", "before its first interval")
    return f"{which} was stopped after {seconds:.1f} s, {where}: nothing of it is kept, only the steps that finished"


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _identity_at(dir_fd: int, name: str) -> tuple[int, int]:
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    return st.st_dev, st.st_ino


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror}{where}"
    return str(exc) or type(exc).__name__
