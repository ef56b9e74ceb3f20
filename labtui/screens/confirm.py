"""A yes/no question as a modal: it dismisses True for yes and False for no (or Escape)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmModal(ModalScreen[bool]):
    CSS_PATH = "confirm.tcss"
    BINDINGS = [
        Binding("y", "dismiss(True)", "Yes", id="confirm-yes", tooltip="Go ahead"),
        Binding("n,escape", "dismiss(False)", "No", id="confirm-no", tooltip="Leave things as they are"),
        Binding("left,right", "app.focus_next", "Switch button", show=False),
    ]

    def __init__(self, title: str, message: str, *, yes: str = "Yes", no: str = "No", danger: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.yes_label = yes
        self.no_label = no
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(self.title_text, id="confirm-title", classes="dialog-title", markup=False)
            yield Static(self.message, id="confirm-message", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="error" if self.danger else "primary", compact=True)
                yield Button(f"{self.no_label} (n)", id="no", compact=True)

    def on_mount(self) -> None:
        # A destructive question starts on "no", so a stray Enter changes nothing.
        self.query_one("#no" if self.danger else "#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
