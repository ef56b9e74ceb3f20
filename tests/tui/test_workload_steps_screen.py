"""The Workload screen's steps (screens/workload_steps.py): added after the highlighted one, moved, removed
after asking (naming the step), never the last."""

from __future__ import annotations

from textual.widgets import Input

from labtui.screens.confirm import ConfirmModal
from labtui.widgets.steps_table import StepsTable
from tui_support import make_app, open_workload, set_text, wait_for, widget_text


async def test_steps_can_be_added_moved_and_removed_but_not_the_last(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        table = app.screen.query_one(StepsTable)
        table.focus()
        await pilot.press("a")
        await pilot.pause()
        assert table.row_count == 3 and app.screen.step_index == 1
        assert app.screen.query_one("#s-name", Input).value == "Read 64K random (copy)"
        await pilot.press("shift+down")
        await pilot.pause()
        assert app.screen.step_index == 2
        await pilot.press("x", "y", "x", "y", "x")  # each asks first; the last is refused without asking
        await pilot.pause()
        assert table.row_count == 1 and not isinstance(app.screen, ConfirmModal)
        assert any("at least one step" in str(n.message) for n in app._notifications)


async def test_x_asks_before_removing_a_step_naming_it_and_no_keeps_it(labtui_home):
    # `x` removed the highlighted step at once, its edits with it, and nothing brought it back.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        await set_text(pilot, "#s-duration", "3s")  # an edit of step 1 that would be lost
        table = screen.query_one(StepsTable)
        table.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        asked = widget_text(app, "#confirm-message")
        assert asked.startswith("Remove step 1 of 2, Read 64K random (RND64K Q8T4 R), with its settings?"), asked
        await pilot.press("enter")  # a stray Enter is "Keep"
        await wait_for(pilot, lambda: app.screen is screen, what="the question answered")
        assert table.row_count == 2 and screen.draft.step(0).duration == 3.0
        for no in ("n", "escape"):
            await pilot.press("x")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
            await pilot.press(no)
            await wait_for(pilot, lambda: app.screen is screen, what="the question answered")
            assert table.row_count == 2
        await pilot.press("down", "x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        assert "Remove step 2 of 2, Write 64K random (RND64K Q8T4 W)" in widget_text(app, "#confirm-message")
        await pilot.press("y")
        await wait_for(pilot, lambda: table.row_count == 1, what="the step removed")
        assert screen.draft.step(0).duration == 3.0 and screen.step_index == 0
        assert app.focused is table  # back where the key was pressed
