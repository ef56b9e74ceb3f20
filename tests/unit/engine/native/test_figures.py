"""The native engine's live samples (labtui.engine.native.figures.Sampler) from the processes' counters.

The processes here are stand-ins (their live arrays written by the test) so that the parent can be
made late on purpose: a loaded machine wakes the parent after the workers' warm-up counts went stale.
"""

from __future__ import annotations

import os
from array import array

from labtui.engine.native import common as nc
from labtui.engine.native.figures import Sampler

T_MEASURE, T_END = 100.0, 102.0
NS = 1_000_000_000


class Stand:
    """A worker process's side of the shared memory: what it last published."""

    carried = 1
    exited = False

    def __init__(self) -> None:
        self.live = memoryview(array("q", bytes(8 * nc.LIVE_SIZE)))
        self.pid = os.getpid()

    def publish(self, at: float, ios: int, window_ios: int = 0, done: bool = False) -> None:
        self.live[nc.R_IOS], self.live[nc.R_LAT] = ios, ios * 1000
        self.live[nc.MR_IOS], self.live[nc.MR_LAT] = window_ios, window_ios * 1000
        self.live[nc.M_DONE] = int(done)
        self.live[nc.BEAT] = int(at * NS)


def test_measured_samples_count_the_window_only_when_the_parent_reads_late():
    a, b = Stand(), Stand()
    a.publish(99.95, 1000)
    b.publish(99.97, 2000)
    sampler = Sampler([a, b], latency=False, block_size=4096, t_go=98.0)
    # The parent reads at the window's start while both still show warm-up counts published
    # before it; then each crosses the start (100 more I/Os of warm-up) and goes on measuring.
    sampler.take(0.0)
    sampler.begin_window(T_MEASURE, T_END)
    a.publish(100.001, 1100, 0)
    b.publish(100.002, 2100, 0)
    a.publish(101.0, 1600, 500)
    b.publish(101.0, 2700, 600)
    first = sampler.take(1.0, measured=True)
    assert first.read_ios == 1100  # not the 100 + 100 warm-up I/Os published after the parent's read
    assert first.seconds == 1.0
    # A step cancelled here keeps the same window: its part measured is what the samples counted.
    base, now = sampler.window_base, sampler.window_now()
    assert now[0] - base[0] == 1100 and (now[4] - base[4]) / NS == 1.0
    # The end: each publishes its window's final count when it crosses it, after T_END.
    a.publish(102.004, 2200, 1000, done=True)
    a.exited = True  # one process gone is not every process done: the other is still finishing
    assert not sampler.window_closed()
    b.publish(102.001, 3200, 1100, done=True)
    assert sampler.window_closed()
    last = sampler.take(2.0, measured=True)
    assert last.read_ios == 1000 and last.seconds == 1.0
    assert first.read_ios + last.read_ios == 2100  # the window's totals, exactly


def test_a_process_silent_since_before_the_start_has_measured_nothing_yet():
    a = Stand()
    a.publish(99.9, 700)
    sampler = Sampler([a], latency=False, block_size=4096, t_go=98.0)
    sampler.begin_window(T_MEASURE, T_END)
    # No I/O of it has completed since before the start (a stuck device): nothing of the window yet.
    assert sampler.take(0.5, measured=True) is None
    a.publish(101.0, 1000, 100)
    sample = sampler.take(1.0, measured=True)
    assert sample.read_ios == 100 and sample.seconds == 1.0  # from the window's start, not the last sample
