"""The native worker's io_uring loop: all its I/Os in flight from one thread, few system calls per batch.

Every freed slot is queued as a submission entry prepared once (file, buffer, length, slot
number; registered buffer and file where the kernel allows), so an I/O costs this loop its
offset and, for a mixed step, its direction. Every completion waiting is reaped and counted at
once, as fio does with iodepth_batch_complete; the freed slots then go back to the kernel a few
at a time as they are prepared (`io_uring_enter` calls that wait for nothing and post what has
completed meanwhile), and at 16 or more in flight only then is the batch counted; the last few
go with the call that waits for the next completion, unless a count is due after them. A batch
no larger than a chunk costs one system call. The clock is read once per chunk submitted (its
I/Os' submission time) and once per wait (its completions' time).

Counting is exact per phase, as in the other loops: counters are snapshotted at the first
batch completed past each boundary of the measure window.
"""

from __future__ import annotations

import ctypes
import errno
import os
import random
import time

from labtui.engine.native import common as nw, uring
from labtui.engine.native.histogram import BUCKETS, SUB_BITS

# Freed slots go to the kernel a chunk at a time, each chunk as soon as it is prepared, not a
# whole batch in one call: a batch reaped together and resubmitted together stays together, and
# the device sees bursts instead of a stream. How large a chunk, by queue depth, as measured:
# - Deep queues (DEEP_QUEUE or more in flight), SUBMIT_CHUNK: on the virtio disk the disk's own
#   time per request (/proc/diskstats, at the same depth at the disk) grows with the chunk. Quiet,
#   1 worker x 32, 70/30, alternating 2 s runs (2026-12-02 03:27 UTC): chunks of 2, 3 and 4 cost
#   248, 262 and 274 us per request where fio libaio's (one I/O per call) cost 251, and reached
#   0.99, 0.97 and 0.94 of fio's IOPS (whole batches: 0.79-0.84). On the RAM device, where the
#   loop's CPU is the limit, chunks of 2 did 1.08 x fio's IOPS at 1 x 32 70/30 and 1.17 on reads.
# - Shallower queues, SHALLOW_CHUNK: chunks of 2 there cost calls where the CPU is short and bursts
#   matter less. At 4 workers x 4 (16K 70/30) on the RAM device chunks of 2 fell to 0.87 of fio
#   (1.01 with 4, CPU per I/O 1.23 x fio's), and one worker x 8 of 1 MiB sequential reads on the
#   virtio disk to 0.75 (1.08 with 4) (benchmarks/engine_vs_fio.py, 03:31-03:50 UTC).
# benchmarks/native_loops.py --submit-chunks 2,4 --fio libaio io_uring repeats them. Each call also
# posts what has completed meanwhile.
DEEP_QUEUE = 16
SUBMIT_CHUNK = 2
SHALLOW_CHUNK = 4


def submit_chunk(depth: int) -> int:
    """How many freed slots go to the kernel per call at this many in flight."""
    return SUBMIT_CHUNK if depth >= DEEP_QUEUE else SHALLOW_CHUNK


# At DEEP_QUEUE or more in flight a reaped batch is counted after its freed slots are back with
# the kernel, not before: the count (latency buckets, per-direction tallies) would otherwise keep
# every slot of the batch out of the device meanwhile. At 1 x 32 on the virtio disk: +3 to +6 %
# IOPS for every chunk size (same runs). Not below: at 4 workers x 4 on the RAM device, where the
# CPU is the limit, slots back sooner meant smaller batches and more calls per I/O (CPU per I/O
# 1.32-1.39 x fio's against 1.13-1.18 counting first, alternating runs at 04:38 UTC).
TALLY_AFTER_SUBMIT = True


def uring_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    ring = uring.Ring(cfg["outstanding"])
    try:
        return _run(cfg, control, live, fd, ring)
    finally:
        ring.close()


