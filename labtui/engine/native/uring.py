"""Linux io_uring from pure Python: the raw system calls through ctypes over the mmap'd rings.

No compiler and no package: the submission and completion rings are shared memory that this
process reads and writes through memoryviews, and one `io_uring_enter` per batch both submits
what was queued and waits for a completion. Without SQPOLL the system call itself orders the
ring stores and loads, so no explicit memory barriers are needed.

Where io_uring is missing (Linux before 5.6, `kernel.io_uring_disabled`, a seccomp filter as in
container runtimes) `probe()` says why, and the native engine falls back to kernel AIO.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
import platform
from collections.abc import Callable
from typing import Any, ClassVar, Literal

# The same numbers on every architecture (they were added after the tables were unified).
SYS_SETUP, SYS_ENTER, SYS_REGISTER = 425, 426, 427

SETUP_CLAMP = 1 << 4
SETUP_SUBMIT_ALL = 1 << 7
SETUP_COOP_TASKRUN = 1 << 8
SETUP_SINGLE_ISSUER = 1 << 12
SETUP_DEFER_TASKRUN = 1 << 13
FEAT_SINGLE_MMAP = 1 << 0
FEAT_RW_CUR_POS = 1 << 3  # Linux 5.6, with the plain READ and WRITE opcodes this code uses
ENTER_GETEVENTS = 1 << 0
REGISTER_BUFFERS, REGISTER_FILES = 0, 2
SQE_FIXED_FILE = 1 << 0

OP_READV, OP_WRITEV, OP_READ_FIXED, OP_WRITE_FIXED, OP_READ, OP_WRITE = 1, 2, 4, 5, 22, 23

OFF_SQ_RING, OFF_CQ_RING, OFF_SQES = 0, 0x8000000, 0x10000000
SQE_BYTES, CQE_BYTES = 64, 16

# Setup flags in the order they are tried: each set is dropped where the kernel refuses it.
# DEFER_TASKRUN (6.1) runs completions only when we wait for them, on our own thread: the
# cheapest for a single-threaded loop that always waits in io_uring_enter.
_FLAG_SETS = (
    SETUP_CLAMP | SETUP_SUBMIT_ALL | SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN,
    SETUP_CLAMP | SETUP_SUBMIT_ALL | SETUP_COOP_TASKRUN,
    SETUP_CLAMP,
)

_libc: ctypes.CDLL | None = None


def _syscall() -> Callable[..., int]:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc.syscall


class _SqOffsets(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint32) for n in ("head", "tail", "ring_mask", "ring_entries", "flags", "dropped",
                                               "array", "resv1")] + [("user_addr", ctypes.c_uint64)]


class _CqOffsets(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint32) for n in ("head", "tail", "ring_mask", "ring_entries", "overflow", "cqes",
                                               "flags", "resv1")] + [("user_addr", ctypes.c_uint64)]


class _Params(ctypes.Structure):
    _fields_: ClassVar[list[tuple[str, Any]]] = [(n, ctypes.c_uint32) for n in (
        "sq_entries", "cq_entries", "flags", "sq_thread_cpu", "sq_thread_idle", "features", "wq_fd")] + [
        ("resv", ctypes.c_uint32 * 3), ("sq_off", _SqOffsets), ("cq_off", _CqOffsets)]


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class UringError(OSError):
    pass


def _fail(what: str) -> UringError:
    err = ctypes.get_errno()
    return UringError(err, f"{what} failed: {os.strerror(err)}")


_probed: str | None | bool = False


def probe() -> str | None:
    """None when io_uring works here, else why not (one line). Cached for the process."""
    global _probed
    if _probed is False:
        _probed = _probe()
    return None if _probed is True else _probed


def _probe() -> str | None:
    if platform.system() != "Linux":
        return "io_uring is Linux only"
    try:
        ring = Ring(2)
    except UringError as exc:
        hint = {
            errno.ENOSYS: "this kernel has no io_uring (Linux 5.6 or later has it)",
            errno.EPERM: "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)",
            errno.EACCES: "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)",
            # Kernels before 5.12 count a ring against the locked-memory limit.
            errno.ENOMEM: "io_uring could not get its memory (before Linux 5.12 it counts against `ulimit -l`)",
        }.get(exc.errno or 0)
        if hint:
            return hint
        return f"io_uring could not be set up: {os.strerror(exc.errno) if exc.errno else exc}"
    except OSError as exc:  # mapping the rings: the system's words, no "[Errno N]"
        return f"io_uring could not be set up: {os.strerror(exc.errno) if exc.errno else exc}"
    except ValueError as exc:
        return f"io_uring could not be set up: {exc}"
    ring.close()
    return None


class Ring:
    """One io_uring instance with its rings mapped: memoryviews for the hot loop to drive."""

    def __init__(self, entries: int) -> None:
        syscall = _syscall()
        self.fd = -1
        for flags in _FLAG_SETS:
            params = _Params()
            params.flags = flags
            fd = syscall(SYS_SETUP, ctypes.c_uint(entries), ctypes.byref(params))
            if fd >= 0:
                break
            if ctypes.get_errno() != errno.EINVAL:
                raise _fail("io_uring_setup")
        else:
            raise _fail("io_uring_setup")
        self.fd = fd
        self.flags = params.flags
        self.params = params
        self._maps: list[mmap.mmap] = []
        self._views: list[memoryview] = []
        if not params.features & FEAT_RW_CUR_POS:
            self.close()
            raise UringError(errno.ENOSYS, "this kernel's io_uring is too old (Linux 5.6 or later has what is needed)")
        try:
            self._map(params)
        except BaseException:
            self.close()
            raise
        self.fixed_file = False

    def _map(self, p: _Params) -> None:
        sq_size = p.sq_off.array + p.sq_entries * 4
        cq_size = p.cq_off.cqes + p.cq_entries * CQE_BYTES
        prot = mmap.PROT_READ | mmap.PROT_WRITE
        flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
        if p.features & FEAT_SINGLE_MMAP:
            sq = cq = mmap.mmap(self.fd, max(sq_size, cq_size), flags=flags, prot=prot, offset=OFF_SQ_RING)
            self._maps.append(sq)
        else:
            sq = mmap.mmap(self.fd, sq_size, flags=flags, prot=prot, offset=OFF_SQ_RING)
            cq = mmap.mmap(self.fd, cq_size, flags=flags, prot=prot, offset=OFF_CQ_RING)
            self._maps += [sq, cq]
        sqes = mmap.mmap(self.fd, p.sq_entries * SQE_BYTES, flags=flags, prot=prot, offset=OFF_SQES)
        self._maps.append(sqes)
        # Every ring field is a 4-byte word at a 4-byte offset; the CQEs are 8-byte aligned.
        self.sq32 = self._view(sq, "I")
        self.cq32 = self._view(cq, "I")
        self.sq_head, self.sq_tail = p.sq_off.head // 4, p.sq_off.tail // 4
        self.sq_mask = self.sq32[p.sq_off.ring_mask // 4]
        self.sq_array = p.sq_off.array // 4
        self.cq_head, self.cq_tail = p.cq_off.head // 4, p.cq_off.tail // 4
        self.cq_mask = self.cq32[p.cq_off.ring_mask // 4]
        cqes = memoryview(cq)[p.cq_off.cqes : p.cq_off.cqes + p.cq_entries * CQE_BYTES]
        self._views.append(cqes)
        self.cqe64 = self._cast(cqes, "q")  # [2i] user_data (signed: every value here fits, and "q" converts faster)
        self.cqe32 = self._cast(cqes, "i")  # [4i + 2] res
        self.sqe8 = self._view(sqes, "B")  # [64i] opcode, [64i + 1] flags
        self.sqe32 = self._view(sqes, "i")  # [16i + 1] fd, [16i + 6] len
        self.sqe64 = self._view(sqes, "q")  # [8i + 1] off, [8i + 2] addr, [8i + 4] user_data
        self.sqe16 = self._view(sqes, "H")  # [32i + 20] buf_index
        self.sq_entries = p.sq_entries

    def _view(self, m: mmap.mmap, fmt: Literal["B", "H", "I", "i", "q"]) -> memoryview[int]:
        view = memoryview(m)
        self._views.append(view)
        return self._cast(view, fmt)

    def _cast(self, view: memoryview[int], fmt: Literal["B", "H", "I", "i", "q"]) -> memoryview[int]:
        cast = view.cast(fmt)
        self._views.append(cast)
        return cast

    def register_buffers(self, base: int, stride: int, count: int) -> bool:
        """Pin `count` buffers of `stride` bytes at address `base` once, for the *_FIXED opcodes."""
        iovecs = (_Iovec * count)(*[_Iovec(base + i * stride, stride) for i in range(count)])
        ok = _syscall()(SYS_REGISTER, self.fd, REGISTER_BUFFERS, iovecs, count) >= 0
        return ok

    def register_file(self, fd: int) -> bool:
        """The file as index 0 of the ring's table: no file lookup per I/O."""
        fds = (ctypes.c_int * 1)(fd)
        ok = _syscall()(SYS_REGISTER, self.fd, REGISTER_FILES, fds, 1) >= 0
        self.fixed_file = ok
        return ok

    def close(self) -> None:
        for view in reversed(self._views):
            view.release()
        self._views.clear()
        for m in self._maps:
            m.close()
        self._maps.clear()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
