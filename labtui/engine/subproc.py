"""Child processes the engines drive (fio, DiskSpd, command steps): started in their own process
group, and stopped as a group — terminate, a short grace, then kill — and always reaped."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from asyncio.subprocess import PIPE, STDOUT, Process

GRACE_SECONDS = 1.0  # a child gets this long to exit after SIGTERM before SIGKILL


async def spawn(argv: list[str], cwd: str | None = None, *, merge_output: bool = False) -> Process:
    """Start `argv` with piped stdout/stderr in a new session (so its whole group can be signalled).

    With `merge_output`, stderr goes into the stdout pipe, interleaved as the child wrote them.
    """
    kwargs = {"start_new_session": True} if sys.platform != "win32" else {}
    return await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=PIPE,
                                                stderr=STDOUT if merge_output else PIPE, cwd=cwd, **kwargs)


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
        except asyncio.TimeoutError:
            pass
    if proc.returncode is None:
        _signal_group(proc, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=grace)
    elif sys.platform != "win32":
        # The leader is gone; anything it left in its group goes too.
        _signal_group(proc, signal.SIGKILL)
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
        loop.add_reader(fd, lambda: exited.done() or exited.set_result(None))
        try:
            await exited
        finally:
            loop.remove_reader(fd)
            os.close(fd)
    while proc.returncode is None:  # asyncio's child watcher reaps it a moment later
        await asyncio.sleep(poll_seconds)
    return proc.returncode


def group_alive(proc: Process) -> bool:
    """Whether anything is left in the child's process group (e.g. a background job it started)."""
    if sys.platform == "win32":
        return False
    try:
        os.killpg(proc.pid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    return True


async def read_all(stream: asyncio.StreamReader | None, sink: list[str], limit: int = 1 << 20) -> None:
    """Collect a pipe's text (the last `limit` characters) until EOF."""
    if stream is None:
        return
    size = 0
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return
        text = chunk.decode("utf-8", "replace")
        sink.append(text)
        size += len(text)
        while size > limit and len(sink) > 1:
            size -= len(sink.pop(0))


def is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def quick_output(argv: list[str], timeout: float = 5.0) -> str | None:
    """stdout + stderr of a short command (a tool's --version), or None if it cannot run."""
    import subprocess

    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout + out.stderr
