"""SVG snapshots of the Run, History, result and Compare screens at 80x24 and 120x40, on fixed fake data.

Fake results from tests/tui_support.py, a scripted event stream instead of an engine, a frozen
clock, UTC, no cursor blink. Review a changed snapshot by looking at it before accepting it.
"""

from __future__ import annotations

import pytest

from labtui.results.store import Store
from labtui.screens.history import HistoryScreen, ResultsTable
from labtui.screens.run import RunScreen
from tui_support import disks_ready, history_results, make_app, save_history, scripted_run, wait_for, wavy_result

SIZES = [(80, 24), (120, 40)]
ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


async def history_ready(pilot) -> HistoryScreen:
    await disks_ready(pilot)
    await pilot.press("h")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.loaded)
    await pilot.pause()
    return pilot.app.screen


@ids
def test_history(snap_compare, labtui_home, size):
    save_history(labtui_home)

    async def ready(pilot):
        screen = await history_ready(pilot)
        screen.query_one(ResultsTable).move_to("20240502-091500-bbbb")
        await pilot.press("space")
        await pilot.pause()

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)


@ids
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


def test_result(snap_compare, labtui_home):
    Store(labtui_home).save_result(wavy_result())

    async def ready(pilot):
        await history_ready(pilot)
        await pilot.press("enter")
        await pilot.pause(0.5)

    assert snap_compare(make_app(labtui_home), terminal_size=(120, 40), run_before=ready)


async def run_ready(pilot) -> RunScreen:
    await disks_ready(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines)
    return pilot.app.screen


@ids
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
