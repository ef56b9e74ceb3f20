"""A plotext line chart of one quantity (IOPS, MiB/s, latency) with read and write as separate series.

Drawing a plotext chart costs milliseconds per hundred points, so the chart is given its lines
already downsampled (labtui.live.downsample, to about twice its width: braille dots are two to a
cell) and is redrawn only when its owner says so — on a timer, while it is on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from textual.color import Color, ColorParseError
from textual_plotext import PlotextPlot


@dataclass(frozen=True)
class Line:
    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    colour: str  # a theme variable, e.g. "labtui-read"


class LiveChart(PlotextPlot):
    """Lines against seconds, the y axis from zero (a disk's wobble must not look like a cliff)."""

    def __init__(self, title: str, unit: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chart_title = title
        self.unit = unit
        self.lines: list[Line] = []
        self.note = ""

    @property
    def points(self) -> int:
        """How many points a line should have to fill the chart: two per cell of width."""
        return max(8, 2 * self.size.width)

    def show(self, lines: list[Line], note: str = "") -> None:
        """Replace the lines and redraw."""
        self.lines = lines
        self.note = note
        plt = self.plt
        plt.clear_data()
        drawn = [line for line in lines if line.xs]
        top = max((max(line.ys) for line in drawn if line.ys), default=0.0)
        for line in drawn:
            plt.plot(list(line.xs), list(line.ys), label=line.label, marker="braille",
                     color=self._rgb(line.colour))
        plt.title(f"{self.chart_title}{f' · {note}' if note else ''}")
        plt.ylim(0, top * 1.1 if top > 0 else 1)
        plt.xlabel("s")
        self.refresh()

    def _rgb(self, variable: str) -> tuple[int, int, int] | str:
        value = self.app.theme_variables.get(variable) or self.app.get_css_variables().get(variable)
        try:
            return Color.parse(value.split()[0]).rgb if value else "default"
        except (ColorParseError, IndexError):
            return "default"
