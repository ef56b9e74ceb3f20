"""The native engine's worker process: it carries one or more of a step's logical workers.

Three I/O loops, each in a module of its own:
- `io_uring` (labtui.engine.native.uring_loop): the rings shared with the kernel, one system call
  per batch that both submits and waits; the default on O_DIRECT files where it exists. One ring
  holds every slot of the logical workers the process carries.
- `aio` (labtui.engine.native.aio_loop): Linux kernel AIO (io_submit / io_getevents through raw
  syscalls) on an O_DIRECT file, like fio's libaio engine; where io_uring is missing (old kernel,
  kernel.io_uring_disabled, a seccomp filter). One AIO context, likewise.
- `sync` (labtui.engine.native.sync_loop): blocking pread/pwrite, one logical worker per process:
  at queue depth 1 one call at a time on the main thread (the cheapest loop there in CPU per I/O:
  one plain system call, no ctypes), else one thread per outstanding I/O; used with the page
  cache on (kernel AIO is synchronous on buffered files), where a process has one I/O in flight,
  and where neither asynchronous interface exists.

Timing is exact per phase: the parent publishes the measure window as monotonic instants;
every completion batch carries one timestamp, and counters are snapshotted at the first batch
past each boundary, so warm-up and drain I/Os never leak into the measured counts.

A worker is a fresh interpreter (`python -m labtui.engine.native.worker CONFIG`), not a fork:
it inherits no threads, locks or UI state from the parent and never re-runs the parent's
`__main__`. The parent shares two memory files with it (inherited descriptors): the control
array (the measure window, stop and go flags) and the process's live counters; the exact final
counts (per logical worker too) come back pickled on stdout, after their length, when the process ends.
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import pickle
import signal
import stat
import sys
from typing import BinaryIO

from labtui.engine.native.common import ERRNO, FAILED, RESULT_HEADER, STATE, shared_views


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
    hand_in(result, sys.stdout.buffer)
    del control, live
    for m in maps:
        m.close()
    return 0


def hand_in(result: dict, out: BinaryIO) -> None:
    """The result to the parent, whole: its length (RESULT_HEADER), then the pickle.

    One write was not enough. With PYTHONUNBUFFERED set, `sys.stdout.buffer` is the raw pipe, whose
    write() is one system call; into a full pipe (a verified step's result of a GiB file is twice
    its 64 KiB, and a busy parent drains it late) the kernel returns short when the process has a
    signal, or io_uring work from the ring it just closed, pending. The pickle ended at 128 KiB,
    the worker exited 0 and the step failed with "a worker process exited with status 0"."""
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(RESULT_HEADER.pack(len(data)) + data)
    while view:
        view = view[out.write(view) or 0 :]
    out.flush()


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
        result = {"error": f"{exc.strerror or exc} ({cfg.get('shown', cfg['path'])})"}
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
            raise NotTheFile(f"refusing to use {cfg.get('shown', cfg['path'])}: it is not {what} (it was replaced)")
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
                from labtui.engine.native.aio_loop import aio_syscalls

                if aio_syscalls() is None:
                    raise
                fallback = f"io_uring could not be set up in a worker ({exc.strerror}): kernel AIO ran instead"
                cfg = {**cfg, "backend": "aio"}
        if cfg["backend"] == "aio":
            from labtui.engine.native.aio_loop import aio_loop

            result = aio_loop(cfg, control, live, fd)
        elif cfg["backend"] == "sync":
            from labtui.engine.native.sync_loop import sync_loop

            result = sync_loop(cfg, control, live, fd)
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




if __name__ == "__main__":
    sys.exit(main(sys.argv))
