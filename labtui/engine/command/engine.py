"""Command steps: time a shell command (e.g. a ZPAQ extraction) with the target disk's counters alongside.

A step of kind "command" runs, in its working directory (the target directory unless it says
otherwise): an optional setup command, an optional page-cache drop, the timed command, an
optional cleanup. Only the command is timed; when `sync` is on (the default) the file systems
are flushed before the clock stops, so data the command left in memory counts as written, as it
would on a machine with less RAM. Meanwhile the target disk's kernel counters (diskstats) are
sampled every interval: they give the live view and the step's bytes read and written.

Every command runs as `/bin/sh -c TEXT` in a process group of its own: the time limit and
cancellation stop the whole group (the command's children included), and anything the command
leaves running when it exits is stopped too. The cleanup command runs whatever happened, and
`{scratch}` (a fresh directory for the step) is removed with its contents afterwards.

This is not an I/O engine and is not in the engine registry (`-e command` does not exist): the
runner hands it the command steps of a profile, whatever engine runs the I/O steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import os
import pwd
import resource
import secrets
import shutil
import threading
import time
from asyncio.subprocess import Process
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labtui.engine import subproc
from labtui.engine.base import Engine, EngineUnavailable, Job
from labtui.engine.cpu import CpuMeter
from labtui.engine.diskstats import DiskSampler, disk_counters
from labtui.engine.events import Event, RunWarning, SampleTaken, StepFinished
from labtui.engine.rundir import SCRATCH_PREFIX, RunDirectory, fd_path
from labtui.errors import ValidationError
from labtui.machine import programs
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, Sample, StepResult
from labtui.params import env_name, expand, placeholders
from labtui.printable import printable
from labtui.settings import EngineSettings
from labtui.units import format_duration

SHELL = "/bin/sh"
TAIL_LINES = 20  # output lines kept with a failed step
TAIL_CHARS = 4000
DROP_CACHES = "/proc/sys/vm/drop_caches"
READER_GRACE = 2.0  # seconds to wait for the output pipe to close once the command is gone
INSTALL_HINTS = {"zpaq": "apt-get install zpaq (Debian, Ubuntu) or dnf install zpaq (Fedora)"}


@dataclass(frozen=True)
class Commands:
    """A step's texts with the placeholders filled in, for one run.

    As they run, {target} and {scratch} (and the working directory) lead through labtui's descriptors
    of the target directory and the run's own directory (labtui.engine.rundir: /proc/<pid>/fd/N), so a
    name re-pointed meanwhile redirects nothing; `shown` is the command with the names people know.
    """

    command: str
    setup: str
    cleanup: str
    workdir: Path
    scratch: Path | None  # the fresh directory made for the step (as people read its path), if any text uses {scratch}
    shown: str = ""
    # Every placeholder's value as LABTUI_PARAM_<name>: where a command needs a value inside quotes
    # or hands it to another shell, it takes it from there (labtui.params says why).
    env: dict[str, str] = field(default_factory=dict)
    # The file and directory parameters the step uses, handed to it as what preflight opened (see links).
    links: tuple[str, ...] = ()


@dataclass
class _Outcome:
    """What is known of a step so far; becomes its StepResult whatever happens."""

    step: Step
    repetition: int
    command_line: str
    status: str = "completed"
    error: str | None = None
    wall_seconds: float | None = None
    exit_status: int | None = None
    output: str = ""
    samples: list[Sample] = field(default_factory=list)
    cpu_percent: float | None = None
    cpu_seconds: float | None = None
    warnings: list[str] = field(default_factory=list)
    made_scratch: bool = False  # only a scratch directory this step made is removed
    made_links: bool = False  # the same for its parameters' links
    starting: bool = False  # the command's process is being started (its setup is done)

    def fail(self, error: str, output: str = "") -> None:
        if self.status == "completed":
            self.status, self.error, self.output = "failed", error, output

    def result(self) -> StepResult:
        seconds = round(self.wall_seconds or 0.0, 6)
        read = DirectionStats(sum(s.read_ios for s in self.samples), sum(s.read_bytes for s in self.samples), seconds)
        write = DirectionStats(sum(s.write_ios for s in self.samples), sum(s.write_bytes for s in self.samples), seconds)
        return StepResult(
            step=self.step,
            status=self.status,
            read=read,
            write=write,
            cpu_percent=self.cpu_percent,
            cpu_seconds=self.cpu_seconds,
            repetition=self.repetition,
            command_line=self.command_line,
            error=self.error,
            wall_seconds=None if self.wall_seconds is None else seconds,
            exit_status=self.exit_status,
            output_tail=output_tail(self.output) if self.status != "completed" else None,
            samples=tuple(self.samples),
        )


def output_tail(text: str, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> str | None:
    """The last lines of a command's output (bounded, printable: it says the names of files anyone
    could make), or None if it printed nothing."""
    kept = [line.rstrip() for line in printable(text.replace("\r", "\n")).split("\n") if line.strip()][-lines:]
    tail = "\n".join(kept)
    if len(tail) > chars:
        tail = "..." + tail[-(chars - 3):]
    return tail or None


def missing_program(program: str) -> str | None:
    """Why `program` cannot run here (one line, with how to install it, or why labtui refuses it as root:
    labtui.machine.programs), or None if it can."""
    try:
        found = programs.find(program)
    except programs.ProgramRefused as exc:
        return str(exc)
    if found is not None:
        return None
    if "/" in program:
        return f"{program} is not an executable file"
    hint = INSTALL_HINTS.get(program, "install it, or add its directory to the PATH")
    return f"{program} is not installed (it is not on the PATH): {hint}"


class CommandEngine(Engine):
    """Runs the command steps of a profile (the runner's other engine for them)."""

    name = "command"
    title = "command"

    def __init__(self, settings: EngineSettings | None = None, params: dict[str, str] | None = None) -> None:
        super().__init__(settings)
        self.params = dict(params or {})
        # One scratch name per run: each step makes it fresh in the run's own directory and removes it when it ends.
        self._scratch_name = f"{SCRATCH_PREFIX}{secrets.token_hex(4)}"
        self.run_dir_name = "labtui-<run id>"  # the run's own directory, as the runner names it (for what is shown)
        # File and directory parameters as preflight opened them (labtui.params.hold_paths): {name: descriptor}.
        # A step is handed each through a link in the run's own directory to labtui's descriptor, named as
        # the file is (zpaq wants its .zpaq), so a name re-pointed since "Go ahead?" redirects nothing.
        self.held: dict[str, int] = {}
        self._links_name = f"{self._scratch_name}-params"
        self._said: set[str] = set()

    def check_available(self) -> None:
        """/bin/sh is all it needs; the programs a step requires are checked by `check_step`."""
        if not programs.is_executable(SHELL):
            raise EngineUnavailable(f"command steps need {SHELL}, which is missing")

    def check_step(self, step: Step, directory: Path, where: str) -> None:
        """Before the run: the step's programs are installed and its working directory exists."""
        for program in step.requires:
            reason = missing_program(program)
            if reason:
                raise EngineUnavailable(f"step {step.name!r} needs {program}, but {reason}")
        # The default (the target directory) is made by the runner; a directory of the person's must exist.
        if step.workdir and "scratch" not in placeholders(step.workdir):
            workdir = self._workdir(step, directory, None)
            if not workdir.is_dir():
                raise ValidationError(f"the working directory {workdir} does not exist", f"{where}.workdir")

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        return self.commands(step, Path(path)).shown

    def commands(self, step: Step, directory: Path, run_dir: RunDirectory | None = None) -> Commands:
        """The step's texts for a run in the target `directory` (placeholders filled in); with the run's
        own directory, as they run (else as shown before the run)."""
        uses_scratch = any("scratch" in placeholders(text) for text in (step.command, step.setup, step.cleanup,
                                                                        step.workdir))
        scratch = directory / self.run_dir_name / self._scratch_name if uses_scratch else None
        shown = expand(step.command, {**self.params, "target": str(directory), "scratch": str(scratch or "")},
                       shell=True)
        if run_dir is not None:
            directory = Path(run_dir.parent.bound_path)
        values = {**self.params, "target": str(directory),
                  "scratch": run_dir.bound_path(self._scratch_name) if run_dir and uses_scratch else str(scratch or "")}
        used = set().union(*(placeholders(text) for text in (step.command, step.setup, step.cleanup, step.workdir)))
        links = tuple(sorted(name for name in self.held if name in used)) if run_dir is not None else ()
        for name in links:
            assert run_dir is not None
            values[name] = run_dir.bound_path(self._link(name))
        return Commands(
            command=expand(step.command, values, shell=True),
            setup=expand(step.setup, values, shell=True),
            cleanup=expand(step.cleanup, values, shell=True),
            workdir=self._workdir(step, directory, values["scratch"]),
            scratch=scratch,
            shown=shown,
            env={env_name(name): value for name, value in values.items()},
            links=links,
        )

    def _link(self, name: str) -> str:
        """Where parameter `name`'s link is, in the run's own directory: named as its file is."""
        return f"{self._links_name}/{name}/{os.path.basename(self.params[name].rstrip('/')) or name}"

    def _workdir(self, step: Step, directory: Path, scratch: str | None) -> Path:
        if not step.workdir:
            return directory
        values = {**self.params, "target": str(directory), "scratch": scratch or ""}
        return directory / os.path.expanduser(expand(step.workdir, values, shell=False))

    # ------------------------------------------------------------------ running

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        self.partial_result = None
        directory = job.workdir or job.path
        assert job.run_dir is not None, "command steps run in a run's own directory (the runner makes it)"
        run_dir: RunDirectory = job.run_dir
        texts = self.commands(step, directory, run_dir)
        outcome = _Outcome(step, job.repetition, texts.shown)
        self.partial_result, self.partial_warnings = None, ()
        for message in self._counter_notes(job):
            yield RunWarning(message)
        cleaned = False
        try:
            await self._before(step, texts, outcome, run_dir)
            for message in _take(outcome.warnings):
                yield RunWarning(message)
            if outcome.status == "completed":
                async for sample in self._timed(step, job, texts, outcome):
                    yield SampleTaken(job.index, "measure", sample)
            cleaned = True
            await _to_the_end(self._after(step, texts, outcome, run_dir))
        except asyncio.CancelledError:
            # Nothing can be yielded any more: the step and its warnings go to the runner this way.
            # A cancel during the cleanup leaves the step as the command ended: it ran whole and
            # was timed whole (the cleanup still runs to its end).
            if not cleaned:
                outcome.status, outcome.error = "aborted", _stopped_text(outcome)
                cleaned = True
                await _to_the_end(self._after(step, texts, outcome, run_dir))
            self.partial_result = outcome.result()
            self.partial_warnings = tuple(_take(outcome.warnings))
            raise
        finally:
            if not cleaned:  # an error on the way: the cleanup still runs
                await _to_the_end(self._after(step, texts, outcome, run_dir))
        for message in _take(outcome.warnings):
            yield RunWarning(message)
        yield StepFinished(job.index, outcome.result())

    def _counter_notes(self, job: Job) -> list[str]:
        key = f"counters:{job.disk}"
        if key in self._said:
            return []
        self._said.add(key)
        if disk_counters(job.disk) is not None:
            return [f"command steps are measured with the kernel's counters of {job.disk}: every I/O on that disk "
                    "while the command runs, not only the command's (reads served from memory do not show)"]
        return [f"the target's disk ({job.disk or 'unknown'}) has no kernel I/O counters: command steps record "
                "their wall time, but no disk throughput"]

    async def _before(self, step: Step, texts: Commands, outcome: _Outcome, run_dir: RunDirectory) -> None:
        """The scratch directory, the parameters' links, the setup command and the cache drop; failures fail the step."""
        if texts.links:
            problem = self._make_links(texts.links, outcome, run_dir)
            if problem:
                outcome.fail(f"cannot hand the step its parameters: {problem}")
                return
        if texts.scratch is not None:
            try:
                os.mkdir(self._scratch_name, 0o700, dir_fd=run_dir.fd)
                outcome.made_scratch = True
                st = os.stat(self._scratch_name, dir_fd=run_dir.fd, follow_symlinks=False)
                guardian = subproc.watcher.get()
                if guardian is not None:  # removed with all in it should labtui be killed
                    guardian.watch_tree(self._scratch_name, run_dir.fd, st.st_dev, st.st_ino)
            except FileExistsError:
                outcome.fail(f"the scratch directory {texts.scratch} already exists (left by an earlier step?)")
                return
            except OSError as exc:
                outcome.fail(f"cannot create the scratch directory {texts.scratch}: {exc.strerror or exc}")
                return
        if not texts.workdir.is_dir():
            outcome.fail(f"the working directory {texts.workdir} does not exist")
            return
        if texts.setup:
            returncode, output, timed_out = await self._run_shell(texts.setup, texts, step.timeout)
            if timed_out:
                outcome.fail(f"the setup command exceeded the time limit of {format_duration(step.timeout)} "
                             "and was stopped", output)
            elif returncode != 0:
                outcome.fail(f"the setup command {subproc.exit_text(returncode)}", output)
            if outcome.status != "completed":
                return
        if step.drop_caches:
            reason = await _in_thread(drop_page_cache)
            if reason:
                outcome.warnings.append(f"the page cache was not dropped before step {step.name!r}: {reason}; "
                                        "what the command reads may come from memory")

    def _make_links(self, names: tuple[str, ...], outcome: _Outcome, run_dir: RunDirectory) -> str | None:
        """The links to the parameters' descriptors, in a directory of the run's own (why, or None)."""
        try:
            os.mkdir(self._links_name, 0o700, dir_fd=run_dir.fd)
            outcome.made_links = True
            st = os.stat(self._links_name, dir_fd=run_dir.fd, follow_symlinks=False)
            guardian = subproc.watcher.get()
            if guardian is not None:
                guardian.watch_tree(self._links_name, run_dir.fd, st.st_dev, st.st_ino)
            for name in names:
                os.mkdir(f"{self._links_name}/{name}", 0o700, dir_fd=run_dir.fd)
                os.symlink(fd_path(self.held[name]) or self.params[name], self._link(name), dir_fd=run_dir.fd)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    async def _timed(self, step: Step, job: Job, texts: Commands, outcome: _Outcome) -> AsyncIterator[Sample]:
        """Run the command, yielding disk samples every interval; fill in the outcome."""
        interval = max(0.1, job.interval)
        meter = CpuMeter()
        meter.start()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        # The wall time is the samples' own span: it starts where the disk's counters were first
        # read and ends where they were last read. The counters read before the clock started and
        # after it stopped made the mean (their bytes over the shorter wall time) exceed the peak.
        sampler = DiskSampler(job.disk)
        began = sampler.read_at
        outcome.starting = True
        try:
            proc = await subproc.spawn([SHELL, "-c", texts.command], cwd=str(texts.workdir), merge_output=True,
                                       env=texts.env)
        except OSError as exc:
            outcome.fail(f"cannot start {SHELL}: {exc.strerror or exc}")
            return
        chunks: list[str] = []
        reader = asyncio.ensure_future(subproc.read_all(proc.stdout, chunks, limit=64 * 1024, raw=True))
        closed: list[Sample | None] = []  # the sample that closed the window as the command (and its flush) ended

        def close() -> None:
            closed.append(sampler.take(time.monotonic() - began))

        work = asyncio.ensure_future(self._wait_and_flush(proc, step, texts.workdir, close))
        deadline = began + step.timeout
        timed_out = False
        tick = began
        try:
            while not work.done():
                # Ticks keep their rhythm; a loop that fell behind skips ahead instead of bunching samples.
                tick = max(tick + interval, time.monotonic())
                await asyncio.wait({work}, timeout=max(0.0, min(tick, deadline) - time.monotonic()))
                if work.done():
                    break
                now = time.monotonic()
                if now >= deadline:
                    timed_out = True
                    break
                sample = sampler.take(now - began)
                if sample is not None:
                    outcome.samples.append(sample)
                    yield sample
        finally:
            # Reached on success, time-out and cancellation alike. The window closes now (or when
            # the command and its flush ended); then the whole group goes.
            if not closed:
                close()
            last = closed[0]
            outcome.wall_seconds = sampler.read_at - began
            if last is not None:
                outcome.samples.append(last)
            outcome.cpu_percent = meter.stop()
            left_running = proc.returncode is not None and subproc.group_alive(proc)
            outcome.exit_status = await subproc.stop(proc)
            if not work.done():
                work.cancel()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(reader, timeout=READER_GRACE)
            outcome.output = "".join(chunks)
            outcome.cpu_seconds = _child_cpu_seconds(usage)
            if left_running:
                outcome.warnings.append(f"the command of step {step.name!r} left processes running when it "
                                        "exited; they were stopped")
        if last is not None:
            yield last
        if work.done() and not work.cancelled() and work.exception() is not None:
            outcome.fail(f"flushing the file systems after the command failed: {work.exception()}")
        if timed_out:
            outcome.fail(f"the command exceeded its time limit of {format_duration(step.timeout)} and was stopped "
                         "(with every process it started)", outcome.output)
        elif outcome.exit_status != 0:
            outcome.fail(f"the command {subproc.exit_text(outcome.exit_status)}", outcome.output)

    async def _wait_and_flush(self, proc: Process, step: Step, workdir: Path, close: Callable[[], None]) -> None:
        returncode = await subproc.wait_exit(proc)
        if step.sync and returncode == 0:
            # What the command wrote may still sit in the page cache: the clock stops once it is on disk.
            await _in_thread(flush_file_system, workdir)
        close()

    async def _after(self, step: Step, texts: Commands, outcome: _Outcome, run_dir: RunDirectory) -> None:
        """The cleanup command, then the scratch directory's removal. Problems are warnings."""
        try:
            if texts.cleanup and texts.workdir.is_dir():
                returncode, output, timed_out = await self._run_shell(texts.cleanup, texts, step.timeout)
                if timed_out or returncode != 0:
                    what = "exceeded the time limit" if timed_out else subproc.exit_text(returncode)
                    last = output_tail(output, lines=1)
                    outcome.warnings.append(f"the cleanup command of step {step.name!r} {what}"
                                            + (f": {last}" if last else ""))
        finally:
            if outcome.made_links:
                problem = await _in_thread(_remove_tree, self._links_name, run_dir.fd)
                guardian = subproc.watcher.get()
                if problem:
                    outcome.warnings.append(f"could not remove the parameters' links in {run_dir.path}: {problem}")
                elif guardian is not None:
                    guardian.forget_tree(self._links_name)
            if texts.scratch is not None and outcome.made_scratch:
                problem = await _in_thread(_remove_tree, self._scratch_name, run_dir.fd)
                if problem:
                    outcome.warnings.append(f"could not remove the scratch directory {texts.scratch}: {problem}")
                else:
                    guardian = subproc.watcher.get()
                    if guardian is not None:
                        guardian.forget_tree(self._scratch_name)

    async def _run_shell(self, text: str, texts: Commands, timeout: float) -> tuple[int | None, str, bool]:
        """Run a setup or cleanup command: (exit status, output, whether it timed out)."""
        try:
            proc = await subproc.spawn([SHELL, "-c", text], cwd=str(texts.workdir), merge_output=True, env=texts.env)
        except OSError as exc:
            return None, f"cannot start {SHELL} in {texts.workdir}: {exc.strerror or exc}", False
        chunks: list[str] = []
        reader = asyncio.ensure_future(subproc.read_all(proc.stdout, chunks, limit=64 * 1024, raw=True))
        timed_out = False
        try:
            await asyncio.wait_for(subproc.wait_exit(proc), timeout=timeout)
        except TimeoutError:
            timed_out = True
        finally:
            returncode = await subproc.stop(proc)
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(reader, timeout=READER_GRACE)
        return returncode, "".join(chunks), timed_out


def _stopped_text(outcome: _Outcome) -> str:
    """An aborted command step's error: how far it got (the run's own error says what stopped it)."""
    if outcome.wall_seconds is None and outcome.starting:
        return "stopped as its command was starting, before any of it was timed"
    if outcome.wall_seconds is None:
        return "stopped before its command ran (in its setup)"
    return (f"stopped {outcome.wall_seconds:.1f} s into its command, with every process it started: the time "
            "and the disk's figures are of that part")


def _take(items: list[str]) -> list[str]:
    taken = list(items)
    items.clear()
    return taken


async def _to_the_end(work: Awaitable[None]) -> None:
    """Await `work` to its end even if the task is cancelled meanwhile (then re-raise the cancel).

    Cleanup must not be cut short by a second Ctrl+C or by the cancellation that started it.
    """
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    task.result()


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """Run a blocking call in a daemon thread (a hung disk must not keep labtui from exiting)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future = loop.create_future()

    def work() -> None:
        try:
            value = func(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            # Passed as an argument: Python unbinds `exc` when the except block ends, before the loop
            # runs the callback, and the awaiting step would then wait forever.
            loop.call_soon_threadsafe(_fail_future, future, exc)
        else:
            loop.call_soon_threadsafe(_settle_future, future, value)

    threading.Thread(target=work, name=f"labtui-{func.__name__}", daemon=True).start()
    return await future


def _settle_future(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail_future(future: asyncio.Future, error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _child_cpu_seconds(before: resource.struct_rusage) -> float:
    """CPU time (user + system) of the children reaped since `before`: the command and what it waited for."""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 6)


def _remove_tree(name: str, dir_fd: int) -> str | None:
    """Remove the directory `name` in `dir_fd` with everything in it (never following a link)."""
    try:
        shutil.rmtree(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{exc.strerror or exc} ({exc.filename})" if getattr(exc, "filename", None) else str(exc)
    return None


def flush_file_system(path: Path) -> None:
    """Write the dirty data of the file system holding `path` to its disk (syncfs; sync elsewhere)."""
    syncfs = _libc_syncfs()
    if syncfs is not None:
        fd = os.open(path, os.O_RDONLY)
        try:
            if syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    os.sync()


def _libc_syncfs() -> Callable[[int], int] | None:
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return libc.syncfs
    return None


def drop_page_cache(path: str = DROP_CACHES) -> str | None:
    """Flush, then drop the kernel's page cache; the reason it could not be done, or None."""
    if not os.path.exists(path):
        return f"this system has no {path}"
    if os.geteuid() != 0:
        try:
            user = pwd.getpwuid(os.geteuid()).pw_name
        except KeyError:
            user = f"uid {os.geteuid()}"
        return f"that needs root, and labtui runs as {user}"
    os.sync()  # dirty pages cannot be dropped, only written first
    try:
        with open(path, "w") as handle:
            handle.write("3\n")
    except OSError as exc:
        return f"writing {path} failed: {exc.strerror or exc}"
    return None

