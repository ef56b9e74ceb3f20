"""A one-paragraph text field that wraps: a sentence is read whole, not cut at the field's edge.

A profile's description ("64 KiB random read and write, 4 threads x 8 outstanding, 10 s each on a
1 GiB file") is longer than a one-line field at 120 columns: this one shows it over as many lines
as it takes (three at most, then it scrolls). It holds one line of text all the same, as the
profile file does: Enter moves on to the next field, as in the rest of the form, and a line break
pasted in becomes a space. `value` reads and sets it as an Input's does.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea


class WrappedInput(TextArea):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(soft_wrap=True, compact=True, show_line_numbers=False, tab_behavior="focus",
                         highlight_cursor_line=False, id=id)

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.text = " ".join(text.splitlines())

    # TextArea's own handlers come next in the class order, unless these prevent them.
    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.screen.focus_next()

    async def _on_paste(self, event: events.Paste) -> None:
        if "\n" in event.text or "\r" in event.text:
            event.stop()
            event.prevent_default()
            if not self.read_only:
                self.replace(" ".join(event.text.splitlines()), *self.selection)
