"""A RAM-backed disk for the benchmarks: ext4 on a loop device over a file in /dev/shm.

It never drifts from minute to minute as the VM's virtio disk does, and answers in microseconds,
so what is left to measure is the CPU labtui spends per I/O. Needs root; everything is named
after the benchmark and its process id, and removed afterwards by name (never `losetup -D`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path


@contextlib.contextmanager
def ram_disk(image_bytes: int, name: str):
    """Mount an ext4 file system of `image_bytes` at /mnt/<name>-<pid>; yields (mount point, device)."""
    if os.geteuid() != 0:
        raise SystemExit("--ram needs root (losetup, mkfs.ext4, mount)")
    tag = f"{name}-{os.getpid()}"
    image = Path(f"/dev/shm/{tag}.img")
    mount = Path(f"/mnt/{tag}")
    loop = None
    try:
        with open(image, "xb") as f:
            f.truncate(image_bytes)
        loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True, text=True,
                              check=True).stdout.strip()
        # Inode tables and journal zeroed now, not by ext4lazyinit in the first minutes after
        # mounting: measured, it wrote 40 MB in the 8 s after mounting a 2.5 GiB image, which the
        # first cell's kernel byte counts took for the engine's (a 5 % excess).
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop], check=True)
        mount.mkdir()
        subprocess.run(["mount", loop, str(mount)], check=True)
        yield mount, loop
    finally:
        # An io_uring ring drops its registered file after it is closed, in the kernel's own
        # time: a umount right after an in-process io_uring run can find the mount busy.
        for _ in range(50):
            if not mount.is_mount() or subprocess.run(["umount", str(mount)], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        with contextlib.suppress(OSError):
            mount.rmdir()
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        image.unlink(missing_ok=True)
