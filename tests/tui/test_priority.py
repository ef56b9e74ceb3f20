"""The TUI's threads ahead of the run's workers: raised where allowed, their children never raised.

Each case runs in a process of its own (priorities are per thread and inherited): what it may do
is decided by the real system calls, as root and as a user without privilege.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from conftest import REPO, require_tool

PROBE = """
import json, os, subprocess, sys, threading
from labtui.tui.priority import raise_ui_priority
os.nice(int(sys.argv[1]))
started = threading.Event()
thread = threading.Thread(target=started.wait, daemon=True)  # a thread that exists before, as Textual's do
thread.start()
done = raise_ui_priority()
child = subprocess.run([sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"],
                       capture_output=True, text=True, check=True).stdout.strip()
later = []
late = threading.Thread(target=lambda: later.append(os.getpriority(os.PRIO_PROCESS, 0)))
late.start(); late.join()
print(json.dumps({"done": done, "main": os.getpriority(os.PRIO_PROCESS, 0),
                  "thread": os.getpriority(os.PRIO_PROCESS, thread.native_id), "child": int(child),
                  "later_thread": later[0]}))
started.set()
"""


def probe(start_nice: int = 0, unprivileged: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", PROBE, str(start_nice)]
    if unprivileged and os.geteuid() == 0:
        # Root without CAP_SYS_NICE (util-linux's setpriv): as a user would be.
        command = [require_tool("setpriv"), "--bounding-set=-sys_nice", *command]

    def no_nice_limit() -> None:
        if unprivileged:
            resource.setrlimit(resource.RLIMIT_NICE, (0, 0))  # what RLIMIT_NICE allows by default

    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True, preexec_fn=no_nice_limit)
    return json.loads(out.stdout)


def test_where_allowed_the_threads_are_raised_and_what_they_start_is_not():
    if os.geteuid() != 0 and not os.environ.get("CI"):
        pytest.skip("raising a priority needs root (CI runs as root)")
    seen = probe()
    assert seen["done"] is True
    assert seen["main"] == seen["thread"] == -10  # the loop's thread and one that existed before
    assert seen["child"] == 0  # a worker starts at the priority labtui started with
    assert seen["later_thread"] == 0  # threads started later (the test file's writers) are not raised


def test_a_priority_chosen_by_the_person_is_left_alone():
    seen = probe(start_nice=3)
    assert seen["done"] is False and seen["main"] == seen["thread"] == seen["child"] == 3


def test_without_privilege_nothing_changes():
    seen = probe(unprivileged=True)
    assert seen["done"] is False and seen["main"] == seen["thread"] == seen["child"] == 0
