"""What a killed run leaves behind, and how the next run finds it: a marker per running run.

While a run has its own directory in the target (labtui.engine.rundir), a marker
`<store>/running/<run id>.json` names the labtui process that owns it (pid, host, start time), that
directory (path, device, inode) and its test file (device, inode, size). The owner holds an
exclusive flock on the marker for as long as it lives; the kernel releases it the moment the
process dies, however it dies. So the next run (any run using the same store) can tell a marker of
a live run (locked) from one whose owner is gone (not locked). A run killed outright is cleaned up
by its guardian, which then notes in the marker when it found labtui gone and what it did; the
next run (or the TUI as it starts) says so, and removes what the guardian could not: the run's
directory if it is still the one the marker names, or says what it found and left alone.

A marker is trusted no further than who could have written it. labtui runs as root, and a marker
naming any path with its device and inode once made the next run delete that file. So the markers
directory must be the user's own (theirs, writable by nobody else), a marker a regular file of
theirs (made with mode 0600; one others can write is not believed), and what it names only ever
the run's own directory (`labtui-<run id>`, theirs, 0700, its device and inode recorded) or, from
labtui versions before it, a file named `labtui-<run id>.dat` of theirs. Anything else is reported
and left alone.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import socket
import stat
import time
from pathlib import Path
from typing import Any

from labtui.engine.rundir import RUN_DIR_MODE, SCRATCH_PREFIX, run_dir_name, test_file_name
from labtui.results.trust import not_private
from labtui.units import human_size

MARKER_MODE = 0o600
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class RunMarker:
    """The marker of this process's run, locked while it lives."""

    def __init__(self, path: Path, fd: int, data: dict) -> None:
        self.path = path
        self.fd = fd
        self.data = data

    @classmethod
    def create(cls, directory: Path, run_id: str, run_dir: Path) -> RunMarker:
        """Mark the run as owning `run_dir` (about to be made). OSError if the marker cannot be made."""
        own_directory(directory)
        path = directory / f"{run_id}.json"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, MARKER_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            marker = cls(path, fd, {"run": run_id, "pid": os.getpid(), "host": socket.gethostname(),
                                    "started": time.time(), "run_dir": str(run_dir),
                                    "test_file": str(run_dir / test_file_name(run_id))})
            marker._write()
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return marker

    def record_dir(self, dev: int, ino: int) -> None:
        """The run's directory exists now: note which one it is, so only that one is ever removed."""
        self.data.update(dir_dev=dev, dir_ino=ino)
        self._write()

    def record(self, dev: int, ino: int, size: int) -> None:
        """The test file exists now: note which file it is (and the size it will have once prepared)."""
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


def own_directory(directory: Path) -> None:
    """Make `directory` (0700) if missing; OSError unless it is a directory of this user's that nobody
    else can write: a marker there is believed when the next run cleans up."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    problem = not_private(os.lstat(directory))
    if problem:
        raise OSError(errno.EPERM, f"{directory}: {problem}")


def clean_up(directory: Path) -> list[str]:
    """Deal with the markers of runs whose process is gone; what was done, one message each."""
    try:
        st = os.lstat(directory)
    except OSError:
        return []
    problem = not_private(st)
    if problem:
        return [f"the run markers in {directory} were not looked at: {problem}; labtui believes them only in a "
                "directory of the user running it that nobody else can write"]
    messages = []
    try:
        markers = sorted(directory.glob("*.json"))
    except OSError:
        return []
    for path in markers:
        try:
            fd = os.open(path, os.O_RDWR | _NOFOLLOW)
        except OSError as exc:
            messages.append(f"left the run marker {path} alone: it cannot be opened ({exc.strerror or exc})")
            continue
        try:
            problem = not_private(os.fstat(fd), "file")
            if problem:
                messages.append(f"left the run marker {path} alone: {problem}, so labtui did not make it")
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue  # its run is still going
                raise
            message = _clean_after(path, os.read(fd, 64 * 1024))
            if message:
                messages.append(message)
            with contextlib.suppress(OSError):  # said once: its run is over
                path.unlink()
        except OSError:
            continue
        finally:
            os.close(fd)
    return messages


def _owner_text(data: dict, marker: Path) -> str:
    """The run a marker is of, as a message names it."""
    started = data.get("started")
    when = ""
    if isinstance(started, (int, float)):
        when = f", started {_when(started)}"
    return f"run {data.get('run', marker.stem)} (labtui pid {data.get('pid', '?')} on {data.get('host', '?')}{when})"


def _when(seconds: float) -> str:
    moment = time.localtime(seconds)
    today = time.strftime("%Y-%m-%d", moment) == time.strftime("%Y-%m-%d")
    return time.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S", moment)


def _clean_after(marker: Path, text: bytes) -> str | None:
    """What was done after the run `marker` names (None: nothing to say)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return f"removed the unreadable run marker {marker}"
    run = data.get("run")
    if not isinstance(run, str) or not _RUN_ID.match(run) or marker.name != f"{run}.json":
        return f"removed the run marker {marker}: the run it names is not the one its name says; nothing was removed"
    owner = _owner_text(data, marker)
    if isinstance(data.get("run_dir"), str):
        left = _clean_run_dir(Path(data["run_dir"]), run, data)
    elif isinstance(data.get("test_file"), str):
        left = _clean_old_test_file(Path(data["test_file"]), run, data)
    else:
        left = None
    killed = data.get("killed")
    if isinstance(killed, (int, float)):
        head = f"{owner} was killed at {_when(killed)}: {_guardian_text(data)}"
        return f"{head}; {left}" if left else head
    return f"{owner} ended without cleaning up: {left}" if left else None


