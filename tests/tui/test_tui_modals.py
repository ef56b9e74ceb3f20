"""Modals on a bare host app, judged by the value they dismiss with."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Input

from labtui.machine.devices import Volume
from labtui.screens.confirm import ConfirmModal
from labtui.screens.help import HelpScreen, KeyHelp
from labtui.screens.prompt import TextPrompt
from labtui.screens.target_directory import TargetDirectoryModal
from tui_support import screen_text, wait_for

NOTHING = object()


class Host(App):
    """Pushes one modal and keeps what it dismissed with."""

    def __init__(self, modal) -> None:
        super().__init__()
        self.modal = modal
        self.result = NOTHING
        self.cursor_blink = False

    def on_mount(self) -> None:
        self.push_screen(self.modal, self._done)

    def _done(self, value) -> None:
        self.result = value


async def run_modal(modal, *keys: str, size=(80, 24), before=None):
    app = Host(modal)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.screen is modal)
        if before is not None:
            await before(pilot)
        await pilot.press(*keys)
        await wait_for(pilot, lambda: app.result is not NOTHING, what="the modal to dismiss")
    return app.result


async def test_confirm_yes_no_escape_and_the_safe_default():
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "y") is True
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "n") is False
    assert await run_modal(ConfirmModal("Delete?", "Really?"), "escape") is False
    assert await run_modal(ConfirmModal("Delete?", "Really?", danger=True), "enter") is False
    assert await run_modal(ConfirmModal("Save?", "Go on?"), "enter") is True


async def test_prompt_returns_the_text_and_refuses_what_the_check_refuses():
    def check(text: str) -> str | None:
        return None if text.startswith("ok") else "must start with ok"

    async def try_bad_first(pilot):
        field = pilot.app.screen.query_one(Input)
        field.value = "bad"
        await pilot.press("enter")
        await pilot.pause()
        assert pilot.app.result is NOTHING and "must start with ok" in screen_text(pilot.app)
        field.value = "ok-name"
        await pilot.pause()

    assert await run_modal(TextPrompt("Name", "A name:", "ok", check=check), "enter", before=try_bad_first) == "ok-name"
    assert await run_modal(TextPrompt("Name", "A name:", "ok"), "escape") is None


async def test_help_closes_with_escape_and_lists_its_keys():
    keys = [KeyHelp("f5", "Refresh", "Read the disks again", "this screen")]

    async def look(pilot):
        assert "Read the disks again" in screen_text(pilot.app)

    assert await run_modal(HelpScreen("Disks", keys), "escape", before=look) is None


def _volume(mount: Path) -> Volume:
    return Volume(mount_point=str(mount), source="/dev/fake1", filesystem="ext4", device="/dev/fake1",
                  size_bytes=10 * 1024**3, free_bytes=5 * 1024**3)


async def test_target_directory_returns_the_typed_directory(tmp_path):
    volume = _volume(tmp_path)
    (tmp_path / "existing").mkdir()

    async def type_path(pilot):
        pilot.app.screen.query_one("#target-path", Input).value = str(tmp_path / "existing")
        await pilot.pause()
        assert "Exists" in screen_text(pilot.app)

    modal = TargetDirectoryModal(volume, [volume], tmp_path / "labtui", None)
    assert await run_modal(modal, "enter", size=(100, 30), before=type_path) == tmp_path / "existing"


async def test_target_directory_refuses_a_path_on_another_volume(tmp_path):
    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    volumes = [_volume(data), _volume(other)]

    async def wrong_then_escape(pilot):
        pilot.app.screen.query_one("#target-path", Input).value = str(other / "x")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert pilot.app.result is NOTHING
        check = pilot.app.screen.query_one("#target-check")
        assert str(check.render()) == f"{other / 'x'} is on {other}, not on {data}"
        assert check.has_class("-error")

    modal = TargetDirectoryModal(volumes[0], volumes, data / "labtui", None)
    assert await run_modal(modal, "escape", size=(120, 30), before=wrong_then_escape) is None


async def test_target_directory_picks_a_folder_from_the_tree(tmp_path):
    (tmp_path / "alpha").mkdir()
    volume = _volume(tmp_path)

    async def pick(pilot):
        tree = pilot.app.screen.query_one("#target-tree")
        tree.focus()
        await wait_for(pilot, lambda: tree.root.children, what="the tree to load")
        tree.move_cursor(tree.root.children[0])
        await pilot.press("enter")  # picks the folder into the path field and focuses it
        await pilot.pause()
        assert pilot.app.screen.query_one("#target-path", Input).value == str(tmp_path / "alpha")

    modal = TargetDirectoryModal(volume, [volume], tmp_path / "labtui", None)
    assert await run_modal(modal, "enter", size=(100, 30), before=pick) == tmp_path / "alpha"
