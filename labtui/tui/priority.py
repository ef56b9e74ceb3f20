"""The TUI ahead of the run it watches when the CPUs are busy: its threads at a higher priority,
the processes it starts (the engine's workers, fio, commands) at the priority labtui started with.

When a run's workers keep every CPU busy, the UI competes with them for the CPU each time a key
comes in or a frame is due. At equal priority it gets its fair share only, so answering a key
takes several times its few milliseconds of work, and more where workers outnumber CPUs. Lowering
the UI threads' nice value makes the scheduler run them first for the little they need; their
scheduling is marked "reset on fork", so every process they start is back at nice 0 and the
workers run exactly as under `labtui run`: the run's figures do not depend on being watched.
(Raising the workers' nice value instead would put them behind every other program they share
the CPUs' scheduling with (with no autogroups or CPU cgroups, every program on the machine), and
so change a run's figures whenever something else runs.)

Lowering a nice value needs privilege (root, CAP_SYS_NICE or an RLIMIT_NICE that allows it):
without it nothing changes. Nor does anything when labtui was started with a priority or policy
of its own (`nice -n 5 labtui`, `chrt -b 0 labtui`): that is the person's choice.
"""

from __future__ import annotations

import os
from pathlib import Path

# Measured in tmux during runs of 16 workers on 2 CPUs, switching screens (the heaviest key):
# a median of 102-154 ms at nice 0, 79-103 ms at -5, 72-74 ms at -10. With fewer workers per
# CPU the scheduler already runs the waking UI at once and the nice value makes no difference.
UI_NICE = -10


def raise_ui_priority(nice: int = UI_NICE, tasks: Path = Path("/proc/self/task")) -> bool:
    """Put this process's threads at `nice`, their children back at 0. Whether it did."""
    if not hasattr(os, "SCHED_RESET_ON_FORK"):
        return False
    try:
        if os.sched_getscheduler(0) != os.SCHED_OTHER or os.getpriority(os.PRIO_PROCESS, 0) != 0:
            return False
        threads = [int(name) for name in os.listdir(tasks) if name.isdigit()]
    except OSError:
        return False
    done = False
    for tid in threads:
        try:
            # On Linux both act on one thread, given its id. "Reset on fork" first (anyone may set
            # it), so that no process started from a raised thread is ever raised too.
            os.sched_setscheduler(tid, os.SCHED_OTHER | os.SCHED_RESET_ON_FORK, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except PermissionError:
            break  # not allowed here: the other threads would be refused too
        except OSError:
            continue  # a thread that ended meanwhile
        done = True
    return done
