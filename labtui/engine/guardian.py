"""A tiny process that outlives a killed labtui just long enough to clean up after it.

A SIGKILL gives labtui no chance to stop fio, DiskSpd or a command step, nor to remove its test
file. Its children die with it (PR_SET_PDEATHSIG, subproc.py), but not what they started: fio's
job processes are forked and each calls setsid(), so they are in no group of labtui's and outlive
their main process. So each run starts one guardian with a pipe on its stdin and tells it, a JSON
line at a time, which process groups it started (with their tokens) and which test file
and marker it made. When labtui ends it says goodbye; if the pipe reaches end-of-file without one
(SIGKILL, a crash), the guardian kills those process groups and every process that carries their
token in its environment (LABTUI_CHILD, which fio's jobs inherit like any other process the
children start), removes the test file if it is still the one labtui made (same device and
inode, not a link), and then the marker.

The guardian imports nothing of labtui and runs as `python -I -S guardian.py` (it starts in a
few milliseconds); it sits in a session of its own, so the terminal's signals do not reach it.
What even a killed guardian leaves is found by the next run through the marker (leftovers.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

TOKEN_ENV = "LABTUI_CHILD"  # in the environment of every process a run starts, and of theirs


class Guardian:
    """labtui's side: start the guardian and tell it what to clean up should labtui be killed."""

    def __init__(self, process: subprocess.Popen | None) -> None:
        self.process = process

    @classmethod
    def start(cls) -> Guardian:
        """A guardian for this process; one that does nothing where it cannot run (not POSIX)."""
        if os.name != "posix":
            return cls(None)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(os.getpid())],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, close_fds=True,
            )
        except OSError:
            return cls(None)
        return cls(process)

    def _say(self, **message: str | int | None) -> None:
        if self.process is None or self.process.stdin is None:
            return
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):  # the guardian is gone: nothing left to tell
            self.process.stdin = None

    def watch_group(self, pgid: int, token: str | None = None) -> None:
        """Kill this process group should labtui die, and every process whose environment has
        LABTUI_CHILD=`token` (what its leader started, in whatever group)."""
        self._say(watch="group", pgid=pgid, token=token)

    def forget_group(self, pgid: int) -> None:
        self._say(forget="group", pgid=pgid)

    def watch_file(self, path: Path, dev: int | None = None, ino: int | None = None, *, marker: bool = False) -> None:
        """Remove `path` should labtui die, if it is still this file (the one there now by default).

        A `marker` goes last, and only once every other file is gone: what it says is still true otherwise.
        """
        if dev is None or ino is None:
            st = os.stat(path, follow_symlinks=False)
            dev, ino = st.st_dev, st.st_ino
        self._say(watch="marker" if marker else "file", path=str(path), dev=dev, ino=ino)

    def forget_file(self, path: Path, *, marker: bool = False) -> None:
        self._say(forget="marker" if marker else "file", path=str(path))

    def close(self) -> None:
        """labtui ends normally: the guardian leaves everything as it is and exits."""
        self._say(bye=True)
        self.abandon()
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=2)

    def abandon(self) -> None:
        """Close the pipe without a goodbye: to the guardian, labtui has died."""
        if self.process is not None and self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
            self.process.stdin = None


# --------------------------------------------------------------------------- the guardian process


def main(argv: list[str]) -> int:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTSTP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    groups: dict[int, str] = {}  # process group -> the token in its processes' environment
    files: dict[str, tuple[int, int]] = {}
    markers: dict[str, tuple[int, int]] = {}
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("bye"):
            return 0
        kind = message.get("watch") or message.get("forget")
        watch = "watch" in message
        if kind == "group":
            if watch:
                groups[int(message["pgid"])] = str(message.get("token") or "")
            else:
                groups.pop(int(message["pgid"]), None)
        elif kind in ("file", "marker"):
            table = files if kind == "file" else markers
            if watch:
                table[message["path"]] = (int(message["dev"]), int(message["ino"]))
            else:
                table.pop(message["path"], None)
    # End of file without a goodbye: labtui is gone.
    for pgid in groups:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    kill_orphans(set(groups.values()))
    if groups:
        time.sleep(0.1)  # let the killed engines close the file before it goes
    removed = [_remove(path, dev, ino) for path, (dev, ino) in files.items()]
    if all(removed):
        for path, (dev, ino) in markers.items():
            _remove(path, dev, ino)
    return 0


def kill_orphans(tokens: set[str]) -> None:
    """SIGKILL every process whose environment carries one of `tokens` (LABTUI_CHILD=token): the
    children labtui started and everything they started, in whatever group or session they are."""
    wanted = {f"{TOKEN_ENV}={token}".encode() for token in tokens if token}
    if not wanted:
        return
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
            if wanted.intersection(environ.split(b"\0")):
                os.kill(int(entry), signal.SIGKILL)


def _remove(path: str, dev: int, ino: int) -> bool:
    """Remove `path` if it is that very file; whether it is gone now."""
    try:
        st = os.stat(path, follow_symlinks=False)
        if not (stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (dev, ino)):
            return False
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv))
