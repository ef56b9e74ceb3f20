"""Tables laid out for the width they are given: figures and ids whole, text folded at its words.

Rich fits a table that is too wide by shrinking its widest wrapping columns and then, as a last
resort, every column alike, figures too: "2,161,5…" for 2,161,512 IOPS at 60 columns, "unkno" over
"wn" in a column squeezed below its longest word. A person cannot read a cut figure or copy a cut
path. `Fitted` lays the table out itself: each column at least as wide as what must stay whole in it
(every line of a no_wrap column, the longest word of a wrapping one, up to FOLD_AT cells of a
folding one, whose longer tokens are cut where words.py cuts them), the room left given where it
saves the most lines (render/widths.py). Where even that is wider than the terminal, the columns
named optional are left out one by one, then the columns move closer together (one space apart);
and where that is not enough, each row is said as its "header value" pairs, as many to a line as
fit, which fits any width a figure fits in.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.box import SIMPLE_HEAD, Box
from rich.cells import cell_len
from rich.console import Group
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

from labtui.render.widths import FOLD_AT, share_room
from labtui.render.words import SOFT_CUTS, Words, break_offsets

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult

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
        """The table with fixed column widths that fit `options.max_width`, fewer columns, closer
        together, or its rows as pairs of header and value."""
        available = options.max_width if self.table.width is None else min(options.max_width, self.table.width)
        kept = list(range(len(self.table.columns)))
        droppable = [i for name in self.optional for i, c in enumerate(self.table.columns) if _header(c) == name]
        # The optional columns go first; only then is the space between the columns given up.
        for tight in (False, True):
            while True:
                table = select(self.table, kept)
                widths = column_widths(tightened(table) if tight else table, console, options, available)
                if widths is not None:
                    for column, width in zip(table.columns, widths, strict=True):
                        column.width = width
                    return table
                if not droppable:
                    break
                kept.remove(droppable.pop(0))
        return paired(self.table, console, options, available)


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


def needed(column: Column, console: Console, options: ConsoleOptions) -> tuple[int, int, int]:
    """(the fewest cells `column`'s content takes with nothing cut, the most it would take, the
    fewest with no word cut either: above the first where a folding column holds a longer token)."""
    least, most, words = 0, 0, 0
    for cell in (column.header, *column.cells):
        low, high = Measurement.get(console, options.update(width=options.max_width), cell)
        if column.no_wrap:
            low = high
        words = max(words, low)
        if not column.no_wrap and (isinstance(cell, Words) or column.overflow == "fold" and isinstance(cell, str | Text)):
            low = min(high, max(min(low, FOLD_AT), 1))
        least, most = max(least, low), max(most, high)
    if column.min_width is not None:
        least, most = max(least, column.min_width), max(most, column.min_width)
    if column.max_width is not None:
        most = max(least, min(most, column.max_width))
    most = max(most, least)
    return least, most, min(max(words, least), most)


def column_widths(table: Table, console: Console, options: ConsoleOptions, available: int) -> list[int] | None:
    """Each column's content width for `table` in `available` cells, or None where it cannot fit whole.

    Each column starts at the least it takes whole; the room left goes where it saves the most
    lines (share_room), a row being as tall as its tallest cell, and what no line needed as Rich
    would give it (filled).
    """
    room = available - borders(table) - sum(padding(table, i) for i in range(len(table.columns)))
    ranges = [needed(c, console, options) for c in table.columns]
    least = [c.width if c.width is not None else low for c, (low, _high, _words) in zip(table.columns, ranges, strict=True)]
    most = [c.width if c.width is not None else high for c, (_low, high, _words) in zip(table.columns, ranges, strict=True)]
    if sum(least) > room:
        return None
    if sum(most) <= room:
        return most
    # Words whole where the room allows, the smallest raise first: a model is not cut
    # ("CT500MX500SS" over "D1") to give a line to another column.
    words = [c.width if c.width is not None else w for c, (_low, _high, w) in zip(table.columns, ranges, strict=True)]
    for i in sorted(range(len(least)), key=lambda i: words[i] - least[i]):
        if words[i] > least[i] and sum(least) - least[i] + words[i] <= room:
            least[i] = words[i]
    # The header is a row of its own: "decided" over "by" costs a line like any cell's.
    cells = [[c.header, *c._cells] for c in table.columns]
    cells = [column + [""] * (max(map(len, cells)) - len(column)) for column in cells]

    def shaped(index: int, width: int) -> ConsoleOptions:
        column = table.columns[index]
        return options.update(width=width, justify=column.justify, no_wrap=column.no_wrap, overflow=column.overflow,
                              height=None, highlight=column.highlight)

    # A cell at least as wide as its widest line takes its own lines: only the others are measured at each width.
    widest = [[Measurement.get(console, options, cell).maximum for cell in column] for column in cells]
    whole = [[cell_lines(cell, console, shaped(i, max(w, 1))) for cell, w in zip(column, widest[i], strict=True)]
             for i, column in enumerate(cells)]

    def lines(index: int, width: int) -> list[float]:
        return [whole[index][n] if width >= widest[index][n] else cell_lines(cell, console, shaped(index, width))
                for n, cell in enumerate(cells[index])]

    # What never folds sets a row's least height (a figure over its margin: two lines).
    fixed = [lines(i, least[i]) for i in range(len(least)) if least[i] == most[i]]
    floor = [max([1.0] + [column[row] for column in fixed]) for row in range(len(cells[0]) if cells else 0)]
    # Room that saves a line only with another column's is given out as Rich would (filled): the
    # columns of a row alike ("8.0 GT/s PCIe x4 (max 16.0 GT/s PCIe" over "x4)" for A and B both).
    return filled(share_room(least, most, room - sum(least), lines, floor, widen_alone=False), most, room)


def filled(widths: Sequence[int], most: Sequence[int], room: int) -> list[int]:
    """`widths` with the room no line needed given out as Rich gives it (the widest columns the
    last to grow): a paragraph of a cell wraps at the table's edge, not wherever it stopped saving."""
    def at(level: int) -> list[int]:
        return [max(w, min(m, level)) for w, m in zip(widths, most, strict=True)]

    low, high = 0, max(most, default=0)
    while low < high:  # the highest level every column may be raised to within the room
        middle = (low + high + 1) // 2
        low, high = (middle, high) if sum(at(middle)) <= room else (low, middle - 1)
    grown = at(low)
    spare = room - sum(grown)
    for i in reversed(range(len(grown))):  # a cell each to the columns held at the level, the right ones first
        if spare and grown[i] == low < most[i]:
            grown[i] += 1
            spare -= 1
    return grown


