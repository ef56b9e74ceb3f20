"""How a native step's logical workers are carried: which I/O loop, on how many OS processes.

A step's `threads` are logical workers: each keeps its own `outstanding` I/Os in flight, its own
sequential stream, its own counts. What the device sees is threads x outstanding I/Os in flight
whatever carries them. By default (`native_workers = "auto"`) the ring loops (io_uring, kernel
AIO) carry them on at most one process per CPU this machine lets labtui use (more where an io_uring
process would drive more than MAX_SLOTS I/Os), each process driving the slots of several logical
workers through one ring, so one system call carries the I/Os of many workers and the processes do
not take turns on the CPUs. `native_workers = "per-thread"`
(config.toml, or a step's key) keeps DiskSpd's shape: one process per logical worker. The
blocking loops (the page cache on, or neither ring) always run one process per logical worker.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from labtui.engine.native import uring
from labtui.engine.native.aio_loop import aio_syscalls
from labtui.engine.native.uring_loop import MAX_SLOTS
from labtui.errors import LabtuiError
from labtui.model.profile import Step

BACKENDS = ("io_uring", "aio", "sync")
RINGS = ("io_uring", "aio")
MODES = ("auto", "per-thread")
CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def missing_backends() -> dict[str, str]:
    """The I/O loops this machine cannot run, each with why (io_uring is probed once)."""
    missing = {}
    why = uring.probe()
    if why:
        missing["io_uring"] = why
    if aio_syscalls() is None:
        missing["aio"] = "no kernel AIO on this system"
    return missing


def usable_cpus(cpu_max: Path = CGROUP_CPU_MAX) -> int:
    """The CPUs this process may run on (its affinity), fewer where a cgroup quota allows less.

    A container limited to 1.5 CPUs by cpu.max gets 2: a carrier per whole CPU the quota allows,
    rounded up, since a part of a CPU still runs a process."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        quota, period = cpu_max.read_text().split()[:2]
        if quota != "max" and int(period) > 0:
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cpus)


@dataclass(frozen=True)
class Carriage:
    """How one step runs: its I/O loop, and the logical workers each process carries."""

    backend: str  # io_uring | aio | sync (the blocking loop: threads where more than one I/O is in flight)
    outstanding: int  # per logical worker
    groups: tuple[tuple[int, ...], ...]  # per process, the logical workers it carries
    per_thread: bool = False  # one process per worker because native_workers = "per-thread" asked so
    note: str | None = None  # why the loop is not the one native_backend asked for

    @property
    def threads(self) -> int:
        return sum(len(g) for g in self.groups)

    @property
    def processes(self) -> int:
        return len(self.groups)

    @property
    def most_slots(self) -> int:
        """The I/Os in flight of the busiest process."""
        return max(len(g) for g in self.groups) * self.outstanding

    @property
    def loop(self) -> str:
        """The loop's name as a result records it: the blocking loop with several I/Os in flight is threads."""
        return "threads" if self.backend == "sync" and self.outstanding > 1 else self.backend

    def describe(self) -> str:
        """"16 logical workers on 2 processes, io_uring"."""
        n, p = self.threads, self.processes
        how = " (per-thread)" if self.per_thread and n > 1 else ""
        loop = {"sync": "blocking calls", "threads": "a thread per I/O in flight"}.get(self.loop, self.loop)
        return f"{n} logical worker{'s' if n != 1 else ''} on {p} process{'es' if p != 1 else ''}{how}, {loop}"


def split(threads: int, processes: int) -> tuple[tuple[int, ...], ...]:
    """Logical workers 0..threads-1 in `processes` contiguous groups whose sizes differ by one at most."""
    base, extra = divmod(threads, processes)
    groups, start = [], 0
    for i in range(processes):
        size = base + (1 if i < extra else 0)
        groups.append(tuple(range(start, start + size)))
        start += size
    return tuple(groups)


def plan(step: Step, direct: bool, wanted: str = "auto", missing: Mapping[str, str] | None = None,
         mode: str = "auto", cpus: int | None = None) -> Carriage:
    """The loop and the processes for `step`.

    io_uring first, then kernel AIO, both only where they are really asynchronous (O_DIRECT); a
    ring carries the logical workers on min(threads, CPUs) processes (one each with mode
    "per-thread"). Where a process would have one I/O in flight the blocking loop runs it
    (measured: at queue depth 1 one pread beats a submit and a reap). `wanted` (the
    `native_backend` setting) picks a loop by name; where it cannot run here the next that can
    is used, and the note says why.
    """
    if mode not in MODES:
        raise LabtuiError(f"native_workers must be one of {', '.join(MODES)}, got {mode!r}")
    if wanted != "auto" and wanted not in BACKENDS:
        raise LabtuiError(f"native_backend must be auto or one of {', '.join(BACKENDS)}, got {wanted!r}")
    missing = missing_backends() if missing is None else missing
    direct = direct and step.cache == "off"
    rings = [b for b in RINGS if b not in missing] if direct else []  # both are synchronous on buffered files
    per_thread = mode == "per-thread"
    note = None
    if wanted in RINGS and wanted not in rings:
        why = missing.get(wanted) or "it needs O_DIRECT (cache off)"
        ring = rings[0] if rings else None
        note = f"the {wanted} I/O loop cannot run here ({why}): {{loop}} ran instead"
    elif wanted in RINGS:
        ring = wanted
    elif wanted == "sync":
        ring = None
    else:
        ring = rings[0] if rings else None
    if step.verify and ring is None and rings:
        ring = rings[0]  # reads are checked by the ring loops only (labtui.engine.native.verifier)
    threads = step.threads
    if ring is None:
        backend, processes = "sync", threads
    else:
        processes = threads if per_thread else min(threads, cpus or usable_cpus())
        if ring == "io_uring":
            # A ring drives at most MAX_SLOTS slots (its submission entries were indexed past their
            # end: 40 x 1024 in one process failed with an IndexError): more take more processes.
            per_process = max(1, MAX_SLOTS // step.outstanding)
            processes = max(processes, -(-threads // per_process))
        one_each = -(-threads // processes) * step.outstanding == 1
        # One I/O in flight per process: a blocking call (unless that ring was asked for by name).
        backend = "sync" if one_each and (wanted == "auto" or note) and not step.verify else ring
    groups = split(threads, processes)
    carriage = Carriage(backend, step.outstanding, groups, per_thread=per_thread and threads > 1)
    if note:
        note = note.format(loop=carriage.loop if carriage.loop != "threads" else "sync")
    return Carriage(backend, step.outstanding, groups, per_thread=carriage.per_thread, note=note)
