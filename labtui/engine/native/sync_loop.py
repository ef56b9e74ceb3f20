"""The native engine's blocking loops: one process per logical worker, one call per I/O.

- At queue depth 1 (`_blocking_loop`), one pread/pwrite at a time on the main thread: the cheapest
  loop there in CPU per I/O (one plain system call, no ctypes).
- With more than one I/O in flight (`threads_loop`), one thread per outstanding I/O: with the page
  cache on (kernel AIO and this io_uring loop are synchronous on buffered files), and where
  neither asynchronous interface exists.

A blocking call carries one I/O: these loops never carry several logical workers in one process
(their threads would take turns at one interpreter).
"""

from __future__ import annotations

import errno
import os
import random
import threading
import time
from array import array

from labtui.engine.native.blocks import Blocks
from labtui.engine.native.common import (
    BEAT,
    C_STOP,
    DONE,
    FAILED,
    HEADER,
    M_DONE,
    MR_IOS,
    MR_LAT,
    MW_IOS,
    MW_LAT,
    PUBLISH_NS,
    R_IOS,
    R_LAT,
    STATE,
    W_IOS,
    W_LAT,
    CpuWindow,
    Snapshot,
    Tally,
    buffers,
    measured,
    region,
    wait_for_go,
)
from labtui.engine.native.histogram import BUCKETS, SUB_BITS


def sync_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    """The blocking loop for this worker: one call at a time, or a thread per I/O in flight."""
    loop = _blocking_loop if cfg["outstanding"] == 1 else _threads_loop
    return loop(cfg, control, live, fd)


def _blocking_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    """Queue depth 1: one blocking pread/pwrite at a time on this thread.

    Measured on the RAM device (in one process, alternating 0.2 s chunks): the cheapest loop in
    CPU per I/O at queue depth 1, below io_uring and kernel AIO (one plain system call per I/O
    where they need a ctypes call or two). Counting is the other loops': cumulative counters,
    snapshotted at the first I/O completed past each boundary of the window.
    """
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, _ = buffers(cfg, 1)
    view = memoryview(buf)[:bs]
    bufs = [view]
    rnd = random.Random(cfg["seed"]).random
    nblocks = cfg["file_size"] // bs
    seq = cfg["pattern"] == "sequential"
    seq_start, seq_end = region(cfg, cfg["workers"][0])
    pos = seq_start
    stamp = Blocks(memoryview(buf), len(buf), bs, cfg["seed"]).stamp
    slot0 = [0]
    trace_left = cfg.get("trace", 0)
    trace: list[tuple[int, bool]] = []
    tally = Tally()
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists

    t_measure, t_end = wait_for_go(control, live)
    if t_end == 0:
        return {"stopped": True}
    tally.t_measure, tally.t_end = t_measure, t_end
    publish = tally.publisher(control, live, latency)
    pread, pwrite, mono = os.preadv, os.pwritev, time.monotonic_ns
    publish_ns = PUBLISH_NS
    next_publish = mono() + publish_ns
    due = min(next_publish, t_measure)
    error = None
    # Random reads (the cell where the interpreter's cost per I/O shows) take a lean path: its
    # counts live in locals, written back to the tally before anything reads it (a snapshot,
    # the live counters, the end).
    lean = not (seq or wp or trace_left)
    d = 1 if wp == 100 else 0
    n = lat_total = 0
    lo, hi = mins[0], maxs[0]
    hist = hists[0]
    stop = False
    # The hot loop is written out inline (no helper calls per I/O).
    while not stop:
        if lean:
            off = int(rnd() * nblocks) * bs
        else:
            if 0 < wp < 100:
                d = 1 if rnd() * 100 < wp else 0
            if seq:
                off = pos
                pos += bs
                if pos >= seq_end:
                    pos = seq_start
            else:
                off = int(rnd() * nblocks) * bs
            if d:
                stamp(slot0, [off])
            if trace_left:
                trace.append((off, bool(d)))
                trace_left -= 1
        try:
            t0 = mono()
            done = pwrite(fd, bufs, off) if d else pread(fd, bufs, off)
        except OSError as exc:
            error = (exc.errno or errno.EIO, exc.strerror or str(exc))
            break
        t1 = mono()
        if done != bs:
            error = (errno.EIO, f"short transfer of {done} bytes")
            break
        if t1 >= due:
            # A window boundary or the live counters' turn (one comparison per I/O otherwise);
            # the I/O that crossed a boundary counts in the phase it completed in.
            if lean:
                ios[0] += n
                lat_sum[0] += lat_total
                mins[0], maxs[0] = lo, hi
                n = lat_total = 0
            if tally.cross(t1):
                stop = True  # after counting this I/O: the kernel did it (its counters are compared)
            if t1 >= next_publish:
                publish(t1)
                next_publish = t1 + publish_ns
                if control[C_STOP]:
                    stop = True
            due = min(next_publish, t_measure if tally.first is None else t_end)
            lo, hi = mins[0], maxs[0]
        lat = t1 - t0
        if lean:
            n += 1
            lat_total += lat
            if latency:
                if lat < 128:
                    hist[lat if lat > 0 else 0] += 1
                else:
                    shift = lat.bit_length() - SUB_BITS
                    hist[(shift << 6) + (lat >> shift) if shift < 34 else BUCKETS - 1] += 1
                if lat < lo:
                    lo = lat
                if lat > hi:
                    hi = lat
            continue
        ios[d] += 1
        lat_sum[d] += lat
        if latency:
            if lat < 128:
                hists[d][lat if lat > 0 else 0] += 1
            else:
                shift = lat.bit_length() - SUB_BITS
                hists[d][(shift << 6) + (lat >> shift) if shift < 34 else BUCKETS - 1] += 1
            if lat < mins[d]:
                mins[d] = lat
            if lat > maxs[d]:
                maxs[d] = lat
        if not trace_left and not (seq or wp):
            lean = True  # the traced prefix is done: random reads from here on
            lo, hi = mins[0], maxs[0]
    if lean:
        ios[0] += n
        lat_sum[0] += lat_total
        mins[0], maxs[0] = lo, hi
    return tally.finish(cfg, live, publish, [trace], error)


