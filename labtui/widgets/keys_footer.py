"""Textual's footer, rebuilt only when the keys it shows change, and fitted to the terminal's width.

The footer rebuilds all its key widgets (and styles each one) whenever the screen's bindings
are refreshed — on every focus change, every screen switch, every `refresh_bindings()` — even
when the keys shown stay the same, and even while its screen is not on show. Here a rebuild
happens only when they differ, on the screen on show.

A screen with many keys (History has thirteen, besides the app's) fills 80 columns long before
the app's own keys at the end, and Textual's footer simply cuts off what does not fit: at 80
columns the Disks screen lost "h History" and "q Quit". When the keys do not fit, the screen's
secondary keys (`footer_secondary()`, binding ids in the order they give way) are left out,
then the app's (its own `footer_secondary()`), then the palette's reminder at the right;
"? Help", which lists every key, then moves to the front. The keys left out still work, and
? Help and the palette list them.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.events import Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

HELP_ACTION = "help"
PALETTE_WIDTH = 13  # " ▏^p palette ", docked right


def is_palette(widget: Widget) -> bool:
    return isinstance(widget, FooterKey) and widget.has_class("-command-palette")


def too_wide(keys: Iterable[Widget], width: int) -> bool:
    """Whether the keys (and the palette's reminder docked right, if among them) overflow `width`
    cells of the footer, where they read " ⏎ Open  space Mark  ...  q Quit"."""
    keys = list(keys)
    shown = [k for k in keys if isinstance(k, FooterKey) and not is_palette(k)]
    used = 1 + sum(len(k.key_display) + 1 + len(k.description) + 2 for k in shown) - 2
    return used > width - (PALETTE_WIDTH if any(is_palette(k) for k in keys) else 0)


def fit(items: list, secondary: list[str], width: int) -> list:
    """`items` without the secondary keys (FooterKey actions, in the order they give way) and then
    the palette's reminder, as many as it takes to fit `width`."""
    for action in secondary:
        if not too_wide(items, width):
            return items
        items = [w for w in items if not (isinstance(w, FooterKey) and not is_palette(w) and w.action == action)]
    if too_wide(items, width):
        items = [w for w in items if not is_palette(w)]
    return items


def secondary_actions(screen: Screen) -> list[str]:
    """The actions of the keys `screen` lets the footer leave out, from their binding ids: the
    screen's in its order, then those of the app's keys that give way on any screen."""
    ids: list[str] = []
    for owner in (screen, screen.app):
        ask = getattr(owner, "footer_secondary", None)
        ids += [i for i in (ask() if ask is not None else ()) if i not in ids]
    by_id = {active.binding.id: active.binding.action for active in screen.active_bindings.values()
             if active.binding.id}
    return [by_id[i] for i in ids if i in by_id]


class KeysFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple | None = None
        self._help_first = False
        self._width: int | None = None

    def compose(self) -> ComposeResult:
        # This app gives no binding a group, so the footer yields plain keys (no KeyGroup
        # containers) and they can be left out and reordered here.
        items = list(super().compose())
        width = self._width = self.app.size.width
        self._help_first = too_wide(items, width)
        if self._help_first:
            items = fit(items, secondary_actions(self.screen), width)
            items.sort(key=lambda w: not (isinstance(w, FooterKey) and w.action == HELP_ACTION))
        yield from items

    def on_resize(self, event: Resize) -> None:
        if self.app.size.width != self._width:
            self.call_later(self.recompose)

    def bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen and not screen.is_current:
            # A screen switched away from still has its bindings refreshed (the app's keys change
            # with the mode on show): rebuilding its hidden footer then, and again on coming back,
            # cost more than half of switching screens. It is compared again when shown.
            return
        if screen is self.screen and screen.app.app_focus and self.is_attached:
            shown = tuple((key, active.binding.description, active.enabled, active.tooltip)
                          for key, active in screen.active_bindings.items() if active.binding.show)
            if shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)
