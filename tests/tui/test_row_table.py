"""The line-drawn table with rows of several lines: drawing, the cursor's scrolling, paging and clicks."""

from __future__ import annotations

from textual.app import App, ComposeResult

from labtui.widgets.row_table import Column, Row, RowTable


class TableHost(App):
    CSS = "RowTable { height: 7; }"

    def compose(self) -> ComposeResult:
        yield RowTable()

    def on_mount(self) -> None:
        table = self.query_one(RowTable)
        table.set_columns([Column("n", "#", 2), Column("name", "Step", 12)])
        # Every other row takes three lines (a name folded), the others one.
        table.set_rows([Row(f"r{i}", (str(i), f"step {i}\nfolded\nname" if i % 2 else f"step {i}")) for i in range(10)])
        table.focus()


def lines(app: App) -> list[str]:
    table = app.query_one(RowTable)
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


async def test_a_tall_row_is_drawn_on_its_lines_and_the_cursor_keeps_it_whole_on_screen():
    app = TableHost()
    async with app.run_test(size=(30, 10)) as pilot:
        table = app.query_one(RowTable)
        assert lines(app)[:6] == [" #  Step", " 0  step 0", " 1  step 1", "    folded", "    name", " 2  step 2"]
        assert table.virtual_size.height == 1 + 5 * 1 + 5 * 3
        await pilot.press("down", "down", "down")  # to row 3: its three lines end on the 6th line of rows
        assert table.cursor_key == "r3"
        shown = lines(app)
        assert shown[-3:] == [" 3  step 3", "    folded", "    name"], shown
        await pilot.press("up", "up", "up")
        assert table.cursor_key == "r0" and lines(app)[1] == " 0  step 0"


async def test_page_keys_move_a_page_of_lines_and_a_click_picks_the_row_under_it():
    app = TableHost()
    async with app.run_test(size=(30, 10)) as pilot:
        table = app.query_one(RowTable)
        await pilot.press("pagedown")  # five lines on: row 0 (1), row 1 (3), row 2 (1), into row 3
        assert table.cursor_key == "r3"
        await pilot.press("pageup")
        assert table.cursor_key == "r0"
        await pilot.click(RowTable, offset=(5, 4))  # the third line of row 1
        assert table.cursor_key == "r1"
