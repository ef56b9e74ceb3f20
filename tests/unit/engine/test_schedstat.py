"""A process's scheduler times (labtui.engine.schedstat): running and waiting, over its own threads only."""

from __future__ import annotations

import pytest

from labtui.engine import schedstat


def test_scheduler_times_of_this_process_grow_as_it_runs():
    before = schedstat.sched_times()
    if before is None:
        pytest.skip("this kernel exposes no per-thread schedstat")
    sum(range(2_000_000))
    after = schedstat.sched_times()
    assert after[0] > before[0] and after[1] >= before[1]


def test_the_kernels_io_threads_in_a_worker_are_not_its_scheduler_times(tmp_path):
    # A throttled io_uring write step: the worker's thread and the io_uring worker the kernel
    # started in its process (for writes it could not issue without blocking) each waited for a
    # CPU; summed, the worker "was on a CPU or waiting for one 108 % of the time".
    def thread(tid: int, comm: str, run: int, wait: int) -> None:
        (tmp_path / "77" / "task" / str(tid)).mkdir(parents=True)
        (tmp_path / "77" / "task" / str(tid) / "comm").write_text(comm + "\n")
        (tmp_path / "77" / "task" / str(tid) / "schedstat").write_text(f"{run} {wait} 12\n")

    thread(77, "python", 290_000_000, 1_100_000_000)
    thread(78, "iou-wrk-77", 300_000, 228_000_000)
    thread(79, "python", 10_000_000, 5_000_000)  # a thread of the worker's own (the blocking loop's)
    assert schedstat.sched_times(77, proc=str(tmp_path)) == (300_000_000, 1_105_000_000)
    assert schedstat.sched_times(78, proc=str(tmp_path)) is None
