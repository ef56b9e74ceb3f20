"""The native engine's worker process: one per step thread, with its outstanding I/Os in flight.

Three I/O loops:
- `io_uring` (labtui.engine.native.uring_loop): the rings shared with the kernel, one system call
  per batch that both submits and waits; the default on O_DIRECT files where it exists.
- `aio`: Linux kernel AIO (io_submit / io_getevents through raw syscalls) on an O_DIRECT file,
  so one process keeps `outstanding` I/Os in flight without threads, like fio's libaio engine;
  where io_uring is missing (old kernel, kernel.io_uring_disabled, a seccomp filter).
- `sync`: blocking pread/pwrite: at queue depth 1 one call at a time on the main thread (the
  cheapest loop there in CPU per I/O: one plain system call, no ctypes), else one thread per
  outstanding I/O; used with the page cache on (kernel AIO is synchronous on buffered files),
  for queue depth 1, and where neither asynchronous interface exists.

Timing is exact per phase: the parent publishes the measure window as monotonic instants;
every completion batch carries one timestamp, and counters are snapshotted at the first batch
past each boundary, so warm-up and drain I/Os never leak into the measured counts.

A worker is a fresh interpreter (`python -m labtui.engine.native.worker CONFIG`), not a fork:
it inherits no threads, locks or UI state from the parent and never re-runs the parent's
`__main__`. The parent shares two memory files with it (inherited descriptors): the control
array (the measure window, stop and go flags) and the worker's live counters; the exact final
counts come back pickled on stdout when the worker ends.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import json
import os
import pickle
import platform
import random
import signal
import stat
import sys
import threading
import time
from array import array

from labtui.engine.native.common import (
    BEAT,
    C_STOP,
    DONE,
    ERRNO,
    FAILED,
    HEADER,
    PUBLISH_NS,
    R_IOS,
    R_LAT,
    STAMP,
    STATE,
    W_IOS,
    W_LAT,
    CpuWindow,
    Tally,
    buffers,
    measured,
    region,
    shared_views,
    wait_for_go,
)
from labtui.engine.native.histogram import BUCKETS, SUB_BITS

_SYSCALLS = {
    "x86_64": {"io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209},
    "aarch64": {"io_setup": 0, "io_destroy": 1, "io_submit": 2, "io_getevents": 4},
}


def aio_syscalls() -> dict[str, int] | None:
    if not hasattr(os, "O_DIRECT"):
        return None
    return _SYSCALLS.get(platform.machine())


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]






def main(argv: list[str]) -> int:
    """Entry point of a worker process. Never raises: failures are reported on stdout."""
    # The terminal's Ctrl+C and a dropped SSH link reach the whole process group; the parent
    # decides how to stop, and tells the workers through the control array.
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTSTP):
        signal.signal(sig, signal.SIG_IGN)
    cfg = json.loads(argv[1])
    _die_with_parent(cfg.get("parent"))
    # The I/O loops make no reference cycles; a collector pause mid-loop would only show up as
    # a latency outlier that the disk did not cause.
    gc.disable()
    control, live, maps = shared_views(cfg["control_fd"], cfg["live_fd"])
    result = work(cfg, control, live)
    sys.stdout.buffer.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    del control, live
    for m in maps:
        m.close()
    return 0


def _die_with_parent(parent: int | None) -> None:
    """SIGKILL from the kernel when labtui dies (even by SIGKILL); exit now if it already has."""
    if sys.platform.startswith("linux"):
        try:
            prctl = ctypes.CDLL(None, use_errno=True).prctl
            prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
            prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def work(cfg: dict, control: memoryview[float], live: memoryview[int]) -> dict:
    """Run the worker's share of a step; a failure becomes {"error": reason}, never an exception."""
    try:
        result = _run(cfg, control, live)
    except NotTheFile as exc:
        live[STATE] = FAILED
        result = {"error": str(exc)}
    except OSError as exc:
        live[STATE] = FAILED
        live[ERRNO] = exc.errno or 0
        result = {"error": f"{exc.strerror or exc} ({cfg['path']})"}
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which fails the step
        live[STATE] = FAILED
        result = {"error": f"{type(exc).__name__}: {exc}"}
    return result


class NotTheFile(Exception):
    """What the worker opened is not what the runner holds (the name was re-pointed meanwhile)."""


