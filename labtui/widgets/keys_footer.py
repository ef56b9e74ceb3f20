"""Textual's footer, rebuilt only when the keys it shows change.

The footer rebuilds all its key widgets (and styles each one) whenever the screen's bindings
are refreshed — on every focus change, every screen switch, every `refresh_bindings()` — even
when the keys shown stay the same. Here a rebuild happens only when they differ.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen and screen.app.app_focus and self.is_attached:
            shown = tuple((key, active.binding.description, active.enabled, active.tooltip)
                          for key, active in screen.active_bindings.items() if active.binding.show)
            if shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)
