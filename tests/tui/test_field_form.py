"""A form of a profile's fields (widgets/field_form.py): Enter walks its controls."""

from __future__ import annotations

from tui_support import make_app, open_workload


async def test_enter_walks_the_form_without_changing_a_choice(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        app.screen.query_one("#s-name").focus()
        await pilot.press("enter", "enter", "enter")  # name -> kind -> block size -> pattern
        await pilot.pause()
        assert app.focused.id == "s-pattern"
        assert app.screen.query_one("#s-kind").value == "io" and app.unsaved_profile is None
