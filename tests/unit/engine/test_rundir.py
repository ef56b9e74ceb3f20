"""Where a run writes (labtui.engine.rundir), in this process: the target held open by what preflight checked,
the run's own 0700 directory in it, the paths the engines are handed leading there whatever the names do, and
its removal only while it is empty and still its own. Other users swapping names: tests/system/test_run_directory.py."""

from __future__ import annotations

import os

import pytest

from labtui.engine import rundir
from labtui.engine.rundir import RunDirectory, TargetDir
from labtui.errors import LabtuiError

RUN = "20261206-101500-abcd"


def test_the_run_directory_is_private_and_the_engines_paths_follow_it_though_its_target_is_renamed(tmp_path):
    (tmp_path / "target").mkdir()
    old = os.umask(0o000)  # however open the umask, the run's directory is 0700
    try:
        target = TargetDir.open(tmp_path / "target")
        own = RunDirectory.create(target, rundir.run_dir_name(RUN))
    finally:
        os.umask(old)
    try:
        assert own.path == tmp_path / "target" / f"labtui-{RUN}"
        assert oct(os.stat(own.path).st_mode & 0o777) == "0o700"
        handed = own.bound_path(rundir.test_file_name(RUN))
        assert handed.startswith(f"/proc/{os.getpid()}/fd/") and handed.endswith(f"/labtui-{RUN}.dat")
        os.rename(tmp_path / "target", tmp_path / "elsewhere")  # the name moves; what was checked stays held
        (tmp_path / "target").mkdir()
        assert target.moved() == "another directory now has its name"
        with open(handed, "w") as f:
            f.write("measured here")
        assert (tmp_path / "elsewhere" / f"labtui-{RUN}" / f"labtui-{RUN}.dat").read_text() == "measured here"
        assert own.leftovers() == [f"labtui-{RUN}.dat"]
        assert own.remove() == f"it still holds what labtui did not make or could not remove (labtui-{RUN}.dat)"
        os.unlink(tmp_path / "elsewhere" / f"labtui-{RUN}" / f"labtui-{RUN}.dat")
        assert own.remove() is None and not (tmp_path / "elsewhere" / f"labtui-{RUN}").exists()
    finally:
        own.close()
        target.close()


def test_a_run_directory_is_never_one_that_was_there_and_a_swapped_one_stays(tmp_path):
    target = TargetDir.open(tmp_path)
    try:
        (tmp_path / f"labtui-{RUN}").mkdir()
        with pytest.raises(FileExistsError):
            RunDirectory.create(target, rundir.run_dir_name(RUN))
        own = RunDirectory.create(target, "labtui-other")
        os.rename(tmp_path / "labtui-other", tmp_path / "aside")
        (tmp_path / "labtui-other").mkdir()
        assert own.remove() == "another directory now has its name" and (tmp_path / "aside").is_dir()
        own.close()
        assert target.moved() is None and target.bound_path == f"/proc/{os.getpid()}/fd/{target.fd}"
        folder = target.make_folder("labtui")
        assert folder.path == tmp_path / "labtui" and (tmp_path / "labtui").is_dir()
        folder.close()
    finally:
        target.close()
    assert rundir.fd_path(999_999) is None  # nothing open there: no path


def test_a_directory_that_is_not_the_users_own_is_refused(tmp_path, monkeypatch):
    target = TargetDir.open(tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 4242)  # as if another user had made it first
    try:
        with pytest.raises(LabtuiError, match="is not the directory labtui just made there"):
            RunDirectory.create(target, "labtui-x")
    finally:
        target.close()
