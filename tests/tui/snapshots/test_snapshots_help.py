"""The help screen (?) over the Disks screen."""

from __future__ import annotations

import pytest

from tui_support import disks_ready, make_app

pytestmark = pytest.mark.usefixtures("io_uring_pinned")


def test_help_on_disks(snap_compare, labtui_home):
    async def help_open(pilot):
        await disks_ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=(80, 24), run_before=help_open)
