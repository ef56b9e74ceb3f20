"""The DiskSpd engine: each step becomes DiskSpd arguments; the disk's kernel counters give the live view.

Windows DiskSpd and the Linux port take mostly the same arguments (`diskspd_arguments`):
`-b -d -W -t -o -w`, `-r<bs>` for random (never a bare `-r`, whose alignment differs between
versions), `-s<bs>` sequential (with `-T` giving each thread its own region, as the native engine
does), `-S` as the step asks (`caching_arg`: no cache, and write-through or not), `-L` latency,
`-D` per-second counts, random write buffers, `-c<size>` only when DiskSpd must create the file
itself. Windows also gets `-C` (cool-down) and `-Rxml`;
the Linux port rejects both and only writes its text report.

DiskSpd prints nothing until it ends, so the live samples are the target disk's kernel counters
(diskstats.DiskSampler). The step's result is DiskSpd's own report (parse.py), with its
per-second counts as the series where the XML has them.
"""

from __future__ import annotations

import asyncio
import math
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from labtui.engine import subproc
from labtui.engine.base import Engine, EngineFailed, EngineUnavailable, Job, ensure_cleared
from labtui.engine.diskspd import parse as ds
from labtui.engine.diskspd.parse import size_arg
from labtui.engine.diskstats import DiskSampler
from labtui.engine.events import Event, RunWarning, SampleTaken, StepFinished
from labtui.engine.rounds import run_in_rounds
from labtui.errors import ReportError
from labtui.machine import programs
from labtui.model.profile import Step
from labtui.model.result import Sample
from labtui.settings import EngineSettings

OVERRUN = 30.0  # seconds past its planned end after which DiskSpd is declared hung
NAMES = ("diskspd", "diskspd.exe")


def whole_seconds(seconds: float) -> int:
    """DiskSpd counts whole seconds: a fraction is rounded up (the engine says so when it happens)."""
    return math.ceil(round(seconds, 6))


