"""The Export dialog over History: one result as CSV, and two results whose ConfigMgr CSV rows would mix.

The dialog checks the file it would write as it is typed: here on the fake machine, whose current
directory (FAKE_CWD, where a name alone goes) exists, is empty and may be written. What it says of a
real directory is tested in tests/tui/test_export_screen.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labtui.screens import export
from labtui.screens.export import ExportModal
from tui_support import FAKE_CWD, history_ready, make_app, save_history, wait_for

# Result times are shown in local time: the same everywhere for the snapshots.
pytestmark = pytest.mark.usefixtures("utc")


def _in_the_fake_cwd(text: str, directory: Path) -> Path:
    path = Path(os.path.normpath(directory / text.strip()))
    assert FAKE_CWD in (path, path.parent), f"{path}: the snapshots write nowhere but the fake current directory"
    return path


@pytest.fixture
def fake_cwd(monkeypatch):
    """The fake machine's current directory: there, and empty, so any name in it is free."""
    monkeypatch.setattr(export, "check_path", lambda text, directory: (_in_the_fake_cwd(text, directory), ""))
    monkeypatch.setattr(export, "check_directory", lambda text, directory, names: (_in_the_fake_cwd(text, directory), ""))


@pytest.mark.usefixtures("fake_cwd")
@pytest.mark.parametrize(("size", "marked", "spaces"), [
    ((80, 24), [], 0),
    ((120, 40), ["20240501-103005-aaaa", "20240502-091500-bbbb"], 3),
], ids=["one-result-80x24", "configmgr-rows-mixing-120x40"])
def test_export(snap_compare, labtui_home, size, marked, spaces):
    save_history(labtui_home)

    async def ready(pilot):
        screen = await history_ready(pilot)
        table = screen.query_one("#results")
        for key in marked:
            table.move_to(key)
            await pilot.press("space")
        if not marked:
            table.move_to("20240502-091500-bbbb")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ExportModal), what="the dialog")
        await pilot.press(*["space"] * spaces)  # the format: on to ConfigMgr CSV
        await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)