def _open(cfg: dict) -> int:
    flags = os.O_RDWR if cfg["write_percent"] > 0 else os.O_RDONLY
    if cfg["direct"]:
        flags |= os.O_DIRECT
    if cfg.get("write_through"):
        # Each write completes once it is on the media, not in the drive's volatile cache (FUA).
        flags |= os.O_DSYNC
    # Never through a link; and what was opened is compared with what the runner holds, so no
    # re-pointed name between its check and this open can redirect the writes.
    fd = os.open(cfg["path"], flags | os.O_NOFOLLOW)
    expect = cfg.get("identity")
    if expect:
        st = os.fstat(fd)
        if "rdev" in expect:
            same = stat.S_ISBLK(st.st_mode) and st.st_rdev == expect["rdev"]
            what = "the device labtui was cleared to write to"
        else:
            same = stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (expect["dev"], expect["ino"])
            what = "the file labtui created"
        if not same:
            os.close(fd)
            raise NotTheFile(f"refusing to use {cfg['path']}: it is not {what} (it was replaced)")
    return fd






def _run(cfg: dict, control: memoryview[float], live: memoryview[int]) -> dict:
    # Workers are deliberately not pinned to CPUs (DiskSpd pins its threads): measured on this
    # virtio disk, a pinned worker at queue depth 1 lost ~20 % of its IOPS, woken by an
    # interrupt on the other CPU for every completion.
    fd = _open(cfg)
    try:
        fallback = None
        if cfg["backend"] == "io_uring":
            from labtui.engine.native.uring import UringError
            from labtui.engine.native.uring_loop import uring_loop

            try:
                result = uring_loop(cfg, control, live, fd)
            except UringError as exc:  # refused here though the parent's probe passed (a seccomp filter?)
                if aio_syscalls() is None:
                    raise
                fallback = f"io_uring could not be set up in a worker ({exc.strerror}): kernel AIO ran instead"
                cfg = {**cfg, "backend": "aio"}
        if cfg["backend"] == "aio":
            result = _aio_loop(cfg, control, live, fd)
        elif cfg["backend"] == "sync":
            loop = _blocking_loop if cfg["outstanding"] == 1 else _sync_loop
            result = loop(cfg, control, live, fd)
    finally:
        os.close(fd)
    result["backend"] = _backend_name(cfg)
    if fallback:
        result["fallback"] = fallback
    return result


def _backend_name(cfg: dict) -> str:
    """The name a result records: the blocking loop with more than one I/O in flight is threads."""
    if cfg["backend"] == "sync" and cfg["outstanding"] > 1:
        return "threads"
    return cfg["backend"]




# --------------------------------------------------------------------------- kernel AIO


