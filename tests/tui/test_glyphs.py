"""On the Linux virtual console (TERM=linux) every screen draws with glyphs its font has.

The console's fonts hold 256-512 glyphs: no braille (plotext's fine charts), no eighth blocks
(Textual's smooth scrollbars and key borders), no ⏎. The font's own table, taken from Debian's
default console font, is the reference: a glyph outside it would show as a blank or a diamond.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from labtui.screens.compare import CompareScreen
from labtui.screens.history import HistoryScreen, ResultsTable
from labtui.screens.result import ResultScreen
from labtui.tui.glyphs import plain_console
from tui_support import (
    disks_ready,
    make_app,
    open_workload,
    save_history,
    screen_text,
    scripted_run,
    type_into,
    wait_for,
    wavy_result,
)

FONT_TABLE = FIXTURES / "console-font" / "Lat15-Fixed16.unicode.txt"  # its header says where it is from


def console_font() -> set[str]:
    lines = FONT_TABLE.read_text(encoding="utf-8").splitlines()
    return {chr(int(line[2:], 16)) for line in lines if line.startswith("U+")}


def missing_glyphs(screens: dict[str, str]) -> dict[str, str]:
    font = console_font()
    missing = {name: "".join(sorted({c for c in text if c not in font and c not in "\n"}))
               for name, text in screens.items()}
    return {name: chars for name, chars in missing.items() if chars}


@pytest.mark.parametrize(("environ", "plain"), [
    ({"TERM": "linux"}, True),
    ({"TERM": "xterm-256color"}, False),
    ({"TERM": "screen-256color"}, False),
    ({}, False),
    ({"TERM": "xterm-256color", "LABTUI_GLYPHS": "plain"}, True),
    ({"TERM": "linux", "LABTUI_GLYPHS": "full"}, False),
])
def test_the_linux_console_is_recognised_and_can_be_overridden(environ, plain):
    assert plain_console(environ) is plain


def test_the_font_table_is_the_real_one():
    font = console_font()
    assert len(font) == 528 and "╭" in font and "•" in font and "█" in font
    assert "⏎" not in font and "▁" not in font and "\u2800" not in font


@pytest.mark.usefixtures("utc")
async def test_every_screen_draws_with_the_console_fonts_glyphs(labtui_home):
    save_history(labtui_home)
    seen: dict[str, str] = {}
    app = make_app(labtui_home, plain_glyphs=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:

        async def look(name: str) -> None:
            await pilot.pause(0.1)
            seen[name] = screen_text(app)

        await disks_ready(pilot)
        await look("disks")
        await pilot.press("enter")
        await pilot.pause(0.3)
        await look("target directory")
        await pilot.press("escape")
        await open_workload(pilot)
        await type_into(pilot, "#s-threads", "0")
        await pilot.press("ctrl+s")
        await look("workload with a refused field")
        app.notify("saved as quick-sanity-copy", title="Profile saved")
        app.notify("a warning", severity="warning")
        app.notify("an error", severity="error")
        await pilot.pause(0.3)
        await look("notifications")
        await pilot.press("f1")
        await look("help")
        await pilot.press("escape", "ctrl+p")
        await look("command palette")
        await pilot.press("escape")
        app.unsaved_profile = None
        app.screen.set_focus(None)  # out of the threads field, so "r" is a key, not text
        await pilot.press("r")
        await wait_for(pilot, lambda: getattr(app.screen, "engines", None), what="the Run screen")
        app.screen.begin(scripted_run(wavy_result(), finished=False))
        await wait_for(pilot, lambda: app.screen.live.version >= 42, what="live samples")
        await look("live run")
        await pilot.press("v")
        await look("live run, next chart")
        await app.screen.abort("the test")
        await pilot.pause(0.3)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded, what="History")
        await look("history")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen), what="the result")
        await look("result with a chart")
        await pilot.press("escape")
        table = app.screen.query_one(ResultsTable)
        for key in ("20240501-103005-aaaa", "20240502-091500-bbbb"):
            table.move_to(key)
            await pilot.press("space")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="Compare")
        await look("compare")
        await pilot.press("escape", "delete")
        await look("delete confirmation")
    assert len(seen) == 12
    assert missing_glyphs(seen) == {}
