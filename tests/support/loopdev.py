"""Loop devices over scratch images, for the raw-device tests: made by the test, detached by name.

A bug in a test of the raw-device guard can only ever hit one of these, never a real disk.

Loop device nodes are the machine's, shared by every test process (pytest-xdist's workers, other
checkouts' suites): a node one test lets go of is at once another's. So a test detaches a node
only while it still holds the test's own image, and taking a free node, detaching one and
re-attaching a node happen under one lock: a node freed to be re-attached is never taken between.
Detaching by name alone once detached another test's device mid-run (its writes failed, its
device read back empty).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

MIB = 1024 * 1024
# One for the whole machine, whichever checkout or temporary directory the tests run with.
LOCK = Path("/tmp/labtui-tests-loop-devices.lock")


@contextmanager
def _nodes_locked() -> Iterator[None]:
    with open(LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield  # closing the file lets go


def attach_free(image: Path, *, partscan: bool = False) -> subprocess.CompletedProcess:
    """`losetup -f --show` on `image`: its stdout names the node, if it worked."""
    with _nodes_locked():
        return subprocess.run(["losetup", "-f", "--show", *(["-P"] if partscan else []), str(image)],
                              capture_output=True, text=True)


def backing_file(device: str | Path) -> str | None:
    """The file the loop device holds now (None: none, it is free)."""
    try:
        return Path(f"/sys/block/{Path(device).name}/loop/backing_file").read_text().strip()
    except OSError:
        return None


def detach(device: str | Path, image: Path) -> None:
    """Detach `device` if it still holds `image` (if it is busy, the kernel does it on its last close)."""
    with _nodes_locked():
        if backing_file(device) == os.path.realpath(image):
            subprocess.run(["losetup", "-d", str(device)], capture_output=True)


def reattach(device: str | Path, image: Path) -> subprocess.CompletedProcess:
    """Detach `device` and attach `image` to that very node, no other test taking it in between."""
    with _nodes_locked():
        subprocess.run(["losetup", "-d", str(device)], capture_output=True)
        return subprocess.run(["losetup", str(device), str(image)], capture_output=True, text=True)


@contextmanager
def attach(image: Path, size_mib: int = 16, *, mkfs: str | None = None, partscan: bool = False):
    """A loop device over `image` (made here, `size_mib` large, unless it exists); detached afterwards."""
    if not image.exists():
        with open(image, "wb") as handle:
            handle.truncate(size_mib * MIB)
    if mkfs:
        subprocess.run([mkfs, "-q", "-F", str(image)], check=True, capture_output=True)
    out = attach_free(image, partscan=partscan)
    if out.returncode != 0:
        reason = f"cannot create a loop device here: {out.stderr.strip()}"
        pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)
    device = out.stdout.strip()
    try:
        yield device
    finally:
        detach(device, image)


def blocks_written(device: str | Path, block_size: int, length: int) -> int:
    """How many `block_size` blocks of the first `length` bytes of a zeroed device hold anything.

    What a timed random-write step covers depends on how many I/Os the machine managed in its
    time: a test asks for at least one block, and no more than the writes the workers did in all
    (the native engine's `StepObservation.all_phase_ios`). Not the step's measured count: the I/Os still in
    flight as its window closed reach the device uncounted, and on a loaded machine, where a
    0.3 s window holds a few dozen writes, they were more blocks than the count (28 > 26).
    """
    with open(device, "rb") as handle:
        data = handle.read(length)
    return sum(1 for offset in range(0, len(data), block_size) if data[offset:offset + block_size].count(0) < block_size)


@contextmanager
def mounted_ext4(name: str, size_mib: int, mount: Path) -> Iterator[Path]:
    """An ext4 file system (4 KiB blocks) on a loop device over a sparse image in RAM (/dev/shm where
    there is one), mounted at `mount` (an empty directory); unmounted, detached and removed after."""
    if os.geteuid() != 0 or not shutil.which("losetup") or not shutil.which("mkfs.ext4"):
        pytest.skip("a loop device needs root, losetup and mkfs.ext4")
    base = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    image = Path(base) / f"labtui-{name}-{os.getpid()}.img"
    with open(image, "wb") as handle:
        handle.truncate(size_mib * MIB)
    try:
        subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", str(image)], check=True, capture_output=True)
        out = attach_free(image)
        if out.returncode != 0:
            pytest.skip(f"cannot create a loop device here: {out.stderr.strip()}")
        device = out.stdout.strip()
        try:
            subprocess.run(["mount", device, str(mount)], check=True, capture_output=True)
            try:
                yield image
            finally:
                unmount(mount)
        finally:
            detach(device, image)
    finally:
        image.unlink(missing_ok=True)


def unmount(mount: Path) -> None:
    """Unmount `mount`, waiting out processes still letting go of it (a program in a terminal just closed,
    an io_uring ring's registered file, which the kernel drops in its own time); lazily if they do not."""
    for _ in range(100):
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode == 0 or not os.path.ismount(mount):
            return
        time.sleep(0.1)
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def loops_missing() -> str | None:
    if os.geteuid() != 0:
        return "loop devices need root"
    if not shutil.which("losetup"):
        return "losetup is not installed"
    if not (Path("/dev/loop-control").exists() or Path("/dev/loop0").exists()):
        return "this kernel/container has no loop devices"
    return None


@contextmanager
def loop_device(directory: Path, size_mib: int, mkfs: str | None = None):
    image = directory / f"disk-{size_mib}-{mkfs or 'blank'}.img"
    try:
        with attach(image, size_mib, mkfs=mkfs) as device:
            yield device
    finally:
        image.unlink(missing_ok=True)


def digest(device: str) -> str:
    with open(device, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()
