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

from labtui.machine.target_choice import Target, home_form
from labtui.render.words import fold
from labtui.tui.context import lab
from labtui.tui.run_indicator import RunIndicator

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
    """'labtui › Disks' on the left; the chosen profile and target on the right, or, while a run is
    going, that run: its profile, step, time and target (labtui.tui.run_indicator)."""

    def __init__(self, screen_title: str) -> None:
        super().__init__()
        self.screen_title = screen_title
        self._stale = False  # something it says changed while its screen was not on show
        self._lines: list[Content] = []

    def compose(self) -> ComposeResult:
        yield Static(self._title(f"labtui · {self.screen_title}"), id="context-title")
        yield Static(id="context-choice", markup=False)

    def on_mount(self) -> None:
        for name in ("profile", "target", "unsaved_profile", "run_indicator"):
            self.watch(self.app, name, self._changed, init=False)
        # The run's time changes every second: only the top line on show follows it, the others
        # catch up as their screen is shown again.
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self.refresh_choice()

    def _changed(self, _value: object = None) -> None:
        if self.screen.is_current:
            self.refresh_choice()
        else:
            self._stale = True

    def _screen_changed(self, screen: object) -> None:
        if self._stale and screen is self.screen:
            self.refresh_choice()

    def on_resize(self) -> None:
        self.refresh_choice()

    def refresh_choice(self, _value: object = None) -> None:
        self._stale = False
        app = lab(self.app)
        profile, target, unsaved, running = app.profile, app.target, app.unsaved_profile, app.run_indicator
        edits = [Content.assemble(("unsaved edits", "$warning"))] if unsaved else []
        # The bar spans the screen; before its first layout its width is the app's.
        width = self.size.width or self.app.size.width
        if running is not None:
            # The run's own profile and target: the choice is the next run's (marked volumes run elsewhere).
            target = running.target
            home = home_form(target.directory, str(app.home), account_home()) if target and not target.raw else None
            title, lines = self._run_header(running, target, home, edits, width)
        else:
            first = [Content.assemble("profile ", (profile.name if profile else "none", "$foreground")), *edits]
            home = home_form(target.directory, str(app.home), account_home()) if target and not target.raw else None
            title, lines = header(self.screen_title, first, target.briefer() if target else ["none chosen"], home,
                                  width)
        title_widget = self.query_one("#context-title", Static)
        shown = self._title(title)
        if title_widget.content != shown:
            title_widget.update(shown)
        if lines != self._lines:
            # Laid out again only where the bar may change height: once a second, most often not.
            same_height = len(lines) == len(self._lines)
            self._lines = lines
            self.query_one("#context-choice", Static).update(Content("\n").join(lines), layout=not same_height)

    def _run_header(self, running: RunIndicator, target: Target | None, home: str | None, edits: list[Content],
                    width: int) -> tuple[str, list[Content]]:
        """The title and lines while a run goes: its words and its target on one line where they fit
        (the words said shorter first), else, but on the Run screen, the words alone; else the target
        on a second line. The Run screen names the run's target whole, and says the step and the
        time in its own lines."""
        targets = target.briefer() if target else ["none chosen"]
        if self.screen_title == "Run":
            return header(self.screen_title, [Content.styled(running.words(brief=True), "$warning"), *edits],
                          targets, home, width)
        forms = [running.words(), running.words(compact=True)]
        for words in forms:
            title, lines = header(self.screen_title, [Content.styled(words, "$warning"), *edits], targets, home, width)
            if len(lines) == 1:
                return title, lines
        alone = SEPARATOR.join([Content.styled(forms[-1], "$warning"), *edits])
        if alone.cell_length <= width - cell_len(self.screen_title) - 4:
            return self.screen_title, [alone]
        return title, lines

    def _title(self, title: str) -> Content:
        return Content.assemble(title.removesuffix(self.screen_title), (self.screen_title, "bold"))


def account_home() -> str | None:
    """The home directory of the account labtui runs as (from the password database, not $HOME)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_dir
    except KeyError:
        return None
