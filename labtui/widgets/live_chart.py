"""A plotext line chart of one quantity (IOPS, MiB/s, latency) with read and write as separate series.

Drawing a plotext chart costs milliseconds per hundred points, so the chart is given its lines
already downsampled (labtui.live.downsample, to about twice its width: braille dots are two to a
cell) and is redrawn only when its owner says so — on a timer, while it is on screen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from textual.color import Color, ColorParseError
from textual_plotext import PlotextPlot

from labtui.widgets.glyphs import chart_marker


@dataclass(frozen=True)
class Line:
    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    colour: str  # a theme variable, e.g. "labtui-read"


def nice_ticks(low: float, high: float, count: int = 4, *, inside: bool = False) -> list[float]:
    """Round tick values (steps of 1, 2, 2.5 or 5 times a power of ten) from `low` to `high`.

    The ticks reach past `high` so a y axis has headroom, unless `inside` (an x axis of seconds).
    """
    span = high - low
    if span <= 0:
        return [low, low + 1.0]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9) * step if inside else math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + 1e-9 * step:
        ticks.append(round(value, 10))
        value += step
    if not inside and ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def compact(value: float) -> str:
    """60000 -> '60k', 1250000 -> '1.25M', 0.25 -> '0.25': axis labels that fit a narrow chart."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


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
        top = max((max(line.ys) for line in drawn), default=0.0)
        marker = chart_marker(getattr(self.app, "plain_glyphs", False))
        for line in drawn:
            plt.plot(list(line.xs), list(line.ys), label=line.label, marker=marker, color=self._rgb(line.colour))
        plt.title(f"{self.chart_title}{f' · {note}' if note else ''}")
        yticks = nice_ticks(0.0, top)
        plt.ylim(yticks[0], yticks[-1])
        plt.yticks(yticks, [compact(v) for v in yticks])
        xs = [x for line in drawn for x in line.xs]
        if xs:
            # One sample (a step's first second) still gets a forward axis of at least a second,
            # not plotext's default of -1 to 1 around it.
            low = min(xs)
            high = max(max(xs), low + 1.0)
            xticks = nice_ticks(low, high, inside=True)
            plt.xlim(low, high)
            plt.xticks(xticks, [f"{compact(v)}s" for v in xticks])
        self.refresh()

    def _rgb(self, variable: str) -> tuple[int, int, int] | str:
        value = self.app.theme_variables.get(variable) or self.app.get_css_variables().get(variable)
        try:
            return Color.parse(value.split()[0]).rgb if value else "default"
        except (ColorParseError, IndexError):
            return "default"
