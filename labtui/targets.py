"""Choosing where a run writes: the volume, a directory on it, and whether a profile fits there.

Plain functions over `engine.devices` facts, shared by the TUI and anything else that offers a
choice of target. Nothing is created here: the runner creates the directory when a run starts
(and checks everything again in its preflight).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from labtui.engine.devices import Disk, Volume, list_disks, list_volumes, volume_of
from labtui.errors import ValidationError
from labtui.model import Profile


@dataclass(frozen=True)
class DeviceScan:
    """What the machine has: whole disks and mounted volumes, in `engine.devices` order."""

    disks: tuple[Disk, ...]
    volumes: tuple[Volume, ...]

    def disk(self, name: str | None) -> Disk | None:
        return next((d for d in self.disks if d.name == name), None) if name else None


def scan_devices() -> DeviceScan:
    """Read this machine's disks and volumes (slow-ish: sysfs walks and a statvfs per mount)."""
    return DeviceScan(tuple(list_disks()), tuple(list_volumes()))


@dataclass(frozen=True)
class Target:
    """The chosen place for a run: a directory, and the volume it is on (as last scanned)."""

    directory: Path
    mount_point: str | None = None
    filesystem: str | None = None
    device: str | None = None
    disk: str | None = None
    pseudo: bool = False
    read_only: bool = False
    free_bytes: int | None = None

    @classmethod
    def on(cls, directory: Path, volume: Volume | None) -> Target:
        if volume is None:
            return cls(directory)
        return cls(
            directory=directory,
            mount_point=volume.mount_point,
            filesystem=volume.filesystem,
            device=volume.device or volume.source,
            disk=volume.disk,
            pseudo=volume.pseudo,
            read_only=volume.read_only,
            free_bytes=volume.free_bytes,
        )

    def describe(self) -> str:
        """'/root on / (ext4 on vda)': the directory and what is under it."""
        if self.mount_point is None:
            return str(self.directory)
        under = ", ".join(x for x in (self.filesystem, self.disk or self.device) if x)
        return f"{self.directory} on {self.mount_point}" + (f" ({under})" if under else "")


def default_directory(volume: Volume, home: Path, volumes: tuple[Volume, ...] | list[Volume]) -> Path:
    """The home directory on the root volume (if home lives there), else `<mount point>/labtui`."""
    if volume.mount_point == "/":
        owner = volume_of(home, list(volumes))
        if owner is not None and owner.mount_point == "/":
            return home
    return Path(volume.mount_point) / "labtui"


def refusal(volume: Volume, profile: Profile | None) -> str | None:
    """Why `volume` cannot be the target for `profile`, or None if it can."""
    if volume.read_only:
        return f"{volume.mount_point} is mounted read-only: nothing can be written there"
    if volume.pseudo and (profile is None or profile.bypasses_cache):
        what = "memory" if volume.filesystem in ("tmpfs", "ramfs", "devtmpfs") else "not a disk"
        for_what = f"{profile.name} runs with the cache off" if profile else "a cache-off profile"
        return (
            f"{volume.mount_point} is {volume.filesystem} ({what}): {for_what}, which would measure nothing "
            "about a disk there; pick a volume on a disk, or a profile with the cache on"
        )
    return None


def space_shortfall(free_bytes: int | None, profile: Profile | None) -> str | None:
    """A warning if `free_bytes` is below what `profile` needs (test file + margin), else None."""
    if free_bytes is None or profile is None:
        return None
    return profile.space_shortfall(free_bytes)


def check_directory(text: str, volume: Volume, volumes: tuple[Volume, ...] | list[Volume]) -> tuple[Path, str]:
    """The directory typed for `volume` as an absolute path, and a note on it; ValidationError if unusable."""
    text = text.strip()
    if not text:
        raise ValidationError("type the directory the test file goes in", "directory")
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        raise ValidationError(f"{text!r} is relative: give the full path (starting with / or ~)", "directory")
    path = Path(os.path.normpath(path))
    owner = volume_of(path, list(volumes))
    if owner is None or owner.mount_point != volume.mount_point:
        where = owner.mount_point if owner else "no mounted volume"
        raise ValidationError(f"{path} is on {where}, not on {volume.mount_point}", "directory")
    if path.exists() and not path.is_dir():
        raise ValidationError(f"{path} exists and is not a directory", "directory")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValidationError(f"permission denied: cannot write in {existing}", "directory")
    if path.is_dir():
        return path, "exists"
    return path, f"will be created when a run starts (inside {existing})"
