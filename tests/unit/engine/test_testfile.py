"""The test file (labtui.engine.testfile): its preparation, and the file used is the one this run made.

The preparation: several writers, data that neither compresses nor repeats, and its record.
The file is never written through a link, never removed if not ours.

Real files, real engines: a file swapped for a symbolic link (or another file) between steps or
during one is refused, the run says so, and the link's target is untouched; cleanup removes the
file this run created and nothing else.
"""

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
from pathlib import Path

import pytest
from rich.console import Console

from conftest import require_tool
from engines import registered, require
from labtui.engine import testfile
from labtui.engine.base import Job
from labtui.engine.events import SampleTaken, StepFinished
from labtui.engine.registry import get_engine
from labtui.engine.testfile import CHUNK, TestFile, TestFileChanged, write_test_file
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
from labtui.render.result_json import result_to_json
from labtui.render.result_tables import context_table
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.settings import EngineSettings

MIB = 1024 * 1024


def scene(tmp_path: Path, engine: str) -> tuple[Path, Path, str]:
    """A work directory for the run, and a file elsewhere a link could point at (with its digest)."""
    require(engine)
    work = tmp_path / "work"
    work.mkdir()
    return (work, *victim(tmp_path))


def two_steps(*, cooldown: float = 0.0, first_seconds: float = 0.5) -> Profile:
    steps = (
        Step(name="read", block_size=65536, threads=1, outstanding=2, duration=first_seconds, warmup=0.0,
             cooldown=cooldown, cache="on"),
        Step(name="write", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.5,
             warmup=0.0, cache="on"),
    )
    return Profile(name="two", title="two", file_size=4 * MIB, free_space_margin=0, steps=steps)


