"""The drive watched around and during a step (labtui.run.drive_watch), with an injected reader: a reading every
few seconds kept and sent, one the drive refused skipped, and each reading put in the interval it fell in."""

from __future__ import annotations

import asyncio
import time

from labtui.engine.events import DriveSampled
from labtui.model.result import DirectionStats, DriveFacts, DriveReading, Sample, StepResult
from labtui.run.drive_watch import DriveWatch
from synthetic import READ


class Reader:
    """A drive that warms a degree a reading; its second reading fails as a drive busy with a command can."""

    def __init__(self) -> None:
        self.readings = 0

    def facts(self) -> DriveFacts:
        return DriveFacts("sysfs", temperature_c=40.0)

    def reading(self) -> DriveReading:
        self.readings += 1
        if self.readings == 2:
            raise OSError("the drive did not answer")
        return DriveReading("sysfs", temperature_c=40.0 + self.readings, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                            pcie_width=4)


def test_readings_every_few_seconds_are_kept_and_sent_and_a_refused_one_is_skipped():
    reader = Reader()
    watch = DriveWatch(reader, every=0.05)
    sent: list = []

    async def step() -> None:
        async with watch.watching(3, sent.append):
            deadline = time.monotonic() + 30
            while reader.readings < 4 and time.monotonic() < deadline:  # however busy the machine
                await asyncio.sleep(0.02)

    asyncio.run(step())
    assert len(watch.readings) >= 3 and [type(e) for e in sent] == [DriveSampled] * len(watch.readings)
    assert all(e.index == 3 for e in sent) and [e.reading for e in sent] == [r for _, r in watch.readings]
    assert 41.0 in [e.reading.temperature_c for e in sent] and 42.0 not in [e.reading.temperature_c for e in sent]
    assert [e.seconds for e in sent] == sorted(e.seconds for e in sent) and sent[0].seconds >= 0.05
    assert asyncio.run(watch.facts()) == DriveFacts("sysfs", temperature_c=40.0)
    assert asyncio.run(DriveWatch(None).facts()) is None  # a disk nobody can read: nothing is asked


def test_each_reading_lands_in_the_interval_it_fell_in_and_the_warning_fills_what_the_facts_lacked():
    watch = DriveWatch(None)
    began = time.monotonic()
    watch.readings = [(began + 0.5, DriveReading("sysfs", temperature_c=50.0, warning_c=82.0,
                                                 pcie_speed="8.0 GT/s PCIe", pcie_width=4)),
                      (began + 2.5, DriveReading("sysfs", temperature_c=55.0, pcie_speed="8.0 GT/s PCIe",
                                                 pcie_width=2))]
    samples = tuple(Sample(t=float(t), seconds=1.0, read_ios=1000, read_bytes=1000 * 65536) for t in (1, 2, 3))
    step = StepResult(step=READ, samples=samples, read=DirectionStats(ios=3000, bytes=3000 * 65536, seconds=3.0))
    before = DriveFacts("sysfs", temperature_c=49.0)
    done = watch.finish(step, began, before, DriveFacts("sysfs", temperature_c=56.0))
    assert [(s.drive_temp_c, s.link_width) for s in done.samples] == [(50.0, 4), (None, None), (55.0, 2)]
    assert done.drive_before is not None and done.drive_before.warning_c == 82.0  # smartctl -A's, kept
    assert done.drive_after is not None and done.drive_after.temperature_c == 56.0
