"""Disks, volumes, file systems, PCIe links and host facts, as the kernel reports them.

Linux facts come from `/proc/self/mountinfo`, `/sys/block`, `/sys/dev/block` and
`/sys/class/nvme`; psutil covers free space, RAM and CPUs (and is the fallback elsewhere).
Every reader takes the roots it looks at (`sys_root`, `mountinfo`) so tests can build a fake
tree. A fact that cannot be read is None ("unknown"), never an exception (sysfs.py reads the
files; links.py the PCIe, SATA, SAS and USB links).

Text read here is made printable as it is read (labtui.printable): a USB stick chooses its own
model and serial, and anyone who may mount (a FUSE file system) chooses the mount point's name;
an escape code in them would reach the terminal as one. A volume whose mount point held one is
listed under its printable name, which is no path: nothing can be run there but by typing it.
"""

from __future__ import annotations

import os
import platform
import re
import socket
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

from labtui.machine import links
from labtui.machine.sysfs import iterdir, read, read_bool, read_bytes, read_int
from labtui.model.result import HostInfo, TargetInfo, pcie_link_text
from labtui.printable import printable

SYS = Path("/sys")
MOUNTINFO = Path("/proc/self/mountinfo")

# Kernel bookkeeping mounts: never a place to benchmark, not worth a row.
NOISE_FS = {
    "proc", "sysfs", "devpts", "cgroup", "cgroup2", "securityfs", "debugfs", "tracefs", "pstore",
    "bpf", "mqueue", "hugetlbfs", "fusectl", "configfs", "autofs", "binfmt_misc", "nsfs",
    "efivarfs", "rpc_pipefs", "selinuxfs", "fuse.gvfsd-fuse", "fuse.portal", "nfsd", "devtmpfs",
}
# Listed, but marked: their numbers say nothing about a disk (memory, or a container's layers).
PSEUDO_FS = {"tmpfs", "devtmpfs", "ramfs", "overlay", "overlayfs", "squashfs", "aufs", "zram"}


@dataclass
class Disk:
    """A whole block device (not a partition)."""

    name: str  # kernel name: nvme0n1, sda, vda
    path: str  # /dev/nvme0n1
    kind: str  # NVMe, SATA SSD, HDD, USB, virtual, ...
    transport: str | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    rotational: bool | None = None
    removable: bool | None = None
    read_only: bool | None = None
    size_bytes: int | None = None
    pcie_speed: str | None = None
    pcie_width: int | None = None
    pcie_max_speed: str | None = None
    pcie_max_width: int | None = None
    pcie_port_max_speed: str | None = None  # the port upstream (root port or switch) can do at most this
    pcie_port_max_width: int | None = None
    sata_speed: str | None = None  # "6.0 Gbps" (libata's ata_link)
    sata_max_speed: str | None = None  # the drive's fastest (its IDENTIFY data, word 76)
    usb_speed: str | None = None  # "5000 Mb/s": the USB device the disk sits behind
    sas_speed: str | None = None  # "12.0 Gbit": the SAS phy the disk's port negotiated
    partitions: list[str] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)  # dm / md devices built on it

    @property
    def pcie_link(self) -> str | None:
        return pcie_link_text(self.pcie_speed, self.pcie_width, self.pcie_max_speed, self.pcie_max_width)


@dataclass
class Volume:
    """A mounted file system."""

    mount_point: str
    source: str  # what was mounted: /dev/nvme0n1p2, tmpfs, overlay ...
    filesystem: str
    device: str | None = None  # the block device node if there is one
    disk: str | None = None  # the whole disk under it (kernel name)
    read_only: bool = False
    pseudo: bool = False
    size_bytes: int | None = None
    free_bytes: int | None = None
    dev_id: str | None = None  # "major:minor" of the file system

    @property
    def usable(self) -> bool:
        """Could a cache-off benchmark mean anything here?"""
        return not self.read_only and not self.pseudo


@dataclass
class MountEntry:
    dev_id: str
    root: str
    mount_point: str
    filesystem: str
    source: str
    options: set[str]


# --------------------------------------------------------------------------- small readers


