"""The typed handle on the app (tui/context.py): the screens' base reports a worker's failure once, in one
line, and a widget hosted by a bare Textual app reads a plain app's display choices."""

from __future__ import annotations

from textual import work
from textual.app import App
from textual.widgets import Static

from labtui.errors import LabtuiError
from labtui.tui.context import LabtuiScreen, cursor_blinks
from tui_support import wait_for


class FailingScreen(LabtuiScreen):
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def compose(self):
        yield Static("working")

    def on_mount(self) -> None:
        self.fail()

    @work(exclusive=True, exit_on_error=False)  # as labtui's screens run theirs
    async def fail(self) -> None:
        raise self.error


class Host(App):
    def __init__(self, screen) -> None:
        super().__init__()
        self.first = screen

    def on_mount(self) -> None:
        self.push_screen(self.first)


async def _said(error: BaseException) -> list[str]:
    app = Host(FailingScreen(error))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app._notifications, what="the failure's notice")
        await pilot.pause(0.1)
        assert isinstance(app.screen, FailingScreen)  # the screen stays, the app runs on
        return [(str(n.message), n.severity) for n in app._notifications]


async def test_a_failed_worker_is_said_once_labtuis_errors_as_they_are_and_a_bug_as_one():
    assert await _said(LabtuiError("the disk went away")) == [
        ("Could not finish what this screen was doing: the disk went away", "error")]
    assert await _said(KeyError("slot")) == [
        ("Could not finish what this screen was doing: internal error: KeyError: 'slot'", "error")]


def test_a_bare_app_blinks_its_cursors_and_labtuis_says_whether_they_do():
    class Quiet(App):
        cursor_blink = False

    assert cursor_blinks(App()) is True
    assert cursor_blinks(Quiet()) is False
