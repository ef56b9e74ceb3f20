"""What every native I/O loop shares: the shared-memory layout between the engine and its workers,
the start signal, the I/O buffers, the worker's share of the file, and the counters and CPU window
a loop reports its measure window from.

The worker (labtui.engine.native.worker) runs its kernel AIO and blocking loops itself and the io_uring
loop from labtui.engine.native.uring_loop; both import this, so neither imports the other's module at its top.
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from array import array
from collections.abc import Callable

from labtui.engine.native.histogram import BUCKETS
from labtui.engine.schedstat import sched_times

# live array layout (int64), one per worker
STATE, R_IOS, W_IOS, R_LAT, W_LAT, ERRNO, BEAT = range(7)
HEADER = 8
LIVE_SIZE = HEADER + 2 * BUCKETS

# control array layout (float64), shared by all workers
C_MEASURE, C_END, C_STOP, C_GO = range(4)
READY, RUNNING, DONE, FAILED = 1, 2, 3, -1
PUBLISH_NS = 50_000_000
STAMP = struct.Struct("<QQ")
CONTROL_BYTES = 8 * 4
LIVE_BYTES = 8 * LIVE_SIZE
# A loop's counts at one instant (Tally.snapshot): I/Os read and written, their summed latency (ns),
# the two latency histograms' bytes, and each direction's fastest and slowest I/O (ns).
Snapshot = tuple[int, int, int, int, bytes, bytes, list[int], list[int]]


def shared_views(control_fd: int, live_fd: int) -> tuple[memoryview[float], memoryview[int], list[mmap.mmap]]:
    """The control (float64) and live (int64) arrays over the two shared memory files."""
    control_map = mmap.mmap(control_fd, CONTROL_BYTES)
    live_map = mmap.mmap(live_fd, LIVE_BYTES)
    return memoryview(control_map).cast("d"), memoryview(live_map).cast("q"), [control_map, live_map]


def buffers(cfg: dict, count: int) -> tuple[mmap.mmap, int]:
    """`count` page-aligned buffers of one block, filled with random data for writes."""
    bs = cfg["block_size"]
    stride = -(-bs // 4096) * 4096
    buf = mmap.mmap(-1, stride * count)
    if cfg["write_percent"] > 0:
        for i in range(count):
            buf[i * stride : i * stride + bs] = os.urandom(bs)
    return buf, stride


def wait_for_go(control: memoryview[float], live: memoryview[int]) -> tuple[int, int]:
    live[STATE] = READY
    parent = os.getppid()
    while control[C_GO] == 0.0:
        if control[C_STOP] or os.getppid() != parent:
            return 0, 0
        time.sleep(0.0005)
    live[STATE] = RUNNING
    return int(control[C_MEASURE] * 1e9), int(control[C_END] * 1e9)


def region(cfg: dict) -> tuple[int, int]:
    """The byte range this worker's sequential stream covers: its share of the file."""
    bs = cfg["block_size"]
    blocks = cfg["file_size"] // bs
    workers = cfg["workers"]
    share = blocks // workers
    if share < cfg["outstanding"] or workers == 1:
        return 0, blocks * bs
    start = cfg["worker"] * share * bs
    return start, start + share * bs


