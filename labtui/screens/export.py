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
from labtui.printable import sentence
from labtui.render import export
from labtui.render.export_formats import FORMATS
from labtui.results.files import atomic_write
from labtui.results.trust import root_write_refusal
from labtui.tui.context import cursor_blinks
from labtui.widgets.choice import Choice
from labtui.widgets.line_input import LineInput


def default_path(directory: Path, moment: datetime, fmt: str) -> Path:
    """'labtui-export-20261201-102005.csv', 'labtui-configmgr-20261201-102005.csv': by the second and
    the kind (a CSV and a ConfigMgr CSV written in one minute were offered one name)."""
    kind = "configmgr" if fmt == "configmgr-csv" else "export"
    return directory / f"labtui-{kind}-{moment.strftime('%Y%m%d-%H%M%S')}{FORMATS[fmt].suffix}"


def check_directory(text: str, directory: Path, names: Sequence[str]) -> tuple[Path | None, str]:
    """The directory for one file per result (a relative one is in `directory`), or None and why not:
    it exists, can be written, and holds none of `names`."""
    folder = Path(os.path.normpath(directory / os.path.expanduser(text.strip() or ".")))
    try:
        found = folder.is_dir()
        taken = [name for name in names if os.path.lexists(folder / name)]
    except OSError as exc:
        return None, f"cannot look at {folder}: {exc.strerror or exc}"
    if not found:
        return None, f"{folder} is not a directory that exists: one file per result goes in a directory"
    if taken:
        return None, f"{folder / taken[0]} exists: choose another directory (labtui never replaces a file here)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return None, f"permission denied: cannot write in {folder}"
    refusal = root_write_refusal(folder / (names[0] if names else "labtui-export"))
    if refusal is not None:
        return None, refusal
    return folder, ""


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
    refusal = root_write_refusal(path)
    if refusal is not None:
        return None, refusal
    return path, ""


