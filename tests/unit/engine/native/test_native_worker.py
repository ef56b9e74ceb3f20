"""A native worker process's side (labtui.engine.native.worker): its result handed in whole."""

from __future__ import annotations

import io
import os
import types


def test_a_workers_result_reaches_the_engine_whole_through_short_writes():
    """With PYTHONUNBUFFERED set a worker's stdout is the raw pipe, whose write() is one system call;
    into a full pipe it returns short when the process has a signal or io_uring work pending (the
    ring it just closed). A verified read of a 4 GiB file (a 292 KiB result) lost all but 128 KiB
    in 3 runs of 8, and the step failed with "a worker process exited with status 0"."""
    import threading

    from labtui.engine.native import common as nc, worker
    from labtui.engine.native.engine import _Worker

    result = {"r_ios": 56_320, "strangers": bytes(range(256)) * 1200, "workers": [{"worker": 0}]}
    r, w = os.pipe()
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: os.read(r, 1 << 16), b"")))
    reader.start()

    class Interrupted(io.FileIO):
        def write(self, b) -> int:  # what the kernel does to a pipe write interrupted part-way
            return super().write(memoryview(b)[:4096])

    with Interrupted(w, "wb", closefd=True) as out:
        worker.hand_in(result, out)
    reader.join()
    proc = types.SimpleNamespace(returncode=0)
    assert _Worker(proc, memoryview(bytearray(nc.LIVE_BYTES)).cast("q"))._read(b"".join(chunks), b"") == result
    # Should a result ever come back cut short, that is what the step says.
    whole = b"".join(chunks)
    cut = _Worker(proc, memoryview(bytearray(nc.LIVE_BYTES)).cast("q"))._read(whole[: 8 + 131_072], b"")
    assert cut == {"error": f"a worker process's result came back cut short (131,072 of {len(whole) - 8:,} bytes; "
                            "it exited with status 0)"}
    assert _Worker(proc, memoryview(bytearray(nc.LIVE_BYTES)).cast("q"))._read(b"", b"") == {
        "error": "a worker process ended without handing in its result (exit status 0)"}
