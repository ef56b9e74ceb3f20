"""Textual's footer, rebuilt only when the keys it shows change, and never hiding "? Help".

The footer rebuilds all its key widgets (and styles each one) whenever the screen's bindings
are refreshed — on every focus change, every screen switch, every `refresh_bindings()` — even
when the keys shown stay the same, and even while its screen is not on show. Here a rebuild
happens only when they differ, on the screen on show.

A screen with many keys (History has seventeen) fills 80 columns long before the app's own keys
at the end; the keys that do not fit are simply cut off. "? Help" lists them all, so when the
keys do not fit it moves to the front.
"""

from __future__ import annotations

from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

HELP_ACTION = "help"
PALETTE_WIDTH = 13  # " ▏^p palette ", docked right


def too_wide(keys, width: int) -> bool:
    """Whether the keys (the palette's aside) overflow `width` cells of the compact footer,
    where they read " ⏎ Open  space Mark  ...  q Quit"."""
    keys = [k for k in keys if isinstance(k, FooterKey) and not k.has_class("-command-palette")]
    used = 1 + sum(len(k.key_display) + 1 + len(k.description) + 2 for k in keys) - 2
    return used > width - PALETTE_WIDTH


class KeysFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple | None = None
        self._help_first = False

    def compose(self):
        # This app gives no binding a group, so the footer yields plain keys (no KeyGroup
        # containers) and they can be reordered here.
        items = list(super().compose())
        self._help_first = too_wide(items, self.app.size.width)
        if self._help_first:
            items.sort(key=lambda w: not (isinstance(w, FooterKey) and w.action == HELP_ACTION))
        yield from items

    def on_resize(self, event: Resize) -> None:
        if too_wide(self.query(FooterKey), self.app.size.width) != self._help_first:
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
