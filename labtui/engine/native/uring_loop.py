"""The native io_uring loop: every slot of the logical workers a process carries, in one ring.

Every slot has a submission entry prepared once (file, buffer, length, slot number; registered
buffer and file where the kernel allows), so an I/O costs this loop its offset and, for a mixed
step, its direction, both taken for a whole batch of freed slots at once from draws made a pool
at a time (labtui.engine.native.slots), and writes are stamped in their registered buffers in
place, a batch at a time (labtui.engine.native.blocks). Every completion waiting is reaped and
counted at once, as fio does with iodepth_batch_complete, per logical worker
(labtui.engine.native.batch); the freed slots
then go back to the kernel a few at a time as they are prepared (`io_uring_enter` calls that wait
for nothing and post what has completed meanwhile), and at 16 or more in flight only then is the
batch counted; the last few go with the call that waits for the next completion, unless a count
is due after them. A process that carries several logical workers sends the whole batch with the
call that waits. A batch no larger than a chunk costs one system call. The clock is read once
per chunk submitted (its I/Os' submission time) and once per wait (its completions' time).

Counting is exact per phase, as in the other loops: counters are snapshotted at the first
batch completed past each boundary of the measure window.
"""

from __future__ import annotations

import ctypes
import errno
import os
import time
from array import array

from labtui.engine.native import common as nw, uring
from labtui.engine.native.batch import slot_counter, tallied, whole
from labtui.engine.native.blocks import direction_pass, slot_buffers
from labtui.engine.native.slots import Slots

# Freed slots go to the kernel a chunk at a time, each chunk as soon as it is prepared, not a
# whole batch in one call: a batch reaped together and resubmitted together stays together, and
# the device sees bursts instead of a stream. How large a chunk, by the slots in the ring, as measured:
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
# Submission entries a ring holds, and so the slots one process drives (io_uring's own limit on
# registered buffers); a step with more in flight runs on more processes (labtui.engine.native.plan).
MAX_SLOTS = 16384


# A process that carries several logical workers (they outnumber the CPUs: labtui.engine.native.
# plan) sends a whole batch of freed slots with the call that waits for the next completion: the
# CPU is what limits there, the batches are small (2.7-6.7 I/Os a wait in the engine's two carriers
# at 8x2, 4x8 and 8x4 on the RAM device), and chunks of 2 made that 2-3 calls per batch. One
# process's shape of those cells on the RAM device (2 x 8 50/50, 4 x 4 reads, 4 x 2 8K 70/30),
# 16 alternating rounds at a load of 6-11 (2026-12-06 08:30 UTC, benchmarks/native_loops.py
# --submit-chunks 2,4,0): CPU per I/O 7.13 / 6.99 / 6.68 us (chunks of 2 / of 4 / whole),
# 5.35 / 5.48 / 5.08, 10.12 / 10.23 / 9.86. A single worker keeps its chunks (measured above).
CARRIED_WHOLE = True


def submit_chunk(depth: int, carried: bool = False) -> int:
    """How many freed slots go to the kernel per call at this many in flight (all of them at once
    where the process carries several logical workers)."""
    if carried and CARRIED_WHOLE:
        return depth
    return SUBMIT_CHUNK if depth >= DEEP_QUEUE else SHALLOW_CHUNK


# At DEEP_QUEUE or more in flight a reaped batch is counted after its freed slots are back with
# the kernel, not before: the count (latency buckets, per-direction tallies) would otherwise keep
# every slot of the batch out of the device meanwhile. At 1 x 32 on the virtio disk: +3 to +6 %
# IOPS for every chunk size (same runs). Not below: at 4 workers x 4 on the RAM device, where the
# CPU is the limit, slots back sooner meant smaller batches and more calls per I/O (CPU per I/O
# 1.32-1.39 x fio's against 1.13-1.18 counting first, alternating runs at 04:38 UTC).
TALLY_AFTER_SUBMIT = True


def uring_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    slots = Slots(cfg)
    ring = uring.Ring(slots.count)
    try:
        return _run(cfg, control, live, fd, ring, slots)
    finally:
        ring.close()


