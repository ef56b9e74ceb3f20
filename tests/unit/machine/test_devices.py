"""Disk and volume discovery (labtui.machine.devices): on a fake /sys tree with fake mountinfo, and on this very machine
(a real loop device: tests/system/test_loop_device_target.py)."""

import os
import socket
import subprocess
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from conftest import require_tool
from fakesys import NVME_CTRL, NVME_PCI, SATA_SCSI, FakeSys, build_lab_machine
from labtui.machine import devices
from labtui.machine.devices import (
    disk_of_device,
    host_info,
    is_block_device,
    list_disks,
    list_volumes,
    read_disk,
    read_mountinfo,
    target_info,
    volume_of,
)

# --------------------------------------------------------------------------- a fake lab machine


@pytest.fixture
def fake(tmp_path) -> FakeSys:
    return build_lab_machine(tmp_path / "sys")


def test_nvme_with_its_pcie_link(fake):
    disk = read_disk("nvme0n1", fake.root)
    assert (disk.kind, disk.transport, disk.path) == ("NVMe", "nvme", "/dev/nvme0n1")
    assert disk.model == "Samsung SSD 980 PRO 1TB"
    assert (disk.serial, disk.firmware) == ("S5GXNF0R123456", "5B2QGXA7")
    assert disk.rotational is False and disk.size_bytes == 1953525168 * 512
    assert (disk.pcie_speed, disk.pcie_width) == ("8.0 GT/s PCIe", 2)
    assert (disk.pcie_max_speed, disk.pcie_max_width) == ("16.0 GT/s PCIe", 4)
    assert disk.pcie_link == "8.0 GT/s PCIe x2 (max 16.0 GT/s PCIe x4)"
    assert disk.partitions == ["nvme0n1p1", "nvme0n1p2"]


def test_sata_ssd(fake):
    disk = read_disk("sda", fake.root)
    assert (disk.kind, disk.transport, disk.rotational) == ("SATA SSD", "sata", False)
    assert disk.model == "Samsung SSD 870"  # the "ATA" vendor is libata's, not the maker's
    assert (disk.firmware, disk.serial) == ("2B6Q", "S6PNNS0T000111A")
    assert disk.pcie_link is None and disk.size_bytes == 976773168 * 512


def test_usb_hard_disk(fake):
    disk = read_disk("sdb", fake.root)
    assert (disk.kind, disk.transport, disk.rotational) == ("USB HDD", "usb", True)
    assert disk.model == "WD My Passport 25E2" and disk.firmware == "4004"
    assert disk.serial == "575834314142"  # the USB bridge's, as lsusb shows it


def test_disks_are_listed_nvme_first_without_idle_loops(fake):
    assert [d.name for d in list_disks(fake.root)] == ["nvme0n1", "sda", "sdb", "dm-0", "loop1"]
    assert "loop0" in [d.name for d in list_disks(fake.root, include_empty=True)]
    kinds = {d.name: d.kind for d in list_disks(fake.root)}
    assert kinds["dm-0"] == "device-mapper" and kinds["loop1"] == "virtual"


def test_partitions_and_device_mapper_resolve_to_their_disk(fake):
    assert disk_of_device("259:0", fake.root) == ("nvme0n1", "nvme0n1")
    assert disk_of_device("259:2", fake.root) == ("nvme0n1p2", "nvme0n1")
    assert disk_of_device("8:1", fake.root) == ("sda1", "sda")
    assert disk_of_device("8:17", fake.root) == ("sdb1", "sdb")
    assert disk_of_device("254:0", fake.root) == ("dm-0", "nvme0n1")
    assert disk_of_device("9:9", fake.root) == (None, None)


def test_hidden_multipath_paths_are_not_disks(fake):
    fake.disk(NVME_CTRL, "nvme0c0n1", "259:9", sectors=1953525168, rotational=0, device=NVME_CTRL)
    fake.file(f"{NVME_CTRL}/nvme0c0n1/hidden", "1")
    assert "nvme0c0n1" not in [d.name for d in list_disks(fake.root)]


def test_nvme_multipath_namespace_finds_its_controller_through_the_subsystem(tmp_path):
    fake = FakeSys(tmp_path / "sys")
    fake.file(f"{NVME_PCI}/current_link_speed", "16.0 GT/s PCIe")
    fake.file(f"{NVME_PCI}/current_link_width", "4")
    fake.file(f"{NVME_CTRL}/model", "WD_BLACK SN850X")
    fake.file(f"{NVME_CTRL}/firmware_rev", "620311WD")
    fake.link(f"{NVME_CTRL}/device", NVME_PCI)
    subsys = "devices/virtual/nvme-subsystem/nvme-subsys3"
    fake.file(f"{subsys}/model", "WD_BLACK SN850X")
    fake.link(f"{subsys}/nvme0", NVME_CTRL)
    # The head namespace is numbered after the subsystem (nvme3n1), not the controller (nvme0).
    fake.disk(subsys, "nvme3n1", "259:5", sectors=100, rotational=0, device=subsys)
    disk = read_disk("nvme3n1", fake.root)
    assert (disk.kind, disk.model, disk.firmware) == ("NVMe", "WD_BLACK SN850X", "620311WD")
    assert disk.pcie_link == "16.0 GT/s PCIe x4"


