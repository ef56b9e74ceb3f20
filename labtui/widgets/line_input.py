"""A one-line text field whose editing keys act in the order they were typed.

Textual's Input inserts a typed character as the key reaches it, but runs its editing keys
(Backspace, Ctrl+U, Home, Enter …) as bindings, once the key has bubbled up to the app. Keys
typed in a burst (fast typing, tmux send-keys, a terminal's paste of keystrokes) then overtake
them: Ctrl+U and "fio" left the field empty, "abx", Backspace, "c" left "abx". Here the field's
own bindings run as the key reaches it, in turn with the characters around it.

A field shows the start of its text while it is not being edited, and typing into it goes on
at the end. A value from outside (a hosts file's or a directory's name) may hold a newline or an
escape: it is drawn as a visible character, never sent to the terminal (labtui.printable.pictured).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Input

from labtui.printable import pictured


class LineInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        self._restart_blink()
        if event.is_printable:
            return  # Input's own handler (next in the class order) inserts it
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                # Handled: neither Input's handler nor the bindings (after the bubble) see it again.
                event.stop()
                event.prevent_default()
                return

    def _on_focus(self, event: events.Focus) -> None:
        # Typing goes on at the end of the text (Input's handler, next in the class order,
        # selects it all instead where select_on_focus asks for that).
        if not self.select_on_focus and not event.from_app_focus:
            self.cursor_position = len(self.value)

    def _on_blur(self, event: events.Blur) -> None:
        # A field no longer edited shows the start of its text, where a person starts reading
        # (the end of a long title or description otherwise stays in view). Not when the terminal
        # loses focus: the field gets it back as it was.
        if self.app.app_focus:
            self.cursor_position = 0

    @property
    def _value(self) -> Text:
        """The value as drawn: each control character as one visible one (the cursor is placed by
        position), the value itself unchanged."""
        text = super()._value
        shown = pictured(text.plain)
        if shown is text.plain:
            return text
        drawn = Text(shown, no_wrap=True, overflow="ignore", end="")
        for span in text.spans:  # a highlighter's styles, where there is one
            drawn.stylize(span.style, span.start, span.end)
        return drawn
