"""The test file: written in full with incompressible, non-repeating data before any read.

A sparse or merely preallocated file reads zeros without touching the disk, and a file made of
one repeated buffer can be deduplicated by some SSD controllers. So the file is written from a
pool of random bytes, with every 4 KiB block stamped with its offset and a per-run nonce, using
O_DIRECT where the file system allows it (no page-cache pollution, honest progress).

The file is also the only thing a run may write outside a raw device it was cleared for, so it
is made without following links (O_CREAT | O_EXCL | O_NOFOLLOW in a descriptor of its directory)
and held open as a `TestFile`: every writer checks that the name still leads to that very inode
(st_dev, st_ino) before and after it opens it, and cleanup removes that inode's name and nothing
else. Holding it open also keeps the inode number from being reused by a look-alike file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import mmap
import os
import secrets
import stat
import struct
import sys
import threading
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from labtui.engine.rundir import fd_path
from labtui.errors import LabtuiError


class DeviceHold(Protocol):
    """What write_test_file needs of a target held open elsewhere (a raw device's lease)."""

    fd: int


CHUNK = 4 * 1024 * 1024
STAMP_EVERY = 4096
POOL = 16 * 1024 * 1024
_STAMP = struct.Struct("<QQ")


class RandomBlocks:
    """Cheap incompressible data: a random pool, each 4 KiB block stamped so none repeats."""

    def __init__(self, pool_size: int = POOL) -> None:
        self.pool_size = pool_size
        self._pool: memoryview | None = None  # made on first use: stamping alone needs none
        self.nonce = int.from_bytes(secrets.token_bytes(8), "little")

    @property
    def pool(self) -> memoryview:
        """The random bytes blocks are cut from (a view: slices of it copy nothing)."""
        if self._pool is None:
            self._pool = memoryview(os.urandom(self.pool_size))
        return self._pool

    def fill(self, buffer: memoryview, offset: int) -> None:
        """Fill `buffer` (a multiple of 4 KiB, or smaller) with data for file `offset`.

        Safe to call from several threads at once (the pool is only read).
        """
        size = len(buffer)
        pool = self.pool
        start = (offset * 7919) % (len(pool) - size) if size < len(pool) else 0
        buffer[:size] = pool[start : start + size]
        self.stamp(buffer, offset)

    def stamp(self, buffer: memoryview, offset: int) -> None:
        """Stamp every 4 KiB block of `buffer` with its file offset and the nonce (16 bytes each)."""
        size = len(buffer)
        if size % STAMP_EVERY == 0 and sys.byteorder == "little" and buffer.format == "B":
            # Whole blocks: the stamps as two strided stores of 64-bit words, not one call per block.
            # Released however the block is left: an interrupt landing here must not leave a view
            # that makes closing the buffer raise BufferError in the interrupt's place.
            with buffer.cast("Q") as words:
                step = STAMP_EVERY // 8
                words[0::step] = array("Q", range(offset, offset + size, STAMP_EVERY))
                words[1::step] = array("Q", (self.nonce,)) * (size // STAMP_EVERY)
            return
        for pos in range(0, size - _STAMP.size + 1, STAMP_EVERY):
            _STAMP.pack_into(buffer, pos, offset + pos, self.nonce)


class TestFileChanged(LabtuiError):
    """The name of the test file no longer leads to the file this run made; nothing is written."""

    __test__ = False  # not a pytest test class


class TestFile:
    """The test file this run made, held open so its name can be checked to still be it."""

    __test__ = False

    def __init__(self, path: Path, dir_fd: int, fd: int) -> None:
        self.path = path
        self.dir_fd = dir_fd  # the directory it was made in, whatever its path leads to later
        self.fd = fd
        st = os.fstat(fd)
        self.dev, self.ino = st.st_dev, st.st_ino

    @classmethod
    def create(cls, path: Path, dir_fd: int | None = None) -> TestFile:
        """Make `path`, which must not exist (not even as a dangling link): FileExistsError otherwise.

        With `dir_fd` (the run's own directory, held open) it is made there, whatever `path`'s
        directory names now; `path` is then only how messages name it."""
        path = Path(path)
        if dir_fd is not None:
            dir_fd = os.dup(dir_fd)
        else:
            dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fd = os.open(path.name, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=dir_fd)
        except BaseException:
            os.close(dir_fd)
            raise
        return cls(path, dir_fd, fd)

    def identity(self) -> dict[str, int]:
        """What a worker compares its own descriptor's fstat() with."""
        return {"dev": self.dev, "ino": self.ino}

    @property
    def bound_path(self) -> str:
        """The file's name in the directory it was made in, through labtui's descriptor of that
        directory (rundir.fd_path): what the engines open, whatever the directory's name leads to."""
        base = fd_path(self.dir_fd)
        return f"{base}/{self.path.name}" if base else str(self.path)

    def check(self) -> str | None:
        """Why the name no longer leads to the file made (as an engine would open it), or None."""
        return _differs(Path(self.path.name), self.dir_fd, self.dev, self.ino)

    def verify(self, when: str) -> None:
        reason = self.check()
        if reason is not None:
            raise TestFileChanged(
                f"refusing to use the test file {self.path} {when}: it is no longer the file labtui created ({reason})"
            )

    def open(self, flags: int) -> int:
        """A new descriptor of the file made (for other flags, e.g. O_DIRECT), checked after the open."""
        fd = os.open(self.path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.dir_fd)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            os.close(fd)
            raise TestFileChanged(f"refusing to use the test file {self.path}: it is no longer the file labtui "
                                  "created (another file now has its name)")
        return fd

    def remove(self) -> str | None:
        """Remove the file made, if its name in the directory it was made in is still it.

        Returns None once removed (or already gone), else why it was left alone.
        """
        reason = _differs(Path(self.path.name), self.dir_fd, self.dev, self.ino)
        if reason == "it is gone":
            return None
        if reason is not None:
            return reason
        os.unlink(self.path.name, dir_fd=self.dir_fd)
        return None

    def close(self) -> None:
        for fd in (self.fd, self.dir_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fd = self.dir_fd = -1


def _differs(path: Path, dir_fd: int | None, dev: int, ino: int) -> str | None:
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return "it is gone"
    except OSError as exc:
        return f"it cannot be checked: {exc.strerror or exc}"
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link now stands in its place"
    if (st.st_dev, st.st_ino) != (dev, ino):
        return "another file now has its name"
    return None


def o_direct_supported(directory: Path, device: Path | None = None, dir_fd: int | None = None) -> bool:
    """Whether files in `directory` (or the block `device`) can be opened with O_DIRECT; with `dir_fd`,
    in the directory that descriptor holds (`directory` is then not looked at)."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return False
    if device is not None:
        try:
            os.close(os.open(device, os.O_RDONLY | flag))
        except OSError:
            return False
        return True
    probe = Path(f".labtui-odirect-{secrets.token_hex(4)}") if dir_fd is not None else \
        directory / f".labtui-odirect-{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY | flag, 0o600, dir_fd=dir_fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(probe, dir_fd=dir_fd)
        return False
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe, dir_fd=dir_fd)
    return True


def write_test_file(
    target: Path | TestFile | DeviceHold,
    size: int,
    *,
    direct: bool,
    progress: Callable[[int], None] | None = None,
    cancel: threading.Event | None = None,
) -> bool:
    """Write `size` bytes of random data into the test file, then flush it; whether with O_DIRECT.

    `target` is a TestFile the caller made (and keeps), a raw device's lease (anything holding
    the open descriptor as `fd`: preconditioning), or a path that must not exist yet. The
    data goes through the descriptor the TestFile holds (never a new open by name); O_DIRECT is
    switched on it for the writing and off again after. writer_count() threads each stamp a 4 MiB chunk
    and write it, so making one chunk overlaps writing the others (the GIL is released in the
    write): several writes are in flight, as with fio's iodepth.

    Calls `progress(bytes_done)` about every 0.2 s. Raises OSError (ENOSPC, EACCES, ...),
    TestFileChanged, or InterruptedError if `cancel` is set; the caller removes the partial file.
    """
    made = TestFile.create(Path(target)) if isinstance(target, (str, os.PathLike)) else target
    fd = made.fd
    direct = used_direct = direct and _set_direct(fd, True)
    try:
        data = RandomBlocks()
        # O_DIRECT needs whole blocks: an unaligned tail is written after, without it.
        aligned = size - size % 4096 if direct else size
        _write_chunks(fd, data, aligned, progress, cancel)
        if aligned < size:
            _set_direct(fd, False)
            direct = False
            tail = bytearray(os.urandom(size - aligned))
            data.stamp(memoryview(tail), aligned)
            _write_all(fd, memoryview(tail), aligned)
        os.fsync(fd)
        if hasattr(os, "posix_fadvise"):
            # Start every step cold: nothing of the file should be served from memory.
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        if progress is not None:
            progress(size)
        return used_direct
    finally:
        if direct:
            with contextlib.suppress(OSError):
                _set_direct(fd, False)
        if isinstance(made, TestFile) and made is not target:
            made.close()


WRITERS = 4  # chunks being generated or written at once, at most
_ROTATE = CHUNK // WRITERS + 2731  # bytes each writer's copy of the body is turned by


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def writer_count() -> int:
    """Writers for the preparation: one per usable CPU, two to WRITERS.

    Each writer's stamping is Python and each write's page pinning and copying is kernel CPU:
    more writers than CPUs only take turns. Measured on 2 CPUs against fio's sequential write
    (4 MiB, 4 in flight) on a RAM-backed disk, alternating rounds: 2 writers 0.95-1.01 of fio,
    3 0.85, 4 0.78-0.94, 8 0.82; on the virtio disk 2 and 4 were alike (1.01 and 0.92).
    """
    return max(2, min(WRITERS, usable_cpus()))


def _write_chunks(fd: int, data: RandomBlocks, size: int, progress: Callable[[int], None] | None,
                  cancel: threading.Event | None) -> None:
    """The first `size` bytes of the file, in CHUNK pieces spread over writer_count() threads."""
    chunks = -(-size // CHUNK)
    claim = iter(range(chunks)).__next__  # one call is atomic under the GIL: each chunk goes once
    count = min(writer_count(), chunks)
    written = [0] * count  # per thread: no lock needed to count
    failures: list[BaseException] = []
    halt = threading.Event()
    # One 4 MiB random body for every writer, each holding it rotated by its own amount (not a
    # multiple of 4 KiB, so no two writers' blocks share a body): the random bytes cost about
    # 2.4 ms per MiB of CPU (getrandom), and making a body per writer was measured at a tenth
    # of a 1 GiB file's preparation on a RAM-backed disk, where copying one costs 0.2 ms.
    body = os.urandom(min(CHUNK, size))

    def writer(index: int) -> None:
        buf = mmap.mmap(-1, CHUNK)  # page-aligned, as O_DIRECT requires
        view = memoryview(buf)
        part = None
        # For every chunk only the blocks' stamps change (16 bytes in 4 KiB), so no chunk is
        # copied: like RandomBlocks.fill's, the file's blocks are random bodies, each stamped
        # with its own offset.
        try:
            turn = index * _ROTATE % len(body)
            view[: len(body) - turn] = body[turn:]
            view[len(body) - turn : len(body)] = body[:turn]
            while not halt.is_set():
                if cancel is not None and cancel.is_set():
                    halt.set()
                    return
                try:
                    chunk = claim()
                except StopIteration:
                    return
                offset = chunk * CHUNK
                part = view[: min(CHUNK, size - offset)]
                data.stamp(part, offset)
                _write_all(fd, part, offset)
                written[index] += len(part)
                part.release()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            failures.append(exc)
            halt.set()
        finally:
            if part is not None:
                part.release()
            view.release()
            buf.close()

    threads = [threading.Thread(target=writer, args=(i,), name=f"labtui-prepare-{i}", daemon=True)
               for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
            if cancel is not None and cancel.is_set():
                halt.set()
            elif progress is not None and not halt.is_set() and sum(written) < size:
                progress(sum(written))  # the whole file is reported once, after its flush
    if failures:
        raise failures[0]
    if cancel is not None and cancel.is_set():
        raise InterruptedError("test file preparation cancelled")


def _write_all(fd: int, view: memoryview, offset: int) -> None:
    done = 0
    while done < len(view):
        n = os.pwrite(fd, view[done:], offset + done)
        if n <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        done += n


def _set_direct(fd: int, on: bool) -> bool:
    """Switch O_DIRECT on or off on an open descriptor; False where the file system refuses it."""
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return False
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, (flags | flag) if on else (flags & ~flag))
    except OSError:
        if on:
            return False
        raise
    return True


def drop_file_cache(target: Path | TestFile) -> None:
    """Ask the kernel to forget cached pages of the file (before a cache-on step, for a cold start)."""
    if not hasattr(os, "posix_fadvise"):
        return
    if isinstance(target, TestFile):
        with contextlib.suppress(OSError):
            os.fsync(target.fd)
            os.posix_fadvise(target.fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return
    with contextlib.suppress(OSError):
        fd = os.open(target, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
