"""The one-line choice (widgets/choice.py): cycled with a key, a value picked by its first letter in a form."""

from __future__ import annotations

from tui_support import make_app, open_workload, wait_for
from workload_support import command_text


async def test_a_choice_takes_its_values_first_letter_not_the_screen_key_of_that_letter(labtui_home):
    # On Kind, "c" (for command) opened the Duplicate prompt; on a yes/no, "n" said Rename is for
    # user profiles only. A letter that starts none of the values is still the screen's key.
    from labtui.screens.disks import DisksScreen

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        kind, through, cache = screen.query_one("#s-kind"), screen.query_one("#s-write_through"), screen.query_one("#s-cache")
        kind.focus()
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is screen and kind.value == "command" and "command" in command_text(app)
        await pilot.press("i")
        assert kind.value == "io"
        through.focus()
        await pilot.press("y")
        assert through.value is True and app.screen is screen
        await pilot.press("n")
        await pilot.pause()
        assert through.value is False and app.screen is screen and not app._notifications
        cache.focus()
        await pilot.press("o")  # off and on: the letter goes to the next of them
        assert cache.value == "on"
        await pilot.press("o")
        assert cache.value == "off"
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen), what="the Disks screen")
