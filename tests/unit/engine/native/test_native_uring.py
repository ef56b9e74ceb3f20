"""io_uring from pure Python (labtui.engine.native.uring): a ring set up and taken down, and where io_uring
cannot run, why, in a line the engine's fallback note and the Run screen show."""

from __future__ import annotations

import errno
import os

import pytest

from labtui.engine.native import uring


def test_a_ring_is_set_up_with_its_rings_mapped_and_closed_without_leaving_a_descriptor():
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    ring = uring.Ring(8)
    fd = ring.fd
    assert fd >= 0 and os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:[io_uring]"
    ring.close()
    assert ring.fd == -1
    assert not os.path.exists(f"/proc/self/fd/{fd}") or os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:[io_uring]"
    ring.close()  # twice is harmless


@pytest.mark.parametrize("code,says", [
    (errno.ENOSYS, "this kernel has no io_uring (Linux 5.6 or later has it)"),
    (errno.EPERM, "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)"),
    (errno.EACCES, "io_uring is disabled here (sysctl kernel.io_uring_disabled, or a seccomp filter)"),
    (errno.ENOMEM, "io_uring could not get its memory (before Linux 5.12 it counts against `ulimit -l`)"),
    (errno.EFAULT, "io_uring could not be set up: Bad address"),  # no hint: the system's own words
])
def test_why_io_uring_cannot_run_is_said_in_a_line_of_what_to_know(monkeypatch, code, says):
    def refused(entries: int):
        raise uring.UringError(code, f"io_uring_setup failed: {os.strerror(code)}")

    monkeypatch.setattr(uring, "Ring", refused)
    why = uring._probe()
    assert why == says  # one line, no "[Errno N]" in it