def _aio_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    calls = aio_syscalls()
    assert calls is not None
    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    depth = cfg["outstanding"]
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride = buffers(cfg, depth)
    base_addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    bufview = memoryview(buf)

    ctx = ctypes.c_ulong(0)
    if syscall(calls["io_setup"], depth, ctypes.byref(ctx)) < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"io_setup failed: {os.strerror(err)}")
    iocbs = (ctypes.c_uint64 * (8 * depth))()  # struct iocb is 64 bytes
    iq = memoryview(iocbs).cast("B").cast("Q")
    iocb_addr = ctypes.addressof(iocbs)
    for slot in range(depth):
        iq[slot * 8 + 0] = slot  # aio_data
        iq[slot * 8 + 3] = base_addr + slot * stride  # aio_buf
        iq[slot * 8 + 4] = bs  # aio_nbytes
    read_word = (fd << 32) | 0  # aio_lio_opcode (u16) | aio_reqprio (s16) | aio_fildes (u32)
    write_word = (fd << 32) | 1
    # One single-entry `struct iocb *[]` per slot: each I/O is submitted on its own as soon as
    # its slot frees up, as fio does (iodepth_batch_submit=1). Submitting completions in one
    # batch makes them convoy: measured here, 4K QD32 reached only ~75 % of fio's IOPS that way.
    slot_ptrs = [(ctypes.c_uint64 * 1)(iocb_addr + slot * 64) for slot in range(depth)]
    events = (ctypes.c_int64 * (4 * depth))()  # struct io_event is 32 bytes
    eq = memoryview(events).cast("B").cast("q")
    timeout = _Timespec(0, 20_000_000)
    p_timeout = ctypes.byref(timeout)
    io_submit, io_getevents = calls["io_submit"], calls["io_getevents"]
    c_ctx = ctx  # a c_ulong: a bare Python int would be passed as a 32-bit C int

    rng = random.Random(cfg["seed"])
    rnd = rng.random
    nblocks = cfg["file_size"] // bs
    seq = cfg["pattern"] == "sequential"
    seq_start, seq_end = region(cfg)
    pos = seq_start
    stamp = STAMP.pack_into
    nonce = cfg["seed"]
    stamp_positions = range(0, bs - 15, 4096)

    submit_ns = [0] * depth
    is_write = [0] * depth  # the direction of each slot's I/O: 0 read, 1 write
    # Offsets of the first `trace` submissions in order, for tests that check the access pattern.
    trace_left = cfg.get("trace", 0)
    trace: list[tuple[int, bool]] = []
    tally = Tally()
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists
    window = CpuWindow()
    writes_done = 0

    t_measure, t_end = wait_for_go(control, live)
    if t_end == 0:
        syscall(calls["io_destroy"], c_ctx)
        return {"stopped": True}
    publish = tally.publisher(control, live, latency)
    snapshot = tally.snapshot
    snap_start = snap_end = None

    mono = time.monotonic_ns
    submit = syscall
    free = list(range(depth))  # slots with no I/O in flight: all of them at first
    inflight = 0
    last_publish = mono()
    stopping = False
    error = None
    # The hot loop is written out inline (no helper calls per I/O): at 4K and QD32 every
    # hundred nanoseconds of Python per I/O costs IOPS.
    while True:
        if not stopping:
            for slot in free:
                w = 1 if wp == 100 or (wp > 0 and rnd() * 100 < wp) else 0
                if seq:
                    off = pos
                    pos += bs
                    if pos >= seq_end:
                        pos = seq_start
                else:
                    off = int(rnd() * nblocks) * bs
                base = slot * 8
                iq[base + 2] = write_word if w else read_word
                iq[base + 5] = off
                is_write[slot] = w
                if w:
                    b0 = slot * stride
                    writes_done += 1
                    for p in stamp_positions:
                        stamp(bufview, b0 + p, off + p, nonce + writes_done)
                if trace_left:
                    trace.append((off, bool(w)))
                    trace_left -= 1
                submit_ns[slot] = mono()
                if submit(io_submit, c_ctx, 1, slot_ptrs[slot]) == 1:
                    inflight += 1
                else:
                    err = ctypes.get_errno()
                    error = error or (err, os.strerror(err))
                    stopping = True
                    break
        free.clear()
        if not inflight:
            break
        got = syscall(io_getevents, c_ctx, 1, depth, events, p_timeout)
        now = mono()
        if got < 0:
            err = ctypes.get_errno()
            if err == errno.EINTR:
                continue
            raise OSError(err, os.strerror(err))
        if snap_start is None and now >= t_measure:
            snap_start = snapshot()
            window.start()
            tally.start_window()
        if snap_end is None and now >= t_end:
            snap_end = snapshot()
            window.end()
            stopping = True
        if not stopping and control[C_STOP]:
            stopping = True
        for j in range(got):
            e = j * 4
            slot = eq[e]
            res = eq[e + 2]
            inflight -= 1
            if res != bs:
                if error is None:
                    error = (-res, "short transfer") if res < 0 else (errno.EIO, f"short transfer of {res} bytes")
                stopping = True
                continue
            lat = now - submit_ns[slot]
            d = is_write[slot]
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
            free.append(slot)
        if now - last_publish >= PUBLISH_NS:
            publish(now)
            last_publish = now
    syscall(calls["io_destroy"], c_ctx)
    return tally.finish(cfg, live, publish, snap_start, snap_end, window, trace, error)








# --------------------------------------------------------------------------- one blocking call


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
    seq_start, seq_end = region(cfg)
    pos = seq_start
    stamp = STAMP.pack_into
    nonce = cfg["seed"]
    stamp_positions = range(0, bs - 15, 4096)
    trace_left = cfg.get("trace", 0)
    trace: list[tuple[int, bool]] = []
    tally = Tally()
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists
    window = CpuWindow()
    writes_done = 0

    t_measure, t_end = wait_for_go(control, live)
    if t_end == 0:
        return {"stopped": True}
    publish = tally.publisher(control, live, latency)
    snapshot = tally.snapshot
    snap_start = snap_end = None
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
                writes_done += 1
                for p in stamp_positions:
                    stamp(view, p, off + p, nonce + writes_done)
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
            if snap_start is None and t1 >= t_measure:
                snap_start = snapshot()
                window.start()
                tally.start_window()
            if snap_end is None and t1 >= t_end:
                snap_end = snapshot()
                window.end()
                stop = True  # after counting this I/O: the kernel did it (its counters are compared)
            if t1 >= next_publish:
                publish(t1)
                next_publish = t1 + publish_ns
                if control[C_STOP]:
                    stop = True
            due = min(next_publish, t_measure if snap_start is None else t_end)
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
    return tally.finish(cfg, live, publish, snap_start, snap_end, window, trace, error)


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


