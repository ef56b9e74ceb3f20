"""What a killed run leaves behind, and how the next run finds it: a marker per running run.

While a run has a test file, a marker `<store>/running/<run id>.json` names the labtui process
that owns it (pid, host, start time) and the test file (path, device, inode). The owner holds an
exclusive flock on the marker for as long as it lives; the kernel releases it the moment the
process dies, however it dies. So the next run (any run using the same store) can tell a marker
of a live run (locked) from one whose owner is gone (not locked), and then removes the test file
if it is still the file the marker names (a regular file, same device and inode) or says what
it found and left alone; then it removes the marker.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import time
from pathlib import Path

from labtui.units import human_size


class RunMarker:
    """The marker of this process's run, locked while it lives."""

    def __init__(self, path: Path, fd: int, data: dict) -> None:
        self.path = path
        self.fd = fd
        self.data = data

    @classmethod
    def create(cls, directory: Path, run_id: str, test_file: Path) -> RunMarker:
        """Mark the run as owning `test_file` (about to be made). OSError if the marker cannot be made."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{run_id}.json"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            marker = cls(path, fd, {"run": run_id, "pid": os.getpid(), "host": socket.gethostname(),
                                    "started": time.time(), "test_file": str(test_file)})
            marker._write()
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return marker

    def record(self, dev: int, ino: int, size: int) -> None:
        """The test file exists now: note which file it is, so only that one is ever removed.

        Its size (what it will be once prepared) guards against a file that got its inode number after it.
        """
        self.data.update(dev=dev, ino=ino, size=size)
        self._write()

    def _write(self) -> None:
        # Rewritten in place: a new file would not carry the lock. Over the old text, then cut to
        # the new length: truncating first freed the file's page, and a store that filled up in
        # that instant left the marker empty and failed the run ("No space left" on the rewrite).
        text = json.dumps(self.data).encode()
        os.pwrite(self.fd, text, 0)
        os.ftruncate(self.fd, len(text))
        os.fsync(self.fd)

    def identity(self) -> tuple[int, int]:
        st = os.fstat(self.fd)
        return st.st_dev, st.st_ino

    def remove(self) -> None:
        """The run cleaned up after itself: no marker is needed any more."""
        with contextlib.suppress(OSError):
            self.path.unlink()
        self.abandon()

    def abandon(self) -> None:
        """Let go of the lock and leave the marker (what a killed run does)."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1


def clean_up(directory: Path) -> list[str]:
    """Deal with the markers of runs whose process is gone; what was done, one message each."""
    messages = []
    try:
        markers = sorted(directory.glob("*.json"))
    except OSError:
        return []
    for path in markers:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue  # its run is still going
                raise
            message = _clean_after(path, os.read(fd, 64 * 1024))
            if message:
                messages.append(message)
            with contextlib.suppress(OSError):
                path.unlink()
        except OSError:
            continue
        finally:
            os.close(fd)
    return messages


def _clean_after(marker: Path, text: bytes) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return f"removed the unreadable run marker {marker}"
    if not isinstance(data, dict) or not data.get("test_file"):
        return None
    owner = f"run {data.get('run', marker.stem)} (labtui pid {data.get('pid', '?')} on {data.get('host', '?')})"
    test_file = Path(str(data["test_file"]))
    try:
        st = os.stat(test_file, follow_symlinks=False)
    except FileNotFoundError:
        return None  # nothing left behind (its guardian, or the run itself, removed it)
    except OSError as exc:
        return f"{test_file}, the test file of {owner}, which ended without cleaning up, cannot be checked: {exc.strerror}"
    ours = (stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (data.get("dev"), data.get("ino"))
            and st.st_size <= data.get("size", 0))  # a killed preparation leaves it shorter, never longer
    if not ours:
        why = ("the run was killed before it recorded which file it made" if data.get("ino") is None
               else "it is not the file that run made")
        return (f"{test_file} may be left over from {owner}, which ended without cleaning up; it was left alone "
                f"({why}): remove it if it is labtui's")
    try:
        os.unlink(test_file)
    except OSError as exc:
        return f"could not remove {test_file}, the test file of {owner}, which ended without cleaning up: {exc.strerror}"
    return f"removed {test_file} ({human_size(st.st_size)}), the test file of {owner}, which ended without cleaning up"
