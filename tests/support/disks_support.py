"""What the Disks screen's tests share: moving the table's cursor to a row by its key."""

from __future__ import annotations

from labtui.widgets.volume_table import VolumeTable


async def _move_to(pilot, key: str) -> None:
    table = pilot.app.screen.query_one(VolumeTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.pause()
