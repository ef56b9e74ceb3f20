"""A result's screen (Enter on History) at 120x40."""

from __future__ import annotations

import pytest

from labtui.results.store import Store
from tui_support import history_ready, make_app, wavy_result

# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


def test_result(snap_compare, labtui_home):
    Store(labtui_home).save_result(wavy_result())

    async def ready(pilot):
        await history_ready(pilot)
        await pilot.press("enter")
        await pilot.pause(0.5)

    assert snap_compare(make_app(labtui_home), terminal_size=(120, 40), run_before=ready)
