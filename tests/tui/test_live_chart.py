"""The live chart: axes from zero up and forward in time, drawn cell for cell as plotext draws it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.visual import Visual, visualize
from textual_plotext import PlotextPlot

from labtui.tui.theming import LABTUI_VARIABLES
from labtui.widgets.live_chart import Line, LiveChart, nice_ticks
from tui_support import screen_text


class ChartApp(App):
    def compose(self) -> ComposeResult:
        yield LiveChart("IOPS", "IOPS", id="chart")

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(LABTUI_VARIABLES)  # the read and write colours


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


def _cells(strips) -> list[list[tuple[str, object, object, bool]]]:
    """Each cell's character, colours and boldness (how a terminal shows it, whatever the segments)."""
    rows = []
    for strip in strips:
        row = []
        for segment in strip:
            style = segment.style
            for char in segment.text:
                blank = char == " "
                row.append((char, None if blank else style.color, style.bgcolor, False if blank else bool(style.bold)))
        rows.append(row)
    return rows


async def test_the_chart_shows_exactly_what_plotext_writes_as_ansi():
    # The widget reads plotext's cell matrix directly; textual-plotext's own widget has plotext write
    # ANSI codes and Rich parse them back. Both must give the same cells.
    app = ChartApp()
    async with app.run_test(size=(70, 20)) as pilot:
        chart = app.query_one(LiveChart)
        for lines in (
            [Line("read", [1.0, 2.0, 3.0, 4.0], [3000.0, 3500.0, 2000.0, 3900.0], "labtui-read"),
             Line("write", [1.0, 2.0, 3.0, 4.0], [1000.0, 1500.0, 900.0, 1200.0], "labtui-write")],
            [Line("write", [7.0], [39_000.0], "labtui-write")],
        ):
            chart.show(lines, note="warm-up")
            await pilot.pause()
            width, height = chart.size
            ours = [chart.render_line(y) for y in range(height)]
            theirs = Visual.to_strips(chart, visualize(chart, PlotextPlot.render(chart)), width, height,
                                      chart.visual_style)
            assert _cells(ours) == _cells(theirs)
            assert any("warm-up" in strip.text for strip in ours)


async def test_only_the_rows_that_change_are_repainted(monkeypatch):
    app = ChartApp()
    async with app.run_test(size=(70, 20)) as pilot:
        chart = app.query_one(LiveChart)
        series = [Line("read", [1.0, 2.0, 3.0], [3000.0, 3500.0, 3200.0], "labtui-read")]
        chart.show(series)
        await pilot.pause()
        repainted = []
        real_refresh = LiveChart.refresh
        monkeypatch.setattr(LiveChart, "refresh", lambda self, *regions, **kw: repainted.append(regions) or
                            real_refresh(self, *regions, **kw))
        chart.show(series)
        assert repainted == []  # the same lines again: nothing to repaint
        chart.show([Line("read", [1.0, 2.0, 3.0], [3000.0, 3500.0, 3300.0], "labtui-read")])
        (rows,) = repainted
        assert 0 < len(rows) < chart.size.height // 2  # the newest point moved; axes and title did not
