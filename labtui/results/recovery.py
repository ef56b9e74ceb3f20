"""Results a labtui killed while saving them left behind: put in place when whole, else named.

A result is written to a hidden temp file (`.<id>.toml.<random>.tmp`), flushed to the disk, then
linked in under its name (labtui.results.files.atomic_write). A SIGKILL between the flush and the
link left a complete result that no command ever mentioned: the run looked lost. Each command and
the TUI, as they start, look for such files: one nobody holds (the writer holds a lock on it until
it is in place) that reads as a whole result goes in place under its name and is said to be
recovered; one that does not (killed while it was being written, so cut short) is named with its
path and left for the person. The end-of-result line (labtui.results.result_file) tells the two
apart.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from labtui.errors import StoreError
from labtui.results.files import temp_target

if TYPE_CHECKING:
    from labtui.results.store import Store


def recover_saves(store: Store) -> list[str]:
    """Put whole results left in temp files in place; one message per file found (none: nothing to say)."""
    try:
        names = sorted(os.listdir(store.results_dir))
    except OSError:
        return []
    messages = []
    for name in names:
        target = temp_target(name)
        if target is None or not target.endswith(".toml"):
            continue
        message = _recover(store, store.results_dir / name, target)
        if message:
            messages.append(message)
    return messages


def _recover(store: Store, temp: Path, target: str) -> str | None:
    try:
        fd = os.open(temp, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO: not waited on
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None  # being written now, by a labtui that is alive
        try:
            result = store.read_result(temp)
        except StoreError as exc:
            reason = str(exc).removeprefix(f"{temp}: ")
            return (f"{temp} is a result a labtui was saving when it was killed, and it is not whole ({reason}): "
                    "it is left as it is; remove it once you have looked")
        destination = store.results_dir / target
        if destination.is_file() and destination.read_bytes() == temp.read_bytes():
            temp.unlink()  # it was in place already: only its temp file's removal was cut short
            return None
        if destination.exists():
            destination = store.results_dir / f"{destination.stem}-recovered.toml"
        try:
            os.link(temp, destination)
            temp.unlink()
        except OSError as exc:
            return f"{temp} holds the whole result {result.id}, but it could not be put in place: {exc.strerror or exc}"
        return (f"recovered the result {result.id} ({result.status}) into {destination}: a labtui was killed as it "
                "saved it")
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
