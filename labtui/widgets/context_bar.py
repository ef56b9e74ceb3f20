"""The top line of every screen: where you are, and the profile and target a run would use.

The target is said whole: where the line is too narrow, it says less of what is under the
directory (the mount point, then the file system and disk), then leaves out the app's name
before the screen's ("Workload", not "labtui · Workload"), then says the home directory as "~"
where that reads one way only, and only then takes a second line for the target, folding a
directory longer than that at its slashes. Never a path cut short: the target is the one thing a
person checks before starting a run; a second line on every screen is one of 24 at 80x24.
"""

from __future__ import annotations

import os
import pwd

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from labtui.machine.target_choice import home_form
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


def header(screen_title: str, first: list[Content], targets: list[str], home: str | None,
           width: int) -> tuple[str, list[Content]]:
    """The title ("labtui · Disks", or "Disks" where that keeps the choice on one line) and the lines
    of the choice for a bar `width` cells wide; `home` is the target's "~" form, if any."""
    title = f"labtui · {screen_title}"
    lines = choice_lines(first, targets, _room(title, width))
    if len(lines) > 1:
        shorter = choice_lines(first, targets + ([home] if home else []), _room(screen_title, width))
        if len(shorter) == 1:
            return screen_title, shorter
    return title, lines


def _room(title: str, width: int) -> int:
    return width - cell_len(title) - 4  # both parts' padding


def _target(text: str) -> Content:
    return Content.assemble("target ", (text, "$foreground"))


class ContextBar(Horizontal):
    """'labtui › Disks' on the left; the chosen profile and target on the right."""

    def __init__(self, screen_title: str) -> None:
        super().__init__()
        self.screen_title = screen_title

    def compose(self) -> ComposeResult:
        yield Static(self._title(f"labtui · {self.screen_title}"), id="context-title")
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
        home = home_form(target.directory, str(app.home), account_home()) if target and not target.raw else None
        title, lines = header(self.screen_title, first, target.briefer() if target else ["none chosen"], home, width)
        self.query_one("#context-title", Static).update(self._title(title))
        self.query_one("#context-choice", Static).update(Content("\n").join(lines))

    def _title(self, title: str) -> Content:
        return Content.assemble(title.removesuffix(self.screen_title), (self.screen_title, "bold"))


def account_home() -> str | None:
    """The home directory of the account labtui runs as (from the password database, not $HOME)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_dir
    except KeyError:
        return None