def test_missing_facts_are_unknown_never_an_exception(tmp_path):
    fake = FakeSys(tmp_path / "sys")
    # A disk with nothing but its device number; an NVMe whose PCI device says nothing; a size
    # that is not a number; a "file" that is a directory.
    fake.disk("devices/platform/bare", "sdz", "65:144", sectors=None, rotational=None)
    fake.file(f"{NVME_CTRL}/firmware_rev", "X")
    fake.link(f"{NVME_CTRL}/device", NVME_PCI)
    (fake.root / NVME_PCI / "current_link_speed").mkdir(parents=True)
    fake.disk(NVME_CTRL, "nvme0n1", "259:0", sectors=None, rotational=None, device=NVME_CTRL)
    fake.file(f"{NVME_CTRL}/nvme0n1/size", "lots")
    bare = read_disk("sdz", fake.root)
    assert bare.kind == "unknown" and bare.model is None and bare.serial is None and bare.firmware is None
    assert bare.size_bytes is None and bare.rotational is None and bare.transport is None
    nvme = read_disk("nvme0n1", fake.root)
    assert nvme.kind == "NVMe" and nvme.size_bytes is None and nvme.model is None
    assert nvme.pcie_speed is None and nvme.pcie_width is None and nvme.pcie_link is None
    assert read_disk("nope", fake.root) is None
    # An empty or missing /sys altogether.
    assert list_disks(tmp_path / "no-sys") == []
    assert disk_of_device("8:0", tmp_path / "no-sys") == (None, None)


def test_a_broken_vpd_page_is_no_serial(fake):
    (fake.root / SATA_SCSI / "vpd_pg80").write_bytes(b"\x00\x83\x00")
    assert read_disk("sda", fake.root).serial is None


# --------------------------------------------------------------------------- fake mounts


def mountinfo_line(mount_id, dev, root, mount_point, fs, source, options="rw,relatime"):
    escaped = str(mount_point).replace(" ", "\\040")
    return f"{mount_id} 1 {dev} {root} {escaped} {options} shared:1 - {fs} {source} rw"


@pytest.fixture
def mounts(tmp_path, fake):
    """Real directories as mount points, so a path's nearest existing parent is found for real."""
    base = tmp_path / "mnt"
    points = {name: base / name for name in ("nvme", "lvm data", "usb", "btrfs", "bind")}
    points["usb"] = points["nvme"] / "usb"  # mounted inside another volume
    for path in points.values():
        path.mkdir(parents=True, exist_ok=True)
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n")
    lines = [
        mountinfo_line(21, "0:21", "/", "/proc", "proc", "proc"),
        mountinfo_line(22, "0:22", "/", "/sys", "sysfs", "sysfs"),
        mountinfo_line(25, "8:1", "/", "/", "ext4", "/dev/sda1"),
        mountinfo_line(26, "0:30", "/", "/dev/shm", "tmpfs", "tmpfs"),
        mountinfo_line(30, "259:2", "/", points["nvme"], "xfs", "/dev/nvme0n1p2"),
        mountinfo_line(31, "8:17", "/", points["usb"], "exfat", "/dev/sdb1", "ro,relatime"),
        mountinfo_line(32, "254:0", "/", points["lvm data"], "ext4", "/dev/mapper/vg-data"),
        # btrfs: an anonymous device number, and a subvolume as the root of the mount.
        mountinfo_line(33, "0:45", "/@data", points["btrfs"], "btrfs", "/dev/sda2"),
        # A bind mount of a directory of the NVMe volume, and a bind-mounted file.
        mountinfo_line(34, "259:2", "/projects", points["bind"], "xfs", "/dev/nvme0n1p2"),
        mountinfo_line(35, "8:1", "/containers/abc/hosts", hosts, "ext4", "/dev/sda1"),
    ]
    return points, "\n".join(lines) + "\n"


def test_volumes_from_mountinfo(fake, mounts):
    points, text = mounts
    volumes = {v.mount_point: v for v in list_volumes(fake.root, text, usage=False)}
    assert list(volumes)[0] == "/"
    assert "/proc" not in volumes and "/sys" not in volumes
    assert str(points["bind"]) not in volumes  # repeats part of the NVMe volume
    assert str(points["nvme"].parent.parent / "hosts") not in volumes  # a bind-mounted file
    nvme = volumes[str(points["nvme"])]
    assert (nvme.device, nvme.disk, nvme.filesystem, nvme.read_only) == ("/dev/nvme0n1p2", "nvme0n1", "xfs", False)
    usb = volumes[str(points["usb"])]
    assert (usb.device, usb.disk, usb.filesystem, usb.read_only, usb.usable) == ("/dev/sdb1", "sdb", "exfat", True, False)
    lvm = volumes[str(points["lvm data"])]  # "\040" in mountinfo is a space
    assert (lvm.device, lvm.disk) == ("/dev/dm-0", "nvme0n1")
    btrfs = volumes[str(points["btrfs"])]
    assert (btrfs.device, btrfs.disk, btrfs.dev_id) == ("/dev/sda2", "sda", "0:45")
    shm = volumes["/dev/shm"]
    assert shm.pseudo and not shm.usable and shm.disk is None and shm.device is None
    noisy = {v.mount_point for v in list_volumes(fake.root, text, include_noise=True, include_binds=True, usage=False)}
    assert {"/proc", "/sys", str(points["bind"])} <= noisy


