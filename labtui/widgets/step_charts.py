"""One step's IOPS, MiB/s and mean latency charts over time: read and write as separate lines.

Used live by the Run screen (redrawn on its timer) and once per step by the result view. Each
chart gets its samples downsampled to its own width. On a narrow terminal one chart shows at a
time (`cycle` shows the next); a chart that is not displayed is not drawn at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal

from labtui.model.result import Sample
from labtui.run.live import SERIES_BY_KEY
from labtui.series import downsample
from labtui.widgets.live_chart import Line, LiveChart

# (chart id, title, unit, series keys without their direction)
CHARTS = (
    ("iops", "IOPS", "IOPS", "iops"),
    ("mib", "MiB/s", "MiB/s", "mib_s"),
    ("latency", "Mean latency (ms)", "ms", "lat_ms"),
)
COLOURS = {"read": "labtui-read", "write": "labtui-write"}
# A command step's counts are the disk's requests after the kernel merged them, from every process:
# charted, but not called IOPS (its results say why there is no IOPS figure for it).
COMMAND_RATE_TITLE = "Disk requests/s"


class StepCharts(Horizontal):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected = 0
        self.single = False

    def compose(self) -> ComposeResult:
        for key, title, unit, _series in CHARTS:
            yield LiveChart(title, unit, id=f"chart-{key}", classes="step-chart")

    @property
    def charts(self) -> list[LiveChart]:
        return list(self.query(LiveChart))

    def set_single(self, single: bool) -> None:
        """One chart at a time (narrow terminals) or all three side by side."""
        self.single = single
        for i, chart in enumerate(self.charts):
            chart.display = not single or i == self.selected

    def cycle(self) -> str:
        """Show the next chart (one-at-a-time mode); returns its title."""
        self.selected = (self.selected + 1) % len(CHARTS)
        self.set_single(self.single)
        return CHARTS[self.selected][1]

    @property
    def points(self) -> int:
        """How many points fill the widest chart on screen (0 while none has its size yet)."""
        return max((chart.points for chart in self.charts if chart.display and chart.size.width), default=0)

    def draw(self, samples: Sequence[Sample], directions: Sequence[str], note: str = "", *,
             command: bool = False) -> None:
        """Redraw the charts on screen from `samples` (the others are left alone); `command`: a command
        step's disk counters."""
        for chart, (_key, title, _unit, series) in zip(self.charts, CHARTS):
            chart.chart_title = _title(title, series, command)
            if chart.display and chart.size.width:
                _show(chart, series, downsample(samples, chart.points), directions, note)

    def draw_points(self, points: Sequence[Sample], directions: Sequence[str], note: str = "", *,
                    command: bool = False) -> None:
        """Redraw the charts on screen from `points`, already merged to about `self.points`."""
        for chart, (_key, title, _unit, series) in zip(self.charts, CHARTS):
            chart.chart_title = _title(title, series, command)
            if chart.display and chart.size.width:
                _show(chart, series, points, directions, note)


def _title(title: str, series: str, command: bool) -> str:
    return COMMAND_RATE_TITLE if command and series == "iops" else title


def _show(chart: LiveChart, series: str, points: Sequence[Sample], directions: Sequence[str], note: str) -> None:
    xs = [s.t for s in points]
    lines = []
    for direction in directions:
        value = SERIES_BY_KEY[f"{direction}_{series}"].value
        pairs = [(x, v) for x, v in zip(xs, map(value, points)) if v is not None]
        if pairs:
            lines.append(Line(direction, [p[0] for p in pairs], [p[1] for p in pairs], COLOURS[direction]))
    chart.show(lines, note)
