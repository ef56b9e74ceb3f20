"""Live samples from a disk's kernel I/O counters (psutil), for engines that report nothing live.

DiskSpd prints nothing until it ends, and a timed shell command (a "command" step) prints no
I/O figures at all; the kernel's per-disk counters show what the disk did meanwhile. They count
every I/O on the disk, not only the benchmark's, and their latency is the kernel's average time
per completed I/O (queueing included, like iostat's await): no percentiles.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import psutil

from labtui.engine.cpu import cpu_percent_between
from labtui.model.result import Sample

if TYPE_CHECKING:
    from psutil._ntuples import sdiskio


def disk_counters(disk: str | None) -> sdiskio | None:
    """The disk's cumulative counters now, or None if the kernel has none under that name."""
    if not disk:
        return None
    try:
        counters = psutil.disk_io_counters(perdisk=True, nowrap=True) or {}
    except (OSError, RuntimeError):
        return None
    return counters.get(disk.removeprefix("/dev/"))


class DiskSampler:
    """Per-interval samples of one disk: call `take(t)` once per interval."""

    def __init__(self, disk: str | None) -> None:
        self.disk = disk
        self._prev = disk_counters(disk)
        self._prev_time = time.monotonic()
        self._prev_cpu = psutil.cpu_times()

    @property
    def available(self) -> bool:
        return self._prev is not None

    @property
    def read_at(self) -> float:
        """When the latest counters were read (time.monotonic): where the next sample begins."""
        return self._prev_time

    def take(self, t: float) -> Sample | None:
        """The sample for the interval since the last call, ending `t` s into the measured phase."""
        now = disk_counters(self.disk)
        when = time.monotonic()
        cpu = psutil.cpu_times()
        prev, prev_time, prev_cpu = self._prev, self._prev_time, self._prev_cpu
        self._prev, self._prev_time, self._prev_cpu = now, when, cpu
        seconds = when - prev_time
        if now is None or prev is None or seconds <= 0:
            return None
        reads = max(0, now.read_count - prev.read_count)
        writes = max(0, now.write_count - prev.write_count)
        read_ms = max(0, now.read_time - prev.read_time)
        write_ms = max(0, now.write_time - prev.write_time)
        return Sample(
            t=round(t, 6),
            seconds=round(seconds, 6),
            read_ios=reads,
            read_bytes=max(0, now.read_bytes - prev.read_bytes),
            write_ios=writes,
            write_bytes=max(0, now.write_bytes - prev.write_bytes),
            read_lat_mean_ms=read_ms / reads if reads else None,
            write_lat_mean_ms=write_ms / writes if writes else None,
            cpu_percent=cpu_percent_between(prev_cpu, cpu),
        )
