"""The test file: written in full with incompressible, non-repeating data before any read.

A sparse or merely preallocated file reads zeros without touching the disk, and a file made of
one repeated buffer can be deduplicated by some SSD controllers. So the file is written from a
pool of random bytes, with every 4 KiB block stamped with its offset and a per-run nonce, using
O_DIRECT where the file system allows it (no page-cache pollution, honest progress).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
import struct
import threading
import time
from pathlib import Path
from typing import Callable

CHUNK = 4 * 1024 * 1024
STAMP_EVERY = 4096
POOL = 16 * 1024 * 1024
_STAMP = struct.Struct("<QQ")


class RandomBlocks:
    """Cheap incompressible data: a random pool, each 4 KiB block stamped so none repeats."""

    def __init__(self, pool_size: int = POOL) -> None:
        self.pool = os.urandom(pool_size)
        self.nonce = int.from_bytes(secrets.token_bytes(8), "little")

    def fill(self, buffer: memoryview, offset: int) -> None:
        """Fill `buffer` (a multiple of 4 KiB, or smaller) with data for file `offset`."""
        size = len(buffer)
        start = (offset * 7919) % (len(self.pool) - size) if size < len(self.pool) else 0
        buffer[:size] = self.pool[start : start + size]
        for pos in range(0, size - _STAMP.size + 1, STAMP_EVERY):
            _STAMP.pack_into(buffer, pos, offset + pos, self.nonce)


def o_direct_supported(directory: Path, device: Path | None = None) -> bool:
    """Whether files in `directory` (or the block `device`) can be opened with O_DIRECT."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return False
    if device is not None:
        try:
            os.close(os.open(device, os.O_RDONLY | flag))
        except OSError:
            return False
        return True
    probe = directory / f".labtui-odirect-{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY | flag, 0o600)
    except OSError:
        with contextlib.suppress(OSError):
            probe.unlink()
        return False
    os.close(fd)
    with contextlib.suppress(OSError):
        probe.unlink()
    return True


def write_test_file(
    path: Path,
    size: int,
    *,
    direct: bool,
    progress: Callable[[int], None] | None = None,
    cancel: threading.Event | None = None,
) -> None:
    """Create `path` (must not exist) and write `size` bytes of random data, then flush it.

    Calls `progress(bytes_done)` about every chunk. Raises OSError (ENOSPC, EACCES, ...) or
    InterruptedError if `cancel` is set; the caller removes the partial file.
    """
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | (getattr(os, "O_DIRECT", 0) if direct else 0)
    fd = os.open(path, flags, 0o600)
    try:
        data = RandomBlocks()
        buf = mmap.mmap(-1, CHUNK)  # page-aligned, as O_DIRECT requires
        view = memoryview(buf)
        done = 0
        last_report = 0.0
        while done < size:
            if cancel is not None and cancel.is_set():
                raise InterruptedError("test file preparation cancelled")
            n = min(CHUNK, size - done)
            if direct and n % 4096:
                # O_DIRECT needs whole blocks: the unaligned tail is written without it.
                os.close(fd)
                fd = os.open(path, os.O_WRONLY)
                direct = False
            data.fill(view[:n], done)
            written = os.pwrite(fd, view[:n], done)
            if written <= 0:
                raise OSError(28, "No space left on device")
            done += written
            now = time.monotonic()
            if progress is not None and (now - last_report >= 0.2 or done >= size):
                progress(done)
                last_report = now
        os.fsync(fd)
        if hasattr(os, "posix_fadvise"):
            # Start every step cold: nothing of the file should be served from memory.
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        view.release()
        buf.close()
    finally:
        os.close(fd)


def drop_file_cache(path: Path) -> None:
    """Ask the kernel to forget cached pages of `path` (before a cache-on step, for a cold start)."""
    if not hasattr(os, "posix_fadvise"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
