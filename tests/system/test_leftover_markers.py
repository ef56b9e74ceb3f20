"""A marker in the store's running/ is believed only as far as who could have written it (issue 37, item 4).

A JSON file planted in `<data>/running/`, naming any path with its device and inode, made the next
run print `removed /mnt/b/precious.txt` and delete it. Now the markers directory must be the user's
alone, a marker theirs, and what it names only ever the run's own directory (or, from older
versions, its test file `labtui-<run id>.dat`) of theirs: anything else is reported and left alone.
Played by a real unprivileged user against root's store, with the precious file on another disk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hostile_user import hostile_user, mounted_disks, open_to_all, shared_place
from labtui.run import leftovers


@pytest.fixture(scope="module")
def lab():
    """(root's store, a precious file of root's on another disk, a user)."""
    with shared_place() as place, mounted_disks(place, 1) as (other,), hostile_user("marker") as user:
        yield place, other, user


def plant(directory: Path, run: str, target: Path, **extra) -> str:
    st = target.stat()
    return json.dumps({"run": run, "pid": 999_999_999, "host": "x", "started": 1.0, "test_file": str(target),
                       "dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, **extra})


def precious_file(other: Path, name: str) -> Path:
    path = other / name
    path.write_text("root's precious data")
    return path


def test_a_marker_a_user_planted_in_a_markers_directory_others_can_write_is_not_believed(lab):
    place, other, user = lab
    precious = precious_file(other, "precious-1.txt")
    running = open_to_all(place / "home-1" / "running")  # a store shared carelessly
    user.sh(f"cat > '{running}/20260101-000000-0001.json' <<'EOF'\n{plant(running, '20260101-000000-0001', precious)}\nEOF")
    messages = leftovers.clean_up(running)
    assert precious.exists(), "the planted marker deleted root's file"
    assert messages == [f"the run markers in {running} were not looked at: others can write it (mode 0777); labtui "
                        "believes them only in a directory of the user running it that nobody else can write"]
    assert len(list(running.iterdir())) == 1, "the planted marker is left where it is"


def test_a_marker_of_another_user_is_left_alone(lab):
    place, other, user = lab
    precious = precious_file(other, "precious-2.txt")
    running = place / "home-2" / "running"
    running.mkdir(parents=True, mode=0o700)
    marker = running / "20260101-000000-0002.json"
    marker.write_text(plant(running, "20260101-000000-0002", precious))
    os.chown(marker, user.uid, user.gid)  # as if the user had got it there
    messages = leftovers.clean_up(running)
    assert precious.exists()
    assert messages == [f"left the run marker {marker} alone: it belongs to {user.name}, not to root, who runs "
                        "labtui, so labtui did not make it"]
    assert marker.exists()


@pytest.mark.parametrize("named", ["precious-3.txt", "labtui-20260101-000000-0003.dat"])
def test_a_marker_naming_what_is_not_its_runs_own_is_left_alone(lab, named):
    """Root's own marker (an older labtui's, say) that names a file of another name, or of another user: kept."""
    place, other, user = lab
    precious = precious_file(other, named)
    if named.startswith("labtui-"):
        os.chown(precious, user.uid, user.gid)  # the right name, but the user's file (a look-alike)
    running = place / f"home-3-{named}" / "running"
    running.mkdir(parents=True, mode=0o700)
    (running / "20260101-000000-0003.json").write_text(plant(running, "20260101-000000-0003", precious))
    messages = leftovers.clean_up(running)
    assert precious.exists() and len(messages) == 1 and "left alone" in messages[0], messages
    assert not list(running.iterdir()), "said once: the marker goes"


def test_a_marker_naming_a_directory_that_is_not_the_runs_own_is_left_alone(lab):
    place, other, user = lab
    theirs = other / "labtui-20260101-000000-0004"
    theirs.mkdir()
    (theirs / "labtui-20260101-000000-0004.dat").write_text("not labtui's")
    running = place / "home-4" / "running"
    running.mkdir(parents=True, mode=0o700)
    st = theirs.stat()
    (running / "20260101-000000-0004.json").write_text(json.dumps(
        {"run": "20260101-000000-0004", "pid": 999_999_999, "run_dir": str(theirs), "dir_dev": st.st_dev,
         "dir_ino": st.st_ino}))
    messages = leftovers.clean_up(running)
    assert (theirs / "labtui-20260101-000000-0004.dat").exists()
    assert len(messages) == 1 and f"{theirs} may be left over; it was left alone" in messages[0], messages
