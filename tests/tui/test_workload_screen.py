"""The Workload screen (labtui/screens/workload.py): its step editor's controls and their preview."""

from __future__ import annotations

from textual.widgets import Static

from labtui.results.store import Store
from labtui.screens.prompt import TextPrompt
from labtui.screens.workload import WorkloadScreen
from labtui.widgets.profile_list import ProfileList
from labtui.widgets.steps_table import StepsTable
from tui_support import make_app, open_workload, set_text, wait_for


def command_line(app, engine: str) -> str:
    return str(app.screen.query_one(f"#command-{engine} .command-text", Static).render())


def shell_line(app) -> str:
    """A command step's one line (in the first engine's row, the others hidden)."""
    return str(app.screen.query(".command-text").first(Static).render())


async def save_as(pilot, name: str) -> None:
    app = pilot.app
    app.screen.query_one(ProfileList).focus()
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
    await set_text(pilot, "#prompt-input", name)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen) and app.screen.forms_ready, what="the copy")
    await pilot.pause()


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
        await save_as(pilot, "sanity-carried")
    saved = Store(labtui_home).profile("sanity-carried")
    assert saved.steps[0].native_workers == "per-thread"
    assert saved.steps[1].kind == "command" and saved.steps[1].requires == ("sh", "/bin/sh")
    text = (Store(labtui_home).profiles_dir / "sanity-carried.toml").read_text()
    assert 'native_workers = "per-thread"' in text and 'requires = ["sh", "/bin/sh"]' in text
