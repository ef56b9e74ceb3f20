"""The Workload screen (screens/workload.py): profiles, steps and the editor of every field, the
model's reasons shown as they are typed."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.workload import WorkloadScreen
from labtui.widgets.profile_list import ProfileList
from labtui.widgets.steps_table import StepsTable
from tui_support import make_app, open_workload, screen_text, set_text, type_into, wait_for, widget_text
from workload_support import command_line, command_text, duplicate, field_error


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
        await pilot.pause()
        note = app.screen.query_one("#profile-form-note", Static)
        assert str(note.render()) == ("Too big for /home/lab: quick-sanity needs 999 TiB (test file 999 TiB + margin "
                                      "1.0 GiB), only 412 GiB is free")
        for row in ("#field-p-file-size", "#field-p-free-space-margin"):  # accepted, not refused; what it is about
            assert "-warning" in app.screen.query_one(row).classes and "-invalid" not in app.screen.query_one(row).classes
        assert field_error(app, "p-file-size") == ""  # said once, across the form: in half a row it took six lines
        form = app.screen.query_one("#profile-form")
        assert note.region.width == form.region.width and note.region.height == 2  # two lines, none left blank
        assert app.screen.query_one("#field-p-repeat").region.y == note.region.bottom
        await set_text(pilot, "#p-free_space_margin", "0")
        await set_text(pilot, "#p-file_size", "412G")
        assert not note.display  # exactly what is free: the preflight takes it
        assert "-warning" not in app.screen.query_one("#field-p-file-size").classes
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


def shell_line(app) -> str:
    """A command step's one line (in the first engine's row, the others hidden)."""
    return str(app.screen.query(".command-text").first(Static).render())


async def test_native_workers_and_requires_have_controls_shown_in_the_preview_and_saved(labtui_home):
    # Two keys of the profile format had no control: only a profile file written by hand set them.
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        processes = screen.query_one("#s-native_workers")
        assert processes.value == ""  # config.toml's (here none: auto)
        assert "(per-thread)" not in command_line(app, "native")
        fio_before = command_line(app, "fio")
        processes.focus()
        await pilot.press("p")  # its value's first letter, as every choice of the form
        await pilot.pause()
        assert processes.value == "per-thread"
        assert "4 logical workers on 4 processes (per-thread)" in command_line(app, "native")
        assert command_line(app, "fio") == fio_before  # the native engine's alone
        # The write step becomes a command step that needs programs: the preview says so.
        screen.query_one(StepsTable).move_cursor(row=1)
        await pilot.pause()
        screen.query_one("#s-kind").focus()
        await pilot.press("c")
        await pilot.pause()
        assert screen.query_one("#field-s-requires").display
        assert not screen.query_one("#field-s-native-workers").display  # an I/O step's key
        await set_text(pilot, "#s-command", "sh -c true")
        await set_text(pilot, "#s-requires", "lt-tuiask-missing-tool")
        assert shell_line(app).startswith("will not run: lt-tuiask-missing-tool is not installed")
        assert shell_line(app).endswith("The command: sh -c true")
        await set_text(pilot, "#s-requires", "sh, /bin/sh")
        assert shell_line(app) == "sh -c true; needs sh, /bin/sh"
        await duplicate(pilot, "sanity-carried")
    saved = Store(labtui_home).profile("sanity-carried")
    assert saved.steps[0].native_workers == "per-thread"
    assert saved.steps[1].kind == "command" and saved.steps[1].requires == ("sh", "/bin/sh")
    text = (Store(labtui_home).profiles_dir / "sanity-carried.toml").read_text()
    assert 'native_workers = "per-thread"' in text and 'requires = ["sh", "/bin/sh"]' in text


async def test_keys_typed_ahead_of_the_screen_reach_it_in_order(labtui_home):
    # w, Enter, x typed quickly: all three were queued on the Disks table before w was handled, and
    # Textual resolves a key's binding against what has focus when the key comes: Enter found the
    # Workload screen not yet mounted (nothing focused), or x found the profile list still focused.
    from textual import events

    from tui_support import disks_ready

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        for key, character in (("w", "w"), ("enter", "\r"), ("x", "x")):
            app.post_message(events.Key(key, character))  # as the terminal's driver posts them, none waited for
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="x's question")
        assert widget_text(app, "#confirm-message").startswith("Remove step 1 of 2, Read 64K random")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen), what="the question answered")
        assert isinstance(app.focused, StepsTable)


async def test_keys_typed_right_after_enter_on_a_step_go_into_its_name_field(labtui_home):
    # Enter on a step moved focus by a deferred focus(): the keys typed after it (queued on the steps
    # table) met the table, and q quit labtui instead of going into the name.
    from textual import events

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        await pilot.press("enter")  # into the steps
        for key, character in (("enter", "\r"), ("Z", "Z"), ("q", "q")):
            app.post_message(events.Key(key, character))  # as the terminal's driver posts them, none waited for
        field = screen.query_one("#s-name", Input)
        await wait_for(pilot, lambda: field.value == "Read 64K randomZq", what="Zq typed at the end of the name")
        assert app.focused is field and app.is_running


async def test_a_copy_made_unedited_and_edited_since_says_edited_in_its_title(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        await duplicate(pilot, "mine")
        assert app.screen.query_one("#p-title", Input).value == "Quick sanity check (copy)"
        await set_text(pilot, "#s-block_size", "4K")
        assert app.screen.query_one("#p-title", Input).value == "Quick sanity check, edited"
        assert app.screen.query_one("#p-description").value.startswith("quick-sanity with ")
