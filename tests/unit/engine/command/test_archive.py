"""`labtui make-archive`: a zpaq test archive of a chosen size, incompressible, never overwriting, never littering."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from conftest import labtui_cmd, require_tool
from labtui.engine.command.archive import BATCH_BYTES, ArchivePlan, plan_archive
from labtui.errors import LabtuiError

MIB = 1024 * 1024


@pytest.fixture
def work(tmp_path, labtui_home) -> Path:
    """An empty directory to make archives in (tmp_path also holds LABTUI_HOME)."""
    directory = tmp_path / "work"
    directory.mkdir()
    return directory


def test_an_archive_of_the_asked_size_that_zpaq_extracts(tmp_path, labtui_home):
    require_tool("zpaq")
    where = tmp_path / "lab share"
    where.mkdir()
    out = where / "test 6M.zpaq"
    made = subprocess.run(labtui_cmd("make-archive", "--size", "6M", "--files", "4", str(out)),
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith(f"{out}: 4 files, 6.0 MiB of incompressible data")
    assert "writing file 1 of 4" in made.stderr and "adding 4 files to the archive" in made.stderr
    assert [p.name for p in where.iterdir()] == [out.name]  # no temporary tree left
    # Nothing to compress or deduplicate: the archive is as large as its data.
    assert out.stat().st_size >= 6 * MIB
    subprocess.run(["zpaq", "x", str(out), "-to", str(tmp_path / "x")], check=True, capture_output=True)
    files = sorted((tmp_path / "x").rglob("*.bin"))
    assert [f.stat().st_size for f in files] == [1572864] * 4
    assert len({f.read_bytes()[:4096] for f in files}) == 4


def test_files_are_written_and_added_a_batch_at_a_time():
    plan = ArchivePlan(Path("/x.zpaq"), size=10, files=4, method=1, zpaq="zpaq")
    assert plan.file_sizes == [3, 3, 2, 2]
    big = ArchivePlan(Path("/x.zpaq"), size=10 * BATCH_BYTES, files=40, method=1, zpaq="zpaq")
    assert big.batch_bytes == BATCH_BYTES  # four quarter-GiB files per batch, never the whole 10 GiB
    huge = ArchivePlan(Path("/x.zpaq"), size=200 * 1024**3, files=16, method=1, zpaq="zpaq")
    assert huge.batch_bytes == 200 * 1024**3 // 16  # a file larger than a batch is a batch of its own


def test_plan_archive_checks_before_writing(work):
    require_tool("zpaq")
    plan = plan_archive(work / "a.zpaq", 4 * MIB, 2)
    assert plan.out == work / "a.zpaq" and plan.file_sizes == [2 * MIB, 2 * MIB]
    (work / "file").write_text("")
    with pytest.raises(LabtuiError, match="is not a directory"):
        plan_archive(work / "file" / "a.zpaq", MIB, 1)
    assert [p.name for p in work.iterdir()] == ["file"]


def test_interrupted_while_zpaq_runs_it_stops_zpaq_and_removes_the_unfinished_archive(work):
    require_tool("zpaq")
    out = work / "mid.zpaq"
    proc = subprocess.Popen(labtui_cmd("make-archive", "--size", "300M", "--files", "1", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    zpaq: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 30
        while not zpaq and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            zpaq = [c for c in psutil.Process(proc.pid).children(recursive=True) if c.name() == "zpaq"]
            time.sleep(0.02)
        assert zpaq, "zpaq never started"
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert not zpaq[0].is_running() or zpaq[0].status() == psutil.STATUS_ZOMBIE
    assert list(work.iterdir()) == []


def test_an_interrupt_while_a_block_is_generated_leaves_nothing_and_stays_an_interrupt(work, monkeypatch):
    # Ctrl+C can land inside the generator, while a slice of the shared buffer is in use: the
    # cleanup must not turn it into another error (closing a buffer that is still exported).
    from labtui.engine.command import archive

    require_tool("zpaq")
    real_fill = archive.RandomBlocks.fill
    calls = []

    def fill(self, view, offset):
        calls.append(offset)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_fill(self, view, offset)

    monkeypatch.setattr(archive.RandomBlocks, "fill", fill)
    with pytest.raises(KeyboardInterrupt):
        archive.make_archive(plan_archive(work / "a.zpaq", 64 * 1024**2, 2, 1))
    assert list(work.iterdir()) == []


def test_an_interrupt_that_lands_while_a_view_of_the_buffer_is_held_is_still_an_interrupt(work, monkeypatch):
    # Ctrl+C (or SIGTERM, raised as KeyboardInterrupt) between RandomBlocks.stamp's cast of the
    # buffer and its release: the interrupted frame keeps that view alive while the exception
    # travels, and closing the buffer then failed with BufferError, which replaced the interrupt
    # (make-archive exited 1, "internal error", instead of 130, "interrupted").
    require_tool("zpaq")
    from labtui.engine.command import archive
    from labtui.engine.testfile import RandomBlocks

    class InterruptedWhileStamping(RandomBlocks):
        def stamp(self, buffer, offset):
            words = buffer.cast("Q")  # noqa: F841 - held by this frame as the signal lands
            raise KeyboardInterrupt

    monkeypatch.setattr(archive, "RandomBlocks", InterruptedWhileStamping)
    with pytest.raises(KeyboardInterrupt):
        archive.make_archive(plan_archive(work / "a.zpaq", 4 * MIB, 1))
    assert list(work.iterdir()) == []
