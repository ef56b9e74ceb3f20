"""What a killed run leaves behind and how the next run finds it (labtui.run.leftovers), in this process: a marker
locked while its run lives, and after it only the run's own directory removed. Markers played against root's store
by a real other user: tests/system/test_leftover_markers.py."""

from __future__ import annotations

import os

import pytest

from labtui.engine import rundir  # its test_file_name, not imported bare: pytest would collect it
from labtui.run import leftovers
from run_markers import marked_file

RUN = "20260101-000000-0007"


def killed_run(tmp_path, *, record: bool = True):
    """A run that made its directory, its test file and a scratch directory, then was killed: its marker left unlocked."""
    run_dir = tmp_path / "target" / rundir.run_dir_name(RUN)
    marker = leftovers.RunMarker.create(tmp_path / "running", RUN, run_dir)
    run_dir.mkdir(parents=True, mode=rundir.RUN_DIR_MODE)
    if record:
        st = os.stat(run_dir)
        marker.record_dir(st.st_dev, st.st_ino)
    (run_dir / rundir.test_file_name(RUN)).write_bytes(b"\0" * 4096)
    (run_dir / "labtui-scratch-1").mkdir()
    return marker, run_dir


def test_a_run_makes_its_markers_directory_its_own_and_its_marker_private(tmp_path):
    marker = leftovers.RunMarker.create(tmp_path / "running", "20260101-000000-0005", tmp_path / "labtui-x")
    try:
        assert oct((tmp_path / "running").stat().st_mode & 0o777) == "0o700"
        assert oct(marker.path.stat().st_mode & 0o777) == "0o600"
    finally:
        marker.remove()
    (tmp_path / "running").chmod(0o777)
    with pytest.raises(OSError, match="others can write it"):
        leftovers.RunMarker.create(tmp_path / "running", "20260101-000000-0006", tmp_path / "labtui-y")


def test_a_killed_runs_directory_is_removed_with_its_test_file_and_scratch(tmp_path):
    marker, run_dir = killed_run(tmp_path)
    marker.abandon()  # killed outright: the kernel lets go of the lock
    (said,) = leftovers.clean_up(tmp_path / "running")
    assert said.startswith(f"run {RUN} (labtui pid {os.getpid()} on ") and " ended without cleaning up: " in said
    assert said.endswith(f"removed {run_dir} and its test file (4.0 KiB)"), said
    assert not run_dir.exists() and not marker.path.exists()
    assert leftovers.clean_up(tmp_path / "running") == []  # said once


def test_a_directory_the_run_may_not_have_made_or_holding_what_it_did_not_is_left_alone(tmp_path):
    marker, run_dir = killed_run(tmp_path, record=False)
    marker.abandon()
    (said,) = leftovers.clean_up(tmp_path / "running")
    assert "the run was killed before it recorded which directory it made" in said and run_dir.is_dir()
    marker, run_dir = killed_run(tmp_path / "again")
    (run_dir / "notes.txt").write_text("mine")
    marker.abandon()
    (said,) = leftovers.clean_up(tmp_path / "again" / "running")
    assert f"{run_dir} holds what labtui did not make (notes.txt)" in said and (run_dir / "notes.txt").exists()


def test_a_garbled_marker_or_one_named_for_another_run_removes_nothing(tmp_path):
    markers = tmp_path / "running"
    leftovers.own_directory(markers)
    (markers / "garbled.json").write_text("{not json")
    (markers / f"{RUN}.json").write_text('{"run": "20260101-000000-9999", "run_dir": "/"}')
    for path in markers.iterdir():
        path.chmod(0o600)
    assert sorted(leftovers.clean_up(markers)) == [
        f"removed the run marker {markers / (RUN + '.json')}: the run it names is not the one its name says; nothing "
        "was removed",
        f"removed the unreadable run marker {markers / 'garbled.json'}"]
    assert list(markers.iterdir()) == []


def test_a_marker_directory_made_where_a_file_stands_is_refused(tmp_path):
    (tmp_path / "running").write_text("")
    with pytest.raises(OSError):
        leftovers.own_directory(tmp_path / "running")


def test_a_leftover_that_is_not_the_recorded_directory_is_reported_and_kept(tmp_path):
    running, made, marker = marked_file(tmp_path, "x")
    marker.abandon()  # as a killed run would: the lock goes, the marker stays
    made.parent.rename(tmp_path / "aside")
    made.parent.mkdir(mode=0o700)
    made.write_bytes(b"someone else's, same name")
    messages = leftovers.clean_up(running)
    assert made.read_bytes() == b"someone else's, same name"
    assert len(messages) == 1 and str(made.parent) in messages[0] and "left alone" in messages[0], messages
    assert "it is not the directory that run made" in messages[0]
    assert not list(running.iterdir())


def test_a_live_runs_marker_is_left_alone(tmp_path):
    running, made, marker = marked_file(tmp_path, "live")
    try:
        assert leftovers.clean_up(running) == []
        assert made.exists() and len(list(running.iterdir())) == 1
    finally:
        marker.remove()
    assert not list(running.iterdir())