# --------------------------------------------------------------------------- threads


class _Lane:
    """One synchronous stream of I/Os (a thread, or the main thread when only one is in flight).

    Counters are per direction (index 0 read, 1 write): `ios`/`lat` for the live view, all
    phases; `m_*` for the measure window only, classified by each I/O's own completion time.
    """

    __slots__ = ("ios", "lat", "m_ios", "m_lat", "m_hist", "mins", "maxs")

    def __init__(self) -> None:
        self.ios = [0, 0]
        self.lat = [0, 0]
        self.m_ios = [0, 0]
        self.m_lat = [0, 0]
        self.m_hist = (array("q", bytes(8 * BUCKETS)), array("q", bytes(8 * BUCKETS)))
        self.mins = [1 << 62, 1 << 62]
        self.maxs = [0, 0]


def _threads_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    """Blocking pread/pwrite, one thread per outstanding I/O (queue depth 1 is _blocking_loop's)."""
    depth = cfg["outstanding"]
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride = buffers(cfg, depth)
    bufview = memoryview(buf)
    nblocks = cfg["file_size"] // bs
    seq = cfg["pattern"] == "sequential"
    seq_start, seq_end = region(cfg, cfg["workers"][0])
    seq_blocks = max(1, (seq_end - seq_start) // bs)
    counter = iter(range(1 << 62))  # next() on it is atomic under the GIL: one shared sequence
    lanes = [_Lane() for _ in range(depth)]
    # Shared by all threads for the live view only: a rare lost update is harmless there; the
    # measured histograms are per lane and exact.
    live_hists = (array("q", bytes(8 * BUCKETS)), array("q", bytes(8 * BUCKETS)))
    errors: list[tuple[int, str]] = []
    halt = [False]
    trace: list[tuple[int, bool]] = []
    trace_limit = cfg.get("trace", 0)
    window = CpuWindow()

    parent = os.getppid()
    t_measure, t_end = wait_for_go(control, live)
    if t_end == 0:
        return {"stopped": True}

    # The CPU window's readings are taken by the I/O threads, at the first I/O of the process
    # completed past each boundary: the I/Os are counted by their own completion times, so the
    # CPU time must be read where they cross, not when this thread next wakes. Read by the
    # publishing thread, a machine busy enough to keep it off a CPU for the whole window (its
    # I/O threads hold the interpreter, a CPU quota throttles the process) read both ends
    # together after the window: 0.0001 CPU-seconds for 18k I/Os.
    edge_lock = threading.Lock()

    def edge(t1: int) -> int:
        """At an I/O completed at `t1`, past the boundary a thread waited for: the readings due by
        then (the first thread past a boundary takes them); the next boundary to wait for."""
        with edge_lock:
            if window.cpu0 is None:
                window.start()
            if t1 >= t_end and window.cpu1 is None:
                window.end()
        return t_end

    def publish(now: int, done: bool = False) -> None:
        if control[C_STOP] or os.getppid() != parent:
            halt[0] = True
        live[R_IOS] = sum(lane.ios[0] for lane in lanes)
        live[W_IOS] = sum(lane.ios[1] for lane in lanes)
        live[R_LAT] = sum(lane.lat[0] for lane in lanes)
        live[W_LAT] = sum(lane.lat[1] for lane in lanes)
        # The window's own counts, each I/O classified by its lane: final once every lane has ended.
        live[MR_IOS] = sum(lane.m_ios[0] for lane in lanes)
        live[MW_IOS] = sum(lane.m_ios[1] for lane in lanes)
        live[MR_LAT] = sum(lane.m_lat[0] for lane in lanes)
        live[MW_LAT] = sum(lane.m_lat[1] for lane in lanes)
        live[M_DONE] = 1 if done else 0
        live[BEAT] = now
        if latency:
            live[HEADER : HEADER + BUCKETS] = live_hists[0]
            live[HEADER + BUCKETS : HEADER + 2 * BUCKETS] = live_hists[1]

    def run(slot: int) -> None:
        rnd = random.Random(cfg["seed"] * 1000 + slot).random
        view = bufview[slot * stride : slot * stride + bs]
        bufs = [view]
        # Each thread numbers its own writes, from a base of its own.
        stamp = Blocks(bufview[slot * stride : (slot + 1) * stride], stride, bs, cfg["seed"] + (slot << 40)).stamp
        slot0 = [0]
        lane = lanes[slot]
        ios, lat_sum, m_ios, m_lat, m_hist, mins, maxs = (
            lane.ios, lane.lat, lane.m_ios, lane.m_lat, lane.m_hist, lane.mins, lane.maxs)
        pread, pwrite, mono = os.preadv, os.pwritev, time.monotonic_ns
        due = t_measure  # the next boundary of the window this thread has not seen an I/O past
        while not halt[0]:
            d = 1 if wp == 100 or (wp > 0 and rnd() * 100 < wp) else 0
            if seq:
                off = seq_start + (next(counter) % seq_blocks) * bs
            else:
                off = int(rnd() * nblocks) * bs
            if len(trace) < trace_limit:
                trace.append((off, bool(d)))
            try:
                if d:
                    stamp(slot0, [off])
                    t0 = mono()
                    done = pwrite(fd, bufs, off)
                else:
                    t0 = mono()
                    done = pread(fd, bufs, off)
            except OSError as exc:
                errors.append((exc.errno or errno.EIO, exc.strerror or str(exc)))
                halt[0] = True
                return
            t1 = mono()
            if done != bs:
                errors.append((errno.EIO, f"short transfer of {done} bytes"))
                halt[0] = True
                return
            if t1 >= due:
                due = edge(t1)
            lat = t1 - t0
            ios[d] += 1
            lat_sum[d] += lat
            if latency:
                if lat < 128:
                    idx = lat if lat > 0 else 0
                else:
                    shift = lat.bit_length() - SUB_BITS
                    idx = (shift << 6) + (lat >> shift) if shift < 34 else BUCKETS - 1
                live_hists[d][idx] += 1
            if t_measure <= t1 < t_end:
                m_ios[d] += 1
                m_lat[d] += lat
                if latency:
                    m_hist[d][idx] += 1
                    if lat < mins[d]:
                        mins[d] = lat
                    if lat > maxs[d]:
                        maxs[d] = lat
            if t1 >= t_end:
                return

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(depth)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(PUBLISH_NS / 1e9)
        publish(time.monotonic_ns())
    publish(time.monotonic_ns(), done=True)
    hist_r = array("q", bytes(8 * BUCKETS))
    hist_w = array("q", bytes(8 * BUCKETS))
    for lane in lanes:
        for total, part in ((hist_r, lane.m_hist[0]), (hist_w, lane.m_hist[1])):
            for i, count in enumerate(part):
                if count:
                    total[i] += count
    mins = [min(lane.mins[d] for lane in lanes) for d in (0, 1)]
    maxs = [max(lane.maxs[d] for lane in lanes) for d in (0, 1)]
    zero: Snapshot = ([0, 0], [0, 0], bytes(8 * BUCKETS), bytes(8 * BUCKETS), mins, maxs)
    end: Snapshot = (
        [sum(lane.m_ios[0] for lane in lanes), sum(lane.m_ios[1] for lane in lanes)],
        [sum(lane.m_lat[0] for lane in lanes), sum(lane.m_lat[1] for lane in lanes)],
        hist_r.tobytes(),
        hist_w.tobytes(),
        mins,
        maxs,
    )
    result = measured(zero, end, window.figures(), bs, cfg["workers"])
    result["stopped_at_ns"] = time.monotonic_ns()
    result["traces"] = [trace[:trace_limit]]
    if errors:
        code, text = errors[0]
        result["error"] = f"I/O error: {os.strerror(code) if code else text} ({cfg.get('shown', cfg['path'])})"
        live[STATE] = FAILED
    else:
        live[STATE] = DONE
    return result

