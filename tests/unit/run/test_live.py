"""The live run state: merged intervals stay exact, the chart buffer is bounded, figures follow every sample."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from factories import make_result
from labtui.engine.events import (
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    StepFinished,
    StepStarted,
)
from labtui.model.profile import Step
from labtui.model.result import EngineInfo, TargetInfo
from labtui.run.live import ChartPoints, LiveRun, LiveStep, SampleBuffer
from synthetic import sample

MIB = 1024 * 1024


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=400), st.integers(2, 80))
def test_chart_points_merged_as_samples_arrive_are_bounded_and_keep_every_io(counts, points):
    view = ChartPoints(points)
    samples = [sample(i + 1.0, c) for i, c in enumerate(counts)]
    for s in samples:
        view.add(s)
    out = view.points()
    assert len(out) <= points
    assert len(out) > points // 4 or len(counts) <= points // 2  # merged no further than needed
    assert sum(s.read_ios for s in out) == sum(counts)
    assert sum(s.seconds for s in out) == pytest.approx(len(counts))
    assert [s.t for s in out] == sorted(s.t for s in out) and out[-1].t == samples[-1].t
    # Every point but the newest spans the same number of intervals.
    assert len({s.seconds for s in out[:-1]}) <= 1


def test_a_step_keeps_its_chart_points_up_to_date_and_rebuilds_them_for_another_width():
    step = Step("Read", block_size=4096, duration=600.0, warmup=0.0)
    live = LiveStep(StepStarted(0, 1, step, 1, "native"), began=0.0)
    for i in range(100):
        live.add(SampleTaken(0, "measure", sample(i + 1.0, 10 * i)))
        if i == 10:
            assert len(live.chart_points(40)) == 11  # asked for once: kept up to date from then on
    kept = live.chart_points(40)
    assert len(kept) <= 40 and sum(p.read_ios for p in kept) == sum(10 * i for i in range(100))
    fresh = ChartPoints(40)
    for s in live.buffer.samples:
        fresh.add(s)
    assert kept == fresh.points()
    assert len(live.chart_points(16)) <= 16  # the chart was resized


@pytest.mark.parametrize("width", [4, 40])  # 4: the points are merged, and a warm-up one must not merge in
def test_the_chart_shows_the_warm_up_until_measuring_begins_then_only_the_measure_window(width):
    step = Step("Read", block_size=4096, duration=10.0, warmup=3.0)
    live = LiveStep(StepStarted(0, 1, step, 1, "native"), began=0.0)
    assert live.chart_phase is None and live.chart_points(width) == []
    for t in (-2.0, -1.0, 0.0):  # the engine's warm-up intervals, before the measure window's t = 0
        live.add(SampleTaken(0, "warmup", sample(t, 50_000)))
    assert live.chart_phase == "warmup"
    assert sum(p.read_ios for p in live.chart_points(width)) == 150_000
    for t in range(1, 8):
        live.add(SampleTaken(0, "measure", sample(float(t), 1000 * t)))
        points = live.chart_points(width)
        assert live.chart_phase == "measure"
        # The measure window's own intervals, from t = 0: what its figures and the saved result hold.
        assert all(p.t > 0 for p in points) and sum(p.seconds for p in points) == t, points
        assert sum(p.read_ios for p in points) == sum(1000 * k for k in range(1, t + 1))
    assert sum(p.read_ios for p in live.chart_points(width + 1)) == 28_000  # rebuilt for another width: the same


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=200), st.integers(2, 16))
def test_the_buffer_is_bounded_and_loses_no_count(counts, capacity):
    buffer = SampleBuffer(capacity)
    for i, c in enumerate(counts):
        buffer.append(sample(i + 1.0, c))
    assert len(buffer) <= capacity
    assert sum(s.read_ios for s in buffer.samples) == sum(counts)
    assert [s.t for s in buffer.samples] == sorted(s.t for s in buffer.samples)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _started(profile) -> RunStarted:
    return RunStarted("run-1", profile, TargetInfo(path="/tmp/x"), EngineInfo("native", "1"),
                      len(profile.steps), profile.planned_seconds)


def test_a_run_from_its_events():
    result = make_result()
    profile = result.profile  # quick-sanity: read then write, 10 s + 2 s warm-up each
    clock = Clock()
    live = LiveRun(clock, capacity=4)
    live.handle(_started(profile))
    live.handle(PrepareProgress(0, 64 * MIB, 0.0))
    clock.now += 1
    live.handle(PrepareProgress(32 * MIB, 64 * MIB, 1.0))
    assert live.preparing
    assert live.eta_seconds() == pytest.approx(profile.planned_seconds + 1.0)
    live.handle(PrepareProgress(64 * MIB, 64 * MIB, 2.0))
    read, write = profile.steps
    live.handle(StepStarted(0, 2, read, 1, "native: ..."))
    assert not live.preparing and live.current.phase == "starting"
    live.handle(SampleTaken(0, "warmup", sample(-1.0, 50_000, lat=9.0)))
    for t, n in ((1, 1000), (2, 3000), (3, 2000)):
        clock.now += 1
        live.handle(SampleTaken(0, "measure", sample(float(t), n, lat=t)))
    rows = {r.series.key: r for r in live.current.figures()}
    assert set(rows) == {"read_iops", "read_mib_s", "read_lat_ms", "read_p99_ms", "cpu"}  # a read step
    iops = rows["read_iops"]
    # Warm-up excluded: the mean is the measured I/Os over the measured seconds.
    assert (iops.current, iops.mean, iops.minimum, iops.maximum) == (2000, 2000, 1000, 3000)
    assert rows["read_lat_ms"].mean == pytest.approx((1000 * 1 + 3000 * 2 + 2000 * 3) / 6000)
    assert rows["read_p99_ms"].mean is None
    assert len(live.current.buffer) <= 4  # bounded, merged
    assert sum(s.read_ios for s in live.current.buffer.samples) == 6000  # the measured ones: no warm-up
    assert live.eta_seconds() == pytest.approx(profile.planned_seconds - 3.0)
    live.handle(StepFinished(0, result.steps[0]))
    assert live.current.phase == "completed"
    live.handle(StepStarted(1, 2, write, 1, "native: ..."))
    live.handle(SampleTaken(1, "measure", sample(1.0, 0, 500)))
    assert {r.series.key for r in live.current.figures()} == {"write_iops", "write_mib_s", "write_lat_ms",
                                                             "write_p99_ms", "cpu"}
    live.handle(RunWarning("careful"))
    live.handle(RunWarning("careful"))
    assert live.warnings == ["careful"]
    before = live.version
    live.handle(RunFinished(result, Path("/x.toml")))
    assert live.version == before + 1 and live.result is result and live.eta_seconds() == 0.0


def test_the_eta_counts_each_steps_start_up_as_the_run_measures_it():
    from labtui.model.profile import STEP_STARTUP_SECONDS

    result = make_result()
    profile = result.profile  # two steps of 2 s warm-up + 10 s
    read, write = profile.steps
    clock = Clock()
    live = LiveRun(clock)
    live.handle(_started(profile))
    # Before any step has run, the plan's own figure for each step's start-up.
    assert profile.planned_seconds == pytest.approx(2 * (12 + STEP_STARTUP_SECONDS))
    live.handle(StepStarted(0, 2, read, 1, "native: ..."))
    assert live.eta_seconds() == pytest.approx(profile.planned_seconds)
    clock.now += 13.5  # the first step took 1.5 s more than its 12 s: a slow start on a busy machine
    live.handle(StepFinished(0, result.steps[0]))
    assert live.step_startup(clock.now) == pytest.approx(1.5)
    assert live.eta_seconds() == pytest.approx(12 + 1.5)  # the next step as this run starts its steps
    live.handle(StepStarted(1, 2, write, 1, "native: ..."))
    clock.now += 4.0
    assert live.eta_seconds() == pytest.approx(12 + 1.5 - 4.0)
    clock.now += 20.0  # past its plan: the ETA waits at zero, it never goes negative
    assert live.eta_seconds() == 0.0


def test_no_eta_while_a_command_step_is_in_the_plan():
    profile = replace(make_result().profile, steps=(Step("archive", kind="command", command="true"),))
    live = LiveRun(Clock())
    live.handle(_started(profile))
    assert live.eta_seconds() is None


def test_a_step_without_latency_shows_no_latency_rows():
    profile = make_result().profile
    step = replace(profile.steps[0], latency=False)
    live = LiveRun(Clock())
    live.handle(_started(profile))
    live.handle(StepStarted(0, 1, step, 1, None))
    live.handle(SampleTaken(0, "measure", sample(1.0, 10)))
    assert {r.series.key for r in live.current.figures()} == {"read_iops", "read_mib_s", "cpu"}


def test_a_command_steps_disk_counts_are_requests_not_iops():
    """Its results leave IOPS blank (merged requests of every process): the live figures call them what they are."""
    from labtui.widgets.live_figures import figures_content

    step = Step("archive", kind="command", command="true")
    live = LiveRun(Clock())
    live.handle(_started(replace(make_result().profile, steps=(step,))))
    live.handle(StepStarted(0, 1, step, 1, None))
    live.handle(SampleTaken(0, "measure", sample(1.0, 10, 5)))
    rows = {r.series.key: r for r in live.current.figures()}
    assert rows["read_iops"].series.quantity == "requests/s" and rows["read_iops"].mean == 10
    shown = figures_content(live.current.figures()).plain
    assert "read requests/s" in shown and "IOPS" not in shown
