"""Where a run writes: the target directory it was checked for, and the run's own directory in it.

labtui runs as root on shared machines, where other people may write the target directory. A name
they can write can be re-pointed between labtui's check and its use: the target swapped for a link
to another disk at "Go ahead?" (the test file was then made and measured there, and credited to the
first), or the test file swapped for a link while fio opened it by name (another disk's file was
overwritten). So a run is bound to what it checked, never to a name:

- preflight opens the target directory once (`TargetDir`); from then on everything the run makes
  is made through that descriptor, whatever the name leads to later;
- in it the run makes a directory of its own, `labtui-<run id>` (`RunDirectory`): mode 0700, owned
  by the user running labtui (as root: root's alone), so nobody else can create, rename or link
  anything inside. The test file and the command steps' scratch directories live there;
- the engines (native, fio, DiskSpd, command steps, zpaq) are handed what is in it through
  labtui's own descriptor, `/proc/<labtui's pid>/fd/N/NAME` (`bound_path`): the kernel resolves
  that to the directory held open, not to whatever now carries its name.

At the end the run's directory is removed through the same descriptors (if it holds only what the
run made). Where /proc is missing (not Linux), the names are used as they are.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from labtui.errors import LabtuiError

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
RUN_DIR_MODE = 0o700
SCRATCH_PREFIX = "labtui-scratch-"  # a command step's scratch directory, in the run's own directory


def run_dir_name(run_id: str) -> str:
    """The name of a run's own directory in its target directory."""
    return f"labtui-{run_id}"


def test_file_name(run_id: str) -> str:
    """The name of a run's test file (in its own directory)."""
    return f"labtui-{run_id}.dat"


def fd_path(fd: int) -> str | None:
    """A path that leads to what `fd` holds open whatever its name does now (`/proc/<pid>/fd/N`), or
    None where the system has none. Other processes (the engines) can use it while labtui lives."""
    path = f"/proc/{os.getpid()}/fd/{fd}"
    try:
        there, held = os.stat(path), os.fstat(fd)
    except OSError:
        return None
    return path if (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino) else None


class TargetDir:
    """The target directory as preflight checked it, held open: its device and inode are the run's."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path  # as the person named it: for messages, never to make anything
        self.fd = fd
        st = os.fstat(fd)
        self.dev, self.ino = st.st_dev, st.st_ino

    @classmethod
    def open(cls, path: Path) -> TargetDir:
        """Open the directory `path` leads to now (OSError if it cannot be)."""
        return cls(Path(path), os.open(path, _DIRECTORY))

    def moved(self) -> str | None:
        """Why `path` no longer leads to the directory held (it was replaced or re-pointed), or None."""
        try:
            st = os.stat(self.path)
        except OSError as exc:
            return f"it cannot be looked at now: {exc.strerror or exc}"
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            return "another directory now has its name" + (" (a symbolic link)" if self.path.is_symlink() else "")
        return None

    def make_folder(self, name: str) -> TargetDir:
        """Make the directory `name` in this one (labtui's own folder at a mount point) and hold it."""
        os.mkdir(name, 0o755, dir_fd=self.fd)
        fd = os.open(name, _DIRECTORY | _NOFOLLOW, dir_fd=self.fd)
        return TargetDir(self.path / name, fd)

    @property
    def bound_path(self) -> str:
        return fd_path(self.fd) or str(self.path)

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


class RunDirectory:
    """The run's own directory, `labtui-<run id>` in the target directory: 0700, the running user's."""

    def __init__(self, parent: TargetDir, name: str, fd: int) -> None:
        self.parent = parent
        self.name = name
        self.fd = fd
        st = os.fstat(fd)
        self.dev, self.ino = st.st_dev, st.st_ino

    @classmethod
    def create(cls, parent: TargetDir, name: str) -> RunDirectory:
        """Make `name` in `parent` (it must not exist: FileExistsError) and hold it; LabtuiError if what
        was opened is not a directory this user alone can write (someone swapped it in between)."""
        os.mkdir(name, RUN_DIR_MODE, dir_fd=parent.fd)
        fd = os.open(name, _DIRECTORY | _NOFOLLOW, dir_fd=parent.fd)
        try:
            os.fchmod(fd, RUN_DIR_MODE)  # whatever the umask
            st = os.fstat(fd)
            if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) != RUN_DIR_MODE:
                raise LabtuiError(f"{parent.path / name} is not the directory labtui just made there (someone "
                                  "replaced it): nothing was written")
        except BaseException:
            os.close(fd)
            raise
        return cls(parent, name, fd)

    @property
    def path(self) -> Path:
        """Its path as people read it (the target's name, then its own)."""
        return self.parent.path / self.name

    def bound_path(self, name: str = "") -> str:
        """`name` in this directory, through labtui's descriptor of it: what the engines are handed."""
        base = fd_path(self.fd) or str(self.path)
        return f"{base}/{name}" if name else base

    def leftovers(self) -> list[str]:
        """What is in it now (names)."""
        try:
            return sorted(os.listdir(self.fd))
        except OSError:
            return []

    def remove(self) -> str | None:
        """Remove the directory if it is empty and its name still leads to it; else why it stays."""
        left = self.leftovers()
        if left:
            shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
            return f"it still holds what labtui did not make or could not remove ({shown})"
        try:
            st = os.stat(self.name, dir_fd=self.parent.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"it cannot be checked: {exc.strerror or exc}"
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            return "another directory now has its name"
        try:
            os.rmdir(self.name, dir_fd=self.parent.fd)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
