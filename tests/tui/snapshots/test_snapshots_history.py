"""The History screen at 80x24 and 120x40 (results of two disks and two hosts, one marked), empty, and asking."""

from __future__ import annotations

import pytest
from textual.screen import ModalScreen

from labtui.screens.history import ResultsTable
from tui_support import each_size, history_ready, make_app, save_history, wait_for

# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


@each_size
def test_history(snap_compare, labtui_home, size):
    save_history(labtui_home)

    async def ready(pilot):
        screen = await history_ready(pilot)
        screen.query_one(ResultsTable).move_to("20240502-091500-bbbb")
        await pilot.press("space")
        await pilot.pause()

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)


def test_history_with_no_results(snap_compare, labtui_home):
    """An empty store: what History says to do first."""
    assert snap_compare(make_app(labtui_home), terminal_size=(80, 24), run_before=history_ready)


# (Export: test_snapshots_export.py, on the fake machine's current directory.)
@pytest.mark.parametrize("key", ["x", "t"], ids=["delete-asks-first", "tag-prompt"])
def test_history_asking(snap_compare, labtui_home, key):
    """History's questions over its list: delete (a confirmation), tags (a text prompt)."""
    save_history(labtui_home)

    async def ready(pilot):
        screen = await history_ready(pilot)
        screen.query_one(ResultsTable).move_to("20240502-091500-bbbb")
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ModalScreen), what="the question")
        await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=(80, 24), run_before=ready)
