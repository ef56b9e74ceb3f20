"""The scrolling box under a screen's table (widgets/paged_box.py): whether it overflows, and a page a box less a line."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from labtui.widgets.paged_box import PagedBox


class _Host(App[None]):
    CSS = "PagedBox { height: 5; } PagedBox > Static { height: auto; }"

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with PagedBox():
            yield Static("\n".join(f"line {n}" for n in range(self.lines)))


async def test_a_box_pages_by_its_height_less_a_line_and_says_when_it_overflows():
    async with _Host(3).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        assert not pilot.app.query_one(PagedBox).overflows
    async with _Host(20).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        box = pilot.app.query_one(PagedBox)
        assert box.overflows
        box.page(1)
        await pilot.pause()
        assert box.scroll_y == 4  # 5 lines high: 4 new lines, one kept for context
        box.page(-1)
        await pilot.pause()
        assert box.scroll_y == 0
