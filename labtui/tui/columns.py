"""Fitting the History screen's columns to the terminal: long columns give up width first, down to a
minimum each (a table of thousands of one-line rows; what folds instead is render/widths.fold_widths)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Column key -> the least width it keeps; several of these are given up one after the other.
Shrink = Mapping[str, int] | Sequence[Mapping[str, int]]


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
