"""The signals that stop a run and what a hang-up needs (labtui.run.signals). A real pseudo-terminal in a child
process: after detaching, what was the terminal is /dev/null and a pipe is left as it was. Real signals to real
runs: tests/system/test_signals.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from labtui.run.signals import STOP_SIGNALS

CHILD = r"""
import json, os, sys
from labtui.run.signals import detach_from_terminal

detach_from_terminal()
where = {fd: os.readlink(f"/proc/self/fd/{fd}") for fd in (0, 1, 2)}
os.write(1, b"after the hang-up\n")  # a terminal gone would fail this; /dev/null takes it
os.write(int(sys.argv[1]), json.dumps(where).encode())
"""


def test_the_fronts_stop_cleanly_on_ctrl_c_a_kill_and_a_hang_up():
    assert set(STOP_SIGNALS) == {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def test_after_a_hang_up_the_terminals_streams_go_to_dev_null_and_a_pipe_stays():
    leader, follower = os.openpty()
    report_r, report_w = os.pipe()
    try:
        # stdin and stderr the terminal, stdout a pipe (labtui run --json > file, its progress on the terminal).
        child = subprocess.run([sys.executable, "-c", CHILD, str(report_w)], stdin=follower, stdout=subprocess.PIPE,
                               stderr=follower, pass_fds=(report_w,), timeout=60)
        os.close(report_w)
        report_w = -1
        where = json.loads(os.read(report_r, 65536))
    finally:
        for fd in (leader, follower, report_r, report_w):
            if fd >= 0:
                os.close(fd)
    assert child.returncode == 0
    assert where["0"] == where["2"] == "/dev/null"
    assert where["1"].startswith("pipe:") and child.stdout == b"after the hang-up\n"
