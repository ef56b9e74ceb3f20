"""A read-only table drawn line by line, so thousands of rows filter, sort and scroll as fast as you type.

Textual's DataTable measures every cell of every row it is given (about 0.2 ms a row here):
refilling it with 2,000 results per keystroke would lag. This table draws only the rows on
screen (Textual's line API), so replacing its rows costs what building a list costs. It has a
fixed header line, a row cursor, marked rows, and columns fitted to its width by the caller. A
cell may hold several lines (a name the caller folded at its words): its row is as tall as its
tallest cell.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int
    justify: str = "left"  # or "right"
    gap: int = 1  # spaces before it (figures after a full text column need two to stay apart)


@dataclass(frozen=True)
class Row:
    key: str
    cells: tuple[str | Text, ...]  # Text keeps its own style (a status in the theme's warning colour)
    style: Style | None = None  # for the whole row (e.g. dimmed for a broken file)

    @property
    def height(self) -> int:
        """The lines the row takes: its tallest cell's."""
        return 1 + max((_plain(cell).count("\n") for cell in self.cells), default=0)


def _plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else cell


GAP = 1  # spaces before a column by default (one: the tables are meant to fit 80 columns)


class RowTable(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"row-table--header", "row-table--cursor", "row-table--marked", "row-table--sorted"}
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    class Highlighted(Message):
        def __init__(self, table: RowTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> RowTable:
            return self.table

    class Selected(Highlighted):
        """A double click on a row (the screen binds Enter to what opening means there)."""

    class HeaderClicked(Message):
        def __init__(self, table: RowTable, column: str) -> None:
            super().__init__()
            self.table = table
            self.column = column

        @property
        def control(self) -> RowTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: list[Column] = []
        self.rows: list[Row] = []
        self.marked: set[str] = set()
        self.sorted_column: str | None = None
        self._index: dict[str, int] = {}
        self._tops: list[int] = []  # the first line of each row below the header
        self._lines = 0  # the lines of every row

    # ------------------------------------------------------------------ content

    def set_columns(self, columns: Sequence[Column]) -> None:
        self.columns = list(columns)
        self._resize()
        self.refresh()

    def set_rows(self, rows: Sequence[Row], keep: str | None = None) -> None:
        """Replace every row; the cursor stays on `keep` (or on the row it was on) where still present."""
        current = keep if keep is not None else self.cursor_key
        self.rows = list(rows)
        self._index = {row.key: i for i, row in enumerate(self.rows)}
        heights = [row.height for row in self.rows]
        self._tops = [0, *accumulate(heights)][:-1]
        self._lines = sum(heights)
        self._resize()
        index = self._index.get(current, min(self.cursor, max(0, len(self.rows) - 1))) if current else 0
        self.cursor = index
        self.refresh()

    def _resize(self) -> None:
        width = sum(c.width + c.gap for c in self.columns)
        self.virtual_size = Size(width, self._lines + 1)

    @property
    def cursor_key(self) -> str | None:
        return self.rows[self.cursor].key if 0 <= self.cursor < len(self.rows) else None

    def row_index(self, key: str) -> int | None:
        return self._index.get(key)

    def move_to(self, key: str) -> None:
        index = self._index.get(key)
        if index is not None:
            self.cursor = index

    def refresh_row(self, key: str) -> None:
        index = self._index.get(key)
        if index is None:
            return
        for line in range(self._tops[index], self._tops[index] + self.rows[index].height):
            y = line - round(self.scroll_y) + 1
            if 1 <= y < self.size.height:
                self.refresh_line(y)

    # ------------------------------------------------------------------ cursor

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.cursor_key))

    def _scroll_to_cursor(self) -> None:
        if not self.rows:
            return
        visible = max(1, self.size.height - 1)  # the header takes a line
        top = round(self.scroll_y)
        first = self._tops[self.cursor]
        last = first + self.rows[self.cursor].height - 1
        if first < top:
            self.scroll_to(y=first, animate=False, immediate=True)
        elif last >= top + visible:
            self.scroll_to(y=min(first, last - visible + 1), animate=False, immediate=True)

    def on_resize(self) -> None:
        self._scroll_to_cursor()

    def action_move(self, delta: int) -> None:
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        if not self.rows:
            return
        # A page of lines, not of rows: a row may take several.
        line = self._tops[self.cursor] + direction * max(1, self.size.height - 2)
        self.cursor = self._row_at(min(max(line, 0), self._lines - 1)) or 0

    def action_edge(self, end: int) -> None:
        self.cursor = len(self.rows) - 1 if end else 0

    def action_select(self) -> None:
        if self.cursor_key is not None:
            self.post_message(self.Selected(self, self.cursor_key))

    def on_click(self, event: events.Click) -> None:
        y = event.y
        if y == 0:
            x = event.x + round(self.scroll_x)
            for column in self.columns:
                if x < column.width + column.gap:
                    self.post_message(self.HeaderClicked(self, column.key))
                    return
                x -= column.width + column.gap
            return
        index = self._row_at(round(self.scroll_y) + y - 1)
        if index is not None:
            if index == self.cursor and event.chain >= 2:
                self.action_select()
            self.cursor = index

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y == 0:
            return self._header(width, base)
        line = round(self.scroll_y) + y - 1
        index = self._row_at(line)
        if index is None:
            return Strip.blank(width, base)
        row = self.rows[index]
        segments = self._segments(row.cells, base + row.style if row.style else base, line - self._tops[index])
        if row.key in self.marked:
            segments = self._styled(segments, "row-table--marked")
        if index == self.cursor and self.has_focus:
            segments = self._styled(segments, "row-table--cursor")
        elif index == self.cursor:
            # Unfocused, the cursor row stays findable without shouting.
            segments = list(Segment.apply_style(segments, post_style=Style(underline=True)))
        strip = Strip(segments).crop(round(self.scroll_x), round(self.scroll_x) + width)
        return strip.extend_cell_length(width, base)

    def _styled(self, segments: list[Segment], component: str) -> list[Segment]:
        return list(Segment.apply_style(segments, post_style=self.get_component_rich_style(component, partial=True)))

    def _header(self, width: int, base: Style) -> Strip:
        header = base + self.get_component_rich_style("row-table--header", partial=True)
        sorted_style = self.get_component_rich_style("row-table--sorted", partial=True)
        labels = [Text(c.label, style=sorted_style) if c.key == self.sorted_column else c.label for c in self.columns]
        strip = Strip(self._segments(labels, header)).crop(round(self.scroll_x), round(self.scroll_x) + width)
        return strip.extend_cell_length(width, header)

    def _row_at(self, line: int) -> int | None:
        """The row drawn on `line` (0 the first below the header), or None below the last."""
        if not 0 <= line < self._lines:
            return None
        return bisect_right(self._tops, line) - 1

    def _segments(self, cells: Sequence[str | Text], style: Style, line: int = 0) -> list[Segment]:
        """One line (the `line`-th of the row's): each cell cut (with an ellipsis) or padded to its column's width."""
        segments = []
        for i, column in enumerate(self.columns):
            cell = cells[i] if i < len(cells) else ""
            if isinstance(cell, Text):
                plain, cell_style = cell.plain, style + cell.style if isinstance(cell.style, Style) else style
            else:
                plain, cell_style = cell, style
            lines = plain.split("\n")
            plain = lines[line] if line < len(lines) else ""
            if cell_len(plain) > column.width:
                plain = set_cell_size(plain, max(0, column.width - 1)) + "…"
            pad = " " * (column.width - cell_len(plain))
            text = pad + plain if column.justify == "right" else plain + pad
            segments += [Segment(" " * column.gap, style), Segment(text, cell_style)]
        return segments

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
