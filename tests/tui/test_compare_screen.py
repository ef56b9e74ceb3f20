"""The Compare screen (screens/compare.py): results side by side, the answer first, as `labtui compare` prints it."""

from __future__ import annotations

from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from tui_support import (
    disks_ready,
    make_app,
    move_to,
    open_history,
    palette_search,
    save_history,
    screen_text,
    wait_for,
)


async def test_mark_two_and_compare_reads_the_deltas(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)  # nothing marked: told what to do instead
        await move_to(pilot, screen, "20240502-091500-bbbb")
        await pilot.press("space")
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("space")
        assert screen.marked == {"20240501-103005-aaaa", "20240502-091500-bbbb"}
        assert "2 marked" in screen_text(app)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        text = screen_text(app)
        assert "A  20240501-103005-aaaa" in text and "B  20240502-091500-bbbb" in text  # oldest first
        assert "-20.0 %" in text and "noise unknown" in text  # single runs: never called worse
        assert "tags" in text  # what differs: the tags are part of the legend
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.marked  # marks survive a look at the comparison


async def test_compare_from_the_palette_on_another_screen(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        screen.marked = {"20240501-103005-aaaa", "20240505-120000-eeee"}
        await pilot.press("d")
        await disks_ready(pilot)
        await palette_search(pilot, "compare marked")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare from the palette")
        assert "engines differ" in screen_text(app)  # the import ran on DiskSpd: a cross-engine warning


async def test_compare_says_where_the_bottleneck_is_as_compare_prints_it(labtui_home):
    """The seed post's two adapters: both meet the PCIe 3.0 x4 link, which the Compare screen says in words."""
    from synthetic import seed_pair

    a, b = seed_pair()
    store = Store(labtui_home)
    for result in (a, b):
        store.save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        screen.marked = {a.id, b.id}
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        text = " ".join(screen_text(app).split())
        assert ("both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive, which "
                "supports 16 GT/s") in text, text
