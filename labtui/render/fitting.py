"""Tables laid out for the width they are given: figures and ids whole, text folded at its words.

Rich fits a table that is too wide by shrinking its widest wrapping columns and then, as a last
resort, every column alike, figures too: "2,161,5…" for 2,161,512 IOPS at 60 columns, "unkno" over
"wn" in a column squeezed below its longest word. A person cannot read a cut figure or copy a cut
path. `Fitted` lays the table out itself: each column at least as wide as what must stay whole in it
(every line of a no_wrap column, the longest word of a wrapping one, up to FOLD_AT cells of a
folding one, whose longer tokens are cut where words.py cuts them), the room left shared out
widest first. Where even that is wider than the terminal, the columns named optional are left out
one by one; and where that is not enough, each row is printed as a block of "header  value" lines,
which fit any width a figure fits in.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Group
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

from labtui.render.words import Words

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

# A folding column may cut a token longer than this (a path, a file-named profile) at its
# hyphens and slashes; shorter words ("unknown", "completed") stay whole.
FOLD_AT = 12


class Fitted:
    """`table`, laid out so that nothing in it is cut: see the module's docstring.

    `optional` names the headers of columns that may be left out where the table is too wide,
    the first named first.
    """

    def __init__(self, table: Table, *, optional: Sequence[str] = ()) -> None:
        self.table = table
        self.optional = tuple(optional)

    @property
    def row_count(self) -> int:
        return self.table.row_count

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.laid_out(console, options)

    def laid_out(self, console: Console, options: ConsoleOptions) -> RenderableType:
        """The table with fixed column widths that fit `options.max_width`, fewer columns, or blocks."""
        available = options.max_width if self.table.width is None else min(options.max_width, self.table.width)
        kept = list(range(len(self.table.columns)))
        droppable = [i for name in self.optional for i, c in enumerate(self.table.columns) if _header(c) == name]
        while True:
            table = select(self.table, kept)
            widths = column_widths(table, console, options, available)
            if widths is not None:
                for column, width in zip(table.columns, widths, strict=True):
                    column.width = width
                return table
            if not droppable:
                return stacked(self.table, available)
            kept.remove(droppable.pop(0))


class Either:
    """A cell said on one line where its column has room for it, else on the lines given
    ("68.1 % – 77.6 %", else "68.1 % –" over "77.6 %"): broken where it reads, never inside a figure."""

    def __init__(self, line: str | Text, lines: str | Text) -> None:
        self.line = line if isinstance(line, Text) else Text(line)
        self.lines = lines if isinstance(lines, Text) else Text(lines)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        narrow = max(cell_len(line) for line in self.lines.plain.split("\n"))
        return Measurement(min(narrow, self.line.cell_len), self.line.cell_len).with_maximum(options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        chosen = self.line if self.line.cell_len <= options.max_width else self.lines
        for line in chosen.split("\n", allow_blank=True):
            line.no_wrap = True
            line.end = "\n"
            yield line


def _header(column: Column) -> str:
    header = column.header
    return header.plain if isinstance(header, Text) else str(header)


def select(table: Table, kept: Sequence[int]) -> Table:
    """A copy of `table` with only the columns at `kept` (its own cells and rows are left as they are)."""
    fresh = copy.copy(table)
    fresh.columns = [replace(table.columns[i], _index=n, _cells=list(table.columns[i]._cells))
                     for n, i in enumerate(kept)]
    return fresh


def padding(table: Table, index: int) -> int:
    """The cells of padding column `index` of `table` takes (Rich's own rule)."""
    _top, right, _bottom, left = table.padding
    if table.collapse_padding:
        left, right = 0, abs(0 - right)
    if not table.pad_edge:
        left = 0 if index == 0 else left
        right = 0 if index == len(table.columns) - 1 else right
    return left + right


def borders(table: Table) -> int:
    """The cells a table's box takes beside its columns."""
    if not table.box:
        return 0
    return (2 if table.show_edge else 0) + len(table.columns) - 1


def needed(column: Column, console: Console, options: ConsoleOptions) -> tuple[int, int]:
    """(the fewest cells `column`'s content takes with nothing cut, the most it would take)."""
    least, most = 0, 0
    for cell in (column.header, *column.cells):
        low, high = Measurement.get(console, options.update(width=options.max_width), cell)
        if column.no_wrap:
            low = high
        elif isinstance(cell, Words) or (column.overflow == "fold" and isinstance(cell, str | Text)):
            low = min(high, max(min(low, FOLD_AT), 1))
        least, most = max(least, low), max(most, high)
    if column.min_width is not None:
        least, most = max(least, column.min_width), max(most, column.min_width)
    if column.max_width is not None:
        most = max(least, min(most, column.max_width))
    return least, max(most, least)


def column_widths(table: Table, console: Console, options: ConsoleOptions, available: int) -> list[int] | None:
    """Each column's content width for `table` in `available` cells, or None where it cannot fit whole."""
    room = available - borders(table) - sum(padding(table, i) for i in range(len(table.columns)))
    ranges = [needed(c, console, options) for c in table.columns]
    fixed = [c.width for c in table.columns]
    least = [w if w is not None else low for w, (low, _high) in zip(fixed, ranges, strict=True)]
    widths = [w if w is not None else high for w, (_low, high) in zip(fixed, ranges, strict=True)]
    if sum(least) > room:
        return None
    excess = sum(widths) - room
    while excess > 0:
        # The widest column that can give a cell gives it: long text folds before short text does.
        index = max((i for i in range(len(widths)) if widths[i] > least[i]), key=lambda i: widths[i])
        widths[index] -= 1
        excess -= 1
    return widths


def stacked(table: Table, available: int) -> RenderableType:
    """Each row of `table` as lines of "header  value", a blank line between rows: fits any width."""
    headers = [Text(_header(c), style="bold") for c in table.columns]
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    count = max((len(c._cells) for c in table.columns), default=0)
    for row in range(count):
        cells = [(h, c._cells[row]) for h, c in zip(headers, table.columns, strict=True) if row < len(c._cells)]
        shown = [(h, cell) for h, cell in cells if not _blank(cell)]
        for header, cell in shown:
            grid.add_row(header, cell)
        if shown and row < count - 1:
            grid.add_row("", "")
    parts: list[RenderableType] = []
    if table.title:
        parts.append(table.title if not isinstance(table.title, str) else Text(table.title, style="italic"))
    parts.append(grid)
    if table.caption:
        parts.append(table.caption if not isinstance(table.caption, str) else Text(table.caption, style="dim"))
    return Group(*parts)


def _blank(cell: RenderableType) -> bool:
    if isinstance(cell, str):
        return not cell.strip()
    if isinstance(cell, Text):
        return not cell.plain.strip()
    if isinstance(cell, Words):
        return not cell.text.plain.strip()
    if isinstance(cell, Either):
        return not cell.line.plain.strip()
    return False
