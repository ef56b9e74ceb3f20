"""Ask for a profile's run-time parameters (the `{archive}` of zpaq-extract) before a run starts.

A modal with one field per parameter, its description and default; the values are checked by
labtui.params.resolve — the rules `labtui run --param` follows — and the modal dismisses the
values the person typed (defaults apply to the ones left empty), or None when cancelled.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from labtui.errors import ValidationError
from labtui.model.profile import Profile
from labtui.params import resolve
from labtui.printable import sentence
from labtui.tui.context import cursor_blinks
from labtui.widgets.line_input import LineInput


class ParamsModal(ModalScreen[dict[str, str] | None]):
    CSS_PATH = "params.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="params-cancel", tooltip="Do not start the run")]

    def __init__(self, profile: Profile, values: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.profile = profile
        self.values = dict(values or {})

    def compose(self) -> ComposeResult:
        with Vertical(id="params-dialog", classes="dialog"):
            yield Static(f"{self.profile.name} needs values", classes="dialog-title", markup=False)
            for param in self.profile.params:
                what = {"file": " (a file)", "directory": " (a directory)"}.get(param.type, "")
                note = f"{param.name}{what}: {param.description}" if param.description else f"{param.name}{what}"
                if param.default is not None:
                    note += f" (empty: {param.default})"
                yield Static(note, classes="param-label", markup=False)
                yield LineInput(self.values.get(param.name, ""), id=f"param-{param.name}", select_on_focus=False,
                            compact=True, placeholder=param.default or "")
            yield Static("", id="params-error", markup=False)
            yield Static("Enter moves on and, on the last field, starts the run · Escape cancels",
                         classes="dialog-hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start", id="go", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = cursor_blinks(self.app)
        self.query(Input).first().focus()
        self.query_one("#params-error").display = False

    def given(self) -> dict[str, str]:
        values = {}
        for param in self.profile.params:
            text = self.query_one(f"#param-{param.name}", Input).value.strip()
            if text:
                values[param.name] = text
        return values

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        fields = list(self.query(Input))
        if event.input is fields[-1]:
            self._go()
        else:
            fields[fields.index(event.input) + 1].focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "go":
            self._go()
        else:
            self.dismiss(None)

    def _go(self) -> None:
        given = self.given()
        try:
            resolve(self.profile.params, given, f"profile {self.profile.name}")
        except ValidationError as exc:
            error = self.query_one("#params-error", Static)
            error.update(sentence(str(exc).replace("--param ", "")))
            error.display = True
            return
        self.dismiss(given)
