"""The raw-device guard (labtui.machine.guard) on synthetic data: what a device's first and last bytes say it
holds, and what sysfs shows using it (holders, partitions, loop devices on it). Real loop devices, mounts and
the kernel's exclusive opens: tests/system/test_raw_consent.py and test_safety_devices.py."""

from __future__ import annotations

from fakesys import FakeSys
from labtui.machine import guard
from labtui.machine.guard import scan_signatures


def test_signature_scan_recognises_common_formats():
    ext4 = bytearray(70 * 1024)
    ext4[1080:1082] = b"\x53\xef"
    assert "an ext2/3/4 file system" in scan_signatures(bytes(ext4))
    gpt = bytearray(70 * 1024)
    gpt[510:512] = b"\x55\xaa"
    gpt[512:520] = b"EFI PART"
    assert {"a GPT partition table", "an MBR partition table or boot sector"} <= set(scan_signatures(bytes(gpt)))
    lvm = bytearray(70 * 1024)
    lvm[512:520] = b"LABELONE"
    lvm[536:544] = b"LVM2 001"
    assert "an LVM physical volume" in scan_signatures(bytes(lvm))
    assert scan_signatures(bytes(70 * 1024)) == []


def test_holders_of_a_partition_are_found(tmp_path):
    """Injected /sys: device-mapper built on a partition (no dm in this kernel to make one for real)."""
    fake = FakeSys(tmp_path / "sys")
    disk = fake.disk("devices/virtual/block", "loop11", "7:11", sectors=65536, rotational=0)
    part = fake.partition(disk, "loop11p1", 1, "259:9")
    dm = fake.disk("devices/virtual/block", "dm-3", "254:3", sectors=2048, rotational=0)
    fake.link(f"{part}/holders/dm-3", dm)
    assert guard.users_of("loop11p1", sys_root=fake.root) == ["it is in use by dm-3"]
    assert guard.users_of("loop11", sys_root=fake.root) == ["its partition loop11p1 is in use by dm-3"]


def test_an_md_member_is_known_by_its_tail_and_a_boot_sector_of_fat_is_not_called_a_partition_table():
    tail = bytearray(128 * 1024)
    tail[4096:4100] = b"\xfcN+\xa9"
    assert scan_signatures(bytes(70 * 1024), bytes(tail)) == ["an md RAID member (v0.90/1.0)"]
    fat = bytearray(70 * 1024)
    fat[82:90] = b"FAT32   "
    fat[510:512] = b"\x55\xaa"
    found = scan_signatures(bytes(fat))
    assert any("FAT" in f for f in found) and "an MBR partition table or boot sector" not in found


def test_a_loop_device_stacked_on_a_partition_is_named_as_its_user(tmp_path):
    """A loop device claims nothing of the block device under it (no O_EXCL open fails): only sysfs shows it."""
    fake = FakeSys(tmp_path / "sys")
    disk = fake.disk("devices/virtual/block", "loop11", "7:11", sectors=65536, rotational=0)
    fake.partition(disk, "loop11p1", 1, "259:9")
    upper = fake.disk("devices/virtual/block", "loop12", "7:12", sectors=2048, rotational=0)
    fake.file(f"{upper}/loop/backing_file", "/dev/loop11p1")
    assert guard.users_of("loop11", sys_root=fake.root) == ["its partition loop11p1 backs the loop device /dev/loop12"]
    assert guard.users_of("loop11p1", sys_root=fake.root) == ["it backs the loop device /dev/loop12"]
    assert guard.users_of("loop12", sys_root=fake.root) == []
