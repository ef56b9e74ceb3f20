"""The native kernel AIO loop: io_submit / io_getevents through raw system calls on an O_DIRECT file.

One AIO context holds every slot of the logical workers a process carries, as fio's libaio engine
holds a job's: the loop where io_uring is missing (an old kernel, kernel.io_uring_disabled, a
seccomp filter). Offsets and directions are drawn a pool at a time and taken a batch of freed
slots at a time, writes stamped in place (labtui.engine.native.blocks), and the slots go back to
the kernel a chunk at a time, as in the io_uring loop (labtui.engine.native.uring_loop); a reaped
batch is counted per logical worker (labtui.engine.native.batch). Counting is exact per phase: counters are snapshotted at the
first batch completed past each boundary of the measure window.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import time

from labtui.engine.native import common as nw
from labtui.engine.native.batch import tallied, whole
from labtui.engine.native.blocks import direction_pass, slot_buffers
from labtui.engine.native.slots import Slots
from labtui.engine.native.uring_loop import submit_chunk  # the same chunks as io_uring's

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


def aio_loop(cfg: dict, control: memoryview[float], live: memoryview[int], fd: int) -> dict:
    calls = aio_syscalls()
    assert calls is not None
    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    slots = Slots(cfg)
    depth = slots.count
    bs = cfg["block_size"]
    wp = cfg["write_percent"]
    latency = cfg["latency"]
    buf, stride, base_addr, blocks = slot_buffers(cfg, depth)

    ctx = ctypes.c_ulong(0)
    if syscall(calls["io_setup"], depth, ctypes.byref(ctx)) < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"io_setup failed: {os.strerror(err)}")
    iocbs = (ctypes.c_uint64 * (8 * depth))()  # struct iocb is 64 bytes
    iq = memoryview(iocbs).cast("B").cast("Q")
    iocb_addr = ctypes.addressof(iocbs)
    read_word = (fd << 32) | 0  # aio_lio_opcode (u16) | aio_reqprio (s16) | aio_fildes (u32)
    write_word = (fd << 32) | 1
    for slot in range(depth):
        iq[slot * 8 + 0] = slot  # aio_data
        iq[slot * 8 + 2] = write_word if wp == 100 else read_word
        iq[slot * 8 + 3] = base_addr + slot * stride  # aio_buf
        iq[slot * 8 + 4] = bs  # aio_nbytes
    # The `struct iocb *[]` of one submission: a chunk's pointers, from its first entry.
    ptrs = (ctypes.c_uint64 * depth)()
    pq = memoryview(ptrs).cast("B").cast("Q")
    iocb_of = [iocb_addr + slot * 64 for slot in range(depth)]
    events = (ctypes.c_int64 * (4 * depth))()  # struct io_event is 32 bytes
    eq = memoryview(events).cast("B").cast("q")
    timeout = _Timespec(0, 20_000_000)
    p_timeout = ctypes.byref(timeout)
    io_submit, io_getevents = calls["io_submit"], calls["io_getevents"]
    c_ctx = ctx  # a c_ulong: a bare Python int would be passed as a 32-bit C int

    mixed = slots.mixed
    many, base, key = len(slots.workers) > 1, slots.base, slots.key
    seq = slots.sequential
    # Random offsets and a mixed step's directions, a pool drawn at once (as the io_uring loop's);
    # a mixed step's writes stamped in the pass that sets each one's direction (unless a verifier
    # stamps). 2 workers x 8 4K 50/50 on the RAM device, user CPU per I/O: see docs/performance.md.
    pool_offsets, pool_writes = slots.pool()
    pool_size = slots.pool_size
    drawn = 0
    mark = direction_pass(blocks, key, base, iq, (8, 2), write_word, read_word, iq, (8, 5)) if mixed else None
    submit_ns = [0] * depth
    tally, count = tallied(slots, latency)

    t_measure, t_end = nw.wait_for_go(control, live)
    if t_end == 0:
        syscall(calls["io_destroy"], c_ctx)
        return {"stopped": True}
    publish = tally.publisher(control, live, latency)
    tally.t_measure, tally.t_end = t_measure, t_end

    mono = time.monotonic_ns
    free = list(range(depth))  # slots with no I/O in flight: all of them at first
    inflight = 0
    tracing = slots.trace_limit > 0
    last_publish = mono()
    stopping = False
    error = None
    chunk = submit_chunk(depth)
    while True:
        if free and not stopping:
            n = len(free)
            if drawn + n > pool_size:
                pool_offsets, pool_writes = slots.pool()
                drawn = 0
            offsets = slots.offsets(free) if seq else pool_offsets[drawn : drawn + n]
            if mark is not None:
                mark(free, pool_writes[drawn : drawn + n], offsets)
            elif wp:
                blocks.stamp(free, offsets)
            drawn += n
            if tracing:
                tracing = slots.trace(free, offsets)
            k = 0
            for i, (slot, off) in enumerate(zip(free, offsets), 1):
                iq[slot * 8 + 5] = off
                pq[k] = iocb_of[slot]
                k += 1
                if k == chunk or i == len(free):
                    t_sub = mono()
                    for s in free[i - k : i]:
                        submit_ns[s] = t_sub
                    got = syscall(io_submit, c_ctx, k, ptrs)
                    inflight += max(got, 0)
                    if got != k:
                        err = ctypes.get_errno() if got < 0 else errno.EAGAIN
                        error = error or (err, os.strerror(err))
                        stopping = True
                        break
                    k = 0
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
        if tally.cross(now):
            stopping = True
        if not stopping and control[nw.C_STOP]:
            stopping = True
        reaped = eq[0 : 4 * got : 4].tolist()
        results = eq[2 : 4 * got : 4].tolist()
        inflight -= got
        if results.count(bs) != got:
            reaped, failed = whole(reaped, results, bs)
            error = error or failed
            stopping = True
        if blocks.check is not None:
            blocks.reads_done(reaped, key, lambda slot: iq[slot * 8 + 5])  # aio_offset of the slot's iocb
        count(list(map(submit_ns.__getitem__, reaped)),
              list(map(key.__getitem__, reaped)) if many or mixed else None, now)
        free += reaped
        if now - last_publish >= nw.PUBLISH_NS:
            publish(now)
            last_publish = now
    syscall(calls["io_destroy"], c_ctx)
    return tally.finish(cfg, live, publish, slots.traces, error) | blocks.results()
