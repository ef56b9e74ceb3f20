"""A table of a profile's fields in the Workload editor: a label, a control (a line, a wrapped text or a
choice, as its `FieldSpec` says) and the model's verdict under each.

A form is built (`build`) after its screen's first paint: the editor's forms hold most of its
widgets. Filling a form (`fill`, `set`) posts no Changed message: only what a person types is an
edit. Controls are named `<prefix>-<key>` ("s-block_size"), their rows `field-<prefix>-<key>`.
A form may have a note: a line of its whole width after one row (`note_after`), for a warning about
several fields together (the test file and the margin against the target's free space).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from textual.containers import Vertical
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from labtui.tui.context import cursor_blinks
from labtui.tui.profile_fields import FieldSpec
from labtui.widgets.choice import Choice
from labtui.widgets.form_field import FormField
from labtui.widgets.line_input import LineInput
from labtui.widgets.wrapped_input import WrappedInput


def control_for(prefix: str, spec: FieldSpec) -> Widget:
    widget_id = f"{prefix}-{spec.key}"
    if spec.choices:
        return Choice(spec.choices, id=widget_id, by_letter=True)
    if spec.key == "description":  # a sentence: read whole, over lines
        return WrappedInput(id=widget_id)
    return LineInput(compact=True, id=widget_id, select_on_focus=False)


class FormNote(Static):
    """A form's note: a line of the form's whole width (a two-column form spans it)."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Textual's grid sizes an auto row by its cells measured at one column's width, a cell that
        # spans columns too: three lines of wrapped words left blank under two. This cell spans the
        # whole form, whose width is the container's (the grid's, then the cell's).
        if self.styles.column_span > 1:
            width = container.width - self.styles.gutter.width
        return super().get_content_height(container, viewport, width)


class FieldForm(Vertical):
    def __init__(self, prefix: str, specs: Iterable[FieldSpec], *, id: str, note_after: str | None = None) -> None:
        super().__init__(id=id, classes="form")
        self.prefix = prefix
        self.specs = tuple(specs)
        self.note_after = note_after
        self.built = False

    async def build(self) -> None:
        rows: list[Widget] = []
        for spec in self.specs:
            rows.append(FormField(f"{self.prefix}-{spec.key}", spec.label, control_for(self.prefix, spec),
                                  tooltip=spec.tooltip))
            if spec.key == self.note_after:
                note = FormNote("", id=f"{self.id}-note", classes="form-note", markup=False)
                note.display = False
                rows.append(note)
        await self.mount_all(rows)
        blink = cursor_blinks(self.app)
        for text in self.query(Input):
            text.cursor_blink = blink
        for wrapped in self.query(WrappedInput):
            wrapped.cursor_blink = blink
        self.built = True

    def row(self, key: str) -> FormField:
        return self.query_one(f"#field-{self.prefix}-{key.replace('_', '-')}", FormField)

    def fill(self, values: Mapping[str, Any]) -> None:
        for spec in self.specs:
            self.set(spec.key, values.get(spec.key, ""))

    def set(self, key: str, value: Any) -> None:
        """Show `value` in the field `key` (not an edit: no Changed message)."""
        if not self.built:
            return
        control = self.query_one(f"#{self.prefix}-{key}")
        if isinstance(control, Choice):
            control.value = value
        elif isinstance(control, Input):
            with control.prevent(Input.Changed):
                control.value = "" if value is None else str(value)
                # A field being edited keeps typing at the end; one only shown reads from the start.
                control.cursor_position = len(control.value) if control.has_focus else 0
        elif isinstance(control, WrappedInput):
            with control.prevent(TextArea.Changed):
                control.value = "" if value is None else str(value)
                if control.has_focus:
                    control.move_cursor(control.document.end)

    def show_only(self, keys: Iterable[str]) -> None:
        """Show the rows of `keys` alone (a step's kind has fields of its own)."""
        shown = set(keys)
        for spec in self.specs:
            self.row(spec.key).display = spec.key in shown

    def show_note(self, message: str | None, *, on: Iterable[str] = ()) -> None:
        """Say `message` in the form's note (None hides it), the rows of the keys `on` marked as what it
        is about."""
        if not self.built or self.note_after is None:
            return
        note = self.query_one(f"#{self.id}-note", Static)
        note.update(message or "")
        note.display = bool(message)
        marked = set(on) if message else set()
        for spec in self.specs:
            self.row(spec.key).mark_warning(spec.key in marked)

    def show_errors(self, errors: Mapping[str, str | None]) -> None:
        """The model's verdict on each field, by key (a key not in `errors` is accepted)."""
        for spec in self.specs:
            self.row(spec.key).show_error(errors.get(spec.key))

    def typed(self) -> Iterator[tuple[str, str]]:
        """(control id, text) of every text field on show: what it holds, Changed message or not."""
        for control in self.query("LineInput, WrappedInput").results():
            assert isinstance(control, (LineInput, WrappedInput))
            if control.parent is not None and control.parent.display:
                yield control.id or "", control.value
