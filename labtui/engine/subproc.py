"""Child processes the engines drive (fio, DiskSpd, command steps): started in their own process
group, and stopped as a group — terminate, a short grace, then kill — and always reaped.

They also die with labtui if labtui is killed: each child asks the kernel for SIGKILL when its
parent dies (PR_SET_PDEATHSIG), and its process group and a token in its environment are
reported to the run's guardian (the `watcher` of the running task), which kills what the child
started too (fio's job processes leave its group, but not its environment: see guardian.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import ctypes
import os
import secrets
import signal
import sys
from asyncio.subprocess import PIPE, STDOUT, Process
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from labtui.engine.guardian import TOKEN_ENV, kill_orphans
from labtui.machine.programs import safe_path
from labtui.printable import printable

GRACE_SECONDS = 1.0  # a child gets this long to exit after SIGTERM before SIGKILL
PR_SET_PDEATHSIG = 1


def exit_text(returncode: int | None) -> str:
    """How a child ended, in words: "exited with status 1", "was killed by SIGKILL (signal 9)"."""
    if returncode is None:
        return "could not be started"
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-returncode).name} (signal {-returncode})"
        return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


class Watcher(Protocol):
    def watch_group(self, pgid: int, token: str | None = None) -> None: ...
    def forget_group(self, pgid: int) -> None: ...
    def watch_tree(self, name: str, dir_fd: int, dev: int, ino: int) -> None: ...
    def forget_tree(self, name: str) -> None: ...


# Who kills the children's process groups should labtui die (the runner sets it for its run's task).
watcher: contextvars.ContextVar[Watcher | None] = contextvars.ContextVar("labtui_child_watcher", default=None)


def die_with_parent() -> Callable[[], None] | None:
    """A function for the child to run before exec: SIGKILL when the parent dies (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    parent = os.getpid()

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request was made
            os._exit(1)

    return in_child


async def spawn(argv: list[str], cwd: str | None = None, *, merge_output: bool = False,
                env: Mapping[str, str] | None = None) -> Process:
    """Start `argv` with piped stdout/stderr in a new session (so its whole group can be signalled).

    With `merge_output`, stderr goes into the stdout pipe, interleaved as the child wrote them.
    `env` is added to labtui's own environment for the child; as root its PATH keeps no directory another
    user can write (labtui.machine.programs.safe_path: a command step's shell finds its programs there).
    """
    kwargs: dict[str, Any] = {"start_new_session": True, "preexec_fn": die_with_parent()} if sys.platform != "win32" else {}
    # Everything the child starts inherits the token, whatever group or session it moves to.
    token = secrets.token_hex(8)
    caller = asyncio.current_task()

    async def start() -> Process:
        if caller is not None and caller.cancelling():
            raise asyncio.CancelledError  # the stop came first: nothing is started
        return await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=PIPE, stderr=STDOUT if merge_output else PIPE, cwd=cwd,
            env={**os.environ, **(env or {}), "PATH": safe_path((env or {}).get("PATH")), TOKEN_ENV: token}, **kwargs)

    # The child exists once the fork is done, but asyncio hands it over only once its pipes are
    # connected. Cancelled in between, asyncio kills the leader alone and then waits for its pipes
    # to close: a stop waited the 20 s the `sleep` of `sh -c 'sleep 20'` held them. So the start is
    # shielded from the caller's cancel, which then kills the child's whole group once it is handed over.
    starting = asyncio.ensure_future(start())
    try:
        proc = await asyncio.shield(starting)
    except asyncio.CancelledError:
        await _abandon(starting, token)
        raise
    proc.labtui_token = token  # type: ignore[attr-defined]
    watching = watcher.get()
    if watching is not None and sys.platform != "win32":
        watching.watch_group(proc.pid, token)
    return proc


