"""A one-line choice between a few values (random / sequential, on / off), cycled with a key.

Lighter than a drop-down (one widget, no overlay) and quicker for two or three values:
Space or the arrow keys change the value; Enter moves to the next field. In a form (`by_letter`),
typing a value's first letter picks it: "c" on Kind is "command", "n" on a yes/no is "no", where
they reached the screen's keys (Duplicate, Rename) instead.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class Choice(Widget, can_focus=True):
    BINDINGS = [
        Binding("space,right", "step(1)", "Next value", show=False),
        Binding("left", "step(-1)", "Previous value", show=False),
        # Enter moves on, as it does in the text fields around it: a form filled in with
        # Enter must not flip a choice on the way.
        Binding("enter", "app.focus_next", "Next field", show=False),
    ]

    index: reactive[int] = reactive(0)

    class Changed(Message):
        def __init__(self, choice: Choice, value: Any) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(self, options: tuple[tuple[str, Any], ...], *, id: str | None = None, by_letter: bool = False) -> None:
        super().__init__(id=id)
        self.options = options
        self.by_letter = by_letter

    @property
    def value(self) -> Any:
        return self.options[self.index][1]

    @value.setter
    def value(self, value: Any) -> None:
        for i, (_label, option) in enumerate(self.options):
            if option == value:
                self.index = i
                return
        raise ValueError(f"{value!r} is not one of the choices")

    def render(self) -> Content:
        labels = [label for label, _ in self.options]
        parts = []
        for i, label in enumerate(labels):
            if i:
                parts.append(Content(" "))
            if i == self.index:
                parts.append(Content.styled(f"[{label}]", "bold $text"))
            else:
                parts.append(Content.styled(f" {label} ", "$text-muted"))
        return Content.assemble(*parts)

    def action_step(self, delta: int) -> None:
        self.index = (self.index + delta) % len(self.options)
        self.post_message(self.Changed(self, self.value))

    def on_key(self, event: events.Key) -> None:
        if not self.by_letter or event.character is None or not event.character.isalnum():
            return
        starting = [i for i, (label, _) in enumerate(self.options) if label.lower().startswith(event.character.lower())]
        if not starting:
            return
        event.stop()
        event.prevent_default()
        # The next value of that letter after the one shown: "o" goes from off to on and back.
        wanted = next((i for i in starting if i > self.index), starting[0])
        if wanted != self.index:
            self.action_step(wanted - self.index)

    def on_click(self) -> None:
        self.focus()
        self.action_step(1)
