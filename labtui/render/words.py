"""Table cells of names and lists (tags, profile names, disk models) that wrap between words, never in one.

Rich wraps a cell at spaces only and, with overflow="fold", cuts a word that does not fit wherever the
column ends: "swapped-card-2026-11-3" over "0,firmware-upgraded". A `Words` cell breaks a line at a
space or after a comma; only a single token longer than the whole column is cut, after its last
hyphen, slash, dot or underscore that fits (not in the first third of the line, which would leave it
nearly empty) or else at the column's edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.measure import Measurement
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

# A piece runs to just past a break: its word, then any commas, then any spaces.
PIECE = re.compile(r"[^\s,]*,*\s*")
# Inside a token too long for the column, where a cut reads least like a broken word.
SOFT_CUTS = "-/._"


def pieces(line: str) -> list[str]:
    return [p for p in PIECE.findall(line) if p]


def cut_token(token: str, width: int) -> int:
    """How many characters of a token too long for `width` cells go on this line (at least one)."""
    taken, fits = 0, 0
    for index, char in enumerate(token):
        taken += cell_len(char)
        if taken > width:
            break
        fits = index + 1
    fits = max(fits, 1)
    soft = max((i + 1 for i in range(fits) if token[i] in SOFT_CUTS), default=0)
    return soft if soft * 3 >= fits else fits


def break_offsets(line: str, width: int) -> list[int]:
    """Where `line` is broken to fit `width` cells: offsets into it, each the start of a new line."""
    offsets: list[int] = []
    start, used = 0, 0  # the current piece's offset, and the cells taken on the line being filled
    for piece in pieces(line):
        word = piece.rstrip()
        if used and used + cell_len(word) > width:
            offsets.append(start)
            used = 0
        rest, at = word, start
        while cell_len(rest) > width - used:  # a token longer than the column (used is 0 here)
            taken = cut_token(rest, width)
            at += taken
            rest = rest[taken:]
            offsets.append(at)
        used += cell_len(piece[at - start:])
        start += len(piece)
    return [o for o in offsets if 0 < o < len(line.rstrip())]


def fold(text: str, width: int) -> list[str]:
    """Plain `text` on lines of at most `width` cells, broken where a `Words` cell breaks (a table
    cell of the TUI's own tables, the header bar's target): never an empty list."""
    bounds = [0, *break_offsets(text, max(width, 1)), len(text)]
    return [text[start:end].rstrip() for start, end in zip(bounds, bounds[1:], strict=False)] or [""]


def one_line(text: str, width: int) -> str:
    """Plain `text` on one line of at most `width` cells: whole where it fits, else cut at a word
    break and ended with "…" (for a cell where the whole text is shown elsewhere)."""
    if cell_len(text) <= width:
        return text
    return fold(text, max(width - 1, 1))[0].rstrip(" ,;:") + "…"


class Words:
    """A cell's text (plain or styled, lines kept), wrapped between words to the column it is given."""

    def __init__(self, text: str | Text) -> None:
        self.text = text if isinstance(text, Text) else Text(text)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.text.plain.split("\n")
        longest_word = max((cell_len(p.rstrip()) for line in lines for p in pieces(line)), default=0)
        widest = max(cell_len(line.rstrip()) for line in lines)
        return Measurement(longest_word, widest).with_maximum(options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width, 1)
        for line in self.text.split("\n", allow_blank=True):
            yield from self.wrapped(line, width)

    @staticmethod
    def wrapped(line: Text, width: int) -> Iterator[Text]:
        for part in line.divide(break_offsets(line.plain, width)):
            part.rstrip()
            part.end = "\n"
            part.no_wrap = True
            yield part