async def _abandon(starting: asyncio.Future[Process], token: str) -> None:
    """A child whose caller was cancelled as it started: let the start end (its pipes connect, which
    never waits for the child), then kill its whole group and what it started elsewhere, and close
    its pipes. Nothing waits for it to exit: asyncio's child watcher reaps it."""
    while not starting.done():
        with contextlib.suppress(asyncio.CancelledError):  # a second stop: this one is on its way
            await asyncio.shield(starting)
    if starting.cancelled() or starting.exception() is not None:
        return  # not started (the stop came before the fork), or it could not start: nothing to stop
    proc = starting.result()
    proc.labtui_token = token  # type: ignore[attr-defined]
    _signal_group(proc, signal.SIGKILL)
    _kill_helpers(proc)
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def _kill_helpers(proc: Process) -> None:
    """What the child started outside its group (fio's jobs call setsid()) outlives a killed
    leader and holds its pipes open, so waiting for the leader would wait for them."""
    token = getattr(proc, "labtui_token", None)
    if token and sys.platform.startswith("linux"):
        kill_orphans({token})


def _signal_group(proc: Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if sys.platform == "win32":
            proc.terminate() if sig == signal.SIGTERM else proc.kill()
        else:
            os.killpg(proc.pid, sig)


async def stop(proc: Process, grace: float = GRACE_SECONDS) -> int | None:
    """Stop the child and everything it started; return its exit code. Safe to call twice."""
    if proc.returncode is None:
        _signal_group(proc, signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=grace)
        except TimeoutError:
            pass
    if proc.returncode is None:
        _signal_group(proc, signal.SIGKILL)
        _kill_helpers(proc)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=grace)
    elif sys.platform != "win32":
        # The leader is gone; anything it left in its group goes too.
        _signal_group(proc, signal.SIGKILL)
        _kill_helpers(proc)
    watching = watcher.get()
    if watching is not None and proc.returncode is not None:
        watching.forget_group(proc.pid)
    return proc.returncode


async def wait_exit(proc: Process, poll_seconds: float = 0.01) -> int:
    """Wait for the child itself to exit and return its status.

    `Process.wait()` also waits for the child's pipes to close, so a background job the child
    left holding its stdout would keep it waiting; this returns when the child is gone. On Linux a
    pidfd says so the moment it happens; elsewhere the status is polled.
    """
    fd = None
    if hasattr(os, "pidfd_open"):
        with contextlib.suppress(OSError):  # already reaped: its status is known
            fd = os.pidfd_open(proc.pid)
    if fd is not None:
        loop = asyncio.get_running_loop()
        exited = loop.create_future()
        loop.add_reader(fd, _settle, exited)
        try:
            await exited
        finally:
            loop.remove_reader(fd)
            os.close(fd)
    while proc.returncode is None:  # asyncio's child watcher reaps it a moment later
        await asyncio.sleep(poll_seconds)
    return proc.returncode


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def group_alive(proc: Process) -> bool:
    """Whether anything is left in the child's process group (e.g. a background job it started)."""
    if sys.platform == "win32":
        return False
    try:
        os.killpg(proc.pid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    return True


async def read_all(stream: asyncio.StreamReader | None, sink: list[str], limit: int = 1 << 20, *,
                   raw: bool = False, taken: Callable[[str], bool] | None = None) -> None:
    """Collect a pipe's text (the last `limit` characters) until EOF, made printable (a tool's errors
    name files anyone could make) unless `raw`, for a caller that parses it or makes it printable itself.

    `taken`: each whole line is offered to it first, as it arrives, and one it takes (True) is not kept
    (fio's verify messages, counted, never kept as text: they can be hundreds of megabytes)."""
    if stream is None:
        return
    size, pending = 0, ""
    while True:
        chunk = await stream.read(65536)
        text = chunk.decode("utf-8", "replace")
        if taken is not None:
            lines = (pending + text).split("\n")
            pending = lines.pop() if chunk else ""
            text = "".join(line + "\n" for line in lines if not taken(line))
        if text if taken is None else text.strip():
            sink.append(text if raw else printable(text))
            size += len(text)
            while size > limit and len(sink) > 1:
                size -= len(sink.pop(0))
        if not chunk:
            return


def quick_output(argv: list[str], timeout: float = 5.0) -> str | None:
    """stdout + stderr of a short command (a tool's --version), or None if it cannot run. argv[0] is a
    program labtui.machine.programs.find gave."""
    import subprocess

    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout + out.stderr
