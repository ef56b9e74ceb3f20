"""A command run on a real terminal (a pty): what Rich and labtui do only where they see one."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import tempfile
import termios
import time


def on_terminal(args: list[str], *, columns: int = 120, answer: str | None = None, stderr_to_file: bool = False,
                timeout: float = 90) -> tuple[int, str, str]:
    """Run `args` with a pty `columns` wide as its stdin and stdout (and stderr, unless `stderr_to_file`:
    then the live progress is a line per event, as `2>log` has it). `answer` is typed once the output
    ends in "? [y/N] ". Its exit code, the terminal's output, and stderr where it went to a file."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=err if stderr_to_file else follower,
                                close_fds=True, env=os.environ | {"TERM": "xterm-256color"})
        os.close(follower)
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    data = os.read(leader, 1 << 16)
                except OSError:  # EIO: the terminal's last writer is gone
                    break
                if not data:
                    break
                chunks.append(data)
                if answer is not None and b"".join(chunks).rstrip().endswith(b"[y/N]"):
                    os.write(leader, answer.encode() + b"\n")
                    answer = None
            elif proc.poll() is not None:
                break
        os.close(leader)
        code = proc.wait(timeout=10)
        err.seek(0)
        return code, b"".join(chunks).decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
