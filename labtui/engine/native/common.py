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

# live array layout (int64), one per worker: the running totals (warm-up and drain included),
# then the measure window's own (M_*: the I/Os completed in it so far, final once M_DONE is 1),
# then the latency histograms (running totals).
STATE, R_IOS, W_IOS, R_LAT, W_LAT, ERRNO, BEAT, MR_IOS, MW_IOS, MR_LAT, MW_LAT, M_DONE = range(12)
HEADER = 12
LIVE_SIZE = HEADER + 2 * BUCKETS

# control array layout (float64), shared by all workers
C_MEASURE, C_END, C_STOP, C_GO = range(4)
READY, RUNNING, DONE, FAILED = 1, 2, 3, -1
PUBLISH_NS = 50_000_000
STAMP = struct.Struct("<QQ")
CONTROL_BYTES = 8 * 4
# What a worker's result on its stdout begins with: the length of the pickle that follows (worker.hand_in).
RESULT_HEADER = struct.Struct("<Q")
LIVE_BYTES = 8 * LIVE_SIZE
# A loop's counts at one instant (Tally.snapshot): per logical worker and direction its I/Os and
# summed latency (ns), the two latency histograms' bytes, and each direction's fastest and slowest I/O (ns).
Snapshot = tuple[list[int], list[int], bytes, bytes, list[int], list[int]]


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


def region(cfg: dict, worker: int) -> tuple[int, int]:
    """The byte range logical worker `worker`'s sequential stream covers: its share of the file."""
    bs = cfg["block_size"]
    blocks = cfg["file_size"] // bs
    threads = cfg["threads"]
    share = blocks // threads
    if share < cfg["outstanding"] or threads == 1:
        return 0, blocks * bs
    start = worker * share * bs
    return start, start + share * bs


