"""A process's scheduler times (/proc/<pid>/task/<tid>/schedstat), read with nothing but `os`.

Each native worker reads its own at the edges of its measure window (labtui.engine.native.common),
and every worker is a fresh interpreter started for its step: importing this pulls in nothing of
labtui, so a worker is ready in ~0.08 CPU-seconds rather than the ~0.2 that cpubound's imports
(the engine registry, the model, psutil) cost it. tests/static/test_core_imports.py keeps it so.
"""

from __future__ import annotations

import os

# The kernel's own threads in a process: io_uring's workers (a write it cannot issue without
# blocking goes to one) and its submission poller. They issue none of the step's I/O and wait for
# a CPU on their own: summed with the worker's thread, a throttled io_uring write step "was on a
# CPU or waiting for one 108 % of the time".
KERNEL_THREADS = (b"iou-wrk-", b"iou-sqp-")


def sched_times(pid: int | str = "self", proc: str = "/proc") -> tuple[int, int] | None:
    """(running, waiting) nanoseconds summed over a process's own threads (KERNEL_THREADS left out);
    None where not exposed."""
    base = f"{proc}/{pid}/task"
    try:
        tids = os.listdir(base)
    except OSError:
        return None
    run = wait = 0
    seen = False
    for tid in tids:
        try:
            with open(f"{base}/{tid}/comm", "rb") as f:
                if f.read().startswith(KERNEL_THREADS):
                    continue
            with open(f"{base}/{tid}/schedstat", "rb") as f:
                fields = f.read().split()
        except OSError:
            continue  # a thread that ended meanwhile
        if len(fields) >= 2:
            run += int(fields[0])
            wait += int(fields[1])
            seen = True
    return (run, wait) if seen else None
