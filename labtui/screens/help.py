"""The keys of the screen you are on, with what each does: a modal opened by ? or F1."""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from labtui.tui.styling import theme_style


@dataclass(frozen=True)
class KeyHelp:
    keys: str  # as shown, e.g. "ctrl+s" or "? / f1"
    description: str
    tooltip: str
    scope: str  # "this screen", "everywhere", or the widget it belongs to


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss(None)", "Close", id="help-close", tooltip="Back to the screen"),
    ]

    def __init__(self, screen_title: str, keys: list[KeyHelp], note: str | None = None) -> None:
        super().__init__()
        self.screen_title = screen_title
        self.keys = keys
        # What the screen says in a few words where it is narrow, in full (the Run screen's CPU-bound note).
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static(f"Keys: {self.screen_title}", classes="dialog-title", markup=False)
            if self.note:
                yield Static(self.note, id="help-note", markup=False)
            with VerticalScroll(id="help-scroll"):
                yield Static(id="help-keys")
            yield Static("Escape closes this.", classes="dialog-hint")

    def on_mount(self) -> None:
        table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False, pad_edge=False)
        table.add_column("key", no_wrap=True, style=theme_style(self.app, "accent", bold=True))
        table.add_column("does", ratio=1)
        table.add_column("where", no_wrap=True, style="dim")
        for item in self.keys:
            text = item.description if not item.tooltip else f"{item.description}: {item.tooltip}"
            table.add_row(item.keys, text, item.scope)
        self.query_one("#help-keys", Static).update(table)
        self.query_one("#help-scroll").focus()
