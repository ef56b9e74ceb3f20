"""Fitting the History screen's columns to the terminal (a table of thousands of one-line rows, where a
cell too narrow for its text ends in "…"): the room goes where it makes the most cells whole, by the
rule the folding tables share (render/widths.share_room), counting cut cells where they count lines."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence

from labtui.render.widths import share_room

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


def share_widths(
    columns: Sequence[tuple[str, str]],
    cells: Sequence[Mapping[str, str]],
    available: int,
    least: Mapping[str, int],
    shrink: Shrink,
    order: Sequence[str] = (),
    padding: int = 2,
    weight: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """Column widths that fit `available` cells (`padding` per column included), cutting the fewest cells.

    Each column in `least` starts at that width (or its widest cell, if narrower), every other at its
    widest cell; each cell of room left goes to the column where it makes the most cells whole per
    cell of width (share_room, a column's cut cells counted as its lines; `order` settles ties and
    takes what no cell needs, so a cut text shows more of itself). Where even the least widths do
    not fit, `fit_widths` cuts further by `shrink`.
    """
    keys = [key for key, _ in columns]
    lengths = {key: sorted(len(c.get(key, "")) for c in cells) for key in keys}
    natural = {key: max([len(label)] + lengths[key][-1:]) for key, label in columns}
    start = {key: min(natural[key], least.get(key, natural[key])) for key in keys}
    room = available - sum(start[key] + padding for key in keys)
    if room < 0:
        return fit_widths(columns, cells, available, shrink, padding)

    def cut(index: int, width: int) -> list[float]:
        # One "row" per column: its cells wider than `width`. A row's height is its tallest cell, so the
        # rows of share_room here are the columns, each as tall as the number of cells it cuts.
        counts = [0.0] * len(keys)
        found = lengths[keys[index]]
        counts[index] = (len(found) - bisect_right(found, width)) * (weight or {}).get(keys[index], 1.0)
        return counts

    ranked = [keys.index(k) for k in order if k in keys] + [i for i, k in enumerate(keys) if k not in order]
    widths = share_room([start[k] for k in keys], [natural[k] for k in keys], room, cut, [0.0] * len(keys),
                        order=ranked, widen_alone=False)
    left = available - sum(w + padding for w in widths)
    while left > 0:  # what makes no cell whole: a cell at a time to each column still cut, so each shows more
        still_cut = [i for i in ranked if widths[i] < natural[keys[i]]]
        for i in still_cut[:left]:
            widths[i] += 1
        left -= len(still_cut[:left])
        if not still_cut:
            break
    return dict(zip(keys, widths, strict=True))
