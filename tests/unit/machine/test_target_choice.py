"""Choosing a target: default directories, refusals, the free-space check, typed directories."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from labtui.errors import ValidationError
from labtui.machine.devices import Volume
from labtui.machine.target_choice import Target, check_directory, default_directory, refusal, space_shortfall
from labtui.model.profile import Step
from labtui.results.store import builtin_profiles

GIB = 1024**3
ROOT = Volume(mount_point="/", source="/dev/vda1", filesystem="ext4", device="/dev/vda1", disk="vda", free_bytes=50 * GIB)
HOME = Volume(mount_point="/home", source="/dev/vdb1", filesystem="xfs", device="/dev/vdb1", disk="vdb", free_bytes=GIB)
SHM = Volume(mount_point="/dev/shm", source="tmpfs", filesystem="tmpfs", pseudo=True)
ISO = Volume(mount_point="/mnt/iso", source="/dev/sr0", filesystem="iso9660", read_only=True)
QUICK = next(p for p in builtin_profiles() if p.name == "quick-sanity")


def test_default_directory_is_home_on_the_volume_that_holds_it_else_a_labtui_folder():
    home = Path("/home/lab")
    assert default_directory(ROOT, home, [ROOT]) == home
    # Home on a volume of its own: there it is home (not /home/labtui, which a person may not
    # even create), and the root volume gets a labtui folder like any other.
    assert default_directory(HOME, home, [ROOT, HOME]) == home
    assert default_directory(ROOT, home, [ROOT, HOME]) == Path("/labtui")
    assert default_directory(SHM, home, [ROOT, HOME, SHM]) == Path("/dev/shm/labtui")


def test_the_home_directory_is_where_its_real_path_is(tmp_path):
    """A home linked to another volume's directory lives on that volume, not on the link's."""
    real = tmp_path / "data" / "home" / "lab"
    real.mkdir(parents=True)
    link = tmp_path / "root" / "lab"
    link.parent.mkdir()
    link.symlink_to(real)
    base = Volume(mount_point=str(tmp_path.resolve()), source="/dev/vda1", filesystem="ext4", device="/dev/vda1")
    data = Volume(mount_point=str((tmp_path / "data").resolve()), source="/dev/vdb1", filesystem="xfs",
                  device="/dev/vdb1")
    assert default_directory(data, link, [base, data]) == link
    assert default_directory(base, link, [base, data]) == tmp_path.resolve() / "labtui"


def test_refusals_name_the_reason():
    assert refusal(ROOT, QUICK) is None
    assert "read-only" in refusal(ISO, QUICK)
    assert "tmpfs (memory)" in refusal(SHM, QUICK) and "quick-sanity runs with the cache off" in refusal(SHM, QUICK)
    cached = replace(QUICK, steps=tuple(replace(s, cache="on") for s in QUICK.steps))
    assert refusal(SHM, cached) is None  # a cache-on profile may measure the page cache on purpose


def test_space_shortfall_counts_the_file_and_the_margin():
    assert QUICK.space_needed == 2 * GIB
    assert space_shortfall(2 * GIB, QUICK) is None
    assert space_shortfall(2 * GIB - 1, QUICK) == (
        "quick-sanity needs 2.0 GiB (test file 1.0 GiB + margin 1.0 GiB), only 2.0 GiB is free"
    )
    commands = replace(QUICK, steps=(Step(name="tar", kind="command", command="true"),))
    assert commands.space_needed == GIB and "margin 1.0 GiB" in space_shortfall(0, commands)
    assert space_shortfall(None, QUICK) is None and space_shortfall(0, None) is None


def test_check_directory_accepts_existing_directories_and_labtuis_own_folder(tmp_path):
    volume = replace(ROOT, mount_point=str(tmp_path))
    assert check_directory(str(tmp_path), volume, [volume]) == (tmp_path, "exists")
    path, note = check_directory(f" {tmp_path}/labtui ", volume, [volume])
    assert path == tmp_path / "labtui" and note.startswith("made when a run starts (labtui's own folder)")
    assert not path.exists()


@pytest.mark.parametrize("typed, missing", [("new/deeper", "new"), ("bench", None), ("labtui/deeper", "labtui")])
def test_check_directory_refuses_a_directory_that_does_not_exist_as_the_run_would(tmp_path, typed, missing):
    volume = replace(ROOT, mount_point=str(tmp_path))
    with pytest.raises(ValidationError) as caught:
        check_directory(str(tmp_path / typed), volume, [volume])
    where = f" ({tmp_path / missing} does not exist)" if missing else ""
    assert caught.value.reason == (f"no such directory: {tmp_path / typed}{where}: create it first, or give a "
                                   "directory that exists")
    assert os.listdir(tmp_path) == []


def test_check_directory_refuses_a_link_to_nowhere_on_the_way(tmp_path):
    # The run would fail making it ("File exists") after every check passed: said here, as the run says it.
    volume = replace(ROOT, mount_point=str(tmp_path))
    (tmp_path / "gone").symlink_to(tmp_path / "missing")
    with pytest.raises(ValidationError, match="gone is a symbolic link to .*missing, which does not exist") as caught:
        check_directory(str(tmp_path / "gone" / "deeper"), volume, [volume])
    assert caught.value.field == "directory"
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("text, reason", [
    ("", "type the directory"),
    ("relative/dir", "is relative"),
])
def test_check_directory_refuses_unusable_text(tmp_path, text, reason):
    volume = replace(ROOT, mount_point=str(tmp_path))
    with pytest.raises(ValidationError, match=reason):
        check_directory(text, volume, [volume])


def test_check_directory_refuses_files_and_other_volumes(tmp_path):
    (tmp_path / "file").write_text("x")
    inner = tmp_path / "inner"
    inner.mkdir()
    outer = replace(ROOT, mount_point=str(tmp_path))
    nested = replace(HOME, mount_point=str(inner))
    with pytest.raises(ValidationError, match="exists and is not a directory"):
        check_directory(str(tmp_path / "file"), outer, [outer, nested])
    with pytest.raises(ValidationError, match=f"is on {inner}, not on {tmp_path}"):
        check_directory(str(inner / "x"), outer, [outer, nested])


def test_target_describes_where_it_writes(tmp_path):
    assert Target.on(tmp_path, ROOT).describe() == f"{tmp_path} on / (ext4, vda)"
    assert Target(tmp_path).describe() == str(tmp_path)


def test_briefer_ways_to_say_a_target_keep_its_directory_whole():
    target = Target.on(Path("/home/lab"), ROOT)
    assert target.briefer() == ["/home/lab on / (ext4, vda)", "/home/lab (ext4, vda)", "/home/lab"]
    assert Target(Path("/srv/bench")).briefer() == ["/srv/bench"]
    assert Target(Path("/dev/sdb"), raw=True).briefer() == ["/dev/sdb (raw device)"]


def test_as_root_the_target_dialog_refuses_a_directory_through_another_users_link():
    # guard2: the run's preflight rule, said in the dialog before the run is asked for.
    from hostile_user import anothers_link

    if os.geteuid() != 0:
        pytest.skip("the rule is root's")
    with anothers_link("dialog") as (alice, link, other):
        with pytest.raises(ValidationError) as caught:
            check_directory(str(link), ROOT, [ROOT])
        assert caught.value.reason.startswith(f"{link} is a link to {other} and {alice.name} made it")
        assert caught.value.reason.endswith(f"(-t {other})")
