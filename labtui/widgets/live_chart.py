"""A plotext line chart of one quantity (IOPS, MiB/s, latency) with read and write as separate series.

Drawing a plotext chart costs milliseconds per hundred points, so the chart is given its lines
already downsampled (to about twice its width: braille dots are two to a cell) and is redrawn
only when its owner says so, while it is on screen.

textual-plotext's own widget has plotext write its canvas as a string of ANSI escape codes, which
Rich then parses back into styled text, on every repaint of the widget. Measured on the Run
screen, that round trip cost more than plotext's drawing itself. Here the widget reads plotext's
cell matrix (characters and colours) directly into strips, once per new set of lines, and
repaints only the rows that changed (the axes, the title and empty rows mostly stay as they were).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from plotext._utility import ansi_end, colors_to_ansi, no_color, space as _SPACE
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual import events
from textual.color import Color, ColorParseError
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.style import Style
from textual_plotext import PlotextPlot

from labtui.tui.glyphs import chart_marker, draws_plain

# A colour as plotext keeps it in its matrix: a name ("white", "default"), a 256-colour index, or RGB.
PlotextColour = str | int | tuple[int, int, int]


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


# Rows of a chart that are not its plot: the title, the frame's top and bottom, the x axis' labels.
FRAME_ROWS = 4


def y_tick_count(height: int) -> int:
    """How many intervals the y axis of a chart `height` rows tall is cut into: at most 4, and a
    tick every other plot row at the closest, so that each lands on a row of its own, evenly spaced."""
    rows = height - FRAME_ROWS
    return max(1, min(4, (rows - 1) // 2))


def compact(value: float) -> str:
    """60000 -> '60k', 1250000 -> '1.25M', 0.25 -> '0.25': axis labels that fit a narrow chart."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