def _vpd_serial(device: Path) -> str | None:
    """The unit serial number of a SCSI/SATA disk from VPD page 0x80 (sysfs has no plain file)."""
    data = read_bytes(device / "vpd_pg80")
    if not data or len(data) < 4 or data[1] != 0x80:
        return None
    length = int.from_bytes(data[2:4], "big")
    text = data[4 : 4 + length].decode("ascii", errors="replace").strip(" \x00")
    return printable(text, one_line=True) or None


def _usb_serial(resolved: Path) -> str | None:
    """The serial of the USB device a disk hangs off (the bridge's, which is what lsusb shows)."""
    for parent in resolved.parents:
        if (parent / "idVendor").exists():
            return read(parent / "serial")
        if parent.name == "devices":
            break
    return None


def _unescape(text: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal.
    return (
        text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
    )


def _one_line(field: str) -> str:
    return printable(_unescape(field), one_line=True)


def read_mountinfo(text: str | None = None) -> list[MountEntry]:
    if text is None:
        try:
            with open(MOUNTINFO, encoding="utf-8", errors="replace", newline="") as f:
                text = f.read()
        except OSError:
            return []
    entries = []
    # Lines and fields by "\n" and " " alone, as the kernel writes them: splitlines() and split() also
    # break at the controls a mount point may hold (\x1c, \x85).
    for line in text.split("\n"):
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        a = left.split(" ")
        b = right.split(" ")
        if len(a) < 6 or len(b) < 2:
            continue
        options = set(a[5].split(","))
        if len(b) >= 3:
            options |= set(b[2].split(","))
        entries.append(MountEntry(a[2], _one_line(a[3]), _one_line(a[4]), b[0], _one_line(b[1]), options))
    return entries


# --------------------------------------------------------------------------- disks


def _disk_transport(resolved: str, name: str, sys_root: Path) -> str | None:
    if name.startswith("nvme") or "/nvme" in resolved:
        fabric = read(sys_root / "block" / name / "device" / "transport")
        return "nvme" if fabric in (None, "pcie") else f"nvme-{fabric}"
    if "/usb" in resolved:
        return "usb"
    if "/virtio" in resolved:
        return "virtio"
    if "/mmc_host/" in resolved or name.startswith("mmcblk"):
        return "mmc"
    if "/ata" in resolved:
        return "sata"
    if "/xen" in resolved or name.startswith("xvd"):
        return "xen"
    if "/devices/virtual/" in resolved:
        return "virtual"
    if "/host" in resolved and "/target" in resolved:
        return "scsi"
    return None


def _disk_kind(name: str, transport: str | None, rotational: bool | None) -> str:
    if transport and transport.startswith("nvme"):
        return "NVMe"
    if transport == "usb":
        return "USB HDD" if rotational else "USB"
    if transport in ("virtio", "xen"):
        return "virtual"
    if transport == "virtual" or name.startswith(("loop", "zram", "ram", "dm-", "md")):
        if name.startswith("dm-"):
            return "device-mapper"
        if name.startswith("md"):
            return "RAID (md)"
        return "virtual"
    if transport == "mmc":
        return "SD/eMMC"
    if rotational:
        return "HDD"
    if transport in ("sata", "scsi"):
        return "SATA SSD" if transport == "sata" else "SSD"
    return "unknown"


def _nvme_controller(name: str, block: Path, sys_root: Path) -> Path | None:
    """The NVMe controller (in /sys/class/nvme) behind namespace `name`: model, serial, firmware, PCI device."""
    if not name.startswith("nvme"):
        return None
    device = block / "device"  # a namespace's "device" is its controller
    if (device / "firmware_rev").exists() and (device / "device").exists():
        return device
    # Native multipath: the namespace hangs off the subsystem (nvme-subsysN), whose controllers
    # are listed inside it; the first one with a PCI device gives the link.
    for entry in sorted(iterdir(device)):
        if re.fullmatch(r"nvme\d+", entry.name) and (entry / "device").exists():
            return entry
    match = re.match(r"^nvme(\d+)(?:c\d+)?n\d+", name)
    if match:
        path = sys_root / "class" / "nvme" / f"nvme{match.group(1)}"
        if path.exists():
            return path
    return None


def read_disk(name: str, sys_root: Path = SYS) -> Disk | None:
    """One whole disk from /sys/block/NAME; None if there is no such disk. Unreadable facts are None."""
    block = sys_root / "block" / name
    if not block.exists():
        return None
    try:
        resolved = block.resolve()
    except OSError:
        resolved = block
    transport = _disk_transport(str(resolved), name, sys_root)
    rotational = read_bool(block / "queue" / "rotational")
    sectors = read_int(block / "size")  # always in 512-byte units, whatever the logical block size
    device = block / "device"
    model = read(device / "model")
    vendor = read(device / "vendor")
    serial = read(block / "serial") or read(device / "serial") or _vpd_serial(device)
    if serial is None and transport == "usb":
        serial = _usb_serial(resolved)
    firmware = read(device / "rev") or read(device / "firmware_rev")
    link: dict[str, Any] = {}
    controller = _nvme_controller(name, block, sys_root)
    if controller is not None:
        model = read(controller / "model") or model
        serial = read(controller / "serial") or serial
        firmware = read(controller / "firmware_rev") or firmware
        link = links.pcie_link(controller / "device")
    elif transport == "sata":
        link = links.sata_link(str(resolved), sys_root)
    elif transport == "usb":
        link = {"usb_speed": links.usb_speed(resolved)}
    elif "/end_device-" in str(resolved):
        link = {"sas_speed": links.sas_speed(resolved)}
    if model and vendor and transport in ("sata", "scsi", "usb") and vendor not in ("ATA",) and not model.startswith(vendor):
        model = f"{vendor} {model}"
    if transport == "virtio" and not model:
        model = "virtio disk"
    partitions = sorted(
        p.name for p in iterdir(block) if p.name.startswith(name) and (p / "partition").exists()
    )
    holders = sorted(p.name for p in iterdir(block / "holders"))
    return Disk(
        name=name,
        path=f"/dev/{name}",
        kind=_disk_kind(name, transport, rotational),
        transport=transport,
        model=model,
        serial=serial,
        firmware=firmware,
        rotational=rotational,
        removable=read_bool(block / "removable"),
        read_only=read_bool(block / "ro"),
        size_bytes=sectors * 512 if sectors is not None else None,
        partitions=partitions,
        holders=holders,
        **link,
    )


def list_disks(sys_root: Path = SYS, *, include_empty: bool = False) -> list[Disk]:
    """Whole disks, NVMe first, then by name. Unused loop/ram/zram devices are left out."""
    disks = []
    for entry in sorted(iterdir(sys_root / "block"), key=lambda p: p.name):
        if read_int(entry / "hidden") == 1:
            continue  # e.g. the per-path devices (nvme0c0n1) under an NVMe multipath namespace
        disk = read_disk(entry.name, sys_root)
        if disk is None:
            continue
        if not include_empty and (not disk.size_bytes) and disk.name.startswith(("loop", "ram", "zram")):
            continue
        disks.append(disk)
    order = {"NVMe": 0, "SATA SSD": 1, "SSD": 1, "HDD": 2, "USB": 3, "USB HDD": 3}
    return sorted(disks, key=lambda d: (order.get(d.kind, 4), d.name))


def disk_of_device(dev_id: str, sys_root: Path = SYS) -> tuple[str | None, str | None]:
    """(device name, whole-disk name) for a "major:minor"; a partition's parent is its disk.

    device-mapper and md devices resolve to their first underlying disk.
    """
    link = sys_root / "dev" / "block" / dev_id
    try:
        resolved = link.resolve(strict=True)
    except OSError:
        return None, None
    device = resolved.name
    disk = resolved.parent.name if (resolved / "partition").exists() else device
    for _ in range(4):  # dm on md on partitions: follow slaves down a few levels
        slaves = sorted(iterdir(sys_root / "block" / disk / "slaves"))
        if not slaves:
            break
        try:
            lower = slaves[0].resolve(strict=True)
        except OSError:
            break
        disk = lower.parent.name if (lower / "partition").exists() else lower.name
    return device, disk


def disk_dev_id(name: str, sys_root: Path = SYS) -> str | None:
    """The "major:minor" of the block device called `name` (nvme0n1, sda1, loop3)."""
    text = read(sys_root / "class" / "block" / name / "dev")
    return text.strip() if text else None


def _dev_id_of_source(source: str, sys_root: Path) -> str | None:
    """The "major:minor" of a mount source such as /dev/nvme0n1p2 or /dev/mapper/vg-root."""
    if not source.startswith("/dev/"):
        return None
    name = os.path.basename(os.path.realpath(source))  # /dev/mapper/x and /dev/disk/by-* are links
    return read(sys_root / "class" / "block" / name / "dev")


# --------------------------------------------------------------------------- volumes


def list_volumes(
    sys_root: Path = SYS,
    mountinfo: str | None = None,
    *,
    include_noise: bool = False,
    usage: bool = True,
    include_binds: bool = False,
) -> list[Volume]:
    """Mounted file systems, one row per mount point.

    `mountinfo` is the text of /proc/self/mountinfo (read when None). Bind mounts that only
    repeat part of a volume already listed, and bind-mounted files (a container's /etc/hosts),
    are left out unless `include_binds`.
    """
    entries = read_mountinfo(mountinfo)
    if not entries:
        return _volumes_from_psutil(usage=usage)
    whole = {e.dev_id for e in entries if e.root == "/"}
    volumes: dict[str, Volume] = {}
    for e in entries:
        noise = e.filesystem in NOISE_FS or _is_within(e.mount_point, "/proc") or _is_within(e.mount_point, "/sys")
        if not include_noise and noise:
            continue
        # root != "/" is a bind mount of a subtree, or a btrfs subvolume (which is a volume of its own).
        if not include_binds and e.root != "/" and (e.dev_id in whole or os.path.isfile(e.mount_point)):
            continue
        volumes[e.mount_point] = _volume(e, sys_root)  # a later mount over the same point hides the earlier
    result = list(volumes.values())
    if usage:
        for v in result:
            _fill_usage(v)
    return sorted(result, key=lambda v: (v.pseudo, v.mount_point != "/", v.mount_point))


def _volume(entry: MountEntry, sys_root: Path) -> Volume:
    dev_id: str | None = entry.dev_id
    if dev_id is not None and dev_id.startswith("0:"):
        # An anonymous device number (btrfs, bcachefs, NFS, tmpfs ...): the source names the disk, if any.
        dev_id = _dev_id_of_source(entry.source, sys_root)
    device, disk = disk_of_device(dev_id, sys_root) if dev_id else (None, None)
    return Volume(
        mount_point=entry.mount_point,
        source=entry.source,
        filesystem=entry.filesystem,
        device=f"/dev/{device}" if device else (entry.source if entry.source.startswith("/dev/") else None),
        disk=disk,
        read_only="ro" in entry.options,
        pseudo=entry.filesystem in PSEUDO_FS,
        dev_id=entry.dev_id,
    )


def _fill_usage(volume: Volume) -> None:
    try:
        du = psutil.disk_usage(volume.mount_point)
    except (OSError, SystemError):
        return
    volume.size_bytes = du.total
    volume.free_bytes = du.free


def _volumes_from_psutil(*, usage: bool = True) -> list[Volume]:
    result = []
    for part in psutil.disk_partitions(all=False):
        volume = Volume(
            mount_point=printable(part.mountpoint, one_line=True),
            source=printable(part.device, one_line=True),
            filesystem=part.fstype,
            device=part.device or None,
            read_only="ro" in part.opts.split(","),
            pseudo=part.fstype in PSEUDO_FS,
        )
        if usage:
            _fill_usage(volume)
        result.append(volume)
    return result


def volume_of(
    path: str | os.PathLike,
    volumes: list[Volume] | None = None,
    sys_root: Path = SYS,
    mountinfo: str | None = None,
) -> Volume | None:
    """The mounted volume holding `path` (which need not exist yet: its nearest existing parent is used)."""
    probe = Path(os.path.abspath(os.fspath(path)))
    # os.path.exists, not Path.exists: a name too long or a directory that may not be looked into
    # raises there, and the volume is the one of the nearest parent that can be seen.
    while not os.path.exists(probe) and probe != probe.parent:
        probe = probe.parent
    if volumes is None:
        volumes = list_volumes(sys_root, mountinfo, include_noise=True, usage=False, include_binds=True)
    real = printable(os.path.realpath(probe), one_line=True)  # as the mount points were read
    # The deepest mount point containing the path is the one it lives on.
    candidates = [v for v in volumes if _is_within(real, v.mount_point)]
    return max(candidates, key=lambda v: len(v.mount_point), default=None)


def _is_within(path: str, mount_point: str) -> bool:
    return path == mount_point or path.startswith(mount_point.rstrip("/") + "/")


def is_block_device(path: str | os.PathLike) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def target_info(path: str | os.PathLike, sys_root: Path = SYS, mountinfo: str | None = None) -> TargetInfo:
    """Everything known about where `path` lives: its volume, device and disk.

    A block device is described as itself; anything else (a file, a directory, a path still to
    be created) by the volume holding it. `sys_root` and `mountinfo` as for list_volumes.
    """
    text = os.path.abspath(os.fspath(path))
    if is_block_device(text):
        st = os.stat(text)
        dev_id = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        device, disk_name = disk_of_device(dev_id, sys_root)
        disk = read_disk(disk_name, sys_root) if disk_name else None
        return _target_from(text, f"/dev/{device}" if device else text, disk, None)
    volume = volume_of(text, sys_root=sys_root, mountinfo=mountinfo)
    disk = read_disk(volume.disk, sys_root) if volume and volume.disk else None
    return _target_from(text, volume.device if volume else None, disk, volume)


def _target_from(path: str, device: str | None, disk: Disk | None, volume: Volume | None) -> TargetInfo:
    return TargetInfo(
        path=path,
        device=device,
        disk=disk.name if disk else None,
        kind=disk.kind if disk else ("memory" if volume and volume.filesystem in ("tmpfs", "ramfs") else None),
        model=disk.model if disk else None,
        serial=disk.serial if disk else None,
        firmware=disk.firmware if disk else None,
        transport=disk.transport if disk else None,
        rotational=disk.rotational if disk else None,
        size_bytes=disk.size_bytes if disk else None,
        pcie_speed=disk.pcie_speed if disk else None,
        pcie_width=disk.pcie_width if disk else None,
        pcie_max_speed=disk.pcie_max_speed if disk else None,
        pcie_max_width=disk.pcie_max_width if disk else None,
        pcie_port_max_speed=disk.pcie_port_max_speed if disk else None,
        pcie_port_max_width=disk.pcie_port_max_width if disk else None,
        sata_speed=disk.sata_speed if disk else None,
        sata_max_speed=disk.sata_max_speed if disk else None,
        usb_speed=disk.usb_speed if disk else None,
        sas_speed=disk.sas_speed if disk else None,
        filesystem=volume.filesystem if volume else None,
        mount_point=volume.mount_point if volume else None,
    )


# --------------------------------------------------------------------------- host


def host_info() -> HostInfo:
    return HostInfo(
        name=printable(socket.gethostname(), one_line=True) or None,
        os=printable(_os_name() or "", one_line=True) or None,
        kernel=platform.release() or None,
        cpu_model=_cpu_model(),
        cpu_count=psutil.cpu_count(logical=True),
        ram_bytes=psutil.virtual_memory().total,
    )


def _os_name() -> str | None:
    try:
        info = platform.freedesktop_os_release()
        return info.get("PRETTY_NAME") or info.get("NAME")
    except OSError:
        return f"{platform.system()} {platform.version()}".strip() or None


def _cpu_model() -> str | None:
    text = read(Path("/proc/cpuinfo"), lines=True)
    if text:
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "Processor", "cpu model") and value.strip():
                return value.strip()
    return platform.processor() or None


def as_dict(item: Disk | Volume) -> dict:
    """The --json form: the fields plus what is derived from them."""
    data = asdict(item)
    if isinstance(item, Volume):
        data["usable"] = item.usable
    else:
        data["pcie_link"] = item.pcie_link
    return data
