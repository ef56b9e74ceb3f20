"""One measuring run per disk: a lock on the disk that holds the target, across users and stores.

Two runs on one disk (two labtui processes, or a check between its passes and another run) each
report figures the other disturbed. So a run holds an exclusive flock, from its preflight to its
end (a check: across all its passes), on a lock file named after the whole disk that holds the
target: the disk of the file system a directory target is on (its st_dev), or of a raw device
target (its st_rdev). Two directories on one disk, two partitions of it, a partition and its disk
conflict; a file system with no disk of its own (tmpfs, overlay) is its own key.

The lock files live where only the user's own runs can make them, not in a store, so runs of
every LABTUI_HOME of theirs see them: root's in /run/labtui (root's alone), anyone else's in their
runtime directory ($XDG_RUNTIME_DIR/labtui, else a directory of theirs in the system's temporary
one); LABTUI_LOCK_DIR overrides it, as the tests do. They once lived in /run/lock, which every
user can write: anyone could make a disk's lock file, hold it, and block every run on that disk
forever with a holder text of their choosing. A directory or a lock file that is not the user's
alone is not used (the run says it could take no lock). So runs of two different users on one
disk do not see each other: a lock another user could take is one they could block root with.
A lock file holds its holder's pid, start time and target, for the refusal's message, which
names whose run it is (the file's owner). The kernel releases a flock when its holder dies,
however it dies: a stale lock file blocks nothing, and the next run takes it over.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.paths import nearest_existing, shown
from labtui.printable import printable_fields
from labtui.results.trust import not_private, user_name

LOCK_DIR_ENV = "LABTUI_LOCK_DIR"
ROOTS_DIR = "/run/labtui"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class TargetBusy(LabtuiError):
    """Another labtui run is measuring the disk that holds the target."""


@dataclass(frozen=True)
class DiskKey:
    """Which disk a target is on: its "major:minor" (the lock's key) and its name for messages."""

    dev_id: str
    name: str


def lock_dir() -> Path:
    """Where this user's runs keep their disks' locks (see the module's notes)."""
    given = os.environ.get(LOCK_DIR_ENV)
    if given:
        return Path(given)
    if os.geteuid() == 0 and os.path.isdir(os.path.dirname(ROOTS_DIR)):
        return Path(ROOTS_DIR)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return Path(runtime) / "labtui"
    return Path(tempfile.gettempdir()) / f"labtui-locks-{os.geteuid()}"


def _own_lock_dir(directory: Path) -> str | None:
    """Make the lock directory (0700) if missing; why it is not this user's alone, or None."""
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        return not_private(os.lstat(directory))
    except OSError as exc:
        return exc.strerror or str(exc)


def disk_key(path: str | os.PathLike, *, device: bool = False) -> DiskKey:
    """The disk that holds `path`: a raw block device's own (`device`), or that of the file system
    `path` (an existing file or directory) is on. OSError if `path` cannot be looked at."""
    st = os.stat(path)
    number = st.st_rdev if device else st.st_dev
    dev_id = f"{os.major(number)}:{os.minor(number)}"
    name, disk = devices.disk_of_device(dev_id)
    if disk is not None:
        whole = devices.disk_dev_id(disk)
        if whole is not None:
            return DiskKey(whole, disk)
    if name is not None:
        return DiskKey(dev_id, name)
    volume = None if device else devices.volume_of(os.fspath(path))
    if volume is not None:  # a file system with no disk of its own (tmpfs, overlay, NFS)
        return DiskKey(dev_id, f"the {volume.filesystem} file system at {volume.mount_point}")
    return DiskKey(dev_id, f"device {dev_id}")


def target_key(target: str | os.PathLike) -> DiskKey:
    """The disk a run on `target` measures: a raw device's, or that of the nearest existing directory
    (the one preflight checks). LabtuiError for a path that cannot be looked at."""
    path = Path(os.path.abspath(os.path.expanduser(os.fspath(target))))
    device = devices.is_block_device(path)
    probe = path if device else nearest_existing(path)[0]
    try:
        return disk_key(probe, device=device)
    except OSError as exc:
        raise LabtuiError(f"cannot inspect {shown(probe)}: {exc.strerror or exc}") from None


def hold(target: str | os.PathLike) -> tuple[TargetLock | None, str | None]:
    """Take the lock of the disk a run on `target` measures: (the lock, None), or (None, a warning
    saying why none could be taken here). TargetBusy if another labtui run holds it."""
    key = target_key(target)
    problem = _own_lock_dir(lock_dir())
    lock = TargetLock.acquire(target, key) if problem is None else None
    if lock is not None:
        return lock, None
    why = f": {problem};" if problem else ":"
    return None, (f"could not take labtui's lock for {key.name} in {lock_dir()}{why} another labtui run measuring "
                  "that disk at the same time would go unnoticed, and each would report figures the other disturbed")


@dataclass(eq=False)
class TargetLock:
    """This process's hold on a disk: measuring there is its alone until `release()`."""

    key: DiskKey
    fd: int  # the locked lock file's; -1 once released
    path: Path

    @classmethod
    def acquire(cls, target: str | os.PathLike, key: DiskKey) -> TargetLock | None:
        """Take the lock of `key`'s disk for a run on `target`. TargetBusy if another run holds it;
        None if no lock can be taken here (the file is unusable, or not this user's): the caller warns."""
        directory = lock_dir()
        path = directory / f"labtui-disk-{key.dev_id.replace(':', '-')}.lock"
        fd = _open(path)
        if fd is None:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise TargetBusy(busy_text(holder, key)) from None
            return None
        text = json.dumps({"pid": os.getpid(), "started": time.time(),
                           "target": os.path.abspath(os.fspath(target)), "disk": key.name}).encode()
        with contextlib.suppress(OSError):  # a full file system: the lock holds, its message says less
            os.pwrite(fd, text, 0)
            os.ftruncate(fd, len(text))
        return cls(key, fd, path)

    def release(self) -> None:
        """Let other runs measure the disk. Safe to call twice."""
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # what it said is no longer true (fails where it could not be written)
            os.close(fd)

    def __del__(self) -> None:
        self.release()


def _open(path: Path) -> int | None:
    """The lock file, made if missing (0600), opened without following a link; None unless it is a
    regular file of this user's."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
    except OSError:
        return None  # a link (O_NOFOLLOW), a directory, a full file system ...
    try:
        st = os.fstat(fd)
        ours = stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022
    except OSError:
        ours = False
    if not ours:
        os.close(fd)
        return None
    return fd


def _read(fd: int) -> dict:
    """What the holder wrote in the lock file, if it is still alive, with whose file it is ("owner":
    the file's owner, never what it says): {"owner"} alone when nothing more is known."""
    try:
        owner = {"owner": os.fstat(fd).st_uid}
        data = json.loads(os.pread(fd, 64 * 1024, 0) or b"{}")
    except (OSError, ValueError):
        return owner if "owner" in locals() else {}
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
        return owner
    try:
        os.kill(data["pid"], 0)
    except ProcessLookupError:
        return owner  # left by a run that died; the holder has not written yet
    except PermissionError:
        pass  # alive, another user's
    return printable_fields(data) | owner  # the holder's words: printable, whoever wrote them


def busy_text(holder: dict, key: DiskKey) -> str:
    """The one line a run refused for a busy disk says."""
    facts = []
    if isinstance(holder.get("pid"), int):
        facts.append(f"pid {holder['pid']}")
    if isinstance(holder.get("owner"), int):
        facts.append(f"user {user_name(holder['owner'])}")  # whose lock it is: the lock file's owner
    if isinstance(holder.get("pid"), int):
        started = holder.get("started")
        if isinstance(started, (int, float)):
            when = time.localtime(started)
            same_day = time.strftime("%Y-%m-%d", when) == time.strftime("%Y-%m-%d")
            facts.append("since " + time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", when))
        if isinstance(holder.get("target"), str):
            facts.append(f"-t {holder['target']}")
    who = f"another labtui run ({', '.join(facts)})" if facts else "another labtui run"
    return f"{who} is measuring {key.name}: wait for it to end"
