"""Export results to a file: CSV for spreadsheets, Markdown for posts and tickets, JSON for scripts.

A modal with the format and the file name (in the directory labtui was started in, unless
another is typed); it writes through labtui.render.export (the same rows as `labtui export`), never
replaces an existing file, and says where the file went.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from labtui.errors import LabtuiError
from labtui.machine.paths import exists, nearest_existing
from labtui.model.result import RunResult
from labtui.render import export
from labtui.render.export_formats import FORMATS
from labtui.results.files import atomic_write
from labtui.tui.context import cursor_blinks
from labtui.widgets.choice import Choice
from labtui.widgets.line_input import LineInput


def default_path(directory: Path, moment: datetime, fmt: str) -> Path:
    return directory / f"labtui-export-{moment.strftime('%Y%m%d-%H%M')}{FORMATS[fmt].suffix}"


def check_path(text: str, directory: Path) -> tuple[Path | None, str]:
    """The file to write (a relative name is in `directory`), or None and why not."""
    text = text.strip()
    if not text:
        return None, "type the file to write"
    path = Path(os.path.normpath(directory / os.path.expanduser(text)))
    try:
        taken = os.path.lexists(path) or exists(path)  # a dangling link's name is taken too
        folder, missing = nearest_existing(path.parent)
    except LabtuiError as exc:  # a name too long, a directory that may not be looked into, a dangling link
        return None, str(exc)
    if taken:
        return None, f"{path} exists: choose another name (labtui never replaces a file here)"
    if not folder.is_dir():  # a file where a directory should be, itself or on the way to it
        return None, f"{folder} is not a directory"
    if missing:
        return None, f"{path.parent} does not exist: create it first, or choose a directory that exists"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return None, f"permission denied: cannot write in {path.parent}"
    return path, ""


class ExportModal(ModalScreen[Path | None]):
    CSS_PATH = "export.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="export-cancel", tooltip="Close without writing")]

    def __init__(self, results: Sequence[RunResult], directory: Path, moment: datetime) -> None:
        super().__init__()
        self.results = list(results)
        self.directory = directory
        self.moment = moment

    def compose(self) -> ComposeResult:
        n = len(self.results)
        steps = sum(len(r.steps) for r in self.results)
        with Vertical(id="export-dialog", classes="dialog"):
            yield Static(f"Export {n} result{'s' if n != 1 else ''}", classes="dialog-title", markup=False)
            yield Static(f"One row per step ({steps} rows), with the disk, host, engine and profile of each.",
                         id="export-what", markup=False)
            with Horizontal(id="export-format-row"):
                yield Static("Format", classes="export-label")
                yield Choice(tuple((f.label, name) for name, f in FORMATS.items()), id="export-format")
            yield LineInput(str(default_path(self.directory, self.moment, "csv")), id="export-path",
                        select_on_focus=False, compact=True)
            yield Static("", id="export-error", markup=False)
            yield Static(f"A name alone goes in the current directory, {self.directory}. Space switches the "
                         "format · Enter on the file name writes it · Escape cancels", classes="dialog-hint",
                         markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write", id="write", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = cursor_blinks(self.app)
        self.query_one(Choice).focus()
        self._check()

    def on_choice_changed(self, event: Choice.Changed) -> None:
        path_input = self.query_one(Input)
        path = Path(path_input.value)
        if path.suffix in {f.suffix for f in FORMATS.values()}:
            path_input.value = str(path.with_suffix(FORMATS[event.value].suffix))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._check()

    def _check(self) -> Path | None:
        path, problem = check_path(self.query_one(Input).value, self.directory)
        error = self.query_one("#export-error", Static)
        error.update(problem)
        error.display = bool(problem)
        return path

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._write()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "write":
            self._write()
        else:
            self.dismiss(None)

    def _write(self) -> None:
        path = self._check()
        if path is None:
            return
        fmt = self.query_one(Choice).value
        try:
            atomic_write(path, export.render(self.results, fmt), exclusive=True)
        except OSError as exc:
            self.query_one("#export-error", Static).update(f"cannot write {path}: {exc.strerror or exc}")
            self.query_one("#export-error", Static).display = True
            return
        written = f"{len(self.results)} result{'s' if len(self.results) != 1 else ''} written to {path}"
        # The ConfigMgr CSV has completed I/O steps only: what it leaves out is said, as `labtui export` says it.
        summary = export.configmgr_summary(self.results) if fmt == "configmgr-csv" else None
        self.app.notify(f"{written}. {summary[0].upper()}{summary[1:]}." if summary else written, title="Exported",
                        severity="warning" if summary else "information")
        self.dismiss(path)
