"""A real unprivileged user for the tests that play a hostile local user against labtui run as root,
and file systems on real loop devices for them to attack across.

The user is made with `useradd` (named lt-rootfiles-<random>-<what for>, no home) and removed with `userdel` after;
what it does runs through `setpriv` with its uid and gid and no other groups, so the kernel checks
its permissions as it would for anyone else on the machine.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from conftest import require_root, require_tool
from loopdev import attach


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int

    def command(self, *argv: str) -> list[str]:
        """`argv` as this user runs it."""
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", *argv]

    def start(self, *argv: str) -> subprocess.Popen:
        """`argv` as this user, in a session of its own: end it with `stop` (every process it made)."""
        return subprocess.Popen(self.command(*argv), start_new_session=True)

    @staticmethod
    def stop(proc: subprocess.Popen) -> None:
        """End what `start` started and everything it made (a program a command forked, say)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def sh(self, script: str, *, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """Run a shell script as this user."""
        out = subprocess.run(self.command("/bin/sh", "-c", script), capture_output=True, text=True, timeout=60,
                             cwd=cwd or "/")
        if check:
            assert out.returncode == 0, out.stderr
        return out


@contextmanager
def hostile_user(tag: str, prefix: str = "lt-rootfiles") -> Iterator[User]:
    """A fresh unprivileged user (named `prefix`-<random>-`tag`), removed (with anything it still runs) afterwards."""
    require_root(f"making a user with useradd ({tag})")
    require_tool("useradd")
    require_tool("setpriv")
    name = f"{prefix}-{secrets.token_hex(2)}-{tag}"[:32]  # useradd takes 32 at most
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name],
                   check=True, capture_output=True)
    try:
        out = subprocess.run(["id", "-u", name], check=True, capture_output=True, text=True)
        uid = int(out.stdout)
        gid = int(subprocess.run(["id", "-g", name], check=True, capture_output=True, text=True).stdout)
        yield User(name, uid, gid)
    finally:
        # What it ran was waited for (User.sh) or ended with its session (User.start): userdel refuses
        # a user something still runs as, and a user left behind is the machine's for good.
        gone = subprocess.run(["userdel", name], capture_output=True, text=True)
        assert gone.returncode == 0, f"could not remove the test user {name}: {gone.stderr.strip()}"


@contextmanager
def shared_place() -> Iterator[Path]:
    """A directory every user may enter (pytest's own temporary ones are root's alone), removed after."""
    directory = Path(tempfile.mkdtemp(prefix="labtui-test-rf-", dir="/tmp"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def mounted_disks(place: Path, count: int, size_mib: int = 48) -> Iterator[list[Path]]:
    """`count` ext4 file systems on loop devices of their own, mounted in `place`: other disks."""
    require_root("loop devices and mounts")
    with ExitStack() as stack:
        points = []
        for i in range(count):
            device = stack.enter_context(attach(place / f"disk{i}.img", size_mib, mkfs="mkfs.ext4"))
            point = place / f"mnt{i}"
            point.mkdir()
            subprocess.run(["mount", device, str(point)], check=True, capture_output=True)
            stack.callback(subprocess.run, ["umount", "-l", str(point)], capture_output=True)
            points.append(point)
        yield points


def open_to_all(path: Path) -> Path:
    """Make `path` a directory every user may write (as a shared lab directory often is): not sticky."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o777)
    return path


@contextmanager
def anothers_link(tag: str) -> Iterator[tuple[User, Path, Path]]:
    """A real user's link (her directory's `bench`) to another directory (root's, empty): what root must not follow."""
    with shared_place() as place, hostile_user(tag, prefix="lt-guard2") as alice:
        other = place / "other"
        other.mkdir()
        home = place / "alice"
        home.mkdir()
        os.chown(home, alice.uid, alice.gid)
        alice.sh(f"ln -s {other} {home}/bench")
        yield alice, home / "bench", other
