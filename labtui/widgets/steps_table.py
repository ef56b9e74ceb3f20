"""A profile's steps as a table fitted to its width, with keys to add, remove and reorder them.

Nothing in it is cut: where the width is short, a step's name, its workload and its timing fold
over lines at their words (render/widths.fold_widths, as the Disks table does); a row is as tall as
its tallest cell.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from labtui.model.profile import Step
from labtui.render.widths import fold_widths
from labtui.render.words import fold
from labtui.units import format_duration

COLUMNS = (("n", "#"), ("name", "Step"), ("label", "Workload"), ("time", "Time"), ("cache", "Cache"))
# What folds on a narrow terminal ("RND4K Q32T1" over "70/30"); the number and the cache stay whole.
FOLDING = ("name", "label", "time")


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
    # A verified step says so in the list too (its blocks are checked: issue 43), not only in its form.
    return (mark, step.name, step.label() + (" verified" if step.verify else ""), timing, step.cache)


class StepsTable(DataTable):
    help_scope = "steps table"
    BINDINGS = [
        Binding("enter", "screen.edit_step", "Edit step", id="steps-edit", tooltip="Edit the highlighted step's settings"),
        Binding("a", "screen.add_step", "Add step", id="steps-add", tooltip="Add a copy of the highlighted step after it"),
        Binding("x,delete", "screen.remove_step", "Remove step", id="steps-remove",
                tooltip="Remove the highlighted step, after asking (a profile keeps at least one)"),
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
        rows, widths = self._folded(cells, self.size.width)
        tallest = self.styles.max_height
        if tallest is not None and tallest.is_cells and sum(height for _, height in rows) + 1 > tallest.value:
            # More lines than the table shows: less the scrollbar it then has.
            rows, widths = self._folded(cells, self.size.width - self.styles.scrollbar_size_vertical)
        # Refilling is not the person moving the cursor: the screen is told of neither.
        with self.prevent(self.RowHighlighted):
            self.clear(columns=True)
            for key, label in COLUMNS:
                self.add_column(label, key=key, width=widths[key])
            for i, (texts, height) in enumerate(rows):
                # Text, not str: a DataTable reads a str as markup, and a step named "[/]" (a profile
                # file's, or a result's from another lab) ended the TUI with a MarkupError.
                self.add_row(*(Text(t) for t in texts), key=str(i), height=height)
            self.move_cursor(row=cursor)

    def _folded(self, cells: list[dict[str, str]], available: int) -> tuple[list[tuple[list[str], int]], dict[str, int]]:
        """Each row's cells folded for `available` cells (every column padded by one cell each side),
        with its height, and the columns' widths."""
        widths = fold_widths(COLUMNS, cells, available if available > 0 else 1000, FOLDING, padding=2 * self.cell_padding)
        rows = []
        for row in cells:
            texts = ["\n".join(fold(row[k], widths[k])) if k in FOLDING else row[k] for k, _ in COLUMNS]
            rows.append((texts, max(text.count("\n") + 1 for text in texts)))
        return rows, widths

    def on_resize(self) -> None:
        if self.steps:
            self._fill(self.cursor_row)
