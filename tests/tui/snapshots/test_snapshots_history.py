"""The History screen at 80x24 and 120x40: saved results of two disks and two hosts, one marked."""

from __future__ import annotations

import pytest

from labtui.screens.history import ResultsTable
from tui_support import each_size, history_ready, make_app, save_history

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
