"""The native kernel AIO loop (labtui.engine.native.aio_loop), run in this process on a cached file."""

from __future__ import annotations

import pytest

from labtui.engine.native.aio_loop import aio_loop, aio_syscalls
from native_loop import cached_file, check_stamps, run_loop


def test_a_mixed_step_counts_its_ios_exactly_by_direction(tmp_path):
    if aio_syscalls() is None:
        pytest.skip("no kernel AIO system calls known for this machine")
    path = cached_file(tmp_path / "cached.dat")
    result = run_loop(aio_loop, path, write_percent=50, outstanding=4)
    assert "error" not in result, result
    ios = result["r_ios"] + result["w_ios"]
    assert ios > 200 and 35 <= 100 * result["w_ios"] / ios <= 65
    assert result["w_bytes"] == result["w_ios"] * 4096
    assert result["workers"][0]["r_ios"] == result["r_ios"] and result["workers"][0]["w_ios"] == result["w_ios"]
    assert 0 < result["w_min"] <= result["w_max"]
    assert check_stamps(path, 4096)  # each write stamped where it landed, by the loop itself


def test_the_loop_says_the_error_of_an_io_the_kernel_refused(tmp_path):
    """A read-only descriptor under a write step: the kernel refuses each write (EBADF), the loop stops
    and says why, naming the file, instead of counting failures as I/Os."""
    import os

    from labtui.engine.native import common as nc

    path = cached_file(tmp_path / "cached.dat")
    control = memoryview(bytearray(nc.CONTROL_BYTES)).cast("d")
    live = memoryview(bytearray(nc.LIVE_BYTES)).cast("q")
    control[nc.C_MEASURE], control[nc.C_END], control[nc.C_GO] = 0.0, 1e12, 1.0
    cfg = dict(path=str(path), file_size=path.stat().st_size, block_size=4096, pattern="random", write_percent=100,
               outstanding=2, latency=True, workers=[0], threads=1, seed=7, trace=0, direct=False)
    fd = os.open(path, os.O_RDONLY)
    try:
        result = aio_loop(cfg, control, live, fd)
    finally:
        os.close(fd)
    assert "Bad file descriptor" in result.get("error", "") and str(path) in result["error"], result
