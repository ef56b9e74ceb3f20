"""The Run screen: live at 80x24 and 120x40, and done, compared with the previous run."""

from __future__ import annotations

import pytest

from labtui.results.store import Store
from labtui.screens.run import RunScreen
from tui_support import disks_ready, each_size, history_results, make_app, scripted_run, wait_for, wavy_result

# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


async def run_ready(pilot) -> RunScreen:
    await disks_ready(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines)
    return pilot.app.screen


@each_size
def test_run_live(snap_compare, labtui_home, size):
    async def ready(pilot):
        screen = await run_ready(pilot)
        screen.begin(scripted_run(wavy_result(), finished=False))
        await wait_for(pilot, lambda: screen.live.version >= 42 and screen.live_view.drawn_version == screen.live.version,
                       what="the samples drawn")
        await pilot.pause(0.3)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)


def test_run_done_against_the_previous_run(snap_compare, labtui_home):
    Store(labtui_home).save_result(history_results()[0])

    async def ready(pilot):
        screen = await run_ready(pilot)
        screen.begin(scripted_run(wavy_result(), finished=True))
        await wait_for(pilot, lambda: screen.state == "done" and screen.previous is not None,
                       what="the end and the comparison")
        await pilot.pause(0.3)

    assert snap_compare(make_app(labtui_home), terminal_size=(120, 40), run_before=ready)


@each_size
def test_run_setup(snap_compare, labtui_home, size):
    """Before a run: the target, the profile and its steps, the engine, the tags, and Start."""
    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=run_ready)

