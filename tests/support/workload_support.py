"""What the Workload screen's tests share: reading its command lines and field messages, duplicating the profile shown."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from labtui.screens.prompt import TextPrompt
from labtui.screens.workload import WorkloadScreen
from labtui.widgets.command_lines import CommandLines
from labtui.widgets.profile_list import ProfileList
from tui_support import set_text, wait_for


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


def typo_profile(home: Path) -> Path:
    """A user profile file with an unknown key (it does not load); returns the profiles folder."""
    profiles = home / "profiles"
    profiles.mkdir()
    (profiles / "typo.toml").write_text('name = "typo"\n[[steps]]\nname = "x"\nthreds = 4\n')
    return profiles
