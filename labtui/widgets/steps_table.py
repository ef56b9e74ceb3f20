"""A profile's steps as a table (one line each, fitted to its width), with keys to add, remove and reorder them."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import DataTable

from labtui.model import Step
from labtui.tui.columns import fit_widths, shorten
from labtui.units import format_duration

COLUMNS = (("n", "#"), ("name", "Step"), ("label", "Workload"), ("time", "Time"), ("cache", "Cache"))
# What gives way on a narrow terminal: the step's name first (the step form below shows it whole).
SHRINK = ({"name": 12}, {"label": 10, "name": 8})


def step_cells(number: int, step: Step | None, name: str) -> tuple[str, ...]:
    """The cells of one row; `step` is None while the step has an error."""
    mark = str(number)
    if step is None:
        return (mark, name, "has an error", "", "")
    if step.kind == "command":
        return (mark, step.name, "command", f"<= {format_duration(step.timeout)}", "")
    timing = format_duration(step.duration)
    if step.steady_state:
        # Rounds of `duration` until steady: at most this many.
        timing = f"{step.steady_max_rounds}x{timing} {step.steady_state.split(':')[0]}"
    if step.warmup:
        timing += f" +{format_duration(step.warmup)}"
    return (mark, step.name, step.label(), timing, step.cache)


class StepsTable(DataTable):
    help_scope = "steps table"
    BINDINGS = [
        Binding("enter", "screen.edit_step", "Edit step", id="steps-edit", tooltip="Edit the highlighted step's settings"),
        Binding("a", "screen.add_step", "Add step", id="steps-add", tooltip="Add a copy of the highlighted step after it"),
        Binding("x,delete", "screen.remove_step", "Remove step", id="steps-remove",
                tooltip="Remove the highlighted step (a profile keeps at least one)"),
        Binding("shift+up", "screen.move_step(-1)", "Move up", id="steps-up", show=False, tooltip="Move the step earlier"),
        Binding("shift+down", "screen.move_step(1)", "Move down", id="steps-down", show=False, tooltip="Move the step later"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steps: list[tuple[str, ...]] = []  # the cells as given, before they are fitted

    def show_steps(self, rows: list[tuple[str, ...]], cursor: int) -> None:
        """Replace the rows; the columns are measured again for these rows and this width (a
        DataTable's columns only ever grow: after cdm-nvme's long names every profile overflowed)."""
        if rows != self.steps or not self.columns:
            self.steps = list(rows)
            self._fill(cursor)
        elif self.cursor_row != cursor:
            with self.prevent(self.RowHighlighted):
                self.move_cursor(row=cursor)

    def _fill(self, cursor: int) -> None:
        cells = [dict(zip((k for k, _ in COLUMNS), row)) for row in self.steps]
        # Less the scrollbar a long profile needs; every column is padded by one cell each side.
        available = self.size.width - (self.styles.scrollbar_size_vertical if len(self.steps) > 10 else 0)
        widths = fit_widths(COLUMNS, cells, available if available > 0 else 1000, SHRINK, padding=2 * self.cell_padding)
        # Refilling is not the person moving the cursor: the screen is told of neither.
        with self.prevent(self.RowHighlighted):
            self.clear(columns=True)
            for key, label in COLUMNS:
                self.add_column(label, key=key, width=widths[key])
            for i, row in enumerate(cells):
                self.add_row(*(shorten(row[k], widths[k]) for k, _ in COLUMNS), key=str(i))
            self.move_cursor(row=cursor)

    def on_resize(self) -> None:
        if self.steps:
            self._fill(self.cursor_row)
