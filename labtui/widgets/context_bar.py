"""The top line of every screen: where you are, and the profile and target a run would use.

The target is said whole: where the line is too narrow, it says less of what is under the
directory (the mount point, then the file system and disk), then takes a second line for the
target, and folds a directory longer than that at its slashes. Never a path cut short: the
target is the one thing a person checks before starting a run.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from labtui.render.words import fold
from labtui.tui.context import lab

SEPARATOR = Content(" · ")


def choice_lines(first: list[Content], targets: list[str], room: int) -> list[Content]:
    """The profile part (`first`) and the target, said as fully as fits `room` cells per line:
    one line with the first of `targets` that fits, else the target on a line of its own."""
    for target in targets:
        line = SEPARATOR.join([*first, _target(target)])
        if line.cell_length <= room:
            return [line]
    head = SEPARATOR.join(first)
    for target in targets:
        if _target(target).cell_length <= room:
            return [head, _target(target)]
    # The directory alone is longer than the line: folded at its slashes and hyphens, "target" before it.
    parts = fold(targets[-1], max(room - len("target "), 1))
    return [head, _target(parts[0]), *(Content.styled(part, "$foreground") for part in parts[1:])]


def _target(text: str) -> Content:
    return Content.assemble("target ", (text, "$foreground"))


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

    def on_resize(self) -> None:
        self.refresh_choice()

    def refresh_choice(self, _value: object = None) -> None:
        app = lab(self.app)
        profile, target, unsaved = app.profile, app.target, app.unsaved_profile
        first = [Content.assemble("profile ", (profile.name if profile else "none", "$foreground"))]
        if unsaved:
            first.append(Content.assemble(("unsaved edits", "$warning")))
        # The bar spans the screen; before its first layout its width is the app's.
        width = self.size.width or self.app.size.width
        room = width - cell_len(f"labtui · {self.screen_title}") - 4  # both parts' padding
        lines = choice_lines(first, target.briefer() if target else ["none chosen"], room)
        self.query_one("#context-choice", Static).update(Content("\n").join(lines))
