"""Choosing where a run writes: the volume, a directory on it, and whether a profile fits there.

Plain functions over `engine.devices` facts, shared by the TUI and anything else that offers a
choice of target. Nothing is created here: a target directory must exist, but for labtui's own
folder at a mount point, which the runner makes when a run starts (and checks everything again in
its preflight). A raw block device is a target of its own kind:
no volume, no test file, and what was found on it (the runner's guard decides again at the start).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labtui.errors import LabtuiError, ValidationError
from labtui.machine.devices import Disk, Volume, is_block_device, list_disks, list_volumes, volume_of
from labtui.machine.drive import disk_facts
from labtui.machine.paths import missing_refusal, nearest_existing, own_folder
from labtui.machine.writers import foreign_link
from labtui.model.profile import Profile
from labtui.model.result import DriveFacts
from labtui.units import format_size, human_duration, human_size


@dataclass(frozen=True)
class DeviceScan:
    """What the machine has: whole disks and mounted volumes, in `engine.devices` order."""

    disks: tuple[Disk, ...]
    volumes: tuple[Volume, ...]
    # Each disk's drive facts (labtui.machine.drive) by kernel name, and why smartctl said nothing (None: it did).
    health: dict[str, tuple[DriveFacts | None, str | None]] = field(default_factory=dict)

    def disk(self, name: str | None) -> Disk | None:
        return next((d for d in self.disks if d.name == name), None) if name else None

    def volume_of(self, path: Path) -> Volume | None:
        return volume_of(path, list(self.volumes))


def scan_devices() -> DeviceScan:
    """Read this machine's disks and volumes (slow-ish: sysfs walks and a statvfs per mount)."""
    disks = tuple(list_disks())
    return DeviceScan(disks, tuple(list_volumes()), {d.name: disk_facts(d.name) for d in disks})


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
    # A raw block device: `directory` is its node; the I/O goes to the device's first bytes.
    raw: bool = False
    model: str | None = None
    kind: str | None = None
    size_bytes: int | None = None
    dev_id: str | None = None
    found: str | None = None  # what is on it and what uses it, as last read (the guard reads it again)

    @classmethod
    def at(cls, path: Path, scan: DeviceScan | None = None) -> Target:
        """The target at `path`: a raw block device as itself (read now), anything else by its volume.

        Reads the device's first and last sectors and asks blkid: call it off the UI thread where
        the device may be slow. Without `scan` a raw device is known as such, its facts are not.
        """
        if is_block_device(path):
            return cls.raw_device(path, scan)
        return cls.on(path, scan.volume_of(path) if scan is not None else None)

    @classmethod
    def raw_device(cls, path: Path, scan: DeviceScan | None) -> Target:
        from labtui.machine.guard import inspect_device

        if scan is None:
            return cls(path, raw=True)
        disk = scan.disk(Path(os.path.realpath(path)).name)
        try:
            facts = inspect_device(path)
        except OSError as exc:
            found, size, dev_id = f"cannot read it: {exc.strerror or exc}", None, None
        else:
            found, size, dev_id = facts.describe(), facts.size_bytes, facts.dev_id
            disk = disk or scan.disk(facts.name)
        return cls(
            directory=path, device=disk.path if disk else str(path), disk=disk.name if disk else None, raw=True,
            read_only=bool(disk and disk.read_only), model=disk.model if disk else None,
            kind=disk.kind if disk else None, size_bytes=size if size is not None else (disk.size_bytes if disk else None),
            dev_id=dev_id, found=found,
        )

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

    @property
    def what_device(self) -> str:
        return device_words(self.model, self.kind, self.size_bytes)

    def describe(self) -> str:
        """'/root on / (ext4 on vda)': the directory and what is under it; a raw device by its model and size."""
        if self.raw:
            return f"{self.directory} (raw device" + (f": {self.what_device})" if self.found is not None else ")")
        if self.mount_point is None:
            return str(self.directory)
        under = ", ".join(x for x in (self.filesystem, self.disk or self.device) if x)
        return f"{self.directory} on {self.mount_point}" + (f" ({under})" if under else "")

    def briefer(self) -> list[str]:
        """`describe()`, then shorter ways to say it, each with less of what is under the directory
        and none cut: for a line too narrow for all of it (the directory is always said whole)."""
        whole = self.describe()
        if self.raw:
            shorter = [f"{self.directory} (raw device)"]
        else:
            under = ", ".join(x for x in (self.filesystem, self.disk or self.device) if x)
            shorter = [f"{self.directory} ({under})" if under else "", str(self.directory)]
        return list(dict.fromkeys(form for form in (whole, *shorter) if form))


