"""Where a run or a save will write: the nearest directory that exists, and the ones to be made below it.

The runner's preflight, the TUI's directory field and the store's writability probe all ask this
about a path that may not exist yet; they then check what they need of it (read-only mount,
permission, room) in their own words. A run's target must exist, but for labtui's own folder at
a mount point (`MOUNT/labtui`), the one directory a run makes.
"""

from __future__ import annotations

import os
from pathlib import Path

from labtui.errors import LabtuiError


def nearest_existing(path: Path) -> tuple[Path, list[Path]]:
    """`path` itself if it exists, else its deepest existing ancestor; and the missing ones, outermost last.

    A dangling symbolic link on the way is a LabtuiError: making the directory would fail with
    "File exists" after every check had passed.
    """
    existing = path
    missing: list[Path] = []
    while not existing.exists():
        if existing.is_symlink():
            raise LabtuiError(f"{existing} is a symbolic link to {os.readlink(existing)}, which does not exist: "
                              "create that directory or give another target")
        missing.append(existing)
        if existing.parent == existing:
            break
        existing = existing.parent
    return existing, missing


# The one directory labtui makes itself: its own folder at a volume's mount point, where a run
# goes on a volume that holds no home directory (made for the run, removed after if still empty).
OWN_FOLDER = "labtui"


def own_folder(mount_point: str | os.PathLike) -> Path:
    """labtui's own folder on the volume mounted at `mount_point`: `<mount point>/labtui`."""
    return Path(mount_point) / OWN_FOLDER


def is_own_folder(path: Path, mount_point: str | None) -> bool:
    """Whether `path` is labtui's own folder on the volume mounted at `mount_point`."""
    return mount_point is not None and os.path.normpath(path) == os.path.normpath(own_folder(mount_point))


def missing_refusal(path: Path, missing: list[Path], mount_point: str | None) -> str | None:
    """Why a target directory is refused for what of it is missing (`nearest_existing`'s list), or None.

    A typed path that does not exist is far more often a typo than a wish for a new directory: a
    run must not make (and then remove) a directory tree the person never meant to create. The
    one exception is labtui's own folder at the mount point, which the run makes and removes.
    """
    if not missing or (missing == [path] and is_own_folder(path, mount_point)):
        return None
    first = missing[-1]
    where = "" if first == path else f" ({first} does not exist)"
    return f"no such directory: {path}{where}: create it first, or give a directory that exists"
