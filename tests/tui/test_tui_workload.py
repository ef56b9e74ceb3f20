"""The Workload screen: profiles, the step editor with the model's messages, save/duplicate/rename/delete."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from labtui.results.store import Store, builtin_profiles
from labtui.screens.confirm import ConfirmModal
from labtui.screens.prompt import TextPrompt
from labtui.screens.workload import WorkloadScreen
from labtui.widgets.command_lines import CommandLines
from labtui.widgets.profile_list import ProfileList
from labtui.widgets.steps_table import StepsTable
from tui_support import make_app, open_workload, screen_text, set_text, type_into, wait_for


def command_text(app) -> str:
    return "\n".join(str(s.render()) for s in app.screen.query_one(CommandLines).query(".command-text").results(Static))


def command_line(app, engine: str) -> str:
    return str(app.screen.query_one(f"#command-{engine} .command-text", Static).render())


def field_error(app, field_id: str) -> str:
    return str(app.screen.query_one(f"#field-{field_id} .form-field-error", Static).render()).strip()


async def duplicate(pilot, name: str | None = None) -> None:
    app = pilot.app
    app.screen.query_one(ProfileList).focus()
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
    if name is not None:
        await set_text(pilot, "#prompt-input", name)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen) and app.screen.forms_ready)
    await pilot.pause()


async def test_the_issue_flow_duplicate_edit_refuse_save_and_find_it_after_a_restart(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "labtui-light"
        await open_workload(pilot)
        assert app.profile.name == "quick-sanity"
        await duplicate(pilot)  # accepts the offered name
        assert app.profile.name == "quick-sanity-copy" and app.profile.origin == "user"
        assert "-b64K" in command_line(app, "diskspd") and "--bs=65536" in command_line(app, "fio")
        await type_into(pilot, "#s-block_size", "128K")
        assert "-b128K" in command_line(app, "diskspd") and "-r128K" in command_line(app, "diskspd")
        assert "--bs=131072" in command_line(app, "fio")
        assert "128KiB random read" in command_line(app, "native")
        assert "RND128K Q8T4 R" in screen_text(app) or "RND128K" in str(app.screen.query_one(StepsTable).get_row_at(0))
        await type_into(pilot, "#s-threads", "0")
        assert field_error(app, "s-threads") == "threads must be 1..256, got 0"
        assert "threads must be 1..256, got 0" in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert any("threads must be 1..256" in str(n.message) for n in app._notifications)
        saved = Store(labtui_home).profile("quick-sanity-copy")
        assert saved.steps[0].block_size == 64 * 1024  # nothing written while a field is refused
        await type_into(pilot, "#s-threads", "2")
        assert field_error(app, "s-threads") == ""
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.unsaved_profile is None, what="the save")
    saved = Store(labtui_home).profile("quick-sanity-copy")
    assert (saved.steps[0].block_size, saved.steps[0].threads) == (128 * 1024, 2)
    again = make_app(labtui_home)
    async with again.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        assert again.theme == "labtui-light"
        assert again.profile.name == "quick-sanity-copy"  # the chosen profile is remembered too
        assert "quick-sanity-copy" in screen_text(again)


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


async def test_switching_profiles_with_unsaved_edits_asks_first(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-title", "Edited")
        app.screen.query_one(ProfileList).focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen))
        assert app.profile.name == "quick-sanity" and app.screen.query_one("#p-title", Input).value == "Edited"
        await pilot.press("down")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: app.profile.name == "configmgr-sql-quick")
        assert app.unsaved_profile is None


async def test_every_field_reports_the_models_reason(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#s-block_size", "64X")
        await set_text(pilot, "#s-duration", "0s")
        await set_text(pilot, "#p-file_size", "lots")
        assert "unknown size unit 'x'" in field_error(app, "s-block-size")
        assert field_error(app, "s-duration") == "a duration must be greater than zero, got '0s'"
        assert "'lots' is not a size" in field_error(app, "p-file-size")
        await set_text(pilot, "#s-threads", "４")  # a full-width digit: int() takes it, the profile's reader not
        await set_text(pilot, "#p-repeat", "２")
        assert "in digits 0-9" in field_error(app, "s-threads") and "in digits 0-9" in field_error(app, "p-repeat")
        await set_text(pilot, "#s-threads", "4")
        await set_text(pilot, "#p-repeat", "1")
        assert "fix the step to see the command lines" in command_text(app)
        await set_text(pilot, "#s-block_size", "1000")
        await set_text(pilot, "#s-duration", "5s")
        await set_text(pilot, "#p-file_size", "1G")
        assert "multiple of 512" in field_error(app, "s-block-size")  # cache off needs whole sectors
        app.screen.query_one("#s-cache").focus()
        await pilot.press("space")  # cache on: any block size will do
        await pilot.pause()
        assert field_error(app, "s-block-size") == ""


async def test_a_test_file_larger_than_the_targets_free_space_is_flagged_as_preflight_would(labtui_home, tmp_path):
    from labtui.errors import LabtuiError
    from labtui.machine.target_choice import Target
    from labtui.run.runner import Runner
    from tui_support import FAKE_VOLUMES

    root = next(v for v in FAKE_VOLUMES if v.mount_point == "/")  # 412 GiB free
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        app.target = Target.on(Path("/home/lab"), root)
        await set_text(pilot, "#p-file_size", "999T")
        warning = field_error(app, "p-file-size")
        assert warning == ("too big for /home/lab: quick-sanity needs 999 TiB (test file 999TiB + margin 1GiB), "
                           "only 412 GiB is free")
        assert "-warning" in app.screen.query_one("#field-p-file-size").classes  # accepted, not refused
        await set_text(pilot, "#p-free_space_margin", "0")
        await set_text(pilot, "#p-file_size", "412G")
        assert field_error(app, "p-file-size") == ""  # exactly what is free: the preflight takes it
        profile = app.screen.draft.build()
    # The same rule as the runner's preflight, which refuses such a run in the same words. (The
    # free space of a shared disk moves between two looks: the words, not the figures, are compared.)
    st = os.statvfs(tmp_path)
    big = replace(profile, file_size=st.f_bavail * st.f_frsize + 2**40)
    with pytest.raises(LabtuiError) as refused:
        Runner(big, tmp_path, Store(labtui_home)).preflight()
    said = big.space_shortfall(st.f_bavail * st.f_frsize)
    assert str(refused.value).startswith(f"not enough free space in {tmp_path}: ")
    assert str(refused.value).split(" (")[0].endswith(said.split(" (")[0])  # "quick-sanity needs 1.1 TiB"


async def test_the_command_lines_never_show_a_refused_test_file_size(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-file_size", "999T")
        assert "--size=1098412116148224" in command_line(app, "fio")
        await set_text(pilot, "#p-file_size", "64Q")
        # Not the last accepted size: the reason the size is refused.
        assert "1098412116148224" not in command_text(app) and "999TiB" not in command_text(app)
        assert "fix Test file to see the command lines: unknown size unit 'q'" in command_text(app)
        await set_text(pilot, "#p-file_size", "64M")
        assert "--size=67108864" in command_line(app, "fio")
        await set_text(pilot, "#p-title", "")  # a field the command lines do not use
        assert "--size=67108864" in command_line(app, "fio")


async def test_the_steps_table_fits_its_width_whatever_profile_was_shown_before(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        table = screen.query_one(StepsTable)

        def fits() -> bool:
            return table.virtual_size.width <= table.scrollable_content_region.width

        for name in ("cdm-nvme", "quick-sanity"):
            screen._open(next(p for p in screen.profiles if p.name == name))
            await pilot.pause()
            assert fits(), name
            assert "off" in screen_text(app)  # the last column, Cache, is on screen
        name = next(c for c in table.columns.values() if c.key == "name")
        assert name.width == len("Write 64K random")  # measured for these rows again


async def test_the_steps_table_folds_long_step_names_at_80_columns_never_cutting_them(labtui_home):
    # configmgr-sql's steps differ only at their ends ("Read 64K random 60s" / "... 300s"): cut to
    # the column they read "Read 64K random 6…" and "Read 64K random 3…".
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        table = screen.query_one(StepsTable)
        profile = next(p for p in screen.profiles if p.name == "configmgr-sql")
        screen._open(profile)
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width
        widths = {c.key.value: c.width for c in table.columns.values()}
        assert sum(widths.values()) + 2 * table.cell_padding * len(widths) <= table.size.width
        for i, step in enumerate(profile.steps):
            assert "…" not in "".join(str(c) for c in table.get_row_at(i))
            for key, whole in (("name", step.name), ("label", step.label())):
                lines = str(table.get_cell(str(i), key)).split("\n")
                assert " ".join(lines) == whole and all(len(line) <= widths[key] for line in lines), lines
            assert table.rows[table.ordered_rows[i].key].height == max(
                str(c).count("\n") + 1 for c in table.get_row_at(i))
        assert any("\n" in str(table.get_cell(str(i), key)) for i in range(len(profile.steps)) for key in ("name", "label"))


async def test_a_command_step_shows_its_own_fields(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        assert not app.screen.query_one("#field-s-command").display
        app.screen.query_one("#s-kind").focus()
        await pilot.press("space")
        await pilot.pause()
        assert app.screen.query_one("#field-s-command").display
        assert not app.screen.query_one("#field-s-block-size").display
        assert field_error(app, "s-command") == "a command step needs a command"
        await set_text(pilot, "#s-command", "zpaq x archive.zpaq")
        assert field_error(app, "s-command") == ""
        assert "zpaq x archive.zpaq" in command_text(app)


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
        await pilot.press("x", "x", "x")
        await pilot.pause()
        assert table.row_count == 1
        assert any("at least one step" in str(n.message) for n in app._notifications)


def typo_profile(home: Path) -> Path:
    """A user profile file with an unknown key (it does not load); returns the profiles folder."""
    profiles = home / "profiles"
    profiles.mkdir()
    (profiles / "typo.toml").write_text('name = "typo"\n[[steps]]\nname = "x"\nthreds = 4\n')
    return profiles


async def test_a_broken_profile_file_is_listed_as_broken_and_named(labtui_home):
    profiles = typo_profile(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        assert "typo.toml (broken)" in screen_text(app)
        assert "unknown key 'threds'" in screen_text(app)  # said in the list, not in a toast
        assert not app._notifications
    assert (profiles / "typo.toml").exists()  # reported, never rewritten or deleted


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


async def test_enter_walks_the_form_without_changing_a_choice(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_workload(pilot)
        app.screen.query_one("#s-name").focus()
        await pilot.press("enter", "enter", "enter")  # name -> kind -> block size -> pattern
        await pilot.pause()
        assert app.focused.id == "s-pattern"
        assert app.screen.query_one("#s-kind").value == "io" and app.unsaved_profile is None


async def test_a_shown_profile_reads_from_the_start_of_long_titles_and_descriptions(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        sql = next(p for p in app.screen.profiles if p.name == "configmgr-sql-quick")
        app.screen.open_profile(sql)
        await wait_for(pilot, lambda: app.profile.name == "configmgr-sql-quick", what="the profile")
        text = screen_text(app)
        assert "Title ConfigMgr / SQL lab" in text and "Description Random 64 KiB, 8 threads" in text
        # Typed at the end while it is edited; shown from the start again once left.
        title = app.screen.query_one("#p-title", Input)
        title.focus()
        await pilot.press("ctrl+e", "!")
        assert title.value.endswith("(quick)!")
        await pilot.press("tab")
        await pilot.pause()
        assert "Title ConfigMgr / SQL lab" in screen_text(app)


async def test_the_first_tab_from_the_profiles_lands_on_the_first_field(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        assert isinstance(app.focused, ProfileList)
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused.id == "p-name"


async def test_ctrl_s_typed_right_after_text_saves_that_text(labtui_home):
    from textual import events

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        await duplicate(pilot, "mine")
        title = app.screen.query_one("#p-title", Input)
        title.focus()
        await pilot.pause()
        # All at once, as a terminal delivers keys typed faster than the app handles them.
        for key in ["ctrl+u", "F", "a", "s", "t", "ctrl+s"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        saves = lambda: sum("Saved mine" in str(n.message) for n in app._notifications)  # noqa: E731
        await wait_for(pilot, lambda: saves() == 2, what="the save (the duplicate was the first)")
        assert Store(labtui_home).profile("mine").title == "Fast"
        assert app.unsaved_profile is None


async def test_the_presets_keys_and_write_through_are_edited_and_saved(labtui_home):
    """Every key of a profile file has its field: a CrystalDiskMark preset's aggregation, preparing
    pass, pause and MB/s, and the post's script's write-through and pause before its 300 s runs."""
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        screen._open(next(p for p in screen.profiles if p.name == "cdm-standard"))
        await pilot.pause()
        shown = {key: screen.query_one(f"#p-{key}").value
                 for key in ("aggregate", "repeat_order", "discard_first", "pause", "decimal_units")}
        assert shown == {"aggregate": "best", "repeat_order": "step", "discard_first": True, "pause": "5s",
                         "decimal_units": True}
        screen.query_one("#p-aggregate").focus()
        await pilot.press("left")  # best -> mean, as KDiskMark's Default profile makes a figure
        await set_text(pilot, "#p-pause", "2s")
        screen.query_one("#p-discard_first").focus()
        await pilot.press("space")
        await type_into(pilot, "#p-pause", "2x")
        assert field_error(app, "p-pause") == "unknown duration unit 'x' in '2x' (use ms, s, m or h)"
        await set_text(pilot, "#p-pause", "2s")
        assert field_error(app, "p-pause") == ""
        await duplicate(pilot, "cdm-mean")
        saved = Store(labtui_home).profile("cdm-mean")
        assert (saved.aggregate, saved.pause, saved.discard_first, saved.decimal_units) == ("mean", 2.0, False, True)
        assert "mean of 3" in saved.aggregation_text()

        screen._open(next(p for p in screen.profiles if p.name == "configmgr-sql"))
        await pilot.pause()
        screen.query_one(StepsTable).move_cursor(row=1)  # the 300 s read: 5 s after the 60 s one, as the script sleeps
        await pilot.pause()
        assert screen.query_one("#s-pause").value == "5s" and screen.query_one("#s-write_through").value is True
        assert "-Sh" in command_line(app, "diskspd")
        screen.query_one("#s-write_through").focus()
        await pilot.press("space")
        await pilot.pause()
        assert "-Sh" not in command_line(app, "diskspd") and "-Sd" in command_line(app, "diskspd")
        await set_text(pilot, "#s-pause", "")  # empty: the profile's own pause (none)
        await duplicate(pilot, "sql-cached")
        step = Store(labtui_home).profile("sql-cached").steps[1]
        assert (step.write_through, step.pause) == (False, None)


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


async def test_the_run_screen_says_when_it_runs_the_saved_profile_not_the_unsaved_edits(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        await set_text(pilot, "#p-file_size", "64M")
        await pilot.press("escape")  # out of the field
        assert app.unsaved_profile == "quick-sanity"
        await pilot.press("r")
        await wait_for(pilot, lambda: "Next run" in screen_text(app), what="the Run screen")
        said = " ".join(screen_text(app).split())
        assert "edits to quick-sanity are not saved: this runs the saved profile" in said


async def test_the_command_lines_are_those_a_run_makes_with_the_settings_in_config_toml(labtui_home):
    # The preview ignored config.toml: "on 2 processes, io_uring" where native_backend = "sync" runs a
    # thread per I/O in flight, and "fio" where fio_path names another fio.
    (labtui_home / "config.toml").write_text('native_backend = "sync"\nnative_workers = "per-thread"\n'
                                             'fio_path = "/opt/fio-3.36/bin/fio"\n')
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        native = command_line(app, "native")
        assert "4 logical workers on 4 processes (per-thread), a thread per I/O in flight" in native, native
        assert command_line(app, "fio").startswith("/opt/fio-3.36/bin/fio --name=labtui "), command_line(app, "fio")
        # What the preview says is what the run takes: the engine the Run screen would start, with the app's settings.
        from labtui.engine.registry import get_engine

        step, profile = app.profile.steps[0], app.profile
        assert native == get_engine("native", app.settings.engines).command_line(
            step, Path("/path/to/target/labtui-test.dat"), profile.file_size)
    # A setting no run can use is said where the command line would be, as the run would refuse it.
    (labtui_home / "config.toml").write_text('native_backend = "uring"\n')
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        assert command_line(app, "native") == ("will not run: native_backend must be auto or one of io_uring, aio, "
                                               "sync, got 'uring' (in config.toml)")


async def test_a_steps_verify_is_edited_previewed_refused_by_diskspd_and_saved(labtui_home):
    # Issue 43's `verify = true` had no control in the editor: only a profile file written by hand set it.
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        screen.query_one(StepsTable).move_cursor(row=1)  # quick-sanity's write step
        await pilot.pause()
        verify = screen.query_one("#s-verify")
        assert verify.value is False and "--verify" not in command_line(app, "fio")
        verify.focus()
        await pilot.press("space")
        await pilot.pause()
        assert verify.value is True
        assert "--verify=crc32c --verify_interval=4096" in command_line(app, "fio")
        assert "verified (" in command_line(app, "native")
        assert command_line(app, "diskspd").startswith("DiskSpd cannot verify data")
        # The model's rules say where they apply: a mixed step cannot be verified.
        await set_text(pilot, "#s-write_percent", "30")
        assert field_error(app, "s-write-percent").startswith("a verified step reads or writes, not both")
        await set_text(pilot, "#s-write_percent", "100")
        assert field_error(app, "s-write-percent") == ""
        screen.query_one(StepsTable).move_cursor(row=0)  # and the read step reads it back, checked
        await pilot.pause()
        screen.query_one("#s-verify").focus()
        await pilot.press("space")
        await duplicate(pilot, "sanity-verified")
        saved = Store(labtui_home).profile("sanity-verified")
        assert [s.verify for s in saved.steps] == [True, True]
        assert (Store(labtui_home).profiles_dir / "sanity-verified.toml").read_text().count("verify = true") == 2


async def test_the_focused_field_is_plain_at_a_glance_in_every_theme_and_without_colours(labtui_home):
    # Its background was a 5 % tint of the others' (235 against 234 in a 256-colour terminal), and the
    # label's focus colour never showed (Textual restyled it only under a row with a :focus-within rule).
    from rich.color import ColorSystem
    from rich.segment import Segment
    from textual.color import Color
    from textual.filter import Monochrome, NoColor

    def bg(widget) -> Color:
        return Color.from_rich_color(widget.rich_style.bgcolor)

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        field, other = screen.query_one("#p-title"), screen.query_one("#p-name")
        label = screen.query_one("#field-p-title .form-field-label")
        other_label = screen.query_one("#field-p-name .form-field-label")
        # labtui's themes, and Textual's that Ctrl+T offers too where the contrast is least (flexoki,
        # textual-dark) or the colours are the terminal's own (ansi-dark): all of them take ~1 s each.
        themes = ["labtui-dark", "labtui-light", "labtui-high-contrast", "flexoki", "textual-dark", "ansi-dark"]
        assert set(themes) <= set(app.available_themes)
        for theme in themes:
            app.theme = theme
            field.focus()
            await pilot.pause()
            focused, unfocused = field.rich_style, other.rich_style
            # The label is in reverse: a sign that needs no colour (NO_COLOR, a 16-colour console).
            assert label.rich_style.reverse and label.rich_style.bold and not other_label.rich_style.reverse, theme
            for no_colour in (Monochrome(), NoColor()):
                [(_, kept, _)] = no_colour.apply([Segment("Title", label.rich_style)], bg(field))
                assert kept.reverse, (theme, no_colour)
            # And the field's own background stands apart from the other fields', in its colours
            # and in a 16-colour console's.
            if focused.bgcolor.is_system_defined or unfocused.bgcolor.is_system_defined:  # an ANSI theme
                assert focused.bgcolor != unfocused.bgcolor, theme
                continue
            apart = abs(bg(field).brightness - bg(other).brightness)
            assert apart >= 0.05, (theme, bg(field).hex, bg(other).hex)
            if theme.startswith("labtui-"):
                assert focused.bgcolor.downgrade(ColorSystem.STANDARD).number != \
                    unfocused.bgcolor.downgrade(ColorSystem.STANDARD).number, theme


async def test_a_refused_save_is_taken_down_once_the_profile_saves(labtui_home):
    # "Not saved: Fix this first: Name: 'my test' is not a usable name" stayed on screen beside
    # "Profile saved" once the name was fixed and saved.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)

        def titles() -> list[str]:
            return [n.title for n in app._notifications]

        await set_text(pilot, "#p-name", "my test")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Not saved" in titles(), what="the refusal")
        await set_text(pilot, "#p-name", "mine")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Profile saved" in titles(), what="the save")
        assert "Not saved" not in titles() and Store(labtui_home).profile("mine").name == "mine"


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


def test_a_verified_step_says_so_in_the_steps_list():
    from labtui.model.profile import Step
    from labtui.widgets.steps_table import step_cells

    assert step_cells(1, Step("w", block_size=1 << 20, pattern="sequential", write_percent=100, threads=1,
                              outstanding=4, verify=True), "w")[2] == "SEQ1M Q4T1 W verified"
    assert step_cells(2, Step("r", block_size=1 << 20), "r")[2] == "RND1M Q1T1 R"
