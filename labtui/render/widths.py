"""Column widths that fold text rather than cut it: the room a table has left, given where it saves lines.

One rule for every table labtui lays out itself: each column starts at the least it takes with
nothing cut, and each cell of room left goes to the column where it saves the most lines, a row
being as tall as its tallest cell. `share_room` is the rule; `fold_widths` applies it to the TUI's
tables of plain text (Disks, a result's steps, a profile's steps), render/fitting.py to Rich tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.cells import cell_len

from labtui.render.words import fold, pieces

# A folding column may cut a token longer than this (a path, a file-named profile) at its
# hyphens and slashes; shorter words ("unknown", "completed") stay whole.
FOLD_AT = 12


def share_room(least: Sequence[int], most: Sequence[int], room: int, lines: Callable[[int, int], Sequence[float]],
               floor: Sequence[float], order: Sequence[int] | None = None, widen_alone: bool = True) -> list[int]:
    """Widths from `least` (column by column) towards `most`, `room` cells more in all, given where
    they save the most lines.

    `lines(column, width)` is the lines each row's cell in that column takes at that width; a row is
    as tall as its tallest cell, and at least its `floor` (what never folds). Where no one column
    saves a line alone (rows where two fold), with `widen_alone` the first column (in `order`,
    else from the left) whose own cells take fewer lines within the room left is widened that far,
    so another may save next; without it, that room is left over for the caller to give out.
    """
    widths = list(least)
    growing = [i for i in (order if order is not None else range(len(widths))) if most[i] > least[i]]
    cache: dict[tuple[int, int], Sequence[float]] = {}

    def at(column: int, width: int) -> Sequence[float]:
        if (column, width) not in cache:
            cache[column, width] = lines(column, width)
        return cache[column, width]

    def heights(columns: Sequence[int]) -> list[float]:
        """Each row's height from its floor and the cells of `columns` at their current widths."""
        return [max([floor[row]] + [at(i, widths[i])[row] for i in columns]) for row in range(len(floor))]

    while room > 0:
        current = sum(heights(growing))
        best: tuple[float, int, int] | None = None
        for i in growing:
            others = heights([j for j in growing if j != i])
            for width in range(widths[i] + 1, min(most[i], widths[i] + room) + 1):
                saved = current - sum(map(max, others, at(i, width)))
                rate = saved / (width - widths[i])
                if saved > 0 and (best is None or rate > best[0]):
                    best = (rate, i, width)
        if best is None and widen_alone:
            best = next(((0.0, i, w) for i in growing for w in range(widths[i] + 1, min(most[i], widths[i] + room) + 1)
                         if sum(at(i, w)) < sum(at(i, widths[i]))), None)
        if best is None:
            break
        _rate, i, width = best
        room -= width - widths[i]
        widths[i] = width
    return widths


def fold_widths(
    columns: Sequence[tuple[str, str]],
    cells: Sequence[Mapping[str, str]],
    available: int,
    folding: Sequence[str],
    optional: Sequence[str] = (),
    padding: int = 2,
) -> dict[str, int]:
    """Widths for the columns kept (in order) of a table of plain text (the TUI's own tables, drawn
    line by line) so that nothing is cut: the rest fold over lines at their words (words.fold).

    A column not in `folding` keeps its widest cell (a device, a figure). One in `folding` may fold
    its cells, each on at most two lines; where even that is too wide, the `optional` columns are
    left out, the first first, and then more lines are allowed. The room left goes where it saves
    the most lines (share_room); where no one column would, to the first of `folding` whose own
    cells it shortens. The labels stay whole: a table's header is one line.
    """
    texts = {key: [c.get(key, "") for c in cells] for key, _ in columns}
    natural = {key: max([cell_len(label)] + [cell_len(t) for t in texts[key]]) for key, label in columns}
    labels = dict(columns)
    kept = [key for key, _ in columns]
    least = natural
    for most_lines in (2, 3, None):
        least = {k: _least(labels[k], texts[k], most_lines) if k in folding else natural[k] for k in natural}
        kept = [key for key, _ in columns]
        droppable = [key for key in optional if key in kept]
        while sum(least[k] + padding for k in kept) > available and droppable:
            kept.remove(droppable.pop(0))
        if sum(least[k] + padding for k in kept) <= available:
            break
    room = available - sum(least[k] + padding for k in kept)
    # Only the folding columns grow: the others are at their widest already.
    grown = share_room([least[k] for k in kept], [natural[k] if k in folding else least[k] for k in kept], room,
                       lambda i, width: [len(fold(t, width)) for t in texts[kept[i]]], [1] * len(cells),
                       order=[kept.index(k) for k in folding if k in kept])
    return dict(zip(kept, grown, strict=True))


def _least(label: str, texts: Sequence[str], most_lines: int | None) -> int:
    """The narrowest a folding column goes: its label whole, words up to FOLD_AT cells whole, and
    every cell on at most `most_lines` lines."""
    longest_word = max((cell_len(p.rstrip()) for t in texts for p in pieces(t)), default=0)
    width = max(cell_len(label), min(longest_word, FOLD_AT), 1)
    widest = max([cell_len(label), *map(cell_len, texts)])
    while most_lines is not None and width < widest and any(len(fold(t, width)) > most_lines for t in texts):
        width += 1
    return width
