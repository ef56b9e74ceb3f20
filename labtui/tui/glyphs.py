"""Drawing on the Linux virtual console, whose fonts have 256-512 glyphs.

There (TERM=linux) braille, eighth blocks and symbols such as ⏎ come out as blanks or diamonds,
so charts, scrollbars and key names fall back to glyphs the console's fonts all have: dots, whole
cells, words. `LABTUI_GLYPHS=plain` asks for this anywhere (a terminal with a poor font),
`LABTUI_GLYPHS=full` never.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual._context import active_app
from textual.scrollbar import ScrollBarRender

if TYPE_CHECKING:
    from rich.segment import Segments
    from textual.app import App


def plain_console(environ: Mapping[str, str] = os.environ) -> bool:
    wanted = environ.get("LABTUI_GLYPHS", "").strip().lower()
    if wanted in ("plain", "full"):
        return wanted == "plain"
    return environ.get("TERM", "") == "linux"


def draws_plain(app: App | None) -> bool:
    """Whether `app` draws only glyphs the console has: labtui's app says; any other app draws in full."""
    return bool(getattr(app, "plain_glyphs", False))


# The chart marker: braille packs 2x4 dots in a cell; on the console, one bullet per cell.
def chart_marker(plain: bool) -> str:
    return "dot" if plain else "braille"


def key_display(display: str, key: str) -> str:
    """A key's name where Textual would show a symbol the console cannot draw (⏎, ⌫, ⇥)."""
    return display if display.isascii() else key.replace("_", " ")


class _WholeCellBars(ScrollBarRender):
    # No eighth blocks for the ends of the thumb: it moves a whole cell at a time.
    VERTICAL_BARS = [" "]
    HORIZONTAL_BARS = [" "]


class ConsoleScrollBarRender(ScrollBarRender):
    """Textual's scrollbar, with whole-cell thumbs in an app drawing plain glyphs."""

    @classmethod
    def render_bar(cls, *args: Any, **kwargs: Any) -> Segments:
        # Textual's arguments, passed on as they came (its signature, defaults and all, is its own).
        if draws_plain(active_app.get(None)):
            return _WholeCellBars.render_bar(*args, **kwargs)
        return super().render_bar(*args, **kwargs)
