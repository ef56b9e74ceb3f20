"""The top line of every screen: where you are, and the profile and target a run would use."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from labtui.tui.context import lab


class ContextBar(Horizontal):
    """'labtui › Disks' on the left; the chosen profile and target on the right."""

    def __init__(self, screen_title: str) -> None:
        super().__init__()
        self.screen_title = screen_title

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble("labtui · ", (self.screen_title, "bold")), id="context-title")
        yield Static(id="context-choice", markup=False)

    def on_mount(self) -> None:
        for name in ("profile", "target", "unsaved_profile"):
            self.watch(self.app, name, self.refresh_choice, init=False)
        self.refresh_choice()

    def refresh_choice(self, _value: object = None) -> None:
        app = lab(self.app)
        profile, target, unsaved = app.profile, app.target, app.unsaved_profile
        parts = [
            Content.assemble("profile ", (profile.name if profile else "none", "$foreground")),
        ]
        if unsaved:
            parts.append(Content.assemble(("unsaved edits", "$warning")))
        parts.append(
            Content.assemble("target ", (target.describe() if target else "none chosen", "$foreground"))
        )
        self.query_one("#context-choice", Static).update(Content(" · ").join(parts))
