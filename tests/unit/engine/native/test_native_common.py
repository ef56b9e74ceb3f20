"""What every native I/O loop shares (labtui.engine.native.common): the CPU window, the tallies, a worker's region."""

from __future__ import annotations


def test_the_cpu_window_keeps_the_wall_time_its_readings_span():
    from labtui.engine.native.common import CpuWindow

    window = CpuWindow()
    window.start()
    sum(range(3_000_000))  # CPU time for the readings to count
    window.end()
    figures = window.figures()
    # One thread's CPU time cannot exceed the wall time it was counted over.
    assert 0 < figures["cpu_seconds"] <= figures["cpu_window_seconds"]


def test_each_sequential_worker_streams_through_its_own_share_unless_a_share_is_too_small():
    from labtui.engine.native.common import region

    cfg = {"block_size": 4096, "file_size": 100 * 4096 + 100, "threads": 4, "outstanding": 2}
    assert [region(cfg, w) for w in range(4)] == [(i * 25 * 4096, (i + 1) * 25 * 4096) for i in range(4)]
    # Fewer whole blocks per worker than I/Os in flight, or one worker: each covers the whole file's blocks.
    assert region({**cfg, "outstanding": 32}, 3) == (0, 100 * 4096)
    assert region({**cfg, "threads": 1}, 0) == (0, 100 * 4096)


def test_the_measured_counts_are_those_between_the_two_boundaries_each_io_in_the_phase_it_completed_in():
    from labtui.engine.native.common import Tally, measured

    tally = Tally(workers=2)
    tally.t_measure, tally.t_end = 1_000, 2_000
    tally.ios[0] += 5  # warm-up reads of worker 0
    tally.maxs[0] = 9_999_999  # a warm-up extreme: it must not reach the measure
    assert tally.cross(999) is False and tally.first is None
    assert tally.cross(1_000) is False and tally.first is not None  # the start crossed, not the end
    tally.ios[0] += 7
    tally.maxs[0] = max(tally.maxs[0], 80)  # as a loop keeps its extremes
    tally.ios[3] += 3  # worker 1's writes
    tally.lat_sum[3] += 300
    tally.maxs[1] = 120
    assert tally.cross(2_500) is True and tally.cross(2_600) is False  # the end, once
    tally.ios[0] += 100  # the cool-down's
    result = measured(tally.first, tally.last, {}, 4096, [0, 1])
    assert (result["r_ios"], result["w_ios"], result["w_bytes"], result["w_lat_ns"]) == (7, 3, 3 * 4096, 300)
    assert result["r_max"] == 80 and result["w_max"] == 120
    assert [(w["r_ios"], w["w_ios"]) for w in result["workers"]] == [(7, 0), (0, 3)]
