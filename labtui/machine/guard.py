"""The raw-device safety guard: what is on a block device, whether a step may write to it, and
the hold on it that keeps the person's consent true until the run ends.

Benchmarks that write to raw devices destroy partition tables, file systems and boot loaders.
So: reading a raw device is allowed; writing needs the person to name the device explicitly
(`--destroy-data=/dev/NAME`, or typing the name in the TUI), and is refused outright while the
device or one of its partitions is in use. "In use" is what sysfs and mountinfo show (mounts,
dm/md holders, a loop device stacked on it) and, above all, what the kernel itself says: the
device is opened with O_EXCL, which fails with EBUSY while anything has claimed it — a mount in
any mount namespace, swap, dm, md, a file system on one of its partitions.

A cleared device is held (`DeviceLease`) from the check to the end of the run: the exclusive
descriptor stays open, so nobody can mount, mkfs or re-attach it meanwhile (the engines open it
without O_EXCL, which the kernel allows). The consent binds to the device itself — major:minor,
the kernel's disk sequence number, a loop device's backing file, the serial — and to what was
found on it (size, signatures, digests of its first and last bytes). Before every step and right
before every engine opens it, the lease checks the path still leads to that device and that
nothing changed but what the run itself wrote; otherwise the write is refused.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from labtui.errors import LabtuiError
from labtui.machine import devices, programs, sysfs

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
_LVM_SECTORS = range(4)
_SCAN_BYTES = 70 * 1024


_TAIL_BYTES = 128 * 1024
BUSY = ("it is in use: the kernel reports it busy (mounted, perhaps in another mount namespace, active as swap, "
        "or held by device-mapper, md or another program)")


@dataclass
class DeviceFacts:
    path: str  # the device node, links resolved: what the engines open
    name: str
    size_bytes: int | None
    mounts: list[str] = field(default_factory=list)  # mount points on it or its partitions
    holders: list[str] = field(default_factory=list)  # dm / md devices built on it or its partitions
    signatures: list[str] = field(default_factory=list)  # what it seems to hold
    partitions: list[str] = field(default_factory=list)
    dev_id: str = ""  # major:minor
    users: list[str] = field(default_factory=list)  # what sysfs shows using it, in words
    busy: bool = False  # an exclusive open failed with EBUSY
    swap: bool = False  # it (or one of its partitions) is active swap space
    identity: dict[str, str] = field(default_factory=dict)  # what says it is still the same device
    head_digest: str = ""  # of its first _SCAN_BYTES
    tail_digest: str = ""  # of its last _TAIL_BYTES, from tail_offset
    tail_offset: int = 0
    unprobed: str = ""  # why blkid was not asked ("blkid refused: ...; only labtui's own scan looked")

    @property
    def in_use(self) -> bool:
        return bool(self.mounts or self.users or self.busy or self.swap)

    def remedy(self) -> str:
        """What to do before labtui may write to it: "unmount it", "swapoff /dev/X", ..."""
        steps = []
        if self.mounts:
            steps.append("unmount it")
        if self.swap:
            steps.append(f"swapoff {self.path}")
        if self.users or (self.busy and not (self.mounts or self.swap)) or not steps:
            steps.append("stop what uses it")
        return " and ".join(steps) + " first"

    @property
    def holds_data(self) -> bool:
        return bool(self.signatures or self.partitions)

    def usage(self) -> list[str]:
        """What uses it, as clauses about "it"."""
        parts = []
        if self.mounts:
            parts.append("it is mounted at " + ", ".join(self.mounts))
        if self.swap:
            parts.append("it is active swap space")
        parts += self.users
        if self.busy and not (self.mounts or self.users or self.swap):
            parts.append(BUSY)
        return parts

    def describe(self) -> str:
        """What uses it and what is on it, as clauses about "it"."""
        parts = self.usage()
        if self.partitions:
            parts.append("it has partitions " + ", ".join(self.partitions))
        parts += [f"it holds {s}" for s in self.signatures]
        found = "; ".join(dict.fromkeys(parts)) or "no partition table, file system or RAID/LVM signature found"
        return f"{found} ({self.unprobed})" if self.unprobed else found


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


def _blkid(path: str) -> tuple[list[str], str]:
    """util-linux's probe, when present, knows far more formats than our own scan: what it found, and why it
    was not asked (as root, a blkid another user could change: labtui.machine.programs), or ""."""
    try:
        tool = programs.find("blkid")
    except programs.ProgramRefused as exc:
        return [], f"{exc}; only labtui's own scan looked"
    if not tool:
        return [], ""
    try:
        out = subprocess.run([tool, "-p", "-o", "export", path], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return [], ""
    values = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    found = []
    if "PTTYPE" in values:
        found.append(f"a {values['PTTYPE']} partition table")
    if "TYPE" in values:
        found.append(f"a file system or volume of type {values['TYPE']}")
    return found, ""


def inspect_device(path: str | os.PathLike, *, fd: int | None = None, sys_root: Path = devices.SYS) -> DeviceFacts:
    """Everything the guard needs to know about a block device. Reads it, never writes.

    With `fd` (an open descriptor of the device), its contents are read through that descriptor.
    """
    text = os.path.realpath(os.fspath(path))
    st = os.stat(text) if fd is None else os.fstat(fd)
    dev_id = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    name, disk = devices.disk_of_device(dev_id, sys_root)
    name = name or Path(text).name
    partitions = _partitions_of(name, sys_root)
    holders = _holders_of(name, sys_root)
    for part in partitions:
        holders += [h for h in _holders_of(part, sys_root) if h not in holders]
    mounted_devices = {name, *partitions}
    mounts = []
    for volume in devices.list_volumes(sys_root, include_noise=True, usage=False):
        dev = (volume.device or "").removeprefix("/dev/")
        if dev in mounted_devices or (volume.dev_id == dev_id):
            mounts.append(volume.mount_point)
    swapping = any(os.path.realpath(swap) == text or Path(swap).name in mounted_devices for swap in _active_swaps())
    own = fd if fd is not None else os.open(text, os.O_RDONLY | os.O_CLOEXEC)
    try:
        head = os.pread(own, _SCAN_BYTES, 0)
        size = os.lseek(own, 0, os.SEEK_END)
        tail_offset = max(0, size - _TAIL_BYTES)
        tail = os.pread(own, _TAIL_BYTES, tail_offset) if size > 2 * _TAIL_BYTES else b""
    finally:
        if fd is None:
            os.close(own)
    # blkid knows more formats and names them exactly; our scan covers machines without it.
    probed, unprobed = _blkid(text)
    signatures = probed or scan_signatures(head, tail)
    return DeviceFacts(
        text, name, size, mounts, holders, signatures, partitions, dev_id=dev_id, swap=swapping, unprobed=unprobed,
        users=users_of(name, sys_root, partitions=partitions), identity=_identity(name, disk, sys_root),
        head_digest=hashlib.sha256(head).hexdigest(), tail_digest=hashlib.sha256(tail).hexdigest(),
        tail_offset=tail_offset,
    )


def users_of(name: str, sys_root: Path = devices.SYS, *, partitions: list[str] | None = None) -> list[str]:
    """What sysfs shows using the device `name` (a disk or a partition), in words."""
    parts = _partitions_of(name, sys_root) if partitions is None else partitions
    found = []
    holders = _holders_of(name, sys_root)
    if holders:
        found.append("it is in use by " + ", ".join(holders))
    for part in parts:
        held = _holders_of(part, sys_root)
        if held:
            found.append(f"its partition {part} is in use by {', '.join(held)}")
    for loop, lower in _loops_backed_by([name, *parts], sys_root):
        what = "it" if lower == name else f"its partition {lower}"
        found.append(f"{what} backs the loop device /dev/{loop}")
    return found


def _block_dir(name: str, sys_root: Path) -> Path:
    # /sys/class/block has partitions too (/sys/block only whole disks).
    return sys_root / "class" / "block" / name


def _holders_of(name: str, sys_root: Path = devices.SYS) -> list[str]:
    try:
        return sorted(p.name for p in (_block_dir(name, sys_root) / "holders").iterdir())
    except OSError:
        return []


def _partitions_of(name: str, sys_root: Path) -> list[str]:
    try:
        entries = list(_block_dir(name, sys_root).iterdir())
    except OSError:
        return []
    return sorted(p.name for p in entries if p.name.startswith(name) and (p / "partition").exists())


def _loops_backed_by(names: list[str], sys_root: Path) -> list[tuple[str, str]]:
    """(loop device, which of `names` it sits on) for every loop device whose backing file is one of them.

    A loop device does not claim the block device under it, so no O_EXCL open would fail.
    """
    rdevs = {}
    for name in names:
        number = sysfs.read(_block_dir(name, sys_root) / "dev")
        if number and ":" in number:
            major, minor = number.split(":", 1)
            rdevs[os.makedev(int(major), int(minor))] = name
    found = []
    for loop in sorted(_iterdir(sys_root / "block")):
        backing = sysfs.read(loop / "loop" / "backing_file")
        if not backing:
            continue
        backing = backing.removesuffix(" (deleted)")
        lower = None
        with contextlib.suppress(OSError):
            st = os.stat(backing)
            if stat.S_ISBLK(st.st_mode):
                lower = rdevs.get(st.st_rdev)
        if lower is None and backing.startswith("/dev/") and Path(backing).name in names:
            lower = Path(backing).name
        if lower is not None and loop.name not in names:
            found.append((loop.name, lower))
    return found


def _iterdir(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []


def _identity(name: str, disk: str | None, sys_root: Path) -> dict[str, str]:
    """What tells this device from another one at the same node: the kernel's disk sequence number
    (new whenever a loop device is re-attached or the media change), a loop device's backing file,
    a partition's place on its disk, the disk's serial."""
    found: dict[str, str] = {}
    here = _block_dir(name, sys_root)
    whole = _block_dir(disk or name, sys_root) if (here / "partition").exists() else here
    for key, path in (
        ("disk sequence number", whole / "diskseq"),
        ("partition start", here / "start"),
        ("sectors", here / "size"),
        ("loop backing file", whole / "loop" / "backing_file"),
        ("loop offset", whole / "loop" / "offset"),
        ("loop size limit", whole / "loop" / "sizelimit"),
        ("loop autoclear", whole / "loop" / "autoclear"),
        ("wwid", whole / "wwid"),
        ("serial", whole / "serial"),
        ("device serial", whole / "device" / "serial"),
        ("device wwid", whole / "device" / "wwid"),
    ):
        value = sysfs.read(path)
        if value is not None and (key != "partition start" or (here / "partition").exists()):
            found[key] = value
    return found


def _active_swaps() -> list[str]:
    try:
        lines = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        return []
    return [line.split()[0] for line in lines if line.split()]


class DeviceChanged(LabtuiError):
    """The cleared device is no longer what the person consented to destroy; nothing is written."""


def clear_raw_target(
    path: str | os.PathLike,
    *,
    writes: bool,
    confirm: str | None,
    consented: DeviceFacts | None = None,
    sys_root: Path = devices.SYS,
) -> tuple[DeviceFacts, DeviceLease | None]:
    """Allow a run on a raw device, or raise LabtuiError saying why not and how to confirm.

    For a run that writes, returns the lease that holds the device exclusively until closed.
    `consented` is what the person was shown when they agreed (the TUI's prompt): if the device
    differs from it now, the write is refused.
    """
    text = os.path.realpath(os.fspath(path))
    if not writes:
        return inspect_device(text, sys_root=sys_root), None
    try:
        fd = os.open(text, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise LabtuiError(f"cannot open {text}: {exc.strerror or exc}") from exc
        facts = inspect_device(text, sys_root=sys_root)
        facts.busy = True
        raise LabtuiError(f"refusing to write to {facts.path}: {facts.describe()}; {facts.remedy()}") from None
    lease = None
    try:
        facts = inspect_device(text, fd=fd, sys_root=sys_root)
        if facts.in_use:
            raise LabtuiError(f"refusing to write to {facts.path}: {facts.describe()}; {facts.remedy()}")
        wanted = {facts.path, f"/dev/{facts.name}", facts.name, os.fspath(path)}
        if confirm is None or confirm not in wanted:
            what = facts.describe() if facts.holds_data else "it may hold data labtui cannot recognise"
            hint = f"--destroy-data=/dev/{facts.name}"
            mismatch = f" (--destroy-data named {confirm}, not this device)" if confirm else ""
            raise LabtuiError(
                f"refusing to write to raw device {facts.path}: {what}; every byte the profile writes is destroyed. "
                f"To go ahead, confirm with {hint}{mismatch}"
            )
        if consented is not None:
            changed = _changes(consented, facts, written_below=0)
            if changed:
                raise DeviceChanged(f"refusing to write to {facts.path}: it changed since you agreed to destroy "
                                    f"its data ({'; '.join(changed)})")
        lease = DeviceLease(Path(text), fd, facts, sys_root)
        return facts, lease
    finally:
        if lease is None:
            os.close(fd)


def check_raw_target(path: str | os.PathLike, *, writes: bool, confirm: str | None) -> DeviceFacts:
    """Whether a run may go ahead on a raw device (LabtuiError if not), without holding it."""
    facts, lease = clear_raw_target(path, writes=writes, confirm=confirm)
    if lease is not None:
        lease.close()
    return facts


class DeviceLease:
    """A cleared raw device, held with O_EXCL until closed, and what it held when it was cleared."""

    def __init__(self, path: Path, fd: int, facts: DeviceFacts, sys_root: Path = devices.SYS) -> None:
        self.path = path
        self.fd = fd
        self.rdev = os.fstat(fd).st_rdev
        self.consented = facts
        self.sys_root = sys_root
        self.written_below = 0  # bytes from the start that this run's steps may have written

    def identity(self) -> dict[str, int]:
        return {"rdev": self.rdev}

    def note_writes(self, size: int) -> None:
        """A write step is about to run over the first `size` bytes: they are the run's own from now on."""
        self.written_below = max(self.written_below, size)

    def check(self) -> str | None:
        """What changed since the consent (as a person would say it), or None."""
        try:
            st = os.stat(self.path)
        except OSError as exc:
            return f"{self.path} cannot be checked: {exc.strerror or exc}"
        if not stat.S_ISBLK(st.st_mode) or st.st_rdev != self.rdev:
            now = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" if stat.S_ISBLK(st.st_mode) else "not a device"
            return f"{self.path} now leads to another device ({now}, not {self.consented.dev_id})"
        try:
            now_facts = inspect_device(self.path, fd=self.fd, sys_root=self.sys_root)
        except OSError as exc:
            return f"it cannot be read: {exc.strerror or exc}"
        return "; ".join(_changes(self.consented, now_facts, self.written_below)) or None

    def verify(self, when: str) -> None:
        reason = self.check()
        if reason is not None:
            raise DeviceChanged(f"refusing to write to {self.path} {when}: it changed since it was cleared ({reason})")

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:  # a lease dropped without close() must not keep the device from its owner
        self.close()


def _changes(old: DeviceFacts, new: DeviceFacts, written_below: int) -> list[str]:
    """How `new` differs from the consented `old`, ignoring the bytes the run itself wrote."""
    found = []
    if new.dev_id != old.dev_id:
        found.append(f"it is device {new.dev_id} now, not {old.dev_id}")
    if new.size_bytes != old.size_bytes:
        found.append(f"its size changed from {old.size_bytes} to {new.size_bytes} bytes")
    for key in sorted(set(old.identity) | set(new.identity)):
        before, after = old.identity.get(key), new.identity.get(key)
        if before == after:
            continue
        if key == "loop autoclear" and after == "1":
            found.append("it was detached (losetup -d) and goes once labtui lets go of it")
        else:
            found.append(f"its {key} changed from {before or 'none'} to {after or 'none'}")
    if new.in_use:
        found += new.usage()
    elif new.partitions != old.partitions:
        found.append(f"its partitions changed from {', '.join(old.partitions) or 'none'} to "
                     f"{', '.join(new.partitions) or 'none'}")
    if not written_below:
        appeared = [s for s in new.signatures if s not in old.signatures]
        gone = [s for s in old.signatures if s not in new.signatures]
        if appeared:
            found.append("it now holds " + ", ".join(appeared))
        if gone:
            found.append("it no longer holds " + ", ".join(gone))
        if new.head_digest != old.head_digest and not (appeared or gone):
            found.append(f"its first {_SCAN_BYTES // 1024} KiB were written by something else")
    if new.tail_offset >= written_below and new.tail_digest != old.tail_digest:
        found.append(f"its last {_TAIL_BYTES // 1024} KiB were written by something else")
    return found

