"""The one-paragraph text field that wraps (widgets/wrapped_input.py): a long sentence read whole over a few
lines, yet one line of text as a profile file holds it: Enter moves on, a pasted line break is a space."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input

import labtui
from labtui.widgets.wrapped_input import WrappedInput

SENTENCE = "64 KiB random read and write, 4 threads x 8 outstanding, 10 s each on a 1 GiB file, three runs"


class Form(App):
    CSS_PATH = Path(labtui.__file__).parent / "widgets" / "wrapped_input.tcss"  # as the app loads it

    def compose(self) -> ComposeResult:
        yield WrappedInput(id="description")
        yield Input(id="next")


async def test_a_long_sentence_wraps_over_lines_of_the_field_up_to_three():
    app = Form()
    async with app.run_test(size=(40, 12)) as pilot:
        field = app.query_one(WrappedInput)
        field.value = SENTENCE
        await pilot.pause()
        assert field.value == SENTENCE and field.size.height == 3  # 95 characters at 40 columns: three lines
        field.value = "short"
        await pilot.pause()
        assert field.size.height == 1


async def test_a_value_set_or_pasted_with_line_breaks_is_one_line_and_enter_moves_to_the_next_field():
    app = Form()
    async with app.run_test(size=(60, 12)) as pilot:
        field = app.query_one(WrappedInput)
        field.value = "first line\nsecond line"
        assert field.value == "first line second line"
        field.focus()
        field.move_cursor(field.document.end)
        app.post_message(events.Paste(" and\r\na paste"))
        await pilot.pause()
        assert field.value == "first line second line and a paste"
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "first line second line and a paste" and app.focused is app.query_one("#next")
