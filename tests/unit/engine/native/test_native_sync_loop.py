"""The native engine's blocking loop (labtui.engine.native.sync_loop), run in this process on a cached file."""

from __future__ import annotations

import os


def test_blocking_threads_read_their_cpu_window_where_their_ios_cross_its_edges(tmp_path, monkeypatch):
    """The blocking loop with several I/Os in flight counts each I/O by its own completion time; its
    CPU window was read by the publishing thread when it woke. Kept off a CPU for the whole window
    (a busy machine, a CPU quota: here a publisher that sleeps through it), that thread read both
    ends together after it: 0.0001 CPU-seconds for 18k I/Os, and a 100 % CPU-bound verdict."""
    import time
    import types

    from labtui.engine.native import common as nc, sync_loop
    from labtui.engine.native.figures import cpu_measured

    path = tmp_path / "cached.dat"
    path.write_bytes(bytes(range(256)) * 4096)  # 1 MiB, in the page cache: the threads never wait long
    control = memoryview(bytearray(nc.CONTROL_BYTES)).cast("d")
    live = memoryview(bytearray(nc.LIVE_BYTES)).cast("q")
    t_measure = time.monotonic() + 0.05
    control[nc.C_MEASURE], control[nc.C_END], control[nc.C_GO] = t_measure, t_measure + 0.4, 1.0

    def sleep_through_the_window(seconds: float) -> None:
        time.sleep(max(seconds, t_measure + 0.45 - time.monotonic()))

    monkeypatch.setattr(sync_loop, "time", types.SimpleNamespace(monotonic_ns=time.monotonic_ns,
                                                                 sleep=sleep_through_the_window))
    cfg = dict(path=str(path), block_size=4096, pattern="random", write_percent=0, outstanding=4, latency=True,
               workers=[0], threads=1, seed=7, file_size=1024 * 1024, trace=0)
    fd = os.open(path, os.O_RDONLY)
    try:
        result = sync_loop.sync_loop(cfg, control, live, fd)
    finally:
        os.close(fd)
    assert "error" not in result and result["r_ios"] > 0
    # Read where the threads' I/Os crossed the window's edges, the readings span it (a loaded
    # machine may start them late; read together after it, they spanned microseconds).
    assert result["cpu_window_seconds"] > 0.1, result
    assert cpu_measured(result), result
