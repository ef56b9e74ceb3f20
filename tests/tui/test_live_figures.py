"""A step's figures as they run (widgets/live_figures.py): now, mean and extremes in aligned columns, read and
write in their theme colours, and a widget repainted only where its figures changed."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from labtui.run.live import SERIES_BY_KEY, FigureRow
from labtui.widgets.live_figures import figures_content, show

ROWS = [FigureRow(SERIES_BY_KEY["read_iops"], 12_345.6, 12_000.0, 9000.0, 15_000.0),
        FigureRow(SERIES_BY_KEY["write_mib_s"], 512.25, None, 500.0, 530.0),
        FigureRow(SERIES_BY_KEY["read_p99_ms"], 0.8123, None, None, None),
        FigureRow(SERIES_BY_KEY["cpu"], 42.42, 40.0, 10.0, 90.0)]


def test_the_figures_are_aligned_under_their_heads_with_a_dash_where_nothing_is_known():
    content = figures_content(ROWS)
    assert content.plain.splitlines() == [
        "                   now     mean     min      max",
        "────────────────────────────────────────────────",
        "read IOPS       12,346   12,000   9,000   15,000",
        "write MiB/s      512.2        -   500.0    530.0",
        "read p99 ms      0.812        -       -        -",
        "machine CPU %     42.4     40.0    10.0     90.0",
    ]
    coloured = {content.plain[s.start:s.end].strip(): str(s.style) for s in content.spans if str(s.style) != "bold"}
    assert coloured == {"read IOPS": "$labtui-read", "write MiB/s": "$labtui-write", "read p99 ms": "$labtui-read"}
    assert figures_content([]).plain.splitlines()[0].split() == ["now", "mean", "min", "max"]


async def test_the_same_figures_are_not_drawn_again_and_new_ones_of_the_same_shape_are_not_laid_out_again():
    class Host(App):
        def compose(self) -> ComposeResult:
            yield Static(id="figures")

    app = Host()
    async with app.run_test(size=(80, 12)) as pilot:
        widget = app.query_one(Static)
        calls: list[bool] = []
        real_update = widget.update
        widget.update = lambda content, *, layout=True: calls.append(layout) or real_update(content, layout=layout)
        show(widget, figures_content(ROWS))
        await pilot.pause()
        show(widget, figures_content(ROWS))  # nothing changed: nothing drawn
        assert calls == [True]
        show(widget, figures_content([FigureRow(ROWS[0].series, 12_346.4, 12_000.0, 9000.0, 15_000.0), *ROWS[1:]]))
        assert calls == [True]  # the same text ("12,346") is the same picture
        show(widget, figures_content([FigureRow(ROWS[0].series, 11_000.0, 12_000.0, 9000.0, 15_000.0), *ROWS[1:]]))
        assert calls == [True, False]  # new figures, same widths: repainted in place
        show(widget, figures_content(ROWS[:2]))
        assert calls == [True, False, True]  # fewer lines: laid out again
        await pilot.pause()
        assert "11,000" not in str(widget.render()) and "read p99" not in str(widget.render())