class Tally:
    """A loop's cumulative counts, warm-up included.

    Per logical worker and direction (flat lists, index 2 x worker + direction, 0 read, 1 write):
    I/Os and summed latency; per direction: the latency histogram and the extremes. The measured
    figures are the difference of the snapshots taken at the window's two boundaries; the live
    array gets the running totals every PUBLISH_NS.
    """

    __slots__ = ("ios", "lat_sum", "mins", "maxs", "hist_r", "hist_w", "hists", "window", "t_measure", "t_end",
                 "first", "last", "publish")

    def __init__(self, workers: int = 1) -> None:
        self.ios = [0] * (2 * workers)
        self.lat_sum = [0] * (2 * workers)
        self.mins = [1 << 62, 1 << 62]
        self.maxs = [0, 0]
        # Lists, not arrays: the interpreter adds to a list's item two to three times faster.
        self.hist_r = [0] * BUCKETS
        self.hist_w = [0] * BUCKETS
        self.hists = (self.hist_r, self.hist_w)
        self.window = CpuWindow()
        self.t_measure = self.t_end = 0  # the measure window, ns (monotonic), once the parent said go
        self.first: Snapshot | None = None  # the counts where the window began
        self.last: Snapshot | None = None  # and where it ended
        self.publish: Callable[[int], None] | None = None  # the live counters' writer, once there is one

    def cross(self, now: int) -> bool:
        """At a completion seen at `now`: a snapshot at each boundary of the window passed since the
        last one (the I/O that crossed one counts in the phase it completed in); whether the end was."""
        crossed = False
        if self.first is None and now >= self.t_measure:
            self.first = self.snapshot()
            self.window.start()
            self.start_window()
            crossed = True
        if self.last is None and now >= self.t_end:
            self.last = self.snapshot()
            self.window.end()
            crossed = True
        if crossed and self.publish is not None:
            # The live counters at the boundary itself: the parent's per-interval samples add up
            # to the measured totals exactly (its first interval begins here, its last ends here).
            self.publish(now)
        return self.last is not None and crossed

    def publisher(self, control: memoryview[float], live: memoryview[int], latency: bool) -> Callable[[int], None]:
        parent = os.getppid()
        ios, lat_sum, hist_r, hist_w = self.ios, self.lat_sum, self.hist_r, self.hist_w

        def publish(now: int) -> None:
            if os.getppid() != parent:  # orphaned: the parent died without stopping us
                control[C_STOP] = 1.0
            r_ios, w_ios = live[R_IOS], live[W_IOS] = sum(ios[0::2]), sum(ios[1::2])
            r_lat, w_lat = live[R_LAT], live[W_LAT] = sum(lat_sum[0::2]), sum(lat_sum[1::2])
            if self.first is not None:
                # The window's own counts: from its first boundary to now, or to its end once crossed.
                first, last = self.first, self.last
                if last is not None:
                    r_ios, w_ios = sum(last[0][0::2]), sum(last[0][1::2])
                    r_lat, w_lat = sum(last[1][0::2]), sum(last[1][1::2])
                live[MR_IOS], live[MW_IOS] = r_ios - sum(first[0][0::2]), w_ios - sum(first[0][1::2])
                live[MR_LAT], live[MW_LAT] = r_lat - sum(first[1][0::2]), w_lat - sum(first[1][1::2])
                live[M_DONE] = 1 if last is not None else 0
            live[BEAT] = now
            if latency:
                live[HEADER : HEADER + BUCKETS] = array("q", hist_r)
                live[HEADER + BUCKETS : HEADER + 2 * BUCKETS] = array("q", hist_w)

        self.publish = publish
        return publish

    def snapshot(self) -> Snapshot:
        return (list(self.ios), list(self.lat_sum), array("q", self.hist_r).tobytes(), array("q", self.hist_w).tobytes(),
                list(self.mins), list(self.maxs))

    def start_window(self) -> None:
        """At the start of measuring: the extremes count from here."""
        self.mins[:] = [1 << 62, 1 << 62]
        self.maxs[:] = [0, 0]

    def finish(self, cfg: dict, live: memoryview[int], publish: Callable[[int], None],
               traces: list[list[tuple[int, bool]]], error: tuple[int, str] | None) -> dict:
        """The process's result from its snapshots (taken now where a boundary never came)."""
        if self.last is None:
            self.last = self.snapshot()
        if self.first is None:
            self.first = self.last
        first, last = self.first, self.last
        publish(time.monotonic_ns())  # the window's counts final (M_DONE) for the parent's last sample
        end = time.monotonic_ns()
        result = measured(first, last, self.window.figures(), cfg["block_size"], cfg["workers"])
        result["stopped_at_ns"] = end
        result["traces"] = traces
        if error is not None:
            result["error"] = f"I/O error: {os.strerror(error[0]) if error[0] else error[1]} ({cfg.get('shown', cfg['path'])})"
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


def measured(start: Snapshot, end: Snapshot, cpu: dict, bs: int, workers: list[int]) -> dict:
    """What a process measured between two snapshots: per direction, and per logical worker it carried."""
    ios = [b - a for a, b in zip(start[0], end[0])]
    lat = [b - a for a, b in zip(start[1], end[1])]
    r_ios, w_ios = sum(ios[0::2]), sum(ios[1::2])
    hist_r = array("q", end[2])
    hist_w = array("q", end[3])
    base_r = array("q", start[2])
    base_w = array("q", start[3])
    for i in range(BUCKETS):
        hist_r[i] -= base_r[i]
        hist_w[i] -= base_w[i]
    mins, maxs = end[4], end[5]
    return {
        "r_ios": r_ios,
        "w_ios": w_ios,
        "r_bytes": r_ios * bs,
        "w_bytes": w_ios * bs,
        "r_lat_ns": sum(lat[0::2]),
        "w_lat_ns": sum(lat[1::2]),
        "r_min": mins[0] if r_ios else None,
        "r_max": maxs[0] if r_ios else None,
        "w_min": mins[1] if w_ios else None,
        "w_max": maxs[1] if w_ios else None,
        "r_hist": hist_r.tobytes(),
        "w_hist": hist_w.tobytes(),
        # Each logical worker's own: its I/Os, bytes and summed latency per direction.
        "workers": [{"worker": w, "r_ios": ios[2 * i], "w_ios": ios[2 * i + 1], "r_bytes": ios[2 * i] * bs,
                     "w_bytes": ios[2 * i + 1] * bs, "r_lat_ns": lat[2 * i], "w_lat_ns": lat[2 * i + 1]}
                    for i, w in enumerate(workers)],
        **cpu,
    }
