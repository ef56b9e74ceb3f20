"""Loop devices over scratch images, for the raw-device tests: made by the test, detached by name.

A bug in a test of the raw-device guard can only ever hit one of these, never a real disk.
"""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

MIB = 1024 * 1024


@contextmanager
def attach(image: Path, size_mib: int = 16, *, mkfs: str | None = None, partscan: bool = False):
    """A loop device over `image` (made here, `size_mib` large, unless it exists); detached afterwards."""
    if not image.exists():
        with open(image, "wb") as handle:
            handle.truncate(size_mib * MIB)
    if mkfs:
        subprocess.run([mkfs, "-q", "-F", str(image)], check=True, capture_output=True)
    out = subprocess.run(["losetup", "-f", "--show", *(["-P"] if partscan else []), str(image)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        reason = f"cannot create a loop device here: {out.stderr.strip()}"
        pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)
    device = out.stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True)


def blocks_written(device: str | Path, block_size: int, length: int) -> int:
    """How many `block_size` blocks of the first `length` bytes of a zeroed device hold anything.

    What a timed random-write step covers depends on how many I/Os the machine managed in its
    time: a test asks for at least one block, and no more than the run's own count of writes.
    """
    with open(device, "rb") as handle:
        data = handle.read(length)
    return sum(1 for offset in range(0, len(data), block_size) if data[offset:offset + block_size].count(0) < block_size)