def cell_lines(cell: RenderableType, console: Console, options: ConsoleOptions) -> float:
    """The lines `cell` takes in a column of `options.max_width` cells, as Rich's table renders it;
    for folded words, half a line more for each word cut where it has no hyphen or slash to break at
    ("clientserver" over "-2clients-"): room goes where it saves lines, then where it saves such cuts."""
    if isinstance(cell, Words):
        lines = cell.text.plain.split("\n")
        breaks = [(line, break_offsets(line, options.max_width)) for line in lines]
        return sum(len(offsets) + 1 + sum(0.5 for at in offsets if not line[at - 1].isspace()
                                          and line[at - 1] not in "," + SOFT_CUTS) for line, offsets in breaks)
    if isinstance(cell, str | Text):  # what rendering it would do, without its segments
        text = console.render_str(cell) if isinstance(cell, str) else cell
        return len(text.wrap(console, options.max_width, justify=options.justify, overflow=options.overflow,
                             no_wrap=bool(options.no_wrap)))
    return len(console.render_lines(cell, options, pad=False))


# SIMPLE_HEAD with its header rule broken between the columns: one space apart, "MiB/s mean ms
# p99 ms" would read as any number of columns.
TIGHT_HEAD = Box("    \n    \n ─  \n    \n    \n    \n    \n    \n")


