"""The whole machine's CPU use over a window, from two `psutil.cpu_times()` snapshots (DiskSpd's "avg. CPU").

Apart from cpubound.py, which judges from it, so that what only judges (analysis, the fronts) loads no psutil.
"""

from __future__ import annotations

import os
from typing import Any

import psutil

from labtui.engine.cpubound import MIN_SECONDS


class CpuMeter:
    """Whole-machine CPU use between start() and stop(), as DiskSpd's "avg. CPU" reports it."""

    def __init__(self) -> None:
        self._start: Any = None

    def start(self, times: Any = None) -> None:
        """Start now, or from an earlier `psutil.cpu_times()` snapshot."""
        self._start = times if times is not None else psutil.cpu_times()

    def stop(self) -> float | None:
        if self._start is None:
            return None
        return cpu_percent_between(self._start, psutil.cpu_times())


def cpu_percent_between(start: Any, end: Any, cpus: int | None = None) -> float | None:
    """Whole-machine CPU use between two `psutil.cpu_times()` snapshots; None where they are less
    than cpubound.MIN_SECONDS apart (the kernel counts CPU time in clock ticks: over 10 ms a CPU
    reads 0 or 100 % busy, and a 1 ms step read "no idle CPU (100 % busy)")."""
    busy = _busy(end) - _busy(start)
    total = sum(end) - sum(start)
    if total <= 0 or total < MIN_SECONDS * (cpus or os.cpu_count() or 1):
        return None
    return round(100.0 * busy / total, 2)


def _busy(times: Any) -> float:
    idle = getattr(times, "idle", 0.0) + getattr(times, "iowait", 0.0)
    return sum(times) - idle
