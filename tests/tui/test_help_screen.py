"""The keys' help (screens/help.py), on a bare host app."""

from __future__ import annotations

from labtui.screens.help import HelpScreen, KeyHelp
from modal_host import run_modal
from tui_support import screen_text


async def test_help_closes_with_escape_and_lists_its_keys():
    keys = [KeyHelp("f5", "Refresh", "Read the disks again", "this screen")]

    async def look(pilot):
        assert "Read the disks again" in screen_text(pilot.app)

    assert await run_modal(HelpScreen("Disks", keys), "escape", before=look) is None