class ExportModal(ModalScreen[Path | None]):
    CSS_PATH = "export.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="export-cancel", tooltip="Close without writing")]

    def __init__(self, results: Sequence[RunResult], directory: Path, moment: datetime) -> None:
        super().__init__()
        self.results = list(results)
        self.directory = directory
        self.moment = moment
        # The script's columns cannot tell apart the rows of two results of one computer and disk.
        self.mixed = export.configmgr_mixed(self.results)
        self._typed_path = ""  # the file name as it was before "one file per result" took the field

    def compose(self) -> ComposeResult:
        n = len(self.results)
        steps = sum(len(r.steps) for r in self.results)
        with Vertical(id="export-dialog", classes="dialog"):
            yield Static(f"Export {n} result{'s' if n != 1 else ''}", classes="dialog-title", markup=False)
            yield Static(f"One row per step ({steps} rows), with the disk, host, engine and profile of each.",
                         id="export-what", markup=False)
            with Horizontal(id="export-format-row"):
                yield Static("Format", classes="export-label")
                # A format's first letter picks it (j JSON, m Markdown, c CSV and ConfigMgr CSV in turn), as a form's do.
                yield Choice(tuple((f.label, name) for name, f in FORMATS.items()), id="export-format", by_letter=True)
            yield Static(id="export-mixed", markup=False)
            with Horizontal(id="export-rows-row"):
                yield Static("Rows", classes="export-label")
                yield Choice((("a file each, ID.csv", "files"), ("id and date columns", "ids")), id="export-rows")
            yield LineInput(str(default_path(self.directory, self.moment, "csv")), id="export-path",
                        select_on_focus=False, compact=True)
            yield Static("", id="export-error", markup=False)
            yield Static(self._hint(per_result=False), id="export-hint", classes="dialog-hint", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write", id="write", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def _hint(self, *, per_result: bool) -> str:
        """What the field takes and what Enter does: a file's name, or the directory one file per result goes in."""
        if per_result:
            return (f"A relative directory is in the current one, {self.directory}. Space switches the format · "
                    "Enter on the directory writes the files · Escape cancels")
        return (f"A name alone goes in the current directory, {self.directory}. Space switches the format · "
                "Enter on the file name writes it · Escape cancels")

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = cursor_blinks(self.app)
        self.query_one("#export-format", Choice).focus()
        self._show_rows()
        self._check()

    def _mixing(self, fmt: object = None) -> bool:
        """Whether the ConfigMgr CSV is chosen (`fmt`, where a change says it) and its rows of several
        results would mix."""
        fmt = self.query_one("#export-format", Choice).value if fmt is None else fmt
        return bool(self.mixed) and fmt == "configmgr-csv"

    def _per_result(self, fmt: object = None) -> bool:
        return self._mixing(fmt) and self.query_one("#export-rows", Choice).value == "files"

    def _show_rows(self, fmt: object = None) -> None:
        mixing = self._mixing(fmt)
        self.query_one("#export-rows-row").display = mixing
        note = self.query_one("#export-mixed", Static)
        note.display = mixing
        if mixing:
            said = export.mixed_text(self.mixed)
            note.update(f"{said[:1].upper()}{said[1:]}: the script's columns cannot tell them apart. Rows: one file "
                        "per result, named by its id, or the result id and date in two columns after the script's.")

    def on_choice_changed(self, event: Choice.Changed) -> None:
        path_input = self.query_one(Input)
        # The format this change makes (a burst of Space may have moved the choice on already).
        fmt = event.value if event.choice.id == "export-format" else None
        if event.choice.id == "export-format":
            path = Path(path_input.value)
            old = {default_path(self.directory, self.moment, f) for f in FORMATS}
            if path in old:  # still the offered name: the new kind's
                path_input.value = str(default_path(self.directory, self.moment, str(event.value)))
            elif path.suffix in {f.suffix for f in FORMATS.values()}:
                path_input.value = str(path.with_suffix(FORMATS[event.value].suffix))
        was_per_result = path_input.has_class("-directory")
        self._show_rows(fmt)
        per_result = self._per_result(fmt)
        if per_result != was_per_result:
            # One file per result: the field holds the directory they go in.
            path_input.set_class(per_result, "-directory")
            self.query_one("#export-hint", Static).update(self._hint(per_result=per_result))
            if per_result:
                self._typed_path, path_input.value = path_input.value, str(self.directory)
            else:
                path_input.value = self._typed_path or str(default_path(self.directory, self.moment, "configmgr-csv"))
        self._check()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._check()

    def _file_names(self) -> list[str]:
        return [f"{r.id}.csv" for r in self.results if export.configmgr_rows([r])]

    def _check(self) -> Path | None:
        if self._per_result():
            path, problem = check_directory(self.query_one(Input).value, self.directory, self._file_names())
        else:
            path, problem = check_path(self.query_one(Input).value, self.directory)
        error = self.query_one("#export-error", Static)
        error.update(sentence(problem))
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
        fmt = self.query_one("#export-format", Choice).value
        files = ([(path / name, [r]) for name, r in zip(self._file_names(),
                                                         [r for r in self.results if export.configmgr_rows([r])])]
                 if self._per_result() else [(path, self.results)])
        with_ids = self._mixing() and not self._per_result()
        for file, results in files:
            text = export.to_configmgr_csv(results, with_ids=with_ids) if fmt == "configmgr-csv" else \
                export.render(results, fmt)
            try:
                atomic_write(file, text, exclusive=True)
            except OSError as exc:
                self.query_one("#export-error", Static).update(f"Cannot write {file}: {exc.strerror or exc}")
                self.query_one("#export-error", Static).display = True
                return
        written = f"{len(self.results)} result{'s' if len(self.results) != 1 else ''} written to {path}"
        if len(files) > 1 or self._per_result():
            written = (f"{len(files)} file{'s' if len(files) != 1 else ''} written in {path}, one per result, named by "
                       "its id")
        # The ConfigMgr CSV has completed I/O steps only: what it leaves out is said, as `labtui export` says it.
        summary = export.configmgr_summary(self.results) if fmt == "configmgr-csv" else None
        self.app.notify(f"{written}. {summary[0].upper()}{summary[1:]}." if summary else written, title="Exported",
                        severity="warning" if summary else "information")
        self.dismiss(path)