def _run(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int, ring: uring.Ring,
         slots: Slots) -> dict:
    depth = slots.count
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride, base_addr, blocks = slot_buffers(cfg, depth)
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

    seq = slots.sequential
    # Random offsets and directions, a pool drawn at once; `drawn` of it used.
    pool_offsets, pool_writes = slots.pool()
    pool_size = slots.pool_size
    drawn = 0
    mixed = slots.mixed
    many, base, key = len(slots.workers) > 1, slots.base, slots.key

    # A mixed step's directions, offsets and stamps, set in one pass over each batch.
    mark = direction_pass(blocks, key, base, sqe8, (64, 0), op_write, op_read, sqe64, (8, 1)) if mixed else None

    submit_ns = [0] * depth
    tally, count = tallied(slots, latency)

    t_measure, t_end = nw.wait_for_go(control, live)
    if t_end == 0:
        return {"stopped": True}
    publish = tally.publisher(control, live, latency)
    tally.t_measure, tally.t_end = t_measure, t_end

    syscall = uring._syscall()
    get_errno = ctypes.get_errno
    enter, ring_fd, getevents = uring.SYS_ENTER, ring.fd, uring.ENTER_GETEVENTS
    sq32, cq32, cqe64, cqe32 = ring.sq32, ring.cq32, ring.cqe64, ring.cqe32
    sq_head_i, sq_tail_i, sq_arr, smask = ring.sq_head, ring.sq_tail, ring.sq_array, ring.sq_mask
    cq_head_i, cq_tail_i, cmask = ring.cq_head, ring.cq_tail, ring.cq_mask
    cq_entries = cmask + 1
    sq_entries = smask + 1
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
    tracing = slots.trace_limit > 0
    lean = not (seq or wp or tracing)
    base_chunk = submit_chunk(depth, carried=len(slots.workers) > 1)
    chunk = base_chunk
    # Whole batches go with the call that waits: a batch is counted as it is reaped, by its slots.
    count_slots = slot_counter(tally, slots, submit_ns) if base_chunk >= depth and latency else None
    after = TALLY_AFTER_SUBMIT and depth >= DEEP_QUEUE and count_slots is None
    # The batch reaped by the last wait, counted once its freed slots are back with the kernel.
    done: list[int] = []
    keys: list[int] | None = None
    done_now = 0
    while True:
        if free and not stopping:
            n = len(free)
            if drawn + n > pool_size:
                pool_offsets, pool_writes = slots.pool()
                drawn = 0
            if lean:
                for slot, off in zip(free, pool_offsets[drawn : drawn + n]):
                    sqe64[slot * 8 + 1] = off
                drawn += n
            else:
                offsets = slots.offsets(free) if seq else pool_offsets[drawn : drawn + n]
                if mark is not None:
                    mark(free, pool_writes[drawn : drawn + n], offsets)
                else:
                    for slot, off in zip(free, offsets):
                        sqe64[slot * 8 + 1] = off
                    if wp:
                        blocks.stamp(free, offsets)
                drawn += n
                if tracing:
                    tracing = slots.trace(free, offsets)
                    lean = not (seq or wp or tracing)
            # To the kernel a chunk at a time, each with its submission time; all but the last
            # chunk now, the last with the call that waits. A batch of n goes in chunks of n / 2
            # at least: reaped in one go, it was waiting for this process, not for the device.
            chunk = max(base_chunk, n >> 1)
            for start in range(0, n, chunk):
                part = free[start : start + chunk] if n > chunk else free
                m = len(part)
                t_sub = mono()
                for slot in part:
                    submit_ns[slot] = t_sub
                at = tail & smask
                if at + m <= sq_entries:
                    sq32[sq_arr + at : sq_arr + at + m] = array("I", part)
                else:
                    cut = sq_entries - at
                    sq32[sq_arr + at : sq_arr + sq_entries] = array("I", part[:cut])
                    sq32[sq_arr : sq_arr + m - cut] = array("I", part[cut:])
                tail += m
                if start + m < n:
                    # Failure leaves the entries queued for the next call.
                    sq32[sq_tail_i] = tail & 0xFFFFFFFF
                    syscall(enter, ring_fd, m, 0, getevents, None, 0)
            inflight += len(free)
            free.clear()
            sq32[sq_tail_i] = tail & 0xFFFFFFFF
            if len(done) > chunk:
                # The last chunk goes now too, rather than wait for the count below.
                syscall(enter, ring_fd, (tail - sq32[sq_head_i]) & 0xFFFFFFFF, 0, getevents, None, 0)
        if done:
            count(done, keys, done_now)
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
            if tally.cross(now):
                stopping = True
            if now >= next_publish:
                publish(now)
                next_publish = now + publish_ns
                if control[nw.C_STOP]:
                    stopping = True
            due = min(next_publish, t_measure if tally.first is None else t_end if tally.last is None else next_publish)
        n = (seen - head) & 0xFFFFFFFF
        if not n:
            continue
        # The batch's completions copied out at C speed: slot numbers and results.
        first = head & cmask
        if n == 1:  # common at low queue depths: no slices for one entry
            reaped = [cqe64[2 * first]]
            results = [cqe32[4 * first + 2]]
        elif first + n <= cq_entries:
            reaped = cqe64[2 * first : 2 * (first + n) : 2].tolist()
            results = cqe32[4 * first + 2 : 4 * (first + n) + 2 : 4].tolist()
        else:
            rest = first + n - cq_entries
            reaped = cqe64[2 * first :: 2].tolist() + cqe64[: 2 * rest : 2].tolist()
            results = cqe32[4 * first + 2 :: 4].tolist() + cqe32[2 : 4 * rest + 2 : 4].tolist()
        head = seen
        cq32[cq_head_i] = head  # the entries are copied out: the kernel may reuse them
        inflight -= n
        if results.count(bs) != n:
            reaped, failed = whole(reaped, results, bs)
            error = error or failed
            stopping = True
        if blocks.check is not None:
            # The slots' buffers as their reads left them (their SQEs still hold their offsets).
            blocks.reads_done(reaped, key, lambda slot: sqe64[slot * 8 + 1])
        free += reaped
        if count_slots is not None:
            count_slots(reaped, now)
            continue
        # Their submission times and Tally indices, before resubmission overwrites them.
        done = list(map(submit_ns.__getitem__, reaped))
        keys = list(map(key.__getitem__, reaped)) if many or mixed else None
        done_now = now
        if not after:
            count(done, keys, done_now)
            done = []

    result = tally.finish(cfg, live, publish, slots.traces, error)
    result["registered"] = {"buffers": fixed, "file": fixed_file}
    result.update(blocks.results())
    return result
