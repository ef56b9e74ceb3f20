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
from dataclasses import replace
from pathlib import Path

from labtui.analysis.drops import drop_words
from labtui.engine import cpubound, subproc
from labtui.engine.base import Engine, Job
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
from labtui.engine.testfile import DeviceHold, TestFile, drop_file_cache, write_test_file
from labtui.errors import LabtuiError
from labtui.machine import devices, guard
from labtui.model.profile import Profile, Step
from labtui.model.result import (
    DriveFacts,
    EngineInfo,
    Precondition,
    Preparation,
    RunResult,
    StepResult,
    new_result_id,
    now,
    step_pass,
)
from labtui.results.store import Store
from labtui.run import leftovers
from labtui.run.drive_watch import DriveWatch
from labtui.run.options import Plan, RunOptions
from labtui.run.preflight import MEMORY_FS, Preflight, error_reason
from labtui.run.target_lock import TargetLock


class _End:
    """The last item of a run's event queue: the stream ends there."""


_END = _End()
# How the run hands each event (and, last, _END) to the stream `Runner.events` yields.
Emit = Callable[[Event | _End], None]


class Runner(Preflight):
    """One run of a profile on a target: preflight (labtui.run.preflight), then its events."""

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
            if found.broken is not None:  # a FIFO, another user's file, bad TOML: the engines' defaults, said
                problems = [f"{found.broken}; the run used the engines' defaults (fio and DiskSpd from PATH)", *problems]
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
            status, error = "failed", error_reason(exc)
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
                raise LabtuiError(f"cannot create {plan.directory}: {error_reason(exc)}") from exc
            guardian.watch_dir(plan.directory.name, target.fd, *_identity(where.fd))
        name = run_dir_name(self.run_id)
        running = self._running_dir()
        if running is not None:
            try:
                self._marker = leftovers.RunMarker.create(running, self.run_id, plan.directory / name)
                guardian.watch_file(self._marker.path, *self._marker.identity(), marker=True)
            except OSError as exc:
                message = (f"cannot note the run in {running} ({error_reason(exc)}): should labtui be killed, the next "
                           f"run will not know that {plan.directory / name} is its directory")
                self._warnings.append(message)
                emit(RunWarning(message))
        try:
            self._run_dir = RunDirectory.create(where, name)
        except FileExistsError:
            raise LabtuiError(f"cannot create {plan.directory / name}: something of that name is already there; "
                              "labtui did not make it and leaves it alone") from None
        except OSError as exc:
            raise LabtuiError(f"cannot create {plan.directory / name}: {error_reason(exc)}") from exc
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
            raise LabtuiError(f"cannot create the test file {plan.test_file}: {error_reason(exc)}") from exc
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
            raise LabtuiError(f"cannot write {what}: {error_reason(exc)}") from exc

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
                                  error=error_reason(exc))
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
                left = error_reason(exc)
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
