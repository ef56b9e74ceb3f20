"""The whole machine's CPU use over a window (labtui.engine.cpu), from two `psutil.cpu_times()` snapshots."""

from __future__ import annotations


def test_the_machine_cpu_use_of_a_few_clock_ticks_is_not_a_figure():
    import psutil

    from labtui.engine.cpu import cpu_percent_between

    ticks = psutil.cpu_times()
    short = ticks._replace(user=ticks.user + 0.01)  # one 10 ms tick on one CPU of two: "100 % busy"
    assert cpu_percent_between(ticks, short, cpus=2) is None
    long = ticks._replace(user=ticks.user + 0.2, idle=ticks.idle + 0.2)
    assert cpu_percent_between(ticks, long, cpus=2) == 50.0


def test_the_meter_reads_nothing_before_it_starts_and_counts_from_a_snapshot_given():
    import psutil

    from labtui.engine.cpu import CpuMeter

    meter = CpuMeter()
    assert meter.stop() is None  # never started: no figure, not 0 %
    earlier = psutil.cpu_times()
    meter.start(earlier._replace(user=earlier.user - 50.0, idle=earlier.idle - 50.0))  # 100 CPU-seconds ago, half busy
    percent = meter.stop()
    assert percent is not None and abs(percent - 50.0) < 5.0
