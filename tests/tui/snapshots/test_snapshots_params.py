"""The run-parameters dialog over the Run screen: zpaq-extract asking for its archive, and refusing one that is
not there."""

from __future__ import annotations

import pytest

from labtui.results.store import Store, builtin_profiles
from labtui.screens.params import ParamsModal
from labtui.screens.run import RunScreen
from labtui.settings import Settings
from tui_support import disks_ready, make_app, set_text, wait_for

ZPAQ = next(p for p in builtin_profiles() if p.name == "zpaq-extract")


async def asking(pilot) -> ParamsModal:
    await disks_ready(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines)
    modal = ParamsModal(ZPAQ, {})
    await pilot.app.push_screen(modal)
    await wait_for(pilot, lambda: pilot.app.screen is modal, what="the dialog")
    await pilot.pause(0.2)
    return modal


@pytest.mark.parametrize(("size", "typed"), [((80, 24), None), ((120, 40), "/home/lab/archives/missing.zpaq")],
                         ids=["asking-80x24", "refusing-120x40"])
def test_params(snap_compare, labtui_home, size, typed):
    Store(labtui_home).save_settings(Settings(profile="zpaq-extract", profile_origin="builtin"))  # the one it asks for

    async def ready(pilot):
        await asking(pilot)
        if typed is not None:
            await set_text(pilot, "#param-archive", typed)
            await pilot.press("enter")  # the last field: Start, refused with the reason
            await wait_for(pilot, lambda: pilot.app.screen.query_one("#params-error").display, what="the refusal")
            await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)
