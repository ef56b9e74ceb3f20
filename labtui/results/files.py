"""Files as labtui writes and reads them: atomically (a reader sees the old file or the new one),
TOML with short arrays, tolerant reads that report a broken file instead of failing.

Shared by the store, the summary index, baselines and the TUI's exports; it knows nothing of what
the files hold.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import math
import os
import re
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from labtui.results.trust import root_write_refusal


def atomic_write(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write `text` to `path` so a reader sees the old file or the new one, never half of one.

    With `exclusive`, fail with FileExistsError instead of replacing an existing file: the
    final step is a hard link, which (unlike rename) refuses to overwrite.
    """
    refusal = root_write_refusal(path)
    if refusal is not None:  # every file labtui writes as root: the store's, an export, a picture
        raise PermissionError(errno.EACCES, refusal, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    # Locked until it is in place: a temp file nobody holds was left by a writer that was killed
    # (Store.recover_saves puts a whole one in place), one that is locked is being written now.
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        # mkstemp makes the file private (0600); a result on a shared lab disk should be as
        # readable as any other file the person creates (or keep the mode of the file it replaces).
        with contextlib.suppress(OSError):
            os.fchmod(fd, mode)
        with os.fdopen(os.dup(fd), "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            _link_exclusive(tmp, path)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        os.close(fd)
    _fsync_dir(path.parent)


TEMP_SUFFIX = ".tmp"


def temp_target(name: str) -> str | None:
    """The name of the file an atomic_write temp file called `name` was to become (".x.toml.ab12cd.tmp" is
    "x.toml"), or None if `name` is not one."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    stem, dot, _random = name[1 : -len(TEMP_SUFFIX)].rpartition(".")
    return stem if dot and stem else None


# File systems without hard links (FAT and exFAT USB sticks, some network shares) say so thus.
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK}


def _link_exclusive(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        # Claim the name with O_EXCL (which refuses an existing file too), then rename over the
        # claim. A reader in between sees an empty file, which it reports and skips.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        return
    # The result is saved once the link exists; a leftover hidden temp file must not undo that.
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _file_mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # the only portable way to read it is to set it
    os.umask(mask)
    return mask


def _fsync_dir(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk too.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_MULTILINE_ARRAY = re.compile(r"\[\n((?: +[^\n]*,\n)+) *\]")


def dumps_toml(data: dict[str, Any]) -> str:
    """tomli_w's output with arrays of plain values on one line (a series stays a few lines)."""
    text = tomli_w.dumps(data)
    # Safe because tomli_w writes one complete literal per line and escapes "\n" in strings;
    # arrays of tables are written as [[tables]], never inline. Split on "\n" alone: a string
    # may hold other characters str.splitlines() breaks at ("\x85", "\u2028"), unescaped.
    return _MULTILINE_ARRAY.sub(
        lambda m: "[" + ", ".join(line.strip(" ").removesuffix(",") for line in m.group(1).split("\n")[:-1]) + "]",
        text,
    )


def loads_toml(text: str) -> dict[str, Any]:
    """tomllib.loads, with a table or array nested past what Python can follow as a ValueError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to read (arrays or tables inside one another thousands of times)") from None


@dataclass(frozen=True)
class BrokenFile:
    """A file in the store that could not be read, and why."""

    path: Path
    reason: str


# Past this many broken files, they are counted in one line (labtui history's stderr, History's count)
# and listed on request: a store of 2,000 broken files printed 1,964 "skipped" lines before its 41 rows.
LISTED_BROKEN = 3


def json_safe(value: Any) -> Any:
    """`value` with every NaN and infinity, however deep in dicts and lists, as None.

    JSON has no NaN: a figure that could not be computed is null (and an empty CSV cell).
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
