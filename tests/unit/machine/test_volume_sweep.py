"""Which volumes a run on every volume tests (labtui.machine.volume_sweep), on an injected machine: the seed post
script's rules (fixed, writable disks with room), each volume skipped with its reason, where it writes on each."""

from __future__ import annotations

from pathlib import Path

from labtui.machine.volume_sweep import plan_sweep
from labtui.model.profile import Profile, Step
from labtui.results.store import builtin_profiles
from volumes import DISKS, MACHINE, MIB


def test_the_scripts_rules_pick_fixed_writable_disks_with_room():
    sql = next(p for p in builtin_profiles() if p.name == "configmgr-sql")  # 20 GiB file + 10 GiB margin
    targets, skipped = plan_sweep(sql, MACHINE, DISKS, Path("/home/lab"), writable=lambda _p: True)
    assert [t.volume.mount_point for t in targets] == ["/", "/data"]
    assert [t.directory for t in targets] == [Path("/home/lab"), Path("/data/labtui")]  # home, on its volume
    assert [t.tag for t in targets] == ["volume:/", "volume:/data"]
    reasons = {s.volume.mount_point: s.reason for s in skipped}
    assert set(reasons) == {v.mount_point for v in MACHINE} - {"/", "/data"}
    assert reasons["/small"].startswith("not enough free space: configmgr-sql needs 30.0 GiB")
    # 25 GiB free beside the 10 GiB margin: a 15 GiB test file fits (the sweep says how to make room by it)
    assert {s.volume.mount_point: s.room_for_file for s in skipped if s.room_for_file is not None} == {
        "/small": 15 * 1024**3}
    assert "in memory" in reasons["/dev/shm"]
    assert "pseudo file system" in reasons["/var/lib/docker/overlay2/x/merged"]
    assert "no disk under it" in reasons["/mnt/share"]
    assert "read-only" in reasons["/mnt/iso"]
    assert "removable media" in reasons["/media/stick"]
    assert "loop device" in reasons["/mnt/image"]
    assert reasons["/srv/again"] == "the same file system as /, which is tested already"
    assert all("\n" not in r for r in reasons.values())


def test_the_home_directory_is_used_on_its_own_volume_and_permission_is_checked():
    profile = Profile(name="p", file_size=MIB, free_space_margin=0, steps=(Step(name="s", block_size=4096),))
    targets, _ = plan_sweep(profile, MACHINE[:2], DISKS, Path("/data/lab"), writable=lambda _p: True)
    assert [t.directory for t in targets] == [Path("/labtui"), Path("/data/lab")]
    targets, skipped = plan_sweep(profile, MACHINE[:2], DISKS, Path("/data/lab"),
                                  writable=lambda p: not str(p).startswith("/labtui"))
    assert [t.volume.mount_point for t in targets] == ["/data"]
    assert skipped[0].reason.startswith("permission denied: cannot write in /")
