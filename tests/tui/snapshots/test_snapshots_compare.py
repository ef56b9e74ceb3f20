"""The Compare screen at 80x24 (two results) and 120x40 (three side by side)."""

from __future__ import annotations

import pytest

from labtui.screens.history import ResultsTable
from tui_support import each_size, history_ready, make_app, save_history

# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


@each_size
def test_compare(snap_compare, labtui_home, size):
    save_history(labtui_home)

    async def ready(pilot):
        screen = await history_ready(pilot)
        # Three side by side where there is room for them.
        keys = ("20240501-103005-aaaa", "20240502-091500-bbbb") + (("20240503-140000-cccc",) if size[0] > 80 else ())
        for key in keys:
            screen.query_one(ResultsTable).move_to(key)
            await pilot.press("space")
        await pilot.press("c")
        await pilot.pause(0.3)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)
