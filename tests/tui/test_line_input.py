"""Text fields take a burst of keys (fast typing, a paste of keystrokes) in the order it was typed."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input

from conftest import REPO
from labtui.screens.history import HistoryScreen
from tui_support import make_app, wait_for


def _burst(app, keys: list[str]) -> None:
    # All at once, as a terminal delivers keys typed faster than the app handles them.
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.parametrize(("keys", "value"), [
    (["a", "b", "x", "backspace", "c"], "abc"),
    (["q", "u", "i", "c", "k", "ctrl+u", "f", "i", "o"], "fio"),
    (["a", "b", "home", "x"], "xab"),
    (["a", "b", "ctrl+w", "c", "d"], "cd"),
])
async def test_editing_keys_in_a_burst_act_where_they_were_typed(labtui_home, keys, value):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), what="History")
        await pilot.press("slash")
        field = app.screen.query_one("#history-filter", Input)
        await wait_for(pilot, lambda: field.has_focus, what="the filter field")
        _burst(app, keys)
        await wait_for(pilot, lambda: field.value == value, what=f"the field to read {value!r} (it reads {field.value!r})")


def test_every_text_field_of_the_screens_is_one_that_keeps_the_order():
    import re

    screens = REPO / "labtui" / "screens"
    plain = [p.name for p in screens.glob("*.py") if re.search(r"(?<![\w.])Input\(", p.read_text())]
    assert plain == [], f"a plain textual Input in {plain}: use labtui.widgets.line_input.LineInput"
