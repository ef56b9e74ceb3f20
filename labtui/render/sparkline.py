"""A sparkline: recent values as one line of bars, for the fleet's rows (CLI and TUI)."""

from __future__ import annotations

from collections.abc import Iterable

BARS = "▁▂▃▄▅▆▇█"
PLAIN_BARS = " .:-=+*#"  # the Linux console's font has no block elements


def sparkline(values: Iterable[float], width: int = 16, bars: str = BARS) -> str:
    """The last `width` values as bars scaled to their own maximum (empty without values)."""
    recent = list(values)[-width:]
    if not recent:
        return ""
    top = max(recent)
    if top <= 0:
        return bars[0] * len(recent)
    return "".join(bars[min(len(bars) - 1, round(v / top * (len(bars) - 1)))] for v in recent)
