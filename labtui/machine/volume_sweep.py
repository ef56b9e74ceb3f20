"""Which volumes a run on every volume tests, where it writes on each, and why it skips the others.

The seed post's script (Test-ConfigMgrWorkload.ps1) runs DiskSpd "against every volume on the
server": every fixed local disk (WMI DriveType 3), skipping one without the test file's size plus
10 GB free. Here that is every mounted file system on a fixed disk that can be written: memory and
container file systems, network and other file systems with no disk under them, removable media,
loop devices (a file on another file system), read-only mounts and a second mount of a file system
already listed are skipped, each with its reason, and so is a volume without the profile's test
file plus free-space margin free (configmgr-sql's margin is the script's 10 GiB). Pure: the caller
passes the volumes and disks (a test injects them), and nothing is created here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from labtui.errors import LabtuiError
from labtui.machine.devices import Disk, Volume
from labtui.machine.paths import nearest_existing
from labtui.machine.target_choice import default_directory
from labtui.model.profile import Profile

# Loop devices are files on another file system; RAM disks and zram are memory.
VIRTUAL_DISKS = ("loop", "ram", "zram")
MEMORY_FS = ("tmpfs", "ramfs", "devtmpfs")
CONTAINER_FS = ("overlay", "overlayfs", "aufs", "squashfs")


@dataclass(frozen=True)
class SweepTarget:
    """A volume the sweep runs on, and the directory its test file goes in."""

    volume: Volume
    directory: Path

    @property
    def tag(self) -> str:
        return volume_tag(self.volume)


@dataclass(frozen=True)
class Skipped:
    volume: Volume
    reason: str
    # Skipped for want of room: the largest test file that fits beside the profile's margin (bytes; 0:
    # none), from which the sweep says how to make room as `labtui run` does. None: skipped for another reason.
    room_for_file: int | None = None


def volume_tag(volume: Volume) -> str:
    """The tag a sweep's result carries: which volume it ran on ("volume:/", "volume:/data")."""
    return f"volume:{volume.mount_point}"


def plan_sweep(
    profile: Profile,
    volumes: Sequence[Volume],
    disks: Sequence[Disk],
    home: Path,
    *,
    writable: Callable[[Path], bool] | None = None,
) -> tuple[list[SweepTarget], list[Skipped]]:
    """The volumes a sweep runs `profile` on, in order, and those it skips with their reasons.

    `writable(path)` says whether this process may create the test file there (os.access on the
    nearest existing directory unless a test injects it).
    """
    writable = writable or _writable
    by_name = {d.name: d for d in disks}
    chosen: list[SweepTarget] = []
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}  # file system (dev id) -> the mount point it is tested at
    for volume in volumes:
        reason = _unfit(volume, by_name.get(volume.disk or ""))
        room = None
        free = volume.free_bytes
        shortfall = profile.space_shortfall(free) if reason is None and free is not None else None
        if shortfall and free is not None:
            reason = f"not enough free space: {shortfall}"
            room = free - profile.free_space_margin if profile.needs_test_file else 0
        if reason is None and volume.dev_id and volume.dev_id in seen:
            reason = f"the same file system as {seen[volume.dev_id]}, which is tested already"
        directory = default_directory(volume, home, volumes)
        if reason is None and not writable(directory):
            reason = f"permission denied: cannot write in {_existing(directory)}"
        if reason is not None:
            skipped.append(Skipped(volume, reason, room))
            continue
        if volume.dev_id:
            seen[volume.dev_id] = volume.mount_point
        chosen.append(SweepTarget(volume, directory))
    return chosen, skipped


def _unfit(volume: Volume, disk: Disk | None) -> str | None:
    fs = volume.filesystem
    if fs in MEMORY_FS:
        return f"{fs} keeps its files in memory: no disk to measure"
    if fs in CONTAINER_FS or (volume.pseudo and not volume.device):
        return f"{fs} is a pseudo file system (a container's or an image's layers), not a disk"
    if volume.read_only:
        return "mounted read-only: nothing can be written there"
    if not volume.device:
        return f"{fs} from {volume.source} has no disk under it (network or virtual file system)"
    name = volume.disk or os.path.basename(volume.device)
    if name.startswith("loop"):
        return f"on {name}, a loop device (a file on another file system), not a fixed disk"
    if name.startswith(VIRTUAL_DISKS):
        return f"on {name}, a memory device, not a fixed disk"
    if disk is not None and disk.removable:
        return f"on removable media ({disk.kind}, /dev/{disk.name}): not a fixed disk"
    if disk is not None and disk.read_only:
        return f"/dev/{disk.name} is read-only"
    if volume.free_bytes is None:
        return "its free space cannot be read"
    return None  # the free space itself: plan_sweep, which keeps the room there is for the skip's advice


def _existing(path: Path) -> Path:
    try:
        return nearest_existing(path)[0]
    except LabtuiError:
        return path.parent  # a link to nowhere: the runner's preflight says so when the run starts


def _writable(path: Path) -> bool:
    return os.access(_existing(path), os.W_OK | os.X_OK)