def diskspd_arguments(step: Step, path: str | Path, file_size: int, *, variant: str, create_file: bool) -> list[str]:
    """DiskSpd's arguments (without the program) for `step` on `path`; variant "windows" or "linux"."""
    windows = variant == "windows"
    args = [
        f"-b{size_arg(step.block_size)}",
        f"-d{max(1, whole_seconds(step.duration))}",
        f"-W{whole_seconds(step.warmup)}",
    ]
    if windows:
        args.append(f"-C{whole_seconds(step.cooldown)}")
    args += [f"-t{step.threads}", f"-o{step.outstanding}", f"-w{step.write_percent}"]
    if step.pattern == "random":
        args.append(f"-r{size_arg(step.block_size)}")
    else:
        args.append(f"-s{size_arg(step.block_size)}")
        share = (file_size // step.block_size) // step.threads
        if step.threads > 1 and share >= step.outstanding:
            args.append(f"-T{size_arg(share * step.block_size)}")
    caching = caching_arg(step, variant)
    if caching:
        args.append(caching)
    if step.latency:
        args.append("-L")
    args.append("-D")
    if step.writes:
        # Random write data: Windows picks each write from a random source buffer, the Linux
        # port fills its buffers with random bytes.
        args.append(f"-Z{size_arg(max(step.block_size, 1024 * 1024))}" if windows else "-Zr")
    if create_file:
        args.append(f"-c{size_arg(file_size)}")
    if windows:
        args.append("-Rxml")
    args.append(str(path))
    return args


def caching_arg(step: Step, variant: str) -> str | None:
    """DiskSpd's -S for the step's cache mode and write-through, or None (DiskSpd's default: cached).

    -Sh is not CrystalDiskMark's -S: it adds write-through, so every write waits for the media.
    Windows: -Su no software cache (= -S), -Sh that plus write-through, -Sw write-through alone.
    The Linux port: -Sd O_DIRECT, -Sh O_DIRECT|O_SYNC, -Ss O_SYNC.
    """
    # As the profile asks even for a read step (the post's script passes -h to its reads too):
    # the same flags as the DiskSpd line a person knows; reads are not affected.
    through = step.write_through
    if step.cache == "off":
        if through:
            return "-Sh"
        return "-Su" if variant == "windows" else "-Sd"
    if through:
        return "-Sw" if variant == "windows" else "-Ss"
    return None


def join_command(argv: list[str], variant: str) -> str:
    return subprocess.list2cmdline(argv) if variant == "windows" else shlex.join(argv)


class DiskSpdEngine(Engine):
    name = "diskspd"
    title = "DiskSpd"
    settings_keys = ("diskspd_path",)
    preview_order = 0  # first: the lab scripts people compare against run DiskSpd

    def __init__(self, settings: EngineSettings | None = None) -> None:
        super().__init__(settings)
        self.variant = "windows" if sys.platform == "win32" else "linux"
        self._version: str | None = None

    @property
    def program(self) -> str:
        """The name the command line shows (what runs is `executable()`)."""
        configured = self.settings.diskspd_path
        if configured:
            return str(configured)
        for name in NAMES:
            if shutil.which(name):
                return name
        return NAMES[0]

    def check_available(self) -> None:
        self.executable()

    def executable(self) -> str:
        """The DiskSpd to start (labtui.machine.programs: found on PATH under one of its names or as configured,
        refused as root where another user could change it); EngineUnavailable saying why not."""
        configured = self.settings.diskspd_path
        try:
            if configured:
                found = programs.find(str(configured))
            else:
                found = next(filter(None, (programs.find(name) for name in NAMES)), None)
        except programs.ProgramRefused as exc:
            raise EngineUnavailable(f"the setting diskspd_path is {configured!r}: {exc.reason}" if configured
                                    else str(exc)) from None
        if found is not None:
            return found
        if configured:
            raise EngineUnavailable(f"the setting diskspd_path is {configured!r}, which is not an executable file")
        where = "github.com/microsoft/diskspd" if self.variant == "windows" else "github.com/microsoft/diskspd-for-linux"
        raise EngineUnavailable(
            f"DiskSpd is not installed: put diskspd on the PATH (it is at {where}) "
            "or set diskspd_path in labtui's config.toml"
        )

    def version(self) -> str | None:
        if self._version is None:
            try:
                program = self.executable()
            except EngineUnavailable:
                return None  # not run: none there, or refused (check_available says so where it matters)
            match = re.search(r"[Vv]ersion:?\s+v?(\d+\.\d+[\w.\-]*)", subproc.quick_output([program, "-?"]) or "")
            self._version = match.group(1) if match else None
        return self._version

    def arguments(self, step: Step, path: str | Path, file_size: int, program: str | None = None) -> list[str]:
        create = not Path(path).exists()
        return [program or self.program, *diskspd_arguments(step, path, file_size, variant=self.variant, create_file=create)]

    def refusal(self, step: Step) -> str | None:
        if step.verify:
            return ("DiskSpd cannot verify data (it never reads back what it wrote); run a verified step with "
                    "-e native or -e fio")
        return None

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        return join_command(self.arguments(step, path, file_size), self.variant)

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        if step.steady is not None:
            # DiskSpd runs for a fixed time: one run per round (labtui.engine.rounds).
            async for event in run_in_rounds(self, step, job):
                yield event
            return
        ensure_cleared(job, step.writes)  # first: a raw device is refused whatever else is the matter
        argv = self.arguments(step, job.engine_path, job.file_size, self.executable())
        # The command line kept names the test file; DiskSpd opens it through the run directory's descriptor.
        command_line = join_command(self.arguments(step, job.path, job.file_size), self.variant)
        for name in ("duration", "warmup") + (("cooldown",) if self.variant == "windows" else ()):
            value = getattr(step, name)
            if value != whole_seconds(value):
                yield RunWarning(f"DiskSpd counts whole seconds: the {name} of step {step.name!r} "
                                 f"runs as {whole_seconds(value)} s, not {value:g} s")
        sampler = DiskSampler(job.disk)
        if sampler.available:
            yield RunWarning(
                f"DiskSpd reports nothing until a step ends: the live view shows the kernel's counters of "
                f"{job.disk} (every I/O on that disk, not only DiskSpd's)"
            )
        else:
            yield RunWarning("DiskSpd reports nothing until a step ends, and this target's disk has no kernel "
                             "counters to show instead: no live view")
        try:
            proc = await subproc.spawn(argv)
        except OSError as exc:
            raise EngineUnavailable(f"cannot start {argv[0]}: {exc.strerror or exc}") from exc
        out: list[str] = []
        err: list[str] = []
        readers = asyncio.ensure_future(asyncio.gather(subproc.read_all(proc.stdout, out, raw=True),  # its XML
                                                       subproc.read_all(proc.stderr, err)))
        warmup = whole_seconds(step.warmup)
        duration = max(1, whole_seconds(step.duration))
        measured: list[Sample] = []
        began = time.monotonic()
        deadline = began + warmup + duration + whole_seconds(step.cooldown) + OVERRUN
        tick = began
        try:
            while proc.returncode is None:
                tick += job.interval
                try:
                    await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=max(0.0, tick - time.monotonic()))
                    break
                except TimeoutError:
                    pass
                if time.monotonic() > deadline:
                    raise EngineFailed(f"DiskSpd did not finish within {round(deadline - began)} s and was stopped")
                elapsed = time.monotonic() - began
                sample = sampler.take(elapsed - warmup)
                if sample is None or elapsed > warmup + duration + job.interval:
                    continue  # DiskSpd's own cool-down is not part of the measured window
                phase = "measure" if elapsed > warmup else "warmup"
                if phase == "measure":
                    measured.append(sample)
                yield SampleTaken(job.index, phase, sample)
            returncode = await proc.wait()
            await readers
        finally:
            await subproc.stop(proc)
            readers.cancel()
        text = "".join(out)
        if returncode != 0:
            # DiskSpd writes its complaints to stderr, or (older versions) to stdout
            lines = [line.strip() for line in "".join(err).splitlines() if line.strip()]
            lines = lines or [line.strip() for line in text.splitlines() if line.strip()]
            raise EngineFailed(f"DiskSpd {subproc.exit_text(returncode)}: {lines[-1] if lines else 'no message'}")
        try:
            report = ds.parse_report(text)
        except ReportError as exc:
            raise EngineFailed(f"DiskSpd's report could not be read: {exc}") from exc
        span = report.timespans[0]
        samples = span.samples or tuple(measured)
        yield StepFinished(job.index, ds.timespan_result(span, step, repetition=job.repetition,
                                                         command_line=command_line, samples=samples))
