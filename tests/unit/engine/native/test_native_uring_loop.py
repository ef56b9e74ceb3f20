"""The native io_uring loop (labtui.engine.native.uring_loop), run in this process on a cached file."""

from __future__ import annotations

import pytest

from labtui.engine.native import uring
from labtui.engine.native.uring_loop import DEEP_QUEUE, SHALLOW_CHUNK, SUBMIT_CHUNK, submit_chunk, uring_loop
from native_loop import cached_file, check_stamps, run_loop


def test_freed_slots_go_back_in_chunks_by_the_depth_and_whole_where_a_process_carries_several_workers():
    assert submit_chunk(DEEP_QUEUE) == SUBMIT_CHUNK and submit_chunk(DEEP_QUEUE - 1) == SHALLOW_CHUNK
    assert submit_chunk(32, carried=True) == 32


@pytest.mark.parametrize("block_size", [4096, 8192])  # one stamp a block, and two
def test_a_mixed_step_of_two_workers_in_one_ring_counts_each_ones_ios_and_the_mix(tmp_path, block_size):
    if uring.probe():
        pytest.skip(f"io_uring cannot run here: {uring.probe()}")
    path = cached_file(tmp_path / "cached.dat")
    result = run_loop(uring_loop, path, write_percent=30, outstanding=8, workers=[0, 1], threads=2,
                      block_size=block_size, seconds=0.2)
    assert "error" not in result, result
    ios = result["r_ios"] + result["w_ios"]
    assert ios > 200 and 20 <= 100 * result["w_ios"] / ios <= 40
    assert result["r_bytes"] == result["r_ios"] * block_size and result["w_bytes"] == result["w_ios"] * block_size
    assert [w["worker"] for w in result["workers"]] == [0, 1]
    assert sum(w["r_ios"] + w["w_ios"] for w in result["workers"]) == ios
    assert all(w["r_ios"] and w["w_ios"] for w in result["workers"])
    assert 0 < result["r_min"] <= result["r_max"] and result["r_lat_ns"] >= result["r_ios"] * result["r_min"]
    # Every write was stamped where it landed (the loop stamps a mixed step's writes itself).
    assert check_stamps(path, block_size)