def home_form(directory: Path, home: str | None, account_home: str | None) -> str | None:
    """`directory` with the home directory said as "~" ("~/bench"), where "~" can be read one way
    only: `home` ($HOME) is the account's own home directory (a shell's "~" and "~user" agree) and
    not "/", and the directory is in it; else None (the directory is then said as it is)."""
    if not home or not account_home or os.path.normpath(home) != os.path.normpath(account_home):
        return None
    base = Path(os.path.normpath(home))
    if not base.is_absolute() or base == Path("/") or not directory.is_absolute():
        return None
    try:
        rest = Path(os.path.normpath(directory)).relative_to(base)
    except ValueError:
        return None
    return "~" if rest == Path(".") else f"~/{rest}"


def device_words(model: str | None, kind: str | None, size_bytes: int | None) -> str:
    """A raw device's model (or kind) and size: 'Samsung SSD 980 PRO 1TB, 932 GiB'."""
    what = model or (f"{kind} disk, model unknown" if kind else "model unknown")
    return f"{what}, {human_size(size_bytes)}"


def describe_in_full(target: Target) -> str:
    """The Run screen's target line after the path: the volume, or all that is known of a raw device."""
    if not target.raw:
        return target.describe().removeprefix(str(target.directory))
    if target.found is None:
        return " · raw block device (open the Disks screen to read what is on it)"
    number = f" {target.dev_id}" if target.dev_id else ""
    return f" · raw block device{number}, {target.what_device} · {target.found}"


def run_extent(profile: Profile, target: Target | None) -> str:
    """How long `profile` runs and what it writes besides: a test file, or a raw device's first bytes."""
    steady = any(s.steady_state for s in profile.io_steps)
    # A steady-state step may end early: its rounds' limit is the longest it takes.
    about = f"{'at most' if steady else 'about'} {human_duration(profile.planned_seconds)}"
    if profile.precondition:
        about += f" + {profile.precondition} preconditioning pass{'es' if profile.precondition != 1 else ''}"
    if target is None or not target.raw:
        return f"{about} + a {format_size(profile.file_size)} test file to write"
    # The runner's own rule: the steps use the first file_size bytes, or the whole of a smaller device.
    if target.size_bytes is not None and target.size_bytes <= profile.file_size:
        return f"{about} on the whole device, no test file"
    return f"{about} on the device's first {format_size(profile.file_size)}, no test file"


def default_directory(volume: Volume, home: Path, volumes: Sequence[Volume]) -> Path:
    """Where a run on `volume` writes unless told otherwise: the home directory where it lives on
    `volume` (a person's own space, which exists and is theirs to write in), else labtui's own folder
    at the mount point (`MOUNT/labtui`, made for the run and removed after).

    The one rule for the Disks screen's directory, its run on every marked volume and
    `labtui run --all-volumes`. The home directory's volume is the deepest mount point holding its
    real path (a home linked to /data/home/lab lives on /data), by the path alone: `volumes` may
    be a test's, mounted nowhere.
    """
    where = os.path.realpath(home)
    owners = [v for v in volumes if where == v.mount_point or where.startswith(v.mount_point.rstrip("/") + "/")]
    owner = max(owners, key=lambda v: len(v.mount_point), default=None)
    if owner is not None and owner.mount_point == volume.mount_point:
        return home
    return own_folder(volume.mount_point)


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
    refusal = foreign_link(path)  # the run's preflight rule: as root, no link another user could point elsewhere
    if refusal:
        raise ValidationError(refusal, "directory")
    try:
        existing, missing = nearest_existing(path)
    except LabtuiError as exc:  # a dangling link, a name too long, a directory that may not be looked into
        raise ValidationError(str(exc), "directory") from None
    if not missing and not existing.is_dir():
        raise ValidationError(f"{path} exists and is not a directory", "directory")
    # The run's preflight rule, word for word.
    refusal = missing_refusal(path, missing, volume.mount_point)
    if refusal:
        raise ValidationError(refusal, "directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValidationError(f"permission denied: cannot write in {existing}", "directory")
    if not missing:
        return path, "exists"
    return path, "made when a run starts (labtui's own folder), removed after it if left empty"
