"""The signals that stop a run, for the TUI and the headless CLI alike, and what a hang-up needs.

Both fronts catch the same three: the run then stops cleanly (its result saved as aborted, the test
file and the workers gone) instead of dying with them left behind.
"""

from __future__ import annotations

import contextlib
import os
import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def detach_from_terminal() -> None:
    """Point the standard streams that are a terminal at /dev/null: after a hang-up, writing to it fails."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                os.dup2(devnull, fd)
    os.close(devnull)
