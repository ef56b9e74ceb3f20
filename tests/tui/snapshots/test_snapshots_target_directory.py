"""The Target directory dialog over the Disks screen, for the fake machine's /data volume: as it opens (labtui's
own folder offered, the volume short of space for the profile), and refusing a mistyped directory.

Its folder tree and its checks read the file system: here the fake machine's, a few folders on /data
(injected: the tree's path type, and the looks the directory check takes at the disk), so the
picture is the same on any machine. The checks on real directories are tests/tui/test_target_directory_screen.py's.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest

from labtui.machine import target_choice
from labtui.screens import target_directory
from labtui.screens.target_directory import FolderTree, TargetDirectoryModal
from tui_support import disks_ready, make_app, set_text, wait_for

FOLDERS = {"/", "/data", "/data/bench", "/data/iso-images", "/data/projects", "/data/projects/nvme-adapters",
           "/data/.snapshots"}
FILES = {"/data/README.txt"}


class FakeDir(PurePosixPath):
    """A path on the fake machine: its folders and files are FOLDERS and FILES."""

    def is_dir(self) -> bool:
        return str(self) in FOLDERS

    def iterdir(self):
        return iter(sorted(FakeDir(p) for p in FOLDERS | FILES if p != "/" and str(PurePosixPath(p).parent) == str(self)))

    def expanduser(self) -> FakeDir:
        return self

    def resolve(self) -> FakeDir:
        return self


def _nearest(path: Path) -> tuple[Path, list[Path]]:
    existing, missing = path, []
    while str(existing) not in FOLDERS and str(existing) not in FILES:
        missing.append(existing)
        existing = existing.parent
    return FakeDir(existing), missing


@pytest.fixture
def fake_folders(monkeypatch):
    monkeypatch.setattr(FolderTree, "PATH", FakeDir)
    real = target_directory.check_directory

    def on_the_fake_machine(text, volume, volumes):
        # The real rule, looking at the fake machine's folders (all of them writable, none a link).
        with pytest.MonkeyPatch.context() as m:
            m.setattr(target_choice, "nearest_existing", _nearest)
            m.setattr(os, "access", lambda path, mode: str(path) in FOLDERS)
            m.setattr(os.path, "exists", lambda path: str(path) in FOLDERS | FILES)
            m.setattr(os.path, "realpath", os.path.normpath)
            return real(text, volume, volumes)

    monkeypatch.setattr(target_directory, "check_directory", on_the_fake_machine)


@pytest.mark.usefixtures("fake_folders")
@pytest.mark.parametrize(("size", "typed"), [((120, 40), None), ((80, 24), "/data/projetcs")],
                         ids=["opened-120x40", "mistyped-80x24"])
def test_target_directory(snap_compare, labtui_home, size, typed):
    async def ready(pilot):
        await disks_ready(pilot)
        table = pilot.app.screen.query_one("#volumes")
        table.move_cursor(row=table.get_row_index("vol:/data"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, TargetDirectoryModal), what="the dialog")
        tree = pilot.app.screen.query_one(FolderTree)
        await wait_for(pilot, lambda: len(tree.root.children) == 3, what="the folders of /data")
        if typed is not None:
            await set_text(pilot, "#target-path", typed)
        await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)
