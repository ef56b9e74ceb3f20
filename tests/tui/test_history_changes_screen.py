"""What History's keys change (screens/history_changes.py): tags, baselines, deleting, each asking first where it removes."""

from __future__ import annotations

import os

from history_support import said
from labtui.results import baselines
from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.history import ResultsTable
from labtui.screens.prompt import TextPrompt
from tui_support import (
    make_app,
    move_to,
    open_history,
    save_history,
    screen_text,
    set_text,
    shown_ids,
    wait_for,
)


async def test_tag_baseline_and_delete_change_the_files(labtui_home):
    save_history(labtui_home)
    store = Store(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        await set_text(pilot, "#prompt-input", "startech-adapter, after-swap")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert store.find_result("20240501-103005-aaaa").tags == ("startech-adapter", "after-swap")
        await pilot.press("b")
        await wait_for(pilot, lambda: "20240501-103005-aaaa" in screen.baseline_ids)
        assert baselines.ids(store) == {"20240501-103005-aaaa"}
        assert "B" in screen.query_one(ResultsTable).rows[screen.query_one(ResultsTable).cursor].cells[0]
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "A baseline among them stops being one" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert store.result_path("20240501-103005-aaaa").exists()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: "20240501-103005-aaaa" not in shown_ids(screen))
        assert not store.result_path("20240501-103005-aaaa").exists()
        assert baselines.ids(store) == set()


async def test_a_broken_row_says_what_each_key_cannot_do_and_x_deletes_only_it_after_asking(labtui_home):
    save_history(labtui_home)
    store = Store(labtui_home)
    bad = store.results_dir / "20240506-000000-ffff.toml"
    dangling = store.results_dir / "moved-away.toml"
    dangling.symlink_to(labtui_home / "elsewhere" / "gone.toml")
    before = sorted(p.name for p in store.results_dir.iterdir())
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "broken:" + bad.name)
        assert "x deletes it (asks first)" in " ".join(screen_text(app).split())
        # Each key that acts on a result says, on a broken row, what it cannot do (it did nothing and said nothing).
        for key, what in (("enter", "opened"), ("space", "marked"), ("a", "run again"), ("t", "tagged"),
                          ("b", "a baseline"), ("e", "exported")):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
            messages = [str(n.message) for n in app._notifications]
            assert any(f"{bad.name} cannot be read, so it cannot be {what}" in m for m in messages), (key, messages)
        assert screen.marked == set() and sorted(p.name for p in store.results_dir.iterdir()) == before
        # x asks, naming the file and its reason; n keeps it.
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        text = " ".join(screen_text(app).split())
        assert "Delete the broken file?" in text and "not valid TOML" in text and "removed for good" in text
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert bad.exists()
        # Fixed meanwhile (now a result): kept, and said.
        original = bad.read_text()
        fixed = store.result_path("20240501-103005-aaaa").read_text()
        bad.write_text(fixed)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: said(app, f"{bad} now reads as the result 20240501-103005-aaaa: kept "
                                                   "(F5 lists it again)"), what="the refusal")
        assert bad.read_text() == fixed
        bad.write_text(original)
        await pilot.press("f5")
        await wait_for(pilot, lambda: "broken:" + bad.name in shown_ids(screen), what="the broken file again")
        await move_to(pilot, screen, "broken:" + bad.name)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: "broken:" + bad.name not in shown_ids(screen), what="the row gone")
        assert not bad.exists()
        # A link to nowhere: the link goes, nothing it names is touched (or made).
        await move_to(pilot, screen, "broken:" + dangling.name)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "Delete the broken link?" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: "broken:" + dangling.name not in shown_ids(screen))
        assert not os.path.lexists(dangling) and not (labtui_home / "elsewhere").exists()
        assert sorted(p.name for p in store.results_dir.iterdir()) == sorted(
            set(before) - {bad.name, dangling.name})


async def test_an_aborted_result_cannot_be_a_baseline_and_says_why(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240504-080000-dddd")
        await pilot.press("b")
        await pilot.pause(0.2)
        assert screen.baseline_ids == set()
        assert any("only a completed result" in n.message for n in app._notifications)
