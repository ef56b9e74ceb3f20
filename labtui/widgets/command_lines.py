"""The step as each engine would run it: the DiskSpd, fio and native command lines, live."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, Static

from labtui.engine.base import engine_title
from labtui.errors import LabtuiError
from labtui.model import Step

# Shown in this order: DiskSpd first, because the lab scripts people compare against use it.
ORDER = ("diskspd", "fio", "native")


def engine_lines(step: Step, path: Path, file_size: int) -> list[tuple[str, str, bool]]:
    """(engine label, command line or why there is none, whether it is a command line)."""
    from labtui.engine.base import get_engine

    if step.kind == "command":
        where = f" (in {step.workdir})" if step.workdir else ""
        return [("shell", f"{step.command}{where}", True)]
    lines = []
    for name, label in ((n, engine_title(n)) for n in ORDER):
        try:
            engine = get_engine(name)
        except LabtuiError:
            lines.append((label, f"the {label} engine is not part of this labtui", False))
            continue
        try:
            lines.append((label, engine.command_line(step, path, file_size), True))
        except Exception as exc:  # noqa: BLE001 - an engine that cannot express a step says why
            lines.append((label, f"cannot express this step: {exc}", False))
    return lines


class CommandLines(VerticalScroll, can_focus=False):
    """One row per engine; refreshed by `show` whenever the step, target or file size changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: list[tuple[str, str, bool]] | None = None

    def compose(self) -> ComposeResult:
        for name, label in ((n, engine_title(n)) for n in ORDER):
            with Horizontal(classes="command-line", id=f"command-{name}"):
                yield Label(label, classes="command-engine")
                yield Static("", classes="command-text", markup=False)

    def show(self, step: Step | None, path: Path, file_size: int, problem: str | None = None) -> None:
        """Show `step`'s command lines for a test file at `path`; `problem` when the step is invalid."""
        if step is None:
            lines = [("", problem or "no step selected", False)]
        else:
            lines = engine_lines(step, path, file_size)
        if lines == self._shown:
            return  # most keystrokes change nothing here; spare the layout
        self._shown = lines
        rows = list(self.query(".command-line").results(Horizontal))
        for i, row in enumerate(rows):
            row.display = i < len(lines)
            # A row not shown keeps no text either: nothing stale stays behind it.
            label, text, ok = lines[i] if i < len(lines) else ("", "", True)
            row.query_one(".command-engine", Label).update(label)
            body = row.query_one(".command-text", Static)
            body.update(text)
            body.set_class(not ok, "-unavailable")