def _run(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int, ring: uring.Ring) -> dict:
    depth = cfg["outstanding"]
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride = nw.buffers(cfg, depth)
    base_addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    bufview = memoryview(buf)
    fixed = ring.register_buffers(base_addr, stride, depth)
    fixed_file = ring.register_file(fd)
    op_read = uring.OP_READ_FIXED if fixed else uring.OP_READ
    op_write = uring.OP_WRITE_FIXED if fixed else uring.OP_WRITE

    sqe8, sqe16, sqe32, sqe64 = ring.sqe8, ring.sqe16, ring.sqe32, ring.sqe64
    for slot in range(depth):
        sqe8[slot * 64] = op_write if wp == 100 else op_read
        sqe8[slot * 64 + 1] = uring.SQE_FIXED_FILE if fixed_file else 0
        sqe32[slot * 16 + 1] = 0 if fixed_file else fd
        sqe64[slot * 8 + 2] = base_addr + slot * stride
        sqe32[slot * 16 + 6] = bs
        sqe64[slot * 8 + 4] = slot
        sqe16[slot * 32 + 20] = slot if fixed else 0

    rng = random.Random(cfg["seed"])
    rnd = rng.random
    nblocks = cfg["file_size"] // bs
    seq = cfg["pattern"] == "sequential"
    seq_start, seq_end = nw.region(cfg)
    pos = seq_start
    mixed = 0 < wp < 100
    stamp = nw.STAMP.pack_into
    nonce = cfg["seed"]
    stamp_positions = range(0, bs - 15, 4096)

    submit_ns = [0] * depth
    is_write = [1 if wp == 100 else 0] * depth
    trace_left = cfg.get("trace", 0)
    trace: list[tuple[int, bool]] = []
    tally = nw.Tally()
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists
    window = nw.CpuWindow()
    writes_done = 0

    t_measure, t_end = nw.wait_for_go(control, live)
    if t_end == 0:
        return {"stopped": True}
    publish = tally.publisher(control, live, latency)
    snapshot = tally.snapshot
    snap_start = snap_end = None

    syscall = uring._syscall()
    get_errno = ctypes.get_errno
    enter, ring_fd, getevents = uring.SYS_ENTER, ring.fd, uring.ENTER_GETEVENTS
    sq32, cq32, cqe64, cqe32 = ring.sq32, ring.cq32, ring.cqe64, ring.cqe32
    sq_head_i, sq_tail_i, sq_arr, smask = ring.sq_head, ring.sq_tail, ring.sq_array, ring.sq_mask
    cq_head_i, cq_tail_i, cmask = ring.cq_head, ring.cq_tail, ring.cq_mask
    cq_entries = cmask + 1
    tail = sq32[sq_tail_i]
    head = cq32[cq_head_i]
    mono = time.monotonic_ns
    free = list(range(depth))
    inflight = 0
    publish_ns = nw.PUBLISH_NS
    next_publish = mono() + publish_ns
    due = min(next_publish, t_measure)
    stopping = False
    error = None
    # The hot loop is written out inline (no helper calls per I/O): at 4K and QD32 every
    # hundred nanoseconds of Python per I/O costs IOPS.
    # Random reads (most cells, and the ones where the engine's cost shows) take a lean path.
    lean = not (seq or wp or trace_left)
    d0 = 1 if wp == 100 else 0
    hist0 = hists[d0]
    chunk = submit_chunk(depth)
    after = TALLY_AFTER_SUBMIT and depth >= DEEP_QUEUE
    def tally_batch(stamps: list[int], dirs: list[int], now: int) -> None:
        """Count a reaped batch: its I/Os (submitted at `stamps`, in directions `dirs` for a mixed
        step), all completed by `now`. Per batch, not per I/O: a call here costs nothing per I/O."""
        last_lat = -1
        last_idx = 0
        if mixed:
            for t, d in zip(stamps, dirs):
                lat = now - t
                ios[d] += 1
                lat_sum[d] += lat
                if latency:
                    if lat != last_lat:
                        last_lat = lat
                        if lat < 128:
                            last_idx = lat if lat > 0 else 0
                        else:
                            shift = lat.bit_length() - SUB_BITS
                            last_idx = (shift << 6) + (lat >> shift) if shift < 34 else BUCKETS - 1
                    hists[d][last_idx] += 1
                    if lat < mins[d]:
                        mins[d] = lat
                    if lat > maxs[d]:
                        maxs[d] = lat
        else:
            n = len(stamps)
            ios[d0] += n
            lat_sum[d0] += now * n - sum(stamps)
            if latency:
                # A batch's completions share its completion time and mostly a few submission
                # times: the bucket is looked up once per submission time.
                last_t = -1
                for t in stamps:
                    if t != last_t:
                        last_t = t
                        lat = now - t
                        if lat < 128:
                            last_idx = lat if lat > 0 else 0
                        else:
                            shift = lat.bit_length() - SUB_BITS
                            last_idx = (shift << 6) + (lat >> shift) if shift < 34 else BUCKETS - 1
                        if lat < mins[d0]:
                            mins[d0] = lat
                        if lat > maxs[d0]:
                            maxs[d0] = lat
                    hist0[last_idx] += 1

    # The batch reaped by the last wait, counted once its freed slots are back with the kernel.
    done: list[int] = []
    dirs: list[int] = []
    done_now = 0
    while True:
        if free and not stopping:
            t_sub = mono()
            k = 0  # entries queued since the last submission
            if lean:
                for slot in free:
                    if k == chunk:
                        # A full chunk goes now, unless it is the last: that one goes with the
                        # call that waits. Failure leaves the entries queued for the next call.
                        sq32[sq_tail_i] = tail & 0xFFFFFFFF
                        syscall(enter, ring_fd, k, 0, getevents, None, 0)
                        k = 0
                        t_sub = mono()
                    sqe64[slot * 8 + 1] = int(rnd() * nblocks) * bs
                    submit_ns[slot] = t_sub
                    sq32[sq_arr + (tail & smask)] = slot
                    tail += 1
                    k += 1
            else:
                for slot in free:
                    if k == chunk:
                        sq32[sq_tail_i] = tail & 0xFFFFFFFF
                        syscall(enter, ring_fd, k, 0, getevents, None, 0)
                        k = 0
                        t_sub = mono()
                    if mixed:
                        w = 1 if rnd() * 100 < wp else 0
                        sqe8[slot * 64] = op_write if w else op_read
                        is_write[slot] = w
                    if seq:
                        off = pos
                        pos += bs
                        if pos >= seq_end:
                            pos = seq_start
                    else:
                        off = int(rnd() * nblocks) * bs
                    sqe64[slot * 8 + 1] = off
                    if wp and is_write[slot]:
                        b0 = slot * stride
                        writes_done += 1
                        for p in stamp_positions:
                            stamp(bufview, b0 + p, off + p, nonce + writes_done)
                    if trace_left:
                        trace.append((off, bool(is_write[slot])))
                        trace_left -= 1
                    sq32[sq_arr + (tail & smask)] = slot
                    tail += 1
                    submit_ns[slot] = t_sub
                    k += 1
                lean = not (seq or wp or trace_left)
            inflight += len(free)
            free.clear()
            sq32[sq_tail_i] = tail & 0xFFFFFFFF
            if len(done) > chunk:
                # The last chunk goes now too, rather than wait for the count below.
                syscall(enter, ring_fd, (tail - sq32[sq_head_i]) & 0xFFFFFFFF, 0, getevents, None, 0)
        if done:
            tally_batch(done, dirs, done_now)
            done = []
        if not inflight:
            break
        # Whatever the kernel has not consumed yet: the last chunk (all of it after an interrupted call).
        queued = (tail - sq32[sq_head_i]) & 0xFFFFFFFF
        got = syscall(enter, ring_fd, queued, 1, getevents, None, 0)
        seen = cq32[cq_tail_i]  # read before the clock: every completion up to it is done by `now`
        now = mono()
        if got < 0:
            err = get_errno()
            if err in (errno.EINTR, errno.EAGAIN, errno.EBUSY):
                continue
            raise OSError(err, f"io_uring_enter failed: {os.strerror(err)}")
        if now >= due:
            # A window boundary or the live counters' turn (one comparison per batch otherwise).
            if snap_start is None and now >= t_measure:
                snap_start = snapshot()
                window.start()
                tally.start_window()
            if snap_end is None and now >= t_end:
                snap_end = snapshot()
                window.end()
                stopping = True
            if now >= next_publish:
                publish(now)
                next_publish = now + publish_ns
                if control[nw.C_STOP]:
                    stopping = True
            due = min(next_publish, t_measure if snap_start is None else t_end if snap_end is None else next_publish)
        count = (seen - head) & 0xFFFFFFFF
        if not count:
            continue
        # The batch's completions copied out at C speed: slot numbers and results.
        first = head & cmask
        if count == 1:  # common at low queue depths: no slices for one entry
            slots = [cqe64[2 * first]]
            ress = [cqe32[4 * first + 2]]
        elif first + count <= cq_entries:
            slots = cqe64[2 * first : 2 * (first + count) : 2].tolist()
            ress = cqe32[4 * first + 2 : 4 * (first + count) + 2 : 4].tolist()
        else:
            rest = first + count - cq_entries
            slots = cqe64[2 * first :: 2].tolist() + cqe64[: 2 * rest : 2].tolist()
            ress = cqe32[4 * first + 2 :: 4].tolist() + cqe32[2 : 4 * rest + 2 : 4].tolist()
        head = seen
        cq32[cq_head_i] = head  # the entries are copied out: the kernel may reuse them
        inflight -= count
        if ress.count(bs) != count:
            bad = next(r for r in ress if r != bs)
            if error is None:
                error = (-bad, "short transfer") if bad < 0 else (errno.EIO, f"short transfer of {bad} bytes")
            stopping = True
            slots = [slot for slot, r in zip(slots, ress) if r == bs]
        free += slots
        # Their submission times and directions, before resubmission overwrites them.
        done = list(map(submit_ns.__getitem__, slots))
        dirs = list(map(is_write.__getitem__, slots)) if mixed else dirs
        done_now = now
        if not after:
            tally_batch(done, dirs, done_now)
            done = []

    result = tally.finish(cfg, live, publish, snap_start, snap_end, window, trace, error)
    result["registered"] = {"buffers": fixed, "file": fixed_file}
    return result
