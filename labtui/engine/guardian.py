"""A tiny process that outlives a killed labtui just long enough to clean up after it.

A SIGKILL gives labtui no chance to stop fio, DiskSpd or a command step, nor to remove its test
file. Its children die with it (PR_SET_PDEATHSIG, subproc.py), but not what they started: fio's
job processes are forked and each calls setsid(), so they are in no group of labtui's and outlive
their main process. So each run starts one guardian with a socket on its stdin and tells it, a
message at a time, which process groups it started (with their tokens) and what it made (its own
directory, the test file, scratch directories, the marker). When labtui ends it says goodbye; if
the channel reaches end-of-file without one
(SIGKILL, a crash), the guardian kills those process groups and every process that carries their
token in its environment (LABTUI_CHILD, which fio's jobs inherit like any other process the
children start), removes what labtui made if it is still that (same device and inode, not a
link), through the directories labtui handed it (their descriptors: see Guardian), and notes in
the run's marker when it found labtui gone and what it cleaned: the next run says so (leftovers.py).

The guardian imports nothing of labtui and runs as `python -I -S guardian.py` (it starts in a
few milliseconds); it sits in a session of its own, so the terminal's signals do not reach it.
What even a killed guardian leaves is found by the next run through the marker (leftovers.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

TOKEN_ENV = "LABTUI_CHILD"  # in the environment of every process a run starts, and of theirs


class Guardian:
    """labtui's side: start the guardian and tell it what to clean up should labtui be killed.

    They talk over a socket of ordered messages (AF_UNIX, SOCK_SEQPACKET) on the guardian's stdin: a
    JSON object per message, and with it the descriptors of the directories what it names is in (the
    run's own directory and its target: labtui.engine.rundir), so the guardian removes what labtui
    made through those very directories, never through a name someone could re-point after labtui died.
    """

    def __init__(self, process: subprocess.Popen | None, channel: socket.socket | None = None) -> None:
        self.process = process
        self.channel = channel

    @classmethod
    def start(cls) -> Guardian:
        """A guardian for this process; one that does nothing where it cannot run (not POSIX)."""
        if os.name != "posix":
            return cls(None)
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError:
            return cls(None)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(os.getpid())],
                stdin=theirs.fileno(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, close_fds=True,
            )
        except OSError:
            ours.close()
            return cls(None)
        finally:
            theirs.close()
        return cls(process, ours)

    def _say(self, fds: tuple[int, ...] = (), **message: str | int | None) -> None:
        if self.channel is None:
            return
        data = json.dumps(message).encode()
        try:
            if fds:
                socket.send_fds(self.channel, [data], list(fds))
            else:
                self.channel.send(data)
        except OSError:  # the guardian is gone: nothing left to tell
            self.abandon()

    def watch_group(self, pgid: int, token: str | None = None) -> None:
        """Kill this process group should labtui die, and every process whose environment has
        LABTUI_CHILD=`token` (what its leader started, in whatever group)."""
        self._say(watch="group", pgid=pgid, token=token)

    def forget_group(self, pgid: int) -> None:
        self._say(forget="group", pgid=pgid)

    def watch_file(self, path: Path, dev: int | None = None, ino: int | None = None, *, marker: bool = False,
                   dir_fd: int | None = None) -> None:
        """Remove `path` should labtui die, if it is still this file (the one there now by default).

        With `dir_fd` (the directory it is in, held open) it is `path`'s name in that very directory.
        A `marker` is not removed but noted: when labtui was found gone and what was cleaned up.
        """
        if dev is None or ino is None:
            st = os.stat(path.name if dir_fd is not None else path, dir_fd=dir_fd, follow_symlinks=False)
            dev, ino = st.st_dev, st.st_ino
        name = path.name if dir_fd is not None else str(path)
        self._say((dir_fd,) if dir_fd is not None else (), watch="marker" if marker else "file", path=name,
                  dev=dev, ino=ino)

    def forget_file(self, path: Path, *, marker: bool = False, dir_fd: int | None = None) -> None:
        self._say(forget="marker" if marker else "file", path=path.name if dir_fd is not None else str(path))

    def watch_tree(self, name: str, dir_fd: int, dev: int, ino: int) -> None:
        """Remove the directory `name` in `dir_fd` with everything in it (a command step's scratch)."""
        self._say((dir_fd,), watch="tree", path=name, dev=dev, ino=ino)

    def forget_tree(self, name: str) -> None:
        self._say(forget="tree", path=name)

    def watch_dir(self, name: str, dir_fd: int, dev: int, ino: int) -> None:
        """Remove the directory `name` in `dir_fd` once empty (the run's own; the last told goes first)."""
        self._say((dir_fd,), watch="dir", path=name, dev=dev, ino=ino)

    def forget_dir(self, name: str) -> None:
        self._say(forget="dir", path=name)

    def close(self) -> None:
        """labtui ends normally: the guardian leaves everything as it is and exits."""
        self._say(bye=True)
        self.abandon()
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=2)

    def abandon(self) -> None:
        """Close the channel without a goodbye: to the guardian, labtui has died."""
        channel, self.channel = self.channel, None
        if channel is not None:
            with contextlib.suppress(OSError):
                channel.close()


# --------------------------------------------------------------------------- the guardian process

# What the guardian removes, by kind: (the directory's descriptor or None for a path, name, dev, ino).
Entry = tuple[int | None, str, int, int]


def main(argv: list[str]) -> int:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTSTP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    groups: dict[int, str] = {}  # process group -> the token in its processes' environment
    tables: dict[str, dict[str, Entry]] = {"file": {}, "tree": {}, "dir": {}, "marker": {}}
    channel = socket.socket(fileno=0)
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(channel, 65536, 4)
        except OSError:
            break
        if not data:
            break
        try:
            message = json.loads(data)
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
        elif kind in tables:
            if watch:
                tables[kind][message["path"]] = (fds[0] if fds else None, message["path"], int(message["dev"]),
                                                 int(message["ino"]))
            else:
                tables[kind].pop(message["path"], None)
    # End of file without a goodbye: labtui is gone.
    killed = time.time()
    for pgid in groups:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    kill_orphans(set(groups.values()))
    if groups:
        time.sleep(0.1)  # let the killed engines close the file before it goes
    cleaned = ["stopped its engine processes"] if groups else []
    for kind, what in (("file", "its test file"), ("tree", "its scratch directory"), ("dir", "its directory")):
        entries = list(tables[kind].values())
        removed = [_remove(*entry, tree=kind == "tree", directory=kind == "dir") for entry in reversed(entries)]
        if any(removed):
            cleaned.append(f"removed {what}" + (" (and labtui's folder)" if kind == "dir" and sum(removed) > 1 else ""))
        if not all(removed):
            cleaned.append(f"could not remove {what}")
    # The marker stays, saying what happened: the next run (or the TUI as it starts) tells the person
    # which run was killed and when, and removes what could not be removed here.
    for _fd, path, _dev, _ino in tables["marker"].values():
        _note_killed(path, killed, cleaned)
    return 0


def _note_killed(path: str, when: float, cleaned: list[str]) -> None:
    """Add to the run's marker when labtui was found gone and what was cleaned up after it."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        data = json.loads(os.pread(fd, 65536, 0))
        if isinstance(data, dict):
            text = json.dumps(data | {"killed": when, "cleaned": cleaned}).encode()
            os.pwrite(fd, text, 0)
            os.ftruncate(fd, len(text))
            os.fsync(fd)
    except (OSError, ValueError):
        pass
    finally:
        os.close(fd)


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


def _remove(dir_fd: int | None, name: str, dev: int, ino: int, *, tree: bool = False, directory: bool = False) -> bool:
    """Remove `name` (in `dir_fd`, or a path) if it is that very file or directory; whether it is gone now."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        kind = stat.S_ISDIR(st.st_mode) if tree or directory else stat.S_ISREG(st.st_mode)
        if not (kind and (st.st_dev, st.st_ino) == (dev, ino)):
            return False
        if tree:
            import shutil  # only here: the guardian starts in milliseconds without it

            shutil.rmtree(name, dir_fd=dir_fd)
        elif directory:
            os.rmdir(name, dir_fd=dir_fd)  # only once empty: never what someone else put there
        else:
            os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv))
