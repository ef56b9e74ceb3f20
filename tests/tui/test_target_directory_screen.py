"""The Target directory dialog (screens/target_directory.py), on a bare host app, judged by the directory it dismisses with."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from labtui.machine.devices import Volume
from labtui.screens.target_directory import TargetDirectoryModal
from modal_host import NOTHING, run_modal
from tui_support import screen_text, wait_for


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
        # Refusals said as sentences, as the notes ("Exists") and the space line are: they came lowercase.
        for typed, said in ((str(data / "typo" / "x"), f"No such directory: {data / 'typo' / 'x'} ("),
                            ("", "Type the directory the test file goes in"),
                            (str(data), "Exists")):
            pilot.app.screen.query_one("#target-path", Input).value = typed
            await pilot.pause()
            assert str(check.render()).startswith(said), str(check.render())
            assert check.has_class("-error") == (said != "Exists")

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


async def test_a_whole_path_typed_replaces_the_directory_offered_and_a_name_goes_on_after_it(tmp_path):
    # Typing goes on at the end of the offered directory, so "/data/bench" typed at once made
    # "<offered>/data/bench". / or ~ as the first key now starts the path afresh.
    volume = _volume(tmp_path)
    (tmp_path / "existing").mkdir()

    async def type_path(pilot):
        field = pilot.app.screen.query_one("#target-path", Input)
        await pilot.press(*str(tmp_path / "existing"))
        assert field.value == str(tmp_path / "existing")
        await pilot.press("/", "x")  # the path is no longer the one offered: / goes on after it
        assert field.value == str(tmp_path / "existing" / "x")
        await pilot.press("backspace", "backspace")

    modal = TargetDirectoryModal(volume, [volume], tmp_path / "labtui", None)
    assert await run_modal(modal, "enter", size=(100, 30), before=type_path) == tmp_path / "existing"
