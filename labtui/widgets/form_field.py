"""One editable setting: its label, its input, and the model's message when it is refused."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Label, Static


class FormField(Container):
    """A labelled control with a message line that appears only while the value is refused.

    Three widgets in a two-column grid (label, control; the message spans both): forms hold
    dozens of these, and every widget costs time when a screen is first shown.
    """

    def __init__(self, key: str, label: str, control: Widget, *, tooltip: str = "") -> None:
        super().__init__(id=f"field-{key.replace('_', '-')}", classes="form-field")
        self.key = key
        self.label = label
        self.control = control
        self._message = ""
        if tooltip:
            control.tooltip = tooltip

    def compose(self) -> ComposeResult:
        yield Label(self.label, classes="form-field-label")
        yield self.control
        yield Static("", classes="form-field-error", markup=False)

    def show_error(self, message: str | None) -> None:
        """Show the model's reason under the control (None clears it)."""
        message = message or ""
        if message == self._message:
            return
        self._message = message
        error = self.query_one(".form-field-error", Static)
        error.update(message)
        error.display = bool(message)
        self.set_class(bool(message), "-invalid")
        self.control.set_class(bool(message), "-invalid")
