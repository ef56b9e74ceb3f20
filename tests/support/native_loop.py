"""One of the native engine's I/O loops run in the test's own process, as a worker process runs it.

The parent's side is played here: the control and live arrays a worker shares with it, the window
set before the loop starts (so the loop finds "go" at once), the file opened as the worker opens it.
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Callable
from pathlib import Path

from labtui.engine.native import common as nc


def cached_file(path: Path, size: int = 1 << 20) -> Path:
    """A small file in the page cache: the loops never wait long on it, whatever the disk under it."""
    path.write_bytes(bytes(range(256)) * (size // 256))
    return path


def run_loop(loop: Callable[..., dict], path: Path, *, seconds: float = 0.3, direct: bool = False, **cfg) -> dict:
    """`loop(cfg, control, live, fd)` over `path` for a measure window of `seconds`: its result."""
    control = memoryview(bytearray(nc.CONTROL_BYTES)).cast("d")
    live = memoryview(bytearray(nc.LIVE_BYTES)).cast("q")
    start = time.monotonic() + 0.02
    control[nc.C_MEASURE], control[nc.C_END], control[nc.C_GO] = start, start + seconds, 1.0
    settings = dict(path=str(path), file_size=path.stat().st_size, block_size=4096, pattern="random",
                    write_percent=0, outstanding=4, latency=True, workers=[0], threads=1, seed=7, trace=0,
                    direct=direct)
    settings.update(cfg)
    fd = os.open(path, os.O_RDWR | (os.O_DIRECT if direct else 0))
    try:
        return loop(settings, control, live, fd)
    finally:
        os.close(fd)


def check_stamps(path: Path, block_size: int) -> int:
    """Assert that every block a run wrote over `cached_file`'s bytes carries, at each 4 KiB, the
    offset it landed at and its write's number, which no other block carries; how many it wrote."""
    data = path.read_bytes()
    original = bytes(range(256)) * (block_size // 256)
    written = [at for at in range(0, len(data), block_size) if data[at : at + block_size] != original]
    numbers = set()
    for at in written:
        stamps = [struct.unpack_from("<QQ", data, at + p) for p in range(0, block_size, 4096)]
        assert [off for off, _ in stamps] == list(range(at, at + block_size, 4096)), at
        assert len({nonce for _, nonce in stamps}) == 1, at
        numbers.add(stamps[0][1])
    assert len(numbers) == len(written)
    return len(written)
