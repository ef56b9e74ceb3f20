"""Child processes the engines drive (fio, DiskSpd): started in their own process group, and
stopped as a group — terminate, a short grace, then kill — and always reaped."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from asyncio.subprocess import PIPE, Process

GRACE_SECONDS = 1.0  # a child gets this long to exit after SIGTERM before SIGKILL


async def spawn(argv: list[str], cwd: str | None = None) -> Process:
    """Start `argv` with piped stdout/stderr in a new session (so its whole group can be signalled)."""
    kwargs = {"start_new_session": True} if sys.platform != "win32" else {}
    return await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=PIPE, stderr=PIPE,
                                                cwd=cwd, **kwargs)


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
