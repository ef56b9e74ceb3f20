"""One editable setting: its label, its input, and the model's message when it is refused."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Label, Static


class FormField(Container):
    """A labelled control with a message line that appears only while the value is refused, or
    while it is accepted but will not work where it is meant to (a warning).

    Three widgets in a two-column grid (label, control; the message spans both): forms hold
    dozens of these, and every widget costs time when a screen is first shown.
    """

    def __init__(self, key: str, label: str, control: Widget, *, tooltip: str = "") -> None:
        super().__init__(id=f"field-{key.replace('_', '-')}", classes="form-field")
        self.key = key
        self.label = label
        self.control = control
        self._error = ""
        self._warning = ""
        self._marked = False
        self._shown: tuple[str, bool, bool] = ("", False, False)
        if tooltip:
            control.tooltip = tooltip

    def compose(self) -> ComposeResult:
        yield Label(self.label, classes="form-field-label")
        yield self.control
        yield Static("", classes="form-field-error", markup=False)

    def show_error(self, message: str | None) -> None:
        """Show the model's reason under the control (None clears it)."""
        self._error = message or ""
        self._show()

    def show_warning(self, message: str | None) -> None:
        """Show a warning under the control while it has no error (None clears it)."""
        self._warning = message or ""
        self._show()

    def mark_warning(self, marked: bool) -> None:
        """The label in the warning's colour, the warning said elsewhere (a line of the form's whole
        width: one about several fields is read there, not wrapped in this field's half of a row)."""
        self._marked = marked
        self._show()

    def _show(self) -> None:
        message = self._error or self._warning
        invalid = bool(self._error)
        if (message, invalid, self._marked) == self._shown:
            return
        self._shown = (message, invalid, self._marked)
        error = self.query_one(".form-field-error", Static)
        error.update(message)
        error.display = bool(message)
        self.set_class(invalid, "-invalid")
        self.control.set_class(invalid, "-invalid")
        self.set_class((bool(message) or self._marked) and not invalid, "-warning")
