"""A profile's steps as a table (one line each), with keys to add, remove and reorder them."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable

from labtui.model import Step
from labtui.units import format_duration


def step_cells(number: int, step: Step | None, name: str) -> tuple[str, ...]:
    """The cells of one row; `step` is None while the step has an error."""
    mark = str(number)
    if step is None:
        return (mark, name, "has an error", "", "")
    if step.kind == "command":
        return (mark, step.name, "command", f"<= {format_duration(step.timeout)}", "")
    timing = format_duration(step.duration)
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