def victim(directory: Path) -> tuple[Path, str]:
    path = directory / "victim.bin"
    path.write_bytes(b"precious " * (MIB // 4))
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def swap_for_link(test_file: Path, target: Path) -> Path:
    """Move labtui's file aside and put a symbolic link to `target` under its name."""
    aside = test_file.with_name("moved-aside.dat")
    os.rename(test_file, aside)
    os.symlink(target, test_file)
    return aside


async def _run_swapping(runner: Runner, target: Path, *, on) -> list:
    events = []
    swapped = False
    async for event in runner.events():
        events.append(event)
        if not swapped and on(event):
            swap_for_link(runner.plan.test_file, target)
            swapped = True
    assert swapped, "the test never got to swap the file"
    return events


@pytest.mark.parametrize("engine", registered())
def test_a_link_swapped_in_between_steps_is_refused_and_the_run_says_so(tmp_path, engine):
    work, precious, digest = scene(tmp_path, engine)
    runner = Runner(two_steps(cooldown=1.0), work, Store(tmp_path / "home"), RunOptions(engine=engine))
    events = asyncio.run(_run_swapping(runner, precious, on=lambda e: isinstance(e, StepFinished)))
    result = runner.result
    assert hashlib.sha256(precious.read_bytes()).hexdigest() == digest, "the link's target was written"
    assert result.status == "failed"
    assert "no longer the file labtui created" in result.error and "symbolic link" in result.error
    assert [s.status for s in result.steps] == ["completed"], "the write step must not have run"
    assert any("no longer the file labtui created" in getattr(e, "message", "") for e in events)
    # The link is not labtui's: it stays, and the run says what it left behind.
    link = runner.plan.test_file
    assert link.is_symlink() and os.readlink(link) == str(precious)
    assert any("left" in w and str(link) in w for w in result.warnings)


@pytest.mark.parametrize("engine", registered())
def test_a_link_swapped_in_during_a_step_fails_that_step(tmp_path, engine):
    work, precious, digest = scene(tmp_path, engine)
    runner = Runner(two_steps(first_seconds=2.0), work, Store(tmp_path / "home"),
                    RunOptions(engine=engine, interval=0.25))
    asyncio.run(_run_swapping(runner, precious,
                              on=lambda e: isinstance(e, SampleTaken) and e.phase == "measure"))
    result = runner.result
    assert hashlib.sha256(precious.read_bytes()).hexdigest() == digest
    assert result.status == "failed"
    assert [s.status for s in result.steps] == ["failed"]
    assert "during the step" in result.steps[0].error and "symbolic link" in result.steps[0].error


@pytest.mark.parametrize("engine", registered())
def test_every_engine_checks_the_file_right_before_it_opens_it(tmp_path, engine):
    """An engine handed a file that is no longer the one made refuses before anything starts."""
    precious, digest = victim(tmp_path)
    path = tmp_path / "labtui-x.dat"
    made = TestFile.create(path)
    try:
        write_test_file(made, MIB, direct=False)
        swap_for_link(path, precious)
        # A DiskSpd stand-in that would overwrite whatever it is given, to show it never starts.
        fake = tmp_path / "diskspd"
        fake.write_text("#!/bin/sh\nfor a; do f=$a; done\nprintf overwritten > \"$f\"\n")
        fake.chmod(0o755)
        eng = get_engine(engine, EngineSettings(diskspd_path=str(fake)))
        step = Step(name="w", block_size=65536, write_percent=100, threads=1, outstanding=1, duration=0.5,
                    warmup=0.0, cache="on")

        async def go():
            async for _ in eng.run_step(step, Job(path=path, file_size=MIB, hold=made)):
                pass

        if engine == "fio":
            require_tool("fio")
        with pytest.raises(TestFileChanged, match="symbolic link"):
            asyncio.run(go())
    finally:
        made.close()
    assert hashlib.sha256(precious.read_bytes()).hexdigest() == digest


def test_a_native_worker_checks_what_it_opened_against_the_file_made(tmp_path):
    """The worker's own check after its open: no window between a check and the write."""
    from labtui.engine.native import worker as nw

    path = tmp_path / "f.dat"
    path.write_bytes(bytes(MIB))
    st = path.stat()
    cfg = {"path": str(path), "write_percent": 100, "direct": False,
           "identity": {"dev": st.st_dev, "ino": st.st_ino + 1}}
    with pytest.raises(nw.NotTheFile, match="not the file labtui created"):
        nw._open(cfg)
    os.close(nw._open(cfg | {"identity": {"dev": st.st_dev, "ino": st.st_ino}}))
    link = tmp_path / "link.dat"
    link.symlink_to(path)
    with pytest.raises(OSError):
        nw._open(cfg | {"path": str(link), "identity": {"dev": st.st_dev, "ino": st.st_ino}})


def test_what_is_already_under_the_run_directorys_name_is_never_removed(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    runner = Runner(two_steps(), work, Store(tmp_path / "home"))
    runner.preflight()
    monkeypatch.setattr("labtui.run.runner.new_result_id", lambda started=None: "20260101-000000-abcd")
    theirs = work / "labtui-20260101-000000-abcd"
    theirs.mkdir()
    (theirs / "labtui-20260101-000000-abcd.dat").write_bytes(b"someone else's data")
    result = asyncio.run(runner.run())
    assert result.status == "failed"
    assert "already" in result.error and "leaves it alone" in result.error
    assert (theirs / "labtui-20260101-000000-abcd.dat").read_bytes() == b"someone else's data"


def test_cleanup_removes_the_file_it_made_and_only_that(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "labtui-other.dat").write_bytes(b"another run's file")
    runner = Runner(two_steps(), work, Store(tmp_path / "home"))
    result = asyncio.run(runner.run())
    assert result.status == "completed"
    assert sorted(p.name for p in work.iterdir()) == ["labtui-other.dat"]


def test_a_replaced_file_is_left_where_it_is_and_reported(tmp_path):
    path = tmp_path / "labtui-y.dat"
    made = TestFile.create(path)
    os.rename(path, tmp_path / "aside.dat")
    path.write_bytes(b"not ours")
    try:
        reason = made.remove()
    finally:
        made.close()
    assert reason is not None and "another file" in reason
    assert path.read_bytes() == b"not ours"
    assert (tmp_path / "aside.dat").exists()


def test_a_test_file_is_never_created_through_a_link(tmp_path):
    precious, digest = victim(tmp_path)
    path = tmp_path / "labtui-z.dat"
    path.symlink_to(precious)
    with pytest.raises(FileExistsError):
        TestFile.create(path)
    dangling = tmp_path / "labtui-d.dat"
    dangling.symlink_to(tmp_path / "nowhere.bin")
    with pytest.raises(FileExistsError):
        write_test_file(dangling, MIB, direct=False)
    assert not (tmp_path / "nowhere.bin").exists()
    assert hashlib.sha256(precious.read_bytes()).hexdigest() == digest


def test_a_verify_names_what_changed(tmp_path):
    path = tmp_path / "labtui-v.dat"
    made = TestFile.create(path)
    try:
        made.verify("before step 1")
        path.unlink()
        with pytest.raises(LabtuiError, match="before step 1.*gone"):
            made.verify("before step 1")
    finally:
        made.close()


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
