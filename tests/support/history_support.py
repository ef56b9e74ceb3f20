"""What the History, result, Compare and Export tests share: opening a result from History, reading what a toast said."""

from __future__ import annotations

from labtui.screens.history import HistoryScreen
from labtui.screens.result import ResultScreen
from tui_support import (
    move_to,
    screen_text,
    wait_for,
)


async def open_result(pilot, screen: HistoryScreen, key: str) -> None:
    await move_to(pilot, screen, key)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ResultScreen))


def said(app, message: str) -> bool:
    """Whether a notification says `message` (read while it shows: an expired one is forgotten)."""
    return message in [str(n.message) for n in app._notifications]


def _step_rows(app) -> list[str]:
    lines = screen_text(app).splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "Step"])
    rows = []
    for line in lines[header + 1:]:
        if not line.strip():
            break
        rows.append(line.strip())
    return rows
