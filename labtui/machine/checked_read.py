"""Reading a file another user may have planted or may swap: opened once, checked on that descriptor, read from it.

Checked by name and read by name, a file swapped meanwhile for a FIFO hung labtui (as root) on the read, and a
size or owner checked by name could be beaten the same way. So a file labtui reads from outside its control (a
result or profile in the store, a report to import, a hosts file, config.toml) is opened once, without
blocking (a FIFO would wait for a writer forever) and without taking a terminal, then checked on the open
descriptor (a regular file, its size, its owner and mode as the caller asks) and read from that same
descriptor, never more than the cap whatever the file grows to meanwhile.

The callers word their own one-line errors from `Unreadable`'s facts: each says what the file should have been.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from labtui.machine.writers import user_name

__all__ = ["Unreadable", "foreign_owner", "kind_of", "read_checked"]

_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a link"),
)
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class Unreadable(Exception):
    """Why the file was not read, as facts the caller words: `kind` is "missing", "directory", "special" (a FIFO,
    a device, a socket; `what` names it), "link" (not followed), "refused" (the caller's check: `reason`),
    "large" (`size`: what it claims, or None when it grew past the cap while read) or "unreadable" (`reason`:
    the system's words)."""

    def __init__(self, kind: str, reason: str = "", *, what: str = "", size: int | None = None) -> None:
        super().__init__(reason or what or kind)
        self.kind, self.reason, self.what, self.size = kind, reason, what, size

    def said(self, limit: int) -> str:
        """In plain words, for a caller with nothing more particular to say: "it is a FIFO, not a regular file"."""
        if self.kind in ("directory", "special", "link"):
            return f"it is {self.what}, not a regular file"
        if self.kind == "large":
            size = f"{self.size:,} bytes" if self.size is not None else "it grew"
            return f"{size}: more than the {limit:,} bytes it may have"
        return self.reason or self.kind


def kind_of(mode: int) -> str:
    """"a FIFO", "a directory" ... for what is not a regular file."""
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def foreign_owner(info: os.stat_result) -> str | None:
    """Why a file labtui is about to trust (one that names programs it runs) could be another user's choice:
    "it belongs to alice" (neither this user's nor root's), or, as root, "others can write it (mode 0666)"."""
    if info.st_uid not in (os.geteuid(), 0):
        return f"it belongs to {user_name(info.st_uid)}"
    if os.geteuid() == 0 and info.st_mode & 0o022:
        return f"others can write it (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def read_checked(path: str | os.PathLike, limit: int, *, follow_links: bool = True,
                 check: Callable[[os.stat_result], None] | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file at `path` (at most `limit`) and its stat, both of one descriptor.

    `check` is called with the descriptor's stat before anything is read (a caller's owner rule: it raises its
    own error). follow_links=False refuses a link at the last component (Unreadable "link")."""
    flags = _FLAGS | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise Unreadable("missing", "No such file or directory") from None
    except IsADirectoryError:
        raise Unreadable("directory", what="a directory") from None
    except OSError as exc:
        mode = _mode(path, follow_links)
        if mode is not None and stat.S_ISLNK(mode) and not follow_links and exc.errno == errno.ELOOP:
            raise Unreadable("link", what="a link") from None
        if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
            raise Unreadable("special", what=kind_of(mode)) from None  # a socket cannot be opened at all (ENXIO)
        raise Unreadable("unreadable", exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise Unreadable("directory", what="a directory")
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("special", what=kind_of(info.st_mode))
        if check is not None:
            check(info)
        if info.st_size > limit:
            raise Unreadable("large", size=info.st_size)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Unreadable("large")
        return b"".join(chunks), info
    except OSError as exc:
        raise Unreadable("unreadable", exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _mode(path: str | os.PathLike, follow_links: bool) -> int | None:
    try:
        return (os.stat if follow_links else os.lstat)(Path(path)).st_mode
    except (OSError, ValueError):
        return None
