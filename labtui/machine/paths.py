"""Where a run or a save will write: the nearest directory that exists, and the ones to be made below it.

The runner's preflight, the TUI's directory field and the store's writability probe all ask this
about a path that may not exist yet; they then check what they need of it (read-only mount,
permission, room) in their own words. A run's target must exist, but for labtui's own folder at
a mount point (`MOUNT/labtui`), the one directory a run makes.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from labtui.errors import LabtuiError
from labtui.printable import path_text, shown  # noqa: F401 - how paths are shown, for every caller here


def exists(path: Path) -> bool:
    """Whether `path` leads to something (following links); LabtuiError where that cannot be known.

    Path.exists() raises for a name longer than the file system takes or a directory that may not
    be looked into (Python 3.11 ignores only "no such file" and a few more), and that surfaced as
    an internal error, or a crash of the TUI as a long path was typed.
    """
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise LabtuiError(_stat_refusal(path, exc)) from None
    except ValueError:  # an embedded NUL byte
        raise LabtuiError(f"{shown(path)!r} is not a path (it holds a NUL byte)") from None
    return True


def _stat_refusal(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
        if longest > 255:
            return f"{shown(path)}: a name in it is {longest} bytes long, more than a file system takes (255)"
        return f"{shown(path)}: the path is {len(os.fsencode(path))} bytes long, more than the system takes"
    if exc.errno == errno.ELOOP:
        return f"{shown(path)}: its symbolic links lead to one another in a loop"
    if exc.errno == errno.EACCES:
        return f"permission denied: cannot look into {shown(_deepest_searchable(path))}, which holds {shown(path)}"
    return f"cannot inspect {shown(path)}: {exc.strerror or exc}"


def _deepest_searchable(path: Path) -> Path:
    """The directory on the way to `path` whose permissions stop a look further in."""
    for parent in reversed(path.parents):
        if not os.access(parent, os.X_OK):
            return parent
    return path.parent


def nearest_existing(path: Path) -> tuple[Path, list[Path]]:
    """`path` itself if it exists, else its deepest existing ancestor; and the missing ones, outermost last.

    A dangling symbolic link on the way is a LabtuiError: making the directory would fail with
    "File exists" after every check had passed. So is a path that cannot be looked at (`exists`).
    """
    existing = path
    missing: list[Path] = []
    while not exists(existing):
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
