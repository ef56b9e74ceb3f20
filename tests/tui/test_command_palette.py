"""The command palette's labtui commands (tui/command_palette.py): the screens by name and by what they are
for, the current screen's actions."""

from __future__ import annotations

from labtui.screens.workload import WorkloadScreen
from tui_support import disks_ready, make_app, palette_search, palette_type, screen_text, wait_for


async def test_palette_reaches_the_workload_screen_by_name(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "workload")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen), what="the workload screen")
        await pilot.pause(0.2)
        assert "quick-sanity" in screen_text(app)


async def test_palette_on_disks_finds_profiles_by_what_the_commands_are_for(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "profile")
        text = screen_text(app)
        # The Workload screen (its purpose names profiles), and every profile by name.
        assert "Workload" in text and "Open profile cdm-nvme" in text
        await palette_type(pilot, " cdm-nvme")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen) and app.profile.name == "cdm-nvme",
                       what="cdm-nvme in the editor")


async def test_palette_offers_the_current_screens_actions(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        calls = []
        app.device_source = lambda: calls.append(1) or app.screen.scan
        await palette_search(pilot, "refresh")
        await pilot.press("enter")
        await wait_for(pilot, lambda: calls, what="a rescan from the palette")
