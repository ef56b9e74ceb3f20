"""A stdout pipe the test has filled itself, so that labtui's first write there blocks: how the signal
tests catch a command in its report, after every run has ended, whatever the machine's speed."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def full_pipe() -> tuple[int, int, int]:
    """A pipe filled to the brim by the test: (read end, write end, bytes of filler in it)."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    filled = 0
    try:
        while True:
            filled += os.write(write, b"." * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write, True)
    return read, write, filled


def wait_blocked_writing(proc: subprocess.Popen) -> None:
    """Until labtui waits to write into the full pipe (the kernel says where it sleeps)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        assert proc.poll() is None, "labtui ended before it could write its report"
        with open(f"/proc/{proc.pid}/wchan") as f:
            if "pipe_write" in f.read():
                return
        time.sleep(0.05)
    raise AssertionError("labtui never came to write its report")


def drain(read: int, filled: int) -> str:
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    return data[filled:].decode()


def signalled_while_reporting(command: list[str], signum: int, err_path: Path) -> tuple[int, str, str]:
    """Run `command` into a full stdout; once it blocks writing its report, send `signum` once, see
    that it did not end labtui, then read: (exit code, what it printed, its stderr)."""
    read, write, filled = full_pipe()
    with open(err_path, "w") as err:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=write, stderr=err)
    os.close(write)
    try:
        wait_blocked_writing(proc)
        proc.send_signal(signum)
        time.sleep(0.3)
        assert proc.poll() is None, "a first signal after the runs ended lets the report out"
        out = drain(read, filled)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err_path.read_text()


def signalled_at(command: list[str], marker: str, signum: int) -> tuple[int, str, str]:
    """Run `command`, send `signum` as soon as a line of its stderr holds `marker`, and let it end:
    (exit code, its stdout, its stderr)."""
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    err = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            err.append(line)
            if marker in line:
                proc.send_signal(signum)
                break
        else:
            raise AssertionError(f"never said {marker!r}: {''.join(err)}")
        out, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, "".join(err) + rest


def signalled(proc: subprocess.Popen, until: Callable[[], None], signum: int = signal.SIGTERM, *,
              times: int = 1) -> int:
    """Once `until()` returns, send `signum` to `proc` `times` times, 0.3 s apart, and wait 10 s for
    it to end: its exit code (it is killed if it did not end, or `until` failed)."""
    try:
        until()
        for n in range(times):
            if n:
                time.sleep(0.3)
            proc.send_signal(signum)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode
