"""The live chart's axes: from zero up, and forward in time even with a single sample."""

from __future__ import annotations

from textual.app import App, ComposeResult

from labtui.widgets.live_chart import Line, LiveChart, nice_ticks
from tui_support import screen_text


class ChartApp(App):
    def compose(self) -> ComposeResult:
        yield LiveChart("IOPS", "IOPS", id="chart")


async def test_a_single_sample_gets_a_forward_time_axis_not_one_around_it():
    # A step's first second: plotext alone would draw the axis from -1 s to +1 s around the point.
    app = ChartApp()
    async with app.run_test(size=(60, 16)) as pilot:
        chart = app.query_one(LiveChart)
        chart.show([Line("write", [3.0], [39_000.0], "labtui-write")])
        await pilot.pause()
        axis = screen_text(app).splitlines()[-1]
        assert "3s" in axis and "4s" in axis and "-" not in axis, axis
        chart.show([Line("write", [3.0, 4.0, 5.0, 6.0], [39_000.0, 40_000.0, 38_000.0, 39_500.0], "labtui-write")])
        await pilot.pause()
        axis = screen_text(app).splitlines()[-1]
        assert "3s" in axis and "6s" in axis and "-" not in axis, axis


def test_ticks_are_round_and_the_y_axis_has_headroom():
    assert nice_ticks(0.0, 39_000.0) == [0.0, 10_000.0, 20_000.0, 30_000.0, 40_000.0]
    assert nice_ticks(3.0, 4.0, inside=True) == [3.0, 3.25, 3.5, 3.75, 4.0]
    assert nice_ticks(5.0, 5.0) == [5.0, 6.0]
