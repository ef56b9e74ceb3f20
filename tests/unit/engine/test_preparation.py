"""The test file's preparation: several writers, data that neither compresses nor repeats, and its record."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import io
import json
import os
import resource
import signal
import struct
import threading
import zlib

import pytest
from rich.console import Console

from labtui.engine import testfile
from labtui.engine.testfile import CHUNK, TestFile, write_test_file
from labtui.model.profile import Profile, Step
from labtui.render.result_json import result_to_json
from labtui.render.result_tables import context_table
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

MIB = 1024 * 1024


def test_the_file_is_whole_incompressible_stamped_in_place_and_never_repeats(disk_dir):
    # Several chunks for several writers, a partial chunk, and a tail that O_DIRECT cannot write.
    size = 5 * CHUNK + 3 * 4096 + 100
    path = disk_dir / "prepared.dat"
    made = TestFile.create(path)
    try:
        assert write_test_file(made, size, direct=True) is True
        assert os.fstat(made.fd).st_size == size
        data = path.read_bytes()
    finally:
        made.close()
        path.unlink()
    assert len(data) == size
    blocks = [data[i : i + 4096] for i in range(0, size - 4096 + 1, 4096)]
    # Every 4 KiB block starts with its own offset and the run's nonce: each chunk landed where
    # it belongs, whichever writer wrote it.
    stamps = [struct.unpack_from("<QQ", b) for b in blocks]
    assert [offset for offset, _ in stamps] == [i * 4096 for i in range(len(blocks))]
    assert len({nonce for _, nonce in stamps}) == 1
    assert struct.unpack_from("<QQ", data, len(blocks) * 4096) == (len(blocks) * 4096, stamps[0][1])
    # No block repeats (a deduplicating controller finds nothing), none is zeros, none compresses.
    assert len({hashlib.blake2b(b, digest_size=16).digest() for b in blocks}) == len(blocks)
    for start in range(0, size, 7 * MIB):
        piece = data[start : start + MIB]
        assert len(zlib.compress(piece, 6)) > 0.99 * len(piece)


def test_the_file_is_written_through_the_descriptor_held_and_o_direct_is_switched_off_after(disk_dir):
    import fcntl

    path = disk_dir / "held.dat"
    made = TestFile.create(path)
    try:
        write_test_file(made, 2 * CHUNK, direct=True)
        assert not fcntl.fcntl(made.fd, fcntl.F_GETFL) & os.O_DIRECT
        assert os.stat(path).st_ino == made.ino and os.stat(path).st_size == 2 * CHUNK
    finally:
        made.close()
        path.unlink()


def test_a_cancelled_preparation_stops_and_says_so(disk_dir):
    path = disk_dir / "cancelled.dat"
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(InterruptedError):
        write_test_file(path, 64 * MIB, direct=True, cancel=cancel)
    assert os.path.getsize(path) < 64 * MIB
    path.unlink()


def test_a_writer_that_fails_fails_the_preparation_with_its_reason(disk_dir):
    # A real write failure: the file-size limit makes writes past 8 MiB fail with EFBIG.
    path = disk_dir / "limited.dat"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 * MIB, hard))
    try:
        with pytest.raises(OSError) as raised:
            write_test_file(path, 64 * MIB, direct=True)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
        path.unlink(missing_ok=True)
    assert raised.value.errno == errno.EFBIG


@pytest.mark.parametrize(("cpus", "writers"), [(1, 2), (2, 2), (3, 3), (4, 4), (64, 4)])
def test_one_writer_per_usable_cpu_two_to_four(monkeypatch, cpus, writers):
    monkeypatch.setattr(testfile, "usable_cpus", lambda: cpus)
    assert testfile.writer_count() == writers


@pytest.mark.parametrize("cpus", [2, 4])
def test_several_writes_are_in_flight_at_once(disk_dir, monkeypatch, cpus):
    """The writers overlap: while one chunk is written, others are generated or written too."""
    monkeypatch.setattr(testfile, "usable_cpus", lambda: cpus)
    busy = [0]
    peak = [0]
    lock = threading.Lock()
    all_in = threading.Event()
    real = testfile._write_all

    def counting(fd, view, offset):
        with lock:
            busy[0] += 1
            peak[0] = max(peak[0], busy[0])
            if busy[0] == cpus:
                all_in.set()
        try:
            real(fd, view, offset)
            # A slow disk: each write is held until every writer has one in flight, so that on a
            # loaded machine the others' generation has time to catch up. Serialised writers
            # never get there: the first wait times out and lets the rest through at once.
            all_in.wait(3.0)
            all_in.set()
        finally:
            with lock:
                busy[0] -= 1

    monkeypatch.setattr(testfile, "_write_all", counting)
    path = disk_dir / "overlap.dat"
    write_test_file(path, 16 * CHUNK, direct=True)
    path.unlink()
    assert peak[0] == cpus


def test_the_preparation_is_recorded_in_the_result_json_toml_and_show(disk_dir, tmp_path):
    step = Step(name="r", block_size=4096, threads=1, outstanding=2, duration=0.3, warmup=0.0)
    profile = Profile(name="prep", file_size=24 * MIB + 4096, free_space_margin=0, steps=(step,))
    store = Store(tmp_path / "home")
    progress = []
    (disk_dir / "prep-run").mkdir()
    runner = Runner(profile, disk_dir / "prep-run", store, RunOptions(interval=0.25))

    async def go():
        async for event in runner.events():
            if type(event).__name__ == "PrepareProgress":
                progress.append(event.bytes_done)

    asyncio.run(go())
    result = runner.result
    assert result.status == "completed", result.error
    p = result.preparation
    assert p.bytes == 24 * MIB + 4096 and p.seconds > 0 and p.direct is True
    assert progress[0] == 0 and progress[-1] == p.bytes and progress == sorted(progress)
    assert progress.count(p.bytes) == 1, "the whole file is reported once (after its flush), not also as the writers end"
    as_json = result_to_json(result)["preparation"]
    assert as_json == {"bytes": p.bytes, "seconds": p.seconds, "mib_s": pytest.approx(p.mib_s), "direct": True}
    json.dumps(as_json)
    assert store.find_result(result.id).preparation == p
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(context_table(result))
    line = next(x for x in console.export_text().splitlines() if x.startswith("test file"))
    assert f"24580KiB, written in {p.seconds:,.1f} s (" in line and "MiB/s, O_DIRECT)" in line
