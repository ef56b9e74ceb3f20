"""The footer at 80 and 120 columns: every key it shows is whole, the keys that matter are among them
(going to another screen, help, quitting, the screen's main keys), and the Fleet screen has a key."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from labtui.screens.disks import DisksScreen
from labtui.screens.fleet import FleetScreen
from labtui.screens.history import HistoryScreen
from labtui.screens.run import RunScreen
from labtui.tui.run_state import RunState
from labtui.widgets.keys_footer import KeysFooter
from tui_support import disks_ready, make_app, open_workload, save_history, screen_text, wait_for, widget_text

SIZES = [(80, 24), (120, 35)]


def footer_line(app) -> str:
    return screen_text(app).splitlines()[-1]


def assert_whole(app) -> None:
    """No key runs past the footer's edge, or under the palette's reminder docked at its right."""
    footer = app.screen.query_one(KeysFooter)
    keys = list(footer.query(FooterKey))
    palette = [k for k in keys if k.has_class("-command-palette")]
    edge = palette[0].region.x if palette else footer.region.right
    for key in keys:
        if key not in palette:
            assert key.region.right <= edge, f"{key.key_display} {key.description} is cut off: {footer_line(app)!r}"


def assert_shows(app, *keys: str) -> None:
    line = footer_line(app)
    for key in keys:
        assert key in line, f"{key!r} not in the footer: {line!r}"
    assert_whole(app)


async def open_run(pilot, app) -> RunScreen:
    await disks_ready(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), what="the Run screen")
    return app.screen


async def shows(pilot, app, *keys: str) -> None:
    """assert_shows once the footer has them: a screen's footer is drawn a few ticks after it opens."""
    await wait_for(pilot, lambda: all(key in footer_line(app) for key in keys), what=f"the footer with {keys}")
    assert_shows(app, *keys)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_disks_footer_keeps_every_screen_key_and_quit(labtui_home, size):
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        assert_shows(app, "? Help", "⏎ Choose", "space Mark", "w Workload", "r Run", "h History", "q Quit")
        await pilot.press("space")  # marked: R runs on each, and it must fit too
        await wait_for(pilot, lambda: "R Run marked" in footer_line(app), what="R in the footer")
        assert_shows(app, "space Mark", "R Run marked", "w Workload", "r Run", "h History", "q Quit")
        if size[0] >= 120:
            assert_shows(app, "⏎ Choose", "f5 Refresh", "f Fleet")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_workload_footer_fits_in_the_list_and_in_the_steps(labtui_home, size):
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        await open_workload(pilot)
        assert_shows(app, "? Help", "^s Save", "c Duplicate", "d Disks", "r Run", "h History", "q Quit")
        await pilot.press("enter")  # into the steps
        await wait_for(pilot, lambda: "Edit step" in footer_line(app), what="the steps' keys")
        assert_shows(app, "? Help", "⏎ Edit step", "^s Save", "d Disks", "r Run", "h History", "q Quit")
        if size[0] >= 120:
            assert_shows(app, "a Add step", "x Remove step")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_history_footer_keeps_its_main_keys(labtui_home, size):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded, what="History")
        await shows(pilot, app, "? Help", "⏎ Open", "space Mark", "c Compare", "d Disks", "w Workload", "r Run", "q Quit")
        if size[0] >= 120:
            assert_shows(app, "a Run again", "/ Filter", "e Export")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_f_opens_the_fleet_screen_and_the_run_screen_shows_it(labtui_home, size):
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await open_run(pilot, app)
        # The cursor is in the tags field, where letters are typed: Start's chord, and the way out.
        await shows(pilot, app, "^s Start", "esc Leave field")
        assert "f Fleet" not in footer_line(app)
        await pilot.press("escape")
        await shows(pilot, app, "^s Start", "f Fleet", "? Help", "q Quit")
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen), what="the Fleet screen")
        await wait_for(pilot, lambda: "Hosts file" in screen_text(app), what="Hosts file")
        # The hosts table has the cursor: the screens' keys work; Enter puts it in the hosts file field,
        # which has the keys then: Escape gives them back.
        await shows(pilot, app, "⏎ Hosts file", "d Disks")
        await pilot.press("enter")
        await shows(pilot, app, "esc Leave field")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "d Disks" in footer_line(app), what="the screens' keys")
        assert_shows(app, "d Disks", "w Workload", "r Run", "h History", "q Quit")
        assert "f Fleet" not in footer_line(app)  # its own screen's key is left out, as every screen's is
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen), what="back on Disks")


async def test_help_lists_the_fleet_key_everywhere(labtui_home):
    from labtui.screens.help import HelpScreen

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        rows = app.key_help(app.screen)
        assert any(r.keys == "f" and r.description == "Fleet" and r.scope == "everywhere" for r in rows), rows
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await wait_for(pilot, lambda: "Fleet: Many hosts over ssh" in screen_text(app), what="Fleet: Many hosts over ssh")


async def test_the_fleet_footer_fits_with_hosts_and_names_the_order_key_it_leaves_out(labtui_home, tmp_path):
    hosts = tmp_path / "hosts.toml"
    hosts.write_text('[[hosts]]\nname = "lab-01"\nssh = "lab@192.0.2.1"\ntarget = "/srv/bench"\n\n'
                     '[[hosts]]\nname = "lab-02"\nssh = "lab@192.0.2.2"\ntarget = "/srv/bench"\n')
    app = make_app(labtui_home, hosts_file=str(hosts))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FleetScreen) and app.screen.hosts, what="the hosts")
        # The status line names the key the narrow footer has no room for. It holds the hosts
        # file's path, so where the screen wraps it depends on how long the path is (a CI
        # runner's pytest directory split the phrase): read the line's own text.
        await wait_for(pilot, lambda: "ctrl+o: one after another" in widget_text(app, "#fleet-status"),
                       what="the hosts' status line")
        assert_shows(app, "? Help", "^s Start", "d Disks", "w Workload", "r Run", "h History", "q Quit")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_run_footer_fits_once_the_run_is_done_and_compared(labtui_home, size):
    # At its end a run has two more keys, o and c: at 80 columns the footer ran past its edge
    # ("... h History q Qu"). The comparison's own text names c, so c is the key that gives way.
    from factories import make_result

    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_run(pilot, app)
        screen.outcome = make_result("20240501-104005-bbbb", minutes=10)
        screen.previous = make_result("20240501-103005-aaaa")
        screen.set_state(RunState.DONE)
        screen.query_one("#run-done").focus()  # as the run's end does
        await shows(pilot, app, "? Help", "^s Start", "o Open result", "d Disks", "h History", "q Quit")
        if size[0] >= 120:
            assert_shows(app, "c Compare")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_compare_footer_keeps_quit_and_the_screen_keys(labtui_home, size):
    # With e (How decided) added, the Compare footer at 80 columns ended "w Workload r" and lost q Quit.
    # e gives way there, as on the Run screen; ? lists it.
    from factories import make_result
    from labtui.screens.compare import CompareScreen

    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        app.push_screen(CompareScreen([make_result("20240501-103005-aaaa"), make_result("20240501-104005-bbbb")]))
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the Compare screen")
        await shows(pilot, app, "? Help", "esc Back", "m Markdown", "s Picture", "w Workload", "r Run", "q Quit")
        if size[0] >= 120:
            assert_shows(app, "e How decided")
