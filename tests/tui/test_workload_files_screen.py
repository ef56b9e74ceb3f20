"""The Workload screen's profile files (screens/workload_files.py): saving, a copy, a new name,
deleting; built-ins never written."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from labtui.results.store import Store, builtin_profiles
from labtui.screens.confirm import ConfirmModal
from labtui.screens.prompt import TextPrompt
from labtui.screens.workload import WorkloadScreen
from labtui.widgets.profile_list import ProfileList
from tui_support import make_app, open_workload, screen_text, set_text, wait_for
from workload_support import duplicate, typo_profile


async def test_a_builtin_is_saved_as_a_user_copy_never_overwritten(labtui_home):
    original = next(p for p in builtin_profiles() if p.name == "quick-sanity")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-repeat", "5")
        assert app.unsaved_profile == "quick-sanity"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
        await set_text(pilot, "#prompt-input", "quick-sanity")
        assert "built-in profile" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextPrompt)  # refused, still asking
        await set_text(pilot, "#prompt-input", "sanity-x5")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen) and app.profile.name == "sanity-x5")
    store = Store(labtui_home)
    assert store.profile("sanity-x5").repeat == 5
    assert not (store.profiles_dir / "quick-sanity.toml").exists()
    assert next(p for p in builtin_profiles() if p.name == "quick-sanity") == original
    assert store.profile("quick-sanity").repeat == 3


async def test_delete_asks_and_no_keeps_the_profile(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await duplicate(pilot, "doomed")
        path = Store(labtui_home).profiles_dir / "doomed.toml"
        assert path.exists()
        app.screen.query_one(ProfileList).focus()
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")  # the safe answer has the focus
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen))
        assert path.exists()
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: not path.exists(), what="the file to go")
        assert "doomed" not in screen_text(app)
        assert app.profile.name != "doomed"


async def test_builtins_cannot_be_deleted_or_renamed_and_the_keys_say_why(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        # Shown dimmed in the footer ...
        assert screen.check_action("delete_profile", ()) is None and screen.check_action("rename", ()) is None
        screen.query_one(ProfileList).focus()
        # ... and pressed anyway, they say why they do nothing (and ask nothing).
        await pilot.press("n", "delete")
        await pilot.pause()
        assert isinstance(app.screen, WorkloadScreen)
        messages = [str(n.message) for n in app._notifications]
        assert any("quick-sanity is built in: it keeps its name. Duplicate it (c)" in m for m in messages)
        assert any("quick-sanity is built in: it cannot be deleted" in m for m in messages)
        assert app.profile.name == "quick-sanity" and Store(labtui_home).profile("quick-sanity").origin == "builtin"


async def test_save_as_gives_the_copy_a_title_and_a_description_of_its_own(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-file_size", "64M")
        await set_text(pilot, "#s-duration", "2s")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
        await set_text(pilot, "#prompt-input", "ux-quick")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.profile.name == "ux-quick", what="the save")
        assert app.screen.query_one("#p-title", Input).value == "Quick sanity check, edited"
        # Duplicated without edits, a copy says so.
        await duplicate(pilot, "ux-copy")
    store = Store(labtui_home)
    saved = store.profile("ux-quick")
    assert saved.title == "Quick sanity check, edited"
    # The built-in's description ("10 s each on a 1 GiB file") no longer holds: what changed does.
    assert saved.description == "quick-sanity with test file 64MiB (was 1GiB), step 1 duration 2s (was 10s)"
    copy = store.profile("ux-copy")
    assert copy.title == "Quick sanity check, edited (copy)"
    assert copy.description.startswith("A copy of ux-quick: quick-sanity with test file 64MiB")


async def test_a_title_typed_before_save_as_is_kept(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-title", "My check")
        await set_text(pilot, "#p-description", "Mine")
        await set_text(pilot, "#p-name", "mine")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.profile.name == "mine", what="the save")
    saved = Store(labtui_home).profile("mine")
    assert (saved.title, saved.description) == ("My check", "Mine")


async def test_rename_a_user_profile(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await duplicate(pilot, "first-name")
        app.screen.query_one(ProfileList).focus()
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        await set_text(pilot, "#prompt-input", "bad name")
        assert "not a usable name" in screen_text(app)  # the model's rule, shown as typed
        await set_text(pilot, "#prompt-input", "second-name")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.profile.name == "second-name")
    store = Store(labtui_home)
    assert (store.profiles_dir / "second-name.toml").exists() and not (store.profiles_dir / "first-name.toml").exists()


async def test_a_broken_profile_file_can_be_highlighted_never_run_and_deleted(labtui_home):
    profiles = typo_profile(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        options = screen.query_one(ProfileList)
        options.focus()
        await pilot.press("end")  # the last entry: the broken file
        await pilot.pause()
        assert options.get_option_at_index(options.highlighted).id == f"broken:{profiles / 'typo.toml'}"
        assert app.profile.name == "quick-sanity"  # never opened, so never the profile a run uses
        await pilot.press("enter")
        await pilot.pause()
        assert any("cannot be opened or run: " in str(n.message) and "threds" in str(n.message)
                   for n in app._notifications)
        assert screen.check_action("delete_profile", ()) is True
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert not app._notifications  # Enter's notice does not lie over the question
        await pilot.press("enter")  # the safe answer has the focus
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen))
        assert (profiles / "typo.toml").exists()
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: not (profiles / "typo.toml").exists(), what="the file to go")
        await pilot.pause()
        assert "typo.toml" not in screen_text(app) and app.profile.name == "quick-sanity"
        assert screen.check_action("delete_profile", ()) is None  # back on a built-in


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_copys_description_lists_its_changes_as_they_are_and_is_read_whole(labtui_home, size):
    # Issue 39, item 8: "quick-sanity with step 1 block size 4KiB (was 64KiB)" stayed after more
    # edits, and the Description field was cut even at 120 columns.
    from labtui.widgets.wrapped_input import WrappedInput

    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        await open_workload(pilot)
        screen = app.screen
        description = screen.query_one("#p-description", WrappedInput)
        quick = next(p for p in builtin_profiles() if p.name == "quick-sanity").description
        # The whole sentence, over lines: nothing of it out of sight.
        assert description.value == quick and description.size.height >= 2
        assert description.max_scroll_x == description.max_scroll_y == 0
        await set_text(pilot, "#s-block_size", "4K")
        assert screen.query_one("#s-name", Input).value == "Read 4K random"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.profile.name == "quick-sanity-copy", what="the save")
        assert description.value == "quick-sanity with step 1 block size 4KiB (was 64KiB)"
        await set_text(pilot, "#s-duration", "3s")
        said = "quick-sanity with step 1 block size 4KiB (was 64KiB), step 1 duration 3s (was 10s)"
        assert description.value == said
        await pilot.pause()
        assert description.max_scroll_x == description.max_scroll_y == 0
        await set_text(pilot, "#s-block_size", "64K")  # back as it was: no longer a change
        assert description.value == "quick-sanity with step 1 duration 3s (was 10s)"
        assert screen.query_one("#s-name", Input).value == "Read 64K random"
        # A description typed by the person is theirs.
        await set_text(pilot, "#p-description", "Three seconds a step")
        await set_text(pilot, "#s-duration", "4s")
        assert description.value == "Three seconds a step"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: Store(labtui_home).profile("quick-sanity-copy").description
                       == "Three seconds a step", what="the save")