class LiveChart(PlotextPlot):
    """Lines against seconds, the y axis from zero (a disk's wobble must not look like a cliff)."""

    class Resized(Message):
        """The chart was laid out at a new size, or shown again: the lines it was given were made for
        another width (or, while it was hidden, none were given), so its owner gives it the series anew."""

    def __init__(self, title: str, unit: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chart_title = title
        self.unit = unit
        self.lines: list[Line] = []
        self.note = ""
        self._strips: list[Strip] = []
        self._top = 0.0  # the highest value of the lines shown
        self._drawn_for: tuple | None = None  # what the strips were drawn for: size, theme, style

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
        marker = chart_marker(draws_plain(self.app))
        for line in drawn:
            plt.plot(list(line.xs), list(line.ys), label=line.label, marker=marker, color=self._rgb(line.colour))
        plt.title(f"{self.chart_title}{f' · {note}' if note else ''}")
        self._top = top  # the y axis is laid out for the chart's height as it is drawn (_draw)
        xs = [x for line in drawn for x in line.xs]
        if xs:
            # One sample (a step's first second) still gets a forward axis of at least a second,
            # not plotext's default of -1 to 1 around it.
            low = min(xs)
            high = max(max(xs), low + 1.0)
            xticks = nice_ticks(low, high, inside=True)
            plt.xlim(low, high)
            plt.xticks(xticks, [f"{compact(v)}s" for v in xticks])
        if self._drawn_for is None or self._drawn_for != self._drawing_key():
            self._drawn_for = None
            self.refresh()  # the size or the theme changed: everything is drawn anew
            return
        old = self._strips
        self._draw()
        changed = [y for y, strip in enumerate(self._strips) if y >= len(old) or strip != old[y]]
        if changed:
            width = self.size.width
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def on_resize(self, event: events.Resize) -> None:
        # Sent once the layout has given the chart its size (also as it is shown again): a frame drawn
        # before that, as on a loaded machine, had charts of the old size, or of none.
        self.post_message(self.Resized())

    def _drawing_key(self) -> tuple:
        return (self.size, self.app.theme, self.visual_style)

    def _draw(self) -> None:
        """plotext's cell matrix of the current lines, as strips (no ANSI codes in between)."""
        width, height = self.size
        key = self._drawing_key()
        plot = self.plt
        plot.plotsize(width, height)
        plot._set_size(width, height)  # as textual-plotext's own render does (its issue 5)
        plot.theme(self._get_plotext_theme_name(self.app.theme))
        # As many ticks as the rows hold apart: four on a chart of 4 rows came out "2k 1.5k 500 0", a
        # tick lost and the rest unevenly spaced, the axis no longer read as a scale (80x24, a mixed step).
        yticks = nice_ticks(0.0, self._top, y_tick_count(height))
        plot.ylim(yticks[0], yticks[-1])
        plot.yticks(yticks, [compact(v) for v in yticks])
        drawing: Any = plot  # plotext's own drawing steps, which textual-plotext's type stubs leave out
        drawing._set_sizes()
        drawing._build_matrix()
        matrix = drawing.monitor.matrix
        base = self.visual_style
        ansi_theme = self.app.ansi_theme
        strips = []
        for row in reversed(range(matrix.rows)):  # plotext's row 0 is the bottom one
            strips.append(Strip(_row_segments(matrix, row, base, ansi_theme)).adjust_cell_length(width, base.rich_style))
        self._strips = strips[:height]
        self._drawn_for = key

    def render_line(self, y: int) -> Strip:
        if self._drawn_for != self._drawing_key():
            self._draw()
        if y < len(self._strips):
            return self._strips[y]
        return Strip.blank(self.size.width, self.visual_style.rich_style)

    def _rgb(self, variable: str) -> tuple[int, int, int] | str:
        value = self.app.theme_variables.get(variable) or self.app.get_css_variables().get(variable)
        try:
            return Color.parse(value.split()[0]).rgb if value else "default"
        except (ColorParseError, IndexError):
            return "default"


def _row_segments(matrix: Any, row: int, base: Style, ansi_theme: TerminalTheme) -> list[Segment]:
    """One row of plotext's matrix as segments: a run of cells per look. A blank cell looks the
    same whatever its foreground, so blanks join the run they are in (fewer segments to write)."""
    markers, fg, bg, st = matrix.marker[row], matrix.fullground[row], matrix.background[row], matrix.style[row]
    segments = []
    start = 0
    look = None  # (foreground, style, background) of the run's first visible cell
    for col in range(matrix.cols):
        blank = markers[col] == _SPACE and st[col] == no_color
        if look is None:
            if not blank:
                look = (fg[col], st[col], bg[col])
                if col > start and bg[col] != bg[start]:
                    segments.append(Segment("".join(markers[start:col]),
                                            _cell_style(base, no_color, no_color, bg[start], ansi_theme)))
                    start = col
            elif bg[col] != bg[start]:
                segments.append(Segment("".join(markers[start:col]),
                                        _cell_style(base, no_color, no_color, bg[start], ansi_theme)))
                start = col
            continue
        if (blank and bg[col] == look[2]) or (fg[col], st[col], bg[col]) == look:
            continue
        segments.append(Segment("".join(markers[start:col]), _cell_style(base, *look, ansi_theme)))
        start = col
        look = None if blank else (fg[col], st[col], bg[col])
    if start < matrix.cols:
        look = look or (no_color, no_color, bg[start])
        segments.append(Segment("".join(markers[start:]), _cell_style(base, *look, ansi_theme)))
    return segments


@lru_cache(maxsize=256)
def _cell_style(base: Style, fullground: PlotextColour, style: str, background: PlotextColour,
                ansi_theme: TerminalTheme) -> RichStyle:
    """The style of a plotext cell, exactly as Rich reads plotext's ANSI codes for it, over `base`."""
    decoded = Text.from_ansi(colors_to_ansi(fullground, style, background) + "x" + ansi_end)
    cell = RichStyle.combine(span.style for span in decoded.spans if isinstance(span.style, RichStyle))
    return (base + Style.from_rich_style(cell, ansi_theme)).rich_style
