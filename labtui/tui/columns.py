"""Fitting table columns to the terminal: long columns give up width first, down to a minimum each,
or fold over lines at their words where nothing may be cut."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len

from labtui.render.fitting import FOLD_AT
from labtui.render.words import break_offsets, pieces

# Column key -> the least width it keeps; several of these are given up one after the other.
Shrink = Mapping[str, int] | Sequence[Mapping[str, int]]


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` cells with an ellipsis where it had to be cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def fit_widths(
    columns: Sequence[tuple[str, str]],
    cells: Sequence[Mapping[str, str]],
    available: int,
    shrink: Shrink,
    padding: int = 2,
) -> dict[str, int]:
    """Column widths that fit `available` cells (`padding` per column included).

    Each column starts as wide as its label and its widest cell; while the total is too wide, the
    column in `shrink` furthest above its minimum gives up one cell. `shrink` may be a sequence
    of such mappings: the columns of the first give up width first, down to their minimums,
    before those of the next are touched. Columns in none keep their width (ids, statuses:
    what must never be cut).
    """
    widths = {key: max([len(label)] + [len(c.get(key, "")) for c in cells]) for key, label in columns}
    excess = sum(widths.values()) + padding * len(columns) - available
    for group in [shrink] if isinstance(shrink, Mapping) else shrink:
        while excess > 0:
            shrinkable = [k for k in widths if k in group and widths[k] > group[k]]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda k: widths[k] - group[k])
            widths[widest] -= 1
            excess -= 1
    return widths


def fold(text: str, width: int) -> list[str]:
    """`text` on lines of at most `width` cells, broken where render/words.py breaks a table cell:
    between words and after commas, a token longer than the line after a hyphen or slash."""
    bounds = [0, *break_offsets(text, max(width, 1)), len(text)]
    return [text[start:end].rstrip() for start, end in zip(bounds, bounds[1:], strict=False)] or [""]


def _least(label: str, texts: Sequence[str], most_lines: int | None) -> int:
    """The narrowest a folding column goes: its label whole, words up to FOLD_AT cells whole, and
    every cell on at most `most_lines` lines."""
    longest_word = max((cell_len(p.rstrip()) for t in texts for p in pieces(t)), default=0)
    width = max(cell_len(label), min(longest_word, FOLD_AT), 1)
    widest = max([cell_len(label), *map(cell_len, texts)])
    while most_lines is not None and width < widest and any(len(fold(t, width)) > most_lines for t in texts):
        width += 1
    return width


def fold_widths(
    columns: Sequence[tuple[str, str]],
    cells: Sequence[Mapping[str, str]],
    available: int,
    folding: Sequence[str],
    optional: Sequence[str] = (),
    padding: int = 2,
) -> dict[str, int]:
    """Widths for the columns kept (in order) so that nothing is cut: the rest fold over lines.

    A column not in `folding` keeps its widest cell (a device, a figure). One in `folding` may fold
    its cells at their words (`fold`), each on at most two lines; where even that is too wide,
    the `optional` columns are left out, the first first, and then more lines are allowed. The
    room left goes where it saves the most lines (a row is as tall as its tallest cell); where
    no one column would, to the first of `folding` whose own cells it shortens. The labels stay
    whole: a table's header is one line.
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
    widths = {k: least[k] for k in kept}
    room = available - sum(widths[k] + padding for k in kept)
    shown = [k for k in folding if k in kept]
    # Lines each row's cell takes at each width the column may have.
    lines = {k: {w: [len(fold(t, w)) for t in texts[k]] for w in range(least[k], natural[k] + 1)} for k in shown}

    def total(trial: Mapping[str, int]) -> int:
        return sum(max([1] + [lines[k][trial[k]][row] for k in shown]) for row in range(len(cells)))

    while room > 0:
        current = total(widths)
        best: tuple[float, str, int] | None = None
        for key in shown:
            for width in range(widths[key] + 1, min(natural[key], widths[key] + room) + 1):
                saved = current - total({**widths, key: width})
                rate = saved / (width - widths[key])
                if saved > 0 and (best is None or rate > best[0]):
                    best = (rate, key, width)
        if best is None:
            # No one column saves a line alone (rows where two fold): the first whose own cells
            # take fewer lines within the room left is widened that far, so another may save next.
            best = next(((0.0, k, w) for k in shown for w in range(widths[k] + 1, min(natural[k], widths[k] + room) + 1)
                         if sum(lines[k][w]) < sum(lines[k][widths[k]])), None)
            if best is None:
                break
        _rate, key, width = best
        room -= width - widths[key]
        widths[key] = width
    return widths
