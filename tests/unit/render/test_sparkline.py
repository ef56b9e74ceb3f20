"""A sparkline (labtui.render.sparkline): recent values as bars, scaled to their own maximum."""

from __future__ import annotations

from labtui.render.sparkline import BARS, PLAIN_BARS, sparkline


def test_the_last_values_are_bars_scaled_to_their_maximum():
    assert sparkline([0, 1, 2, 3, 4, 5, 6, 7]) == BARS
    assert sparkline([80, 10, 20, 50, 60, 70, 80], width=4) == "▅▆▇█"  # the last four, against the largest of them
    assert sparkline([5, 10], bars=PLAIN_BARS) == "=#"  # the Linux console's font has no block elements


def test_nothing_yet_is_no_line_and_all_zero_is_the_lowest_bar():
    assert sparkline([]) == "" and sparkline([0, 0, 0]) == "▁▁▁"
