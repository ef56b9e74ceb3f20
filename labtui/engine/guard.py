"""The raw-device safety guard: what is on a block device, and whether a step may write to it.

Benchmarks that write to raw devices destroy partition tables, file systems and boot loaders.
So: reading a raw device is allowed; writing needs the person to name the device explicitly
(`--destroy-data=/dev/NAME`, or typing the name in the TUI), and is refused outright while the
device or one of its partitions is mounted or another device (dm, md, LVM) is built on it.
Every engine gets its target through the runner, which calls this guard; engines also check
`ensure_cleared` themselves so no code path reaches a raw write the guard did not pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from labtui.engine import devices
from labtui.errors import LabtuiError

# (offset, magic, what it means)
_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (512, b"EFI PART", "a GPT partition table"),
    (4096, b"EFI PART", "a GPT partition table"),
    (1080, b"\x53\xef", "an ext2/3/4 file system"),
    (0, b"XFSB", "an XFS file system"),
    (65600, b"_BHRfS_M", "a btrfs file system"),
    (3, b"NTFS    ", "an NTFS file system"),
    (3, b"EXFAT   ", "an exFAT file system"),
    (82, b"FAT32   ", "a FAT32 file system"),
    (54, b"FAT16   ", "a FAT16 file system"),
    (54, b"FAT12   ", "a FAT12 file system"),
    (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
    (4086, b"SWAPSPACE2", "a swap area"),
    (4096, b"\xfcN+\xa9", "an md RAID member (v1.2)"),
    (0, b"\xfcN+\xa9", "an md RAID member (v1.1)"),
    (32769, b"CD001", "an ISO 9660 image"),
)
_LVM_SECTORS = range(0, 4)
_SCAN_BYTES = 70 * 1024


@dataclass
class DeviceFacts:
    path: str
    name: str
    size_bytes: int | None
    mounts: list[str] = field(default_factory=list)  # mount points on it or its partitions
    holders: list[str] = field(default_factory=list)  # dm / md devices built on it
    signatures: list[str] = field(default_factory=list)  # what it seems to hold
    partitions: list[str] = field(default_factory=list)

    @property
    def in_use(self) -> bool:
        return bool(self.mounts or self.holders)

    @property
    def holds_data(self) -> bool:
        return bool(self.signatures or self.partitions)

    def describe(self) -> str:
        parts = []
        if self.mounts:
            parts.append("mounted at " + ", ".join(self.mounts))
        if self.holders:
            parts.append("in use by " + ", ".join(self.holders))
        if self.partitions:
            parts.append("has partitions " + ", ".join(self.partitions))
        parts += [f"holds {s}" for s in self.signatures]
        return "; ".join(dict.fromkeys(parts)) or "no partition table, file system or RAID/LVM signature found"


def scan_signatures(head: bytes, tail: bytes = b"") -> list[str]:
    """What the first ~70 KiB (and last 128 KiB) of a device say it holds."""
    found = []
    for offset, magic, meaning in _SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            found.append(meaning)
    if len(head) >= 512 and head[510:512] == b"\x55\xaa" and not any("FAT" in f or "NTFS" in f or "exFAT" in f for f in found):
        found.append("an MBR partition table or boot sector")
    for sector in _LVM_SECTORS:
        chunk = head[sector * 512 : sector * 512 + 512]
        if chunk[:8] == b"LABELONE" and b"LVM2 001" in chunk:
            found.append("an LVM physical volume")
            break
    # md metadata 0.90 and 1.0 live at the end of the device.
    if tail and b"\xfcN+\xa9" in tail:
        found.append("an md RAID member (v0.90/1.0)")
    return list(dict.fromkeys(found))


def _blkid(path: str) -> list[str]:
    """util-linux's probe, when present, knows far more formats than our own scan."""
    tool = shutil.which("blkid")
    if not tool:
        return []
    try:
        out = subprocess.run([tool, "-p", "-o", "export", path], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    values = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    found = []
    if "PTTYPE" in values:
        found.append(f"a {values['PTTYPE']} partition table")
    if "TYPE" in values:
        found.append(f"a file system or volume of type {values['TYPE']}")
    return found


def inspect_device(path: str | os.PathLike) -> DeviceFacts:
    """Everything the guard needs to know about a block device. Reads it, never writes."""
    text = os.path.realpath(os.fspath(path))
    st = os.stat(text)
    dev_id = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    name, disk = devices.disk_of_device(dev_id)
    name = name or Path(text).name
    info = devices.read_disk(name) if name else None
    partitions = list(info.partitions) if info else []
    holders = list(info.holders) if info else []
    for part in partitions:
        holders += [h for h in _holders_of(part) if h not in holders]
    mounted_devices = {name, *partitions}
    mounts = []
    for volume in devices.list_volumes(include_noise=True, usage=False):
        dev = (volume.device or "").removeprefix("/dev/")
        if dev in mounted_devices or (volume.dev_id == dev_id):
            mounts.append(volume.mount_point)
    for swap in _active_swaps():
        if os.path.realpath(swap) == text or Path(swap).name in mounted_devices:
            mounts.append("swap")
    head, tail, size = b"", b"", None
    with open(text, "rb", buffering=0) as handle:
        head = handle.read(_SCAN_BYTES)
        size = handle.seek(0, os.SEEK_END)
        if size > 256 * 1024:
            handle.seek(size - 128 * 1024)
            tail = handle.read(128 * 1024)
    # blkid knows more formats and names them exactly; our scan covers machines without it.
    signatures = _blkid(text) or scan_signatures(head, tail)
    return DeviceFacts(text, name, size, mounts, holders, signatures, partitions)


def _holders_of(name: str) -> list[str]:
    try:
        return sorted(p.name for p in (Path("/sys/class/block") / name / "holders").iterdir())
    except OSError:
        return []


def _active_swaps() -> list[str]:
    try:
        lines = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        return []
    return [line.split()[0] for line in lines if line.split()]


def check_raw_target(path: str | os.PathLike, *, writes: bool, confirm: str | None) -> DeviceFacts:
    """Allow a run on a raw device, or raise LabtuiError saying why not and how to confirm."""
    facts = inspect_device(path)
    if not writes:
        return facts
    if facts.in_use:
        raise LabtuiError(
            f"refusing to write to {facts.path}: it is {facts.describe()}; unmount it (and stop what uses it) first"
        )
    wanted = {facts.path, f"/dev/{facts.name}", facts.name, os.fspath(path)}
    if confirm is None or confirm not in wanted:
        what = facts.describe() if facts.holds_data else "it may hold data labtui cannot recognise"
        hint = f"--destroy-data=/dev/{facts.name}"
        mismatch = f" (--destroy-data named {confirm}, not this device)" if confirm else ""
        raise LabtuiError(
            f"refusing to write to raw device {facts.path}: {what}; every byte the profile writes is destroyed. "
            f"To go ahead, confirm with {hint}{mismatch}"
        )
    return facts


def ensure_cleared(job, writes: bool) -> None:
    """The engines' own last line of defence, right before they open the target: no raw-device
    write the guard did not clear, and nothing but what the runner holds (its test file)."""
    if writes and not job.raw_device and devices.is_block_device(job.path):
        raise LabtuiError(f"refusing to write to raw device {job.path}: the safety guard did not clear it")
    if job.hold is not None:
        job.hold.verify("right before the engine opens it")
