"""A process's scheduler times (/proc/<pid>/task/<tid>/schedstat), read with nothing but `os`.

Each native worker reads its own at the edges of its measure window (labtui.engine.native.common),
and every worker is a fresh interpreter started for its step: importing this pulls in nothing of
labtui, so a worker is ready in ~0.08 CPU-seconds rather than the ~0.2 that cpubound's imports
(the engine registry, the model, psutil) cost it. tests/test_core_imports.py keeps it so.
"""

from __future__ import annotations

import os


def sched_times(pid: int | str = "self") -> tuple[int, int] | None:
    """(running, waiting) nanoseconds summed over a process's threads; None where not exposed."""
    base = f"/proc/{pid}/task"
    try:
        tids = os.listdir(base)
    except OSError:
        return None
    run = wait = 0
    seen = False
    for tid in tids:
        try:
            with open(f"{base}/{tid}/schedstat", "rb") as f:
                fields = f.read().split()
        except OSError:
            continue  # a thread that ended meanwhile
        if len(fields) >= 2:
            run += int(fields[0])
            wait += int(fields[1])
            seen = True
    return (run, wait) if seen else None
