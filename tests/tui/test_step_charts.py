"""One step's charts over time (widgets/step_charts.py): what each chart is called and draws."""

from __future__ import annotations

import re

from history_support import open_result
from labtui.engine.events import RunStarted, SampleTaken
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.screens.run import RunScreen
from labtui.widgets.live_chart import LiveChart
from run_support import MIB, QueuedRunner
from tui_support import (
    make_app,
    open_history,
    open_run,
    wait_for,
    widget_text,
)


async def test_a_command_steps_disk_counts_are_charted_as_requests_not_iops(labtui_home):
    """`show` leaves a command step's IOPS blank: its chart of the disk's merged requests is not called IOPS."""
    from dataclasses import replace

    from labtui.model.profile import Step
    from labtui.model.result import Sample, StepResult
    from labtui.widgets.live_chart import LiveChart
    from synthetic import READ, run_result

    extract = Step(name="Extract archive", kind="command", command="zpaq x a.zpaq")
    base = run_result("20240601-090000-abce", {READ: [1.0]})
    samples = tuple(Sample(t=float(t), seconds=1.0, read_ios=100, read_bytes=100 * 65536) for t in range(1, 4))
    result = replace(base, profile=replace(base.profile, name="zpaq-extract", steps=(extract,)),
                     steps=(StepResult(step=extract, wall_seconds=3.0, exit_status=0, samples=samples),))
    Store(labtui_home).save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, result.id)
        await pilot.pause(0.2)
        titles = [c.chart_title for c in app.screen.query(LiveChart)]
        assert titles[0] == "Disk requests/s" and "IOPS" not in titles, titles
        latency = " ".join(widget_text(app, "#step-latency").split())
        assert "No per-I/O latency for a command step: its latency chart is the disk's mean time per request" in latency


def y_axis_reads_as_a_scale(chart: LiveChart) -> None:
    """The chart's y labels, as on screen, from 0 up: evenly spaced in rows and in values, the top above the data."""
    lines = [chart.render_line(y).text for y in range(chart.size.height)]
    ticks = [(row, m.group(1)) for row, line in enumerate(lines) if (m := re.match(r" *([\d.]+[kMG]?)┤", line))]
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}
    values = [float(v.rstrip("kMG")) * scale.get(v[-1], 1.0) for _, v in ticks]
    rows = [row for row, _ in ticks]
    assert len(ticks) >= 2 and values[-1] == 0 and values[0] >= max(chart.lines[0].ys), lines
    assert len({round(a - b, 6) for a, b in zip(values, values[1:])}) == 1, lines  # "2k 1.5k 500 0" was not
    assert max(b - a for a, b in zip(rows, rows[1:])) - min(b - a for a, b in zip(rows, rows[1:])) <= 1, lines


async def test_after_each_resize_the_charts_show_the_whole_series_at_their_new_size(labtui_home, monkeypatch):
    # Walked at 80x24 -> 120x35 -> 80x24: at 80x24 the IOPS chart's y axis read "2k 1.5k 500 0" (four
    # ticks on four rows: one lost, the rest unevenly spaced). And on a loaded machine the live view's
    # frame (its own timer) may come between the screen's resize and the layout that gives the charts
    # their sizes: each chart asks for the series anew once it has its size, whenever that comes.
    from labtui.engine.events import StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    real_on_resize = RunScreen.on_resize

    def on_resize_then_early_frame(self) -> None:
        real_on_resize(self)
        self.live_view._last_frame = 0.0
        self.live_view._frame()  # the frame before the layout, as under load

    monkeypatch.setattr(RunScreen, "on_resize", on_resize_then_early_frame)
    step = Step("Mixed 4K", block_size=4096, threads=4, outstanding=8, duration=600, warmup=0, write_percent=30)
    profile = Profile("mixed", steps=(step,), file_size=16 * MIB)
    samples = [SampleTaken(0, "measure", Sample(t=float(t), seconds=1.0, read_ios=1000 + 10 * t,
                                                read_bytes=(1000 + 10 * t) * 4096, write_ios=500, write_bytes=500 * 4096,
                                                read_lat_mean_ms=1.0, write_lat_mean_ms=2.0)) for t in range(1, 101)]
    runner = QueuedRunner()
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(runner)
        for event in (RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 600.0),
                      StepStarted(0, 1, step, 1, "labtui native: ..."), *samples[:50]):
            runner.queue.put_nowait(event)
        await wait_for(pilot, lambda: screen.live_view.drawn_version == screen.live.version == 52, what="50 samples")

        async def resized(size: tuple[int, int], charts: int, until: float) -> None:
            await pilot.resize_terminal(*size)

            def drawn() -> list[LiveChart]:
                shown = [c for c in app.screen.query(LiveChart) if c.display]
                return len(shown) == charts and all(c.size.width and c.lines and c.lines[0].xs[-1] == until and len(
                    c.lines[0].xs) > c.size.width // 2 for c in shown) and shown

            shown = await wait_for(pilot, drawn, timeout=10, what=f"the charts drawn anew at {size}")
            for chart in shown:
                y_axis_reads_as_a_scale(chart)
            for chart in shown:  # what is on screen is what was drawn for its size, from the first second
                assert chart._drawn_for == chart._drawing_key() and chart.lines[0].xs[0] <= 2.0
                assert [line.label for line in chart.lines] == ["read", "write"]
                assert len(chart.lines[0].xs) <= 2 * chart.size.width

        await resized((120, 35), 3, 50.0)  # the MiB/s and latency charts had never been drawn
        for event in samples[50:]:
            runner.queue.put_nowait(event)
        await wait_for(pilot, lambda: screen.live_view.drawn_version == screen.live.version == 102, what="100 samples")
        await resized((80, 24), 1, 100.0)  # the IOPS chart alone: every one of the 100 seconds, not 76 points of them
        assert len(app.screen.query_one("#chart-iops", LiveChart).lines[0].xs) == 100
        await resized((120, 35), 3, 100.0)  # the two hidden at 80 columns: not as they were at 50 s
        screen.stop()
