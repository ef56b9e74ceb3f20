"""The drive watched around and during each step: facts before and after, a light reading every few seconds.

The runner asks a DriveWatch for the drive's facts before a step (labtui.machine.drive: smartctl,
else sysfs), keeps `watching` while the engine runs it (a reading of the temperature and link every
`every` seconds, sent as DriveSampled events and kept), then its facts after. `finish` puts them in
the step's result: the readings in the interval they fell in (the series beside IOPS), the facts
before and after, and the drops the series shows (labtui.analysis.drops) with their causes.

Every few seconds, never every interval: reading a drive's log is a command to it, and lm-sensors'
users saw 1 Hz polling warm an NVMe drive. The engines know nothing of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from labtui.analysis.drops import step_drops
from labtui.engine.diskstats import disk_counters
from labtui.engine.events import DriveSampled, Event
from labtui.machine.drive import DriveReader
from labtui.model.result import DriveFacts, DriveReading, StepResult

EVERY = 5.0  # seconds between readings during a step


class DriveWatch:
    def __init__(self, reader: DriveReader | None, every: float = EVERY, disk: str | None = None) -> None:
        self.reader = reader
        self.every = every
        self.disk = disk  # the disk whose kernel counters say what else moved (other I/O)
        self.readings: list[tuple[float, DriveReading]] = []  # (time.monotonic(), reading) of this step
        self.began = 0.0
        self.disk_bytes: list[int | None] = []  # what the disk moved in each measured interval (None: unknown)
        self._counted: int | None = None  # the disk's bytes moved so far at the last interval's end

    def interval_ended(self) -> None:
        """A measured interval ended: what the disk's kernel counters moved in it, every process's I/O."""
        counters = disk_counters(self.disk) if self.disk else None
        total = counters.read_bytes + counters.write_bytes if counters is not None else None
        moved = total - self._counted if total is not None and self._counted is not None else None
        self.disk_bytes.append(moved)
        self._counted = total

    async def facts(self) -> DriveFacts | None:
        if self.reader is None:
            return None
        try:
            return await asyncio.to_thread(self.reader.facts)
        except OSError:
            return None

    @contextlib.asynccontextmanager
    async def watching(self, index: int, emit: Callable[[Event], None]) -> AsyncIterator[None]:
        """Read the drive every `every` seconds while the block runs; each reading kept and emitted."""
        self.readings = []
        self.disk_bytes, self._counted = [], None
        self.began = time.monotonic()
        task = asyncio.ensure_future(self._loop(index, emit)) if self.reader is not None else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _loop(self, index: int, emit: Callable[[Event], None]) -> None:
        assert self.reader is not None
        while True:
            await asyncio.sleep(self.every)
            try:
                reading = await asyncio.to_thread(self.reader.reading)
            except OSError:
                reading = None
            if reading is None:
                continue
            now = time.monotonic()
            self.readings.append((now, reading))
            emit(DriveSampled(index, round(now - self.began, 3), reading))

    def finish(self, result: StepResult, measured_from: float | None, before: DriveFacts | None,
               after: DriveFacts | None) -> StepResult:
        """The step's result with the drive in it: each reading in the measured interval it fell in
        (`measured_from`: time.monotonic() when measuring began), the facts, and the drops."""
        samples = list(result.samples)
        if measured_from is not None and samples:
            for when, reading in self.readings:
                t = when - measured_from
                for i, s in enumerate(samples):
                    if s.t - s.seconds <= t <= s.t + 1e-6:
                        samples[i] = replace(s, drive_temp_c=reading.temperature_c, link_gts=reading.link_gts,
                                             link_width=reading.pcie_width,
                                             thermal_transitions=reading.thermal_transitions)
                        break
        warning = next((r.warning_c for _, r in self.readings if r.warning_c is not None), None)
        if before is not None and before.warning_c is None and warning is not None:
            before = replace(before, warning_c=warning)  # smartctl -A alone gives what -a may not have
        result = replace(result, samples=tuple(samples), drive_before=before, drive_after=after)
        if result.status != "completed" and not result.samples:
            return result
        # The disk's counters line up with the samples only where the engine kept every interval as it came.
        disk = self.disk_bytes if len(self.disk_bytes) == len(result.samples) else None
        return replace(result, drops=step_drops(result, disk))