def test_target_info_resolves_paths_to_volume_and_disk(fake, mounts):
    points, text = mounts

    def info(path):
        return target_info(path, sys_root=fake.root, mountinfo=text)

    nvme = info(points["nvme"] / "labtui")  # does not exist yet: its parent counts
    assert (nvme.mount_point, nvme.filesystem, nvme.device, nvme.disk) == (
        str(points["nvme"]), "xfs", "/dev/nvme0n1p2", "nvme0n1")
    assert (nvme.kind, nvme.model, nvme.serial, nvme.firmware) == (
        "NVMe", "Samsung SSD 980 PRO 1TB", "S5GXNF0R123456", "5B2QGXA7")
    assert nvme.pcie_link == "8.0 GT/s PCIe x2 (max 16.0 GT/s PCIe x4)"
    assert nvme.path == str(points["nvme"] / "labtui")

    usb = info(points["usb"] / "deeper" / "still" / "file.dat")  # the deepest mount point wins
    assert (usb.disk, usb.kind, usb.rotational, usb.mount_point) == ("sdb", "USB HDD", True, str(points["usb"]))

    assert info(points["bind"] / "x").disk == "nvme0n1"  # a bind mount is still the NVMe
    assert info(points["lvm data"]).device == "/dev/dm-0" and info(points["lvm data"]).kind == "NVMe"
    assert info(points["btrfs"]).kind == "SATA SSD"
    root = info("/no/such/place")
    assert (root.mount_point, root.disk, root.kind) == ("/", "sda", "SATA SSD")
    shm = info("/dev/shm/x")
    assert (shm.mount_point, shm.kind, shm.disk) == ("/dev/shm", "memory", None)


def test_unreadable_mountinfo_falls_back_to_psutil(tmp_path, fake):
    info = target_info(tmp_path, sys_root=fake.root, mountinfo="garbage line\n")
    assert info.path == str(tmp_path) and info.mount_point in {p.mountpoint for p in psutil.disk_partitions()}


def test_mountinfo_parsing_skips_junk_and_unescapes():
    text = "\n".join([
        "not a mountinfo line",
        "36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
        "37 35 0:5 / /tab\\011and\\134slash rw - tmpfs none",
    ])
    entries = read_mountinfo(text)
    assert [(e.dev_id, e.root, e.mount_point, e.filesystem, e.source) for e in entries] == [
        ("98:0", "/mnt1", "/mnt/with space", "ext3", "/dev/root"),
        ("0:5", "/", "/tab\\x09and\\slash", "tmpfs", "none"),  # a mount point is one line: its tab is shown
    ]
    assert {"rw", "noatime", "errors=continue"} <= entries[0].options


# --------------------------------------------------------------------------- this machine


def findmnt(path, column) -> str:
    require_tool("findmnt")
    return subprocess.run(["findmnt", "-n", "-o", column, "--target", str(path)], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_root_volume_of_this_machine():
    root = next(v for v in list_volumes() if v.mount_point == "/")
    usage = psutil.disk_usage("/")
    assert root.size_bytes == usage.total and 0 < root.free_bytes <= root.size_bytes
    assert root.filesystem == findmnt("/", "FSTYPE")
    assert root.dev_id == findmnt("/", "MAJ:MIN")
    if root.disk:
        disk = next(d for d in list_disks() if d.name == root.disk)
        assert disk.size_bytes == int(Path(f"/sys/block/{disk.name}/size").read_text()) * 512
        assert disk.kind != "unknown" or disk.transport is None


def test_target_info_of_a_directory_here(tmp_path):
    info = target_info(tmp_path)
    assert info.path == str(tmp_path)
    assert info.mount_point == findmnt(tmp_path, "TARGET")
    assert info.filesystem == findmnt(tmp_path, "FSTYPE")
    volume = volume_of(tmp_path)
    assert volume.mount_point == info.mount_point and info.disk == volume.disk
    later = tmp_path / "not" / "yet" / "made"
    assert target_info(later) == replace(info, path=str(later))
    assert not is_block_device(tmp_path)


def test_host_facts_here():
    host = host_info()
    assert host.name == socket.gethostname()
    assert host.kernel == os.uname().release
    assert host.cpu_count == os.cpu_count() and host.ram_bytes == psutil.virtual_memory().total
    assert host.os and host.cpu_model


def test_json_forms_carry_derived_fields(fake):
    disk = devices.as_dict(read_disk("nvme0n1", fake.root))
    assert disk["pcie_link"] == "8.0 GT/s PCIe x2 (max 16.0 GT/s PCIe x4)" and disk["serial"] == "S5GXNF0R123456"