class Tally:
    """A loop's cumulative counts per direction (0 read, 1 write), warm-up included.

    The measured figures are the difference of the snapshots taken at the window's two
    boundaries; the live array gets the running totals every PUBLISH_NS.
    """

    __slots__ = ("ios", "lat_sum", "mins", "maxs", "hist_r", "hist_w", "hists")

    def __init__(self) -> None:
        self.ios = [0, 0]
        self.lat_sum = [0, 0]
        self.mins = [1 << 62, 1 << 62]
        self.maxs = [0, 0]
        self.hist_r = array("q", bytes(8 * BUCKETS))
        self.hist_w = array("q", bytes(8 * BUCKETS))
        self.hists = (self.hist_r, self.hist_w)

    def publisher(self, control: memoryview[float], live: memoryview[int], latency: bool) -> Callable[[int], None]:
        parent = os.getppid()
        ios, lat_sum, hist_r, hist_w = self.ios, self.lat_sum, self.hist_r, self.hist_w

        def publish(now: int) -> None:
            if os.getppid() != parent:  # orphaned: the parent died without stopping us
                control[C_STOP] = 1.0
            live[R_IOS], live[W_IOS] = ios
            live[R_LAT], live[W_LAT] = lat_sum
            live[BEAT] = now
            if latency:
                live[HEADER : HEADER + BUCKETS] = hist_r
                live[HEADER + BUCKETS : HEADER + 2 * BUCKETS] = hist_w

        return publish

    def snapshot(self) -> Snapshot:
        return (self.ios[0], self.ios[1], self.lat_sum[0], self.lat_sum[1], bytes(self.hist_r), bytes(self.hist_w),
                list(self.mins), list(self.maxs))

    def start_window(self) -> None:
        """At the start of measuring: the extremes count from here."""
        self.mins[:] = [1 << 62, 1 << 62]
        self.maxs[:] = [0, 0]

    def finish(self, cfg: dict, live: memoryview[int], publish: Callable[[int], None], snap_start: Snapshot | None,
               snap_end: Snapshot | None, window: CpuWindow, trace: list[tuple[int, bool]],
               error: tuple[int, str] | None) -> dict:
        """The worker's result from its snapshots (taken now where a boundary never came)."""
        publish(time.monotonic_ns())
        end = time.monotonic_ns()
        if snap_end is None:
            snap_end = self.snapshot()
        if snap_start is None:
            snap_start = snap_end
        result = measured(snap_start, snap_end, snap_end[6], snap_end[7], window.figures(), cfg["block_size"])
        result["stopped_at_ns"] = end
        result["trace"] = trace
        if error is not None:
            result["error"] = f"I/O error: {os.strerror(error[0]) if error[0] else error[1]} ({cfg['path']})"
            live[STATE] = FAILED
        else:
            live[STATE] = DONE
        return result


class CpuWindow:
    """This process's CPU time and run-queue wait between the two window boundaries, and the
    wall time between the two readings.

    The readings are taken where the worker first wakes past each boundary, which can be well
    after it (a worker blocked on a slow I/O, or waiting for a CPU): the CPU figures belong to the
    readings' own interval, not to the measure window's nominal length. Divided by a 1 ms window,
    60 ms of run-queue wait read "6026 % of the time".
    """

    __slots__ = ("cpu0", "cpu1", "sched0", "sched1", "wall0", "wall1")

    def __init__(self) -> None:
        self.cpu0: float | None = None
        self.cpu1: float | None = None
        self.sched0: tuple[int, int] | None = None
        self.sched1: tuple[int, int] | None = None
        self.wall0 = self.wall1 = 0.0

    def start(self) -> None:
        self.wall0 = time.monotonic()
        self.cpu0 = time.process_time()
        self.sched0 = sched_times()

    def end(self) -> None:
        self.cpu1 = time.process_time()
        self.sched1 = sched_times()
        self.wall1 = time.monotonic()

    def figures(self) -> dict:
        """cpu_seconds and wait_seconds (None where the scheduler does not say) of the window, and
        cpu_window_seconds: the wall time they were counted over."""
        if self.cpu1 is None:
            self.end()
        if self.cpu0 is None:
            self.cpu0, self.sched0, self.wall0 = self.cpu1, self.sched1, self.wall1
        assert self.cpu0 is not None and self.cpu1 is not None  # end() has set them
        wait = None
        if self.sched0 is not None and self.sched1 is not None:
            wait = max(0, self.sched1[1] - self.sched0[1]) / 1e9
        return {"cpu_seconds": self.cpu1 - self.cpu0, "wait_seconds": wait,
                "cpu_window_seconds": max(0.0, self.wall1 - self.wall0)}


def measured(start: tuple, end: tuple, mins: list, maxs: list, cpu: dict, bs: int) -> dict:
    r_ios = end[0] - start[0]
    w_ios = end[1] - start[1]
    hist_r = array("q", end[4])
    hist_w = array("q", end[5])
    base_r = array("q", start[4])
    base_w = array("q", start[5])
    for i in range(BUCKETS):
        hist_r[i] -= base_r[i]
        hist_w[i] -= base_w[i]
    return {
        "r_ios": r_ios,
        "w_ios": w_ios,
        "r_bytes": r_ios * bs,
        "w_bytes": w_ios * bs,
        "r_lat_ns": end[2] - start[2],
        "w_lat_ns": end[3] - start[3],
        "r_min": mins[0] if r_ios else None,
        "r_max": maxs[0] if r_ios else None,
        "w_min": mins[1] if w_ios else None,
        "w_max": maxs[1] if w_ios else None,
        "r_hist": hist_r.tobytes(),
        "w_hist": hist_w.tobytes(),
        **cpu,
    }
