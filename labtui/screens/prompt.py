"""Ask for one line of text (a profile name) as a modal, checked as you type.

It dismisses the text, or None when cancelled. The check is a function from the caller that
returns the reason the text is refused (None when it is fine), so the rules stay with the model.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from labtui.printable import sentence
from labtui.tui.context import cursor_blinks
from labtui.widgets.line_input import LineInput


class TextPrompt(ModalScreen[str | None]):
    CSS_PATH = "prompt.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="prompt-cancel", tooltip="Close without a change")]

    def __init__(
        self,
        title: str,
        message: str,
        value: str = "",
        *,
        check: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.value = value
        self.check = check or (lambda _text: None)

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog", classes="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            yield Static(self.message, id="prompt-message", markup=False)
            yield LineInput(self.value, id="prompt-input", select_on_focus=False)
            yield Static("", id="prompt-error", markup=False)
            yield Static("Enter to confirm · Escape to cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        text_input = self.query_one(Input)
        text_input.cursor_blink = cursor_blinks(self.app)
        text_input.focus()
        self._show(self.check(self.value) if self.value else None)

    def _show(self, problem: str | None) -> None:
        error = self.query_one("#prompt-error", Static)
        error.update(sentence(problem or ""))
        error.display = bool(problem)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show(self.check(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.check(event.value)
        if problem:
            self._show(problem)
            return
        self.dismiss(event.value.strip())