def _guardian_text(data: dict) -> str:
    cleaned = [str(item) for item in data.get("cleaned", ()) if isinstance(item, str)]
    return "its guardian " + (", ".join(cleaned) if cleaned else "found nothing to clean up")


def _clean_run_dir(path: Path, run: str, data: dict) -> str | None:
    """Remove the run's own directory (what the marker names, if it is that directory of this user's,
    holding only the run's test file and scratch directories): what was done or found, or None where
    nothing is left."""
    if path.name != run_dir_name(run) or not path.is_absolute():
        return f"its marker names {path}, not the run's own directory: left alone"
    try:
        parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
    except OSError:
        return None  # the directory it was in is gone, and the run's with it
    try:
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent)
        except FileNotFoundError:
            return None  # nothing left behind (its guardian, or the run itself, removed it)
        except OSError as exc:
            return f"{path} cannot be checked ({exc.strerror or exc}): left alone"
        try:
            st = os.fstat(fd)
            ours = (st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == RUN_DIR_MODE
                    and (st.st_dev, st.st_ino) == (data.get("dir_dev"), data.get("dir_ino")))
            if not ours:
                why = ("the run was killed before it recorded which directory it made" if data.get("dir_ino") is None
                       else "it is not the directory that run made")
                return f"{path} may be left over; it was left alone ({why}): remove it if it is labtui's"
            size, unknown = _empty_run_dir(fd, run, data)
        finally:
            os.close(fd)
        if unknown:
            return (f"{path} holds what labtui did not make ({', '.join(unknown[:3])}): it was left alone, "
                    "remove it if it is labtui's")
        with contextlib.suppress(OSError):
            os.rmdir(path.name, dir_fd=parent)
        return f"removed {path}" + (f" and its test file ({human_size(size)})" if size else "")
    finally:
        os.close(parent)


def _empty_run_dir(fd: int, run: str, data: dict) -> tuple[int, list[str]]:
    """Remove the test file and scratch directories of this user's in the run directory `fd`: (the test
    file's size, the names of anything else, which stays)."""
    size, unknown = 0, []
    for name in sorted(os.listdir(fd)):
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue
        if st.st_uid != os.geteuid():
            unknown.append(name)
        elif name == test_file_name(run) and stat.S_ISREG(st.st_mode):
            os.unlink(name, dir_fd=fd)
            size = st.st_size
        elif name.startswith(SCRATCH_PREFIX) and stat.S_ISDIR(st.st_mode):
            shutil.rmtree(name, dir_fd=fd)
        else:
            unknown.append(name)
    return size, unknown


def _clean_old_test_file(test_file: Path, run: str, data: dict[str, Any]) -> str | None:
    """A marker of a labtui from before runs had their own directory: its test file, straight in the target."""
    if test_file.name != test_file_name(run) or not test_file.is_absolute():
        return f"its marker names {test_file}, not the run's test file: left alone"
    try:
        st = os.stat(test_file, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{test_file}, its test file, cannot be checked: {exc.strerror}"
    ours = (stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()
            and (st.st_dev, st.st_ino) == (data.get("dev"), data.get("ino"))
            and st.st_size <= data.get("size", 0))  # a killed preparation leaves it shorter, never longer
    if not ours:
        why = ("the run was killed before it recorded which file it made" if data.get("ino") is None
               else "it is not the file that run made")
        return f"{test_file} may be left over; it was left alone ({why}): remove it if it is labtui's"
    try:
        os.unlink(test_file)
    except OSError as exc:
        return f"could not remove {test_file}, its test file: {exc.strerror}"
    return f"removed {test_file} ({human_size(st.st_size)}), its test file"
