"""The test file is the one this run made: never written through a link, never removed if not ours.

Real files, real engines: a file swapped for a symbolic link (or another file) between steps or
during one is refused, the run says so, and the link's target is untouched; cleanup removes the
file this run created and nothing else.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from conftest import require_tool
from engines import registered, require
from labtui.engine.base import Job
from labtui.engine.events import SampleTaken, StepFinished
from labtui.engine.registry import get_engine
from labtui.engine.testfile import TestFile, TestFileChanged, write_test_file
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
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