def tightened(table: Table) -> Table:
    """`table` with one space between its columns and none at its edges (Rich's default is three,
    and one at each edge): what a table of short figures needs to fit 60 columns."""
    table.padding = (0, 0, 0, 0) if table.box else (0, 1, 0, 0)
    table.pad_edge = False
    table.show_edge = False
    if table.box is SIMPLE_HEAD:
        table.box = TIGHT_HEAD
    return table


# Between two "header value" pairs on a line, and before the further lines of a row.
PAIR_GAP = "   "
ROW_INDENT = "  "


def paired(table: Table, console: Console, options: ConsoleOptions, available: int) -> RenderableType:
    """Each row of `table` as its "header value" pairs, as many to a line as fit (a pair is never
    split over two lines where it fits one, and folds at its words where it does not), the row's
    further lines indented, a blank line between the table's sections: fits any width."""
    headers = [_header(c) for c in table.columns]
    count = max((len(c._cells) for c in table.columns), default=0)
    rest = max(available - len(ROW_INDENT), 1)
    parts: list[RenderableType] = []
    if table.title:
        parts.append(table.title if not isinstance(table.title, str) else Text(table.title, style="italic"))
    for row in range(count):
        pairs = [Text.assemble((header, "bold"), " ", value)
                 for header, column in zip(headers, table.columns, strict=True)
                 if row < len(column._cells) and (value := one_line(column._cells[row], console, options)).plain]
        lines: list[Text] = []
        line = Text()
        for pair in pairs:
            if line.plain and line.cell_len + len(PAIR_GAP) + pair.cell_len > (rest if lines else available):
                lines.append(line)
                line = Text()
            line.append(PAIR_GAP if line.plain else "")
            line.append_text(pair)
        lines += [line] if line.plain else []
        for n, piece in enumerate(folded(lines[0], available, rest) if lines else []):
            parts.append(piece if n == 0 else Text(ROW_INDENT) + piece)
        parts += [Text(ROW_INDENT) + piece for line in lines[1:] for piece in folded(line, rest, rest)]
        if pairs and row < count - 1 and row < len(table.rows) and table.rows[row].end_section:
            parts.append(Text(""))
    if table.caption:
        parts.append(table.caption if not isinstance(table.caption, str) else Text(table.caption, style="dim"))
    return Group(*parts)


def folded(text: Text, first: int, rest: int) -> list[Text]:
    """`text` folded at its words: its first line `first` cells wide, the others `rest`."""
    offsets = break_offsets(text.plain, first)
    head, tail = (text, None) if not offsets else (text[:offsets[0]], text[offsets[0]:])
    head.rstrip()
    return [head, *(Words.wrapped(tail, rest) if tail is not None else [])]


def one_line(cell: RenderableType, console: Console, options: ConsoleOptions) -> Text:
    """`cell` said on one line, styles kept: its lines (a figure over its margin, a verdict over what
    decided it) joined by spaces; "" for a blank cell."""
    if isinstance(cell, Either):
        text = cell.line.copy()
    elif isinstance(cell, Words):
        text = cell.text.copy()
    elif isinstance(cell, Text):
        text = cell.copy()
    elif isinstance(cell, str):
        text = console.render_str(cell)  # as the console reads a str (labtui's consoles read no markup)
    else:
        rendered = console.render_lines(cell, options.update(width=max(options.max_width, 200), height=None), pad=False)
        text = Text("\n").join(Text.assemble(*((s.text, s.style or "") for s in line if not s.control)) for line in rendered)
    lines = [line for line in text.split("\n") if line.plain.strip()]
    for line in lines:
        line.rstrip()
    return Text(" ").join(lines)