def _sync_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    """Blocking pread/pwrite, one thread per outstanding I/O (queue depth 1 is _blocking_loop's)."""
    depth = cfg["outstanding"]
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride = buffers(cfg, depth)
    bufview = memoryview(buf)
    nblocks = cfg["file_size"] // bs
    seq = cfg["pattern"] == "sequential"
    seq_start, seq_end = region(cfg)
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

    def publish(now: int) -> None:
        if window.cpu0 is None and now >= t_measure:
            window.start()
        if window.cpu1 is None and now >= t_end:
            window.end()
        if control[C_STOP] or os.getppid() != parent:
            halt[0] = True
        live[R_IOS] = sum(lane.ios[0] for lane in lanes)
        live[W_IOS] = sum(lane.ios[1] for lane in lanes)
        live[R_LAT] = sum(lane.lat[0] for lane in lanes)
        live[W_LAT] = sum(lane.lat[1] for lane in lanes)
        live[BEAT] = now
        if latency:
            live[HEADER : HEADER + BUCKETS] = live_hists[0]
            live[HEADER + BUCKETS : HEADER + 2 * BUCKETS] = live_hists[1]

    def run(slot: int) -> None:
        rnd = random.Random(cfg["seed"] * 1000 + slot).random
        view = bufview[slot * stride : slot * stride + bs]
        bufs = [view]
        stamp = STAMP.pack_into
        positions = range(0, bs - 15, 4096)
        lane = lanes[slot]
        ios, lat_sum, m_ios, m_lat, m_hist, mins, maxs = (
            lane.ios, lane.lat, lane.m_ios, lane.m_lat, lane.m_hist, lane.mins, lane.maxs)
        pread, pwrite, mono = os.preadv, os.pwritev, time.monotonic_ns
        nonce = cfg["seed"]
        n = 0
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
                    n += 1
                    for p in positions:
                        stamp(view, p, off + p, nonce + n)
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
        # Wake at the window's boundaries too: the CPU window starts and ends there, not at the
        # next publishing turn (up to PUBLISH_NS late).
        now = time.monotonic_ns()
        wake = min([now + PUBLISH_NS] + [b for b in (t_measure, t_end) if b > now])
        time.sleep((wake - now) / 1e9)
        publish(time.monotonic_ns())
    publish(time.monotonic_ns())
    hist_r = array("q", bytes(8 * BUCKETS))
    hist_w = array("q", bytes(8 * BUCKETS))
    for lane in lanes:
        for total, part in ((hist_r, lane.m_hist[0]), (hist_w, lane.m_hist[1])):
            for i, count in enumerate(part):
                if count:
                    total[i] += count
    zero = (0, 0, 0, 0, bytes(8 * BUCKETS), bytes(8 * BUCKETS))
    end = (
        sum(lane.m_ios[0] for lane in lanes),
        sum(lane.m_ios[1] for lane in lanes),
        sum(lane.m_lat[0] for lane in lanes),
        sum(lane.m_lat[1] for lane in lanes),
        hist_r.tobytes(),
        hist_w.tobytes(),
    )
    mins = [min(lane.mins[d] for lane in lanes) for d in (0, 1)]
    maxs = [max(lane.maxs[d] for lane in lanes) for d in (0, 1)]
    result = measured(zero, end, mins, maxs, window.figures(), bs)
    result["stopped_at_ns"] = time.monotonic_ns()
    result["trace"] = trace[:trace_limit]
    if errors:
        code, text = errors[0]
        result["error"] = f"I/O error: {os.strerror(code) if code else text} ({cfg['path']})"
        live[STATE] = FAILED
    else:
        live[STATE] = DONE
    return result

if __name__ == "__main__":
    sys.exit(main(sys.argv))
