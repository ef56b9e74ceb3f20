"""Run orchestration on real files: preparation, preflight refusals, fallbacks, cancellation."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import zlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
import pytest

from conftest import brief_profile, labtui_cmd
from engines import registered, require
from labtui.engine.events import (
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    StepFinished,
    StepStarted,
)
from labtui.engine.testfile import write_test_file
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.settings import EngineSettings
from slow_fio import ExitWatch, slow_fio

MIB = 1024 * 1024


def small_profile(**overrides) -> Profile:
    steps = (
        Step(name="read", block_size=65536, threads=2, outstanding=2, duration=1.0, warmup=0.2),
        Step(name="write", block_size=65536, write_percent=100, threads=2, outstanding=2, duration=1.0, warmup=0.2),
    )
    fields = dict(name="tiny", title="tiny", file_size=32 * MIB, free_space_margin=0, steps=steps)
    fields.update(overrides)
    return Profile(**fields)


def collect(runner: Runner) -> list:
    events = []

    async def go():
        async for event in runner.events():
            events.append(event)

    asyncio.run(go())
    return events


def engine_workers() -> list[psutil.Process]:
    """The native engine's worker processes started by this test process."""
    workers = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "labtui.engine.native.worker" in " ".join(p.cmdline()) and p.status() != psutil.STATUS_ZOMBIE:
                workers.append(p)
        except psutil.NoSuchProcess:
            pass
    return workers


def test_a_run_emits_the_documented_stream_and_saves_the_result(disk_dir, tmp_path):
    store = Store(tmp_path / "home")
    runner = Runner(small_profile(), disk_dir, store, RunOptions(tags=("t1",), interval=0.5))
    events = collect(runner)
    kinds = [type(e) for e in events]
    assert kinds[0] is RunStarted and kinds[-1] is RunFinished
    assert kinds.index(PrepareProgress) < kinds.index(StepStarted)
    assert kinds.count(StepStarted) == 2 and kinds.count(StepFinished) == 2
    assert SampleTaken in kinds
    progress = [e for e in events if isinstance(e, PrepareProgress)]
    assert progress[-1].bytes_done == progress[-1].bytes_total == 32 * MIB
    result = events[-1].result
    assert result.status == "completed" and result.tags == ("t1",)
    assert [s.name for s in result.steps] == ["read", "write"]
    assert result.target.mount_point and result.host.cpu_count
    assert store.find_result(result.id) == result
    assert not list(disk_dir.glob("labtui-[0-9]*")), "the test file must be removed"


def test_the_prepared_file_is_full_incompressible_and_never_repeats(tmp_path):
    path = tmp_path / "f.dat"
    write_test_file(path, 8 * MIB + 4096, direct=False)
    data = path.read_bytes()
    assert len(data) == 8 * MIB + 4096
    blocks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    assert not any(b == bytes(4096) for b in blocks)
    assert len(set(blocks)) == len(blocks)
    assert len(zlib.compress(data, 6)) > 0.99 * len(data)


def test_keep_file_keeps_the_prepared_file(disk_dir, tmp_path, monkeypatch):
    runner = Runner(small_profile(steps=small_profile().steps[:1]), disk_dir, Store(tmp_path / "h"),
                    RunOptions(keep_file=True))
    runner.preflight()
    # A prompt waited an hour between the checks and the start: the result's id is the start's time.
    started = datetime.now(UTC) + timedelta(hours=1)
    monkeypatch.setattr("labtui.run.runner.now", lambda: started)
    collect(runner)
    kept = runner.plan.test_file
    assert runner.result.id.startswith(started.strftime("%Y%m%d-%H%M%S-"))
    try:
        assert kept.name == f"labtui-{runner.result.id}.dat"
        assert kept.stat().st_size == 32 * MIB
        with open(kept, "rb") as handle:
            head = handle.read(MIB)
        assert head.count(0) < len(head) // 100
    finally:
        kept.unlink()
        kept.parent.rmdir()  # the run's own directory, kept with its file (the module's tests share disk_dir)


def test_not_enough_free_space_is_refused_before_any_write(disk_dir, tmp_path):
    free = shutil.disk_usage(disk_dir).free
    store = Store(tmp_path / "home")
    before = sorted(os.listdir(disk_dir))
    runner = Runner(small_profile(file_size=free + 1024 * MIB), disk_dir, store)
    with pytest.raises(LabtuiError, match="not enough free space"):
        runner.preflight()
    assert sorted(os.listdir(disk_dir)) == before
    assert not (tmp_path / "home" / "results").exists()


def test_the_free_space_margin_counts_too(disk_dir, tmp_path):
    # Twice what is free: other tests beside this one delete files on the same disk, and a
    # margin of exactly the free space stopped being too much when they did.
    free = shutil.disk_usage(disk_dir).free
    runner = Runner(small_profile(free_space_margin=2 * free), disk_dir, Store(tmp_path / "h"))
    with pytest.raises(LabtuiError, match="margin"):
        runner.preflight()


def test_an_existing_file_as_target_is_refused(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    with pytest.raises(LabtuiError, match="exists and is a file"):
        Runner(small_profile(), victim, Store(tmp_path / "h")).preflight()
    assert victim.read_text() == "keep me"


def test_a_target_directory_that_does_not_exist_is_refused_and_nothing_is_made(disk_dir, tmp_path):
    # A typo ('/mnt/dta/bench') must not become a directory tree made, written and removed again.
    target = disk_dir / "new" / "deeper"
    runner = Runner(small_profile(steps=small_profile().steps[:1]), target, Store(tmp_path / "h"))
    with pytest.raises(LabtuiError) as refused:
        runner.preflight()
    assert str(refused.value) == (f"no such directory: {target} ({disk_dir / 'new'} does not exist): create it "
                                  "first, or give a directory that exists")
    assert not (disk_dir / "new").exists() and not (tmp_path / "h" / "results").exists()


def test_labtuis_own_folder_at_a_mount_point_is_made_for_the_run_and_removed_again(tmp_path):
    # The one directory a run makes: MOUNT/labtui, where --all-volumes, the Disks screen and a
    # check of such a baseline put the test file on a volume without a home directory.
    from conftest import require_root

    require_root("mounting a tmpfs to have a mount point of the test's own")
    point = tmp_path / "mnt"
    point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "labtui-test-own", str(point)], check=True)
    try:
        step = replace(small_profile().steps[0], cache="on")
        runner = Runner(small_profile(steps=(step,), file_size=8 * MIB), point / "labtui", Store(tmp_path / "h"))
        collect(runner)
        assert runner.result.status == "completed", runner.result.error
        assert runner.result.target.path == str(point / "labtui")
        assert os.listdir(point) == []  # made for the run, removed after it
        with pytest.raises(LabtuiError, match="no such directory"):
            Runner(small_profile(), point / "labtui" / "deeper", Store(tmp_path / "h")).preflight()
        with pytest.raises(LabtuiError, match="no such directory"):
            Runner(small_profile(), point / "other", Store(tmp_path / "h")).preflight()
        assert os.listdir(point) == []
    finally:
        subprocess.run(["umount", str(point)], check=True)


def test_cache_off_falls_back_loudly_where_o_direct_is_refused(tmp_path):
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable tmpfs at /dev/shm")
    target = shm / f"labtui-test-{os.getpid()}"
    target.mkdir()
    runner = Runner(small_profile(file_size=8 * MIB), target, Store(tmp_path / "h"))
    try:
        events = collect(runner)
    finally:
        shutil.rmtree(target, ignore_errors=True)
    warnings = [e.message for e in events if isinstance(e, RunWarning)]
    assert any('cache = "on"' in w and "page cache" in w for w in warnings)
    result = runner.result
    assert result.status == "completed"
    assert all(s.step.cache == "on" for s in result.steps)
    assert any('cache = "on"' in w for w in result.warnings)
    assert result.target.filesystem == "tmpfs"


def test_cancelling_mid_step_aborts_cleanly(disk_dir, tmp_path):
    store = Store(tmp_path / "home")
    profile = small_profile(steps=(replace(small_profile().steps[0], duration=30.0),))
    runner = Runner(profile, disk_dir, store, RunOptions(interval=0.2))

    async def go():
        async def consume():
            async for event in runner.events():
                if isinstance(event, SampleTaken) and event.phase == "measure":
                    assert engine_workers(), "workers should be running mid-step"
                    started.set()

        started = asyncio.Event()
        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), timeout=30)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return loop.time() - t0

    stop_seconds = asyncio.run(go())
    assert stop_seconds < 2.0
    assert engine_workers() == []
    assert not list(disk_dir.glob("labtui-[0-9]*"))
    result = runner.result
    assert result.status == "aborted" and "cancel" in result.error
    assert store.find_result(result.id).status == "aborted"


def _cancel_when(runner: Runner, reached, seen: list | None = None, timeout: float = 60.0) -> None:
    """Run `runner` and cancel it at the first event for which `reached(event)` holds (every event
    it sent goes into `seen`)."""
    hit = asyncio.Event()

    def note(event) -> None:
        if reached(event):
            hit.set()

    _cancel_once(runner, hit, seen, timeout, note)


def _cancel_once(runner: Runner, hit: asyncio.Event, seen: list | None = None, timeout: float = 60.0,
                 note=None) -> None:
    """Run `runner` and cancel it once `hit` is set (every event it sent goes into `seen`, and to `note`)."""
    async def go():
        async def consume():
            async for event in runner.events():
                if seen is not None:
                    seen.append(event)
                if note is not None:
                    note(event)

        task = asyncio.create_task(consume())
        await asyncio.wait_for(hit.wait(), timeout=timeout)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())


def _cancel_after(runner: Runner, measured_samples: int) -> None:
    """Run `runner` and cancel it once its step has taken this many measured samples."""
    measured = itertools.count(1)
    _cancel_when(runner, lambda e: isinstance(e, SampleTaken) and e.phase == "measure"
                 and next(measured) >= measured_samples, timeout=30)


def test_a_native_step_cancelled_mid_measure_keeps_what_it_measured_marked_aborted(disk_dir, tmp_path):
    store = Store(tmp_path / "home")
    step = replace(small_profile().steps[0], write_percent=30, duration=30.0, warmup=0.2)
    runner = Runner(small_profile(steps=(step,)), disk_dir, store, RunOptions(interval=0.2))
    _cancel_after(runner, 3)
    result = runner.result
    assert result.status == "aborted"
    (kept,) = result.steps
    assert kept.status == "aborted" and "of the part measured" in kept.error
    # The measured part only: at least the three intervals seen, far from the 30 s planned.
    assert 0.5 <= kept.total.seconds < 10
    assert kept.read.ios > 0 and kept.write.ios > 0
    assert kept.read.bytes == kept.read.ios * step.block_size
    assert kept.read_latency.p99 is not None and kept.write_latency.p99 is not None
    assert kept.latency.mean is not None and kept.latency.max is None  # extremes are not known mid-step
    assert len(kept.samples) >= 3
    assert sum(s.read_ios for s in kept.samples) <= kept.read.ios
    saved = store.find_result(result.id)
    assert saved.steps[0].status == "aborted" and saved.steps[0].read.ios == kept.read.ios


def test_a_failing_step_fails_the_run_and_still_cleans_up(disk_dir, tmp_path):
    store = Store(tmp_path / "home")
    runner = Runner(small_profile(), disk_dir, store)
    plan = runner.preflight()
    # Sabotage: the engine is told to read past the end of a file truncated after preparation.
    original = runner._effective_step

    def truncate_then_run(step, plan_, emit):
        os.truncate(plan.test_file, 1 * MIB)
        return original(step, plan_, emit)

    runner._effective_step = truncate_then_run
    collect(runner)
    result = runner.result
    assert result.status == "failed" and result.error
    assert len(result.steps) == 1 and result.steps[0].status == "failed"
    assert not plan.test_file.exists()
    assert store.find_result(result.id).status == "failed"


def test_cli_run_json_is_consistent_and_show_finds_it(disk_dir, labtui_home, tmp_path):
    target = disk_dir / "cli"
    target.mkdir()
    profile = brief_profile(tmp_path, duration="1s", threads=2)
    out = subprocess.run(
        labtui_cmd("run", "-p", str(profile), "-t", str(target), "--file-size", "64M", "--json", "--yes", "--tag", "cli"),
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["status"] == "completed" and result["tags"] == ["cli"]
    assert len(result["steps"]) == 2
    for s in result["steps"]:
        for d in ("read", "write", "total"):
            x = s[d]
            if x["ios"]:
                assert x["iops"] == pytest.approx(x["ios"] / x["seconds"])
                assert x["mib_s"] == pytest.approx(x["bytes"] / x["seconds"] / MIB)
        assert s["total"]["ios"] == s["read"]["ios"] + s["write"]["ios"] > 0
        assert s["latency_ms"]["p99"] >= s["latency_ms"]["p50"] > 0
    assert result["steps"][0]["write"]["ios"] == 0 and result["steps"][1]["read"]["ios"] == 0
    assert list(target.iterdir()) == []
    show = subprocess.run(labtui_cmd("show", result["id"]), capture_output=True, text=True)
    assert show.returncode == 0 and result["id"] in show.stdout
    assert "progress" not in out.stdout and "step 1/2" in out.stderr


@pytest.mark.parametrize("args,message", [
    (["--file-size", "0"], "greater than zero"),
    (["--duration=-1s"], "negative"),
    (["--file-size", "12Q"], "unknown size unit"),
    (["-p", "no-such-profile"], "no profile named"),
    (["-e", "nonsense"], "unknown engine"),
])
def test_cli_run_bad_input_is_one_line_exit_2(disk_dir, labtui_home, args, message):
    out = subprocess.run(labtui_cmd("run", "-t", str(disk_dir), "--yes", *args), capture_output=True, text=True)
    assert out.returncode == 2
    assert message in out.stderr and out.stderr.count("\n") == 1
    assert not list(disk_dir.glob("labtui-[0-9]*"))


@pytest.mark.parametrize("fault", ["crash", "hang"])
def test_an_engine_that_crashes_or_hangs_fails_the_step_cleanly(disk_dir, tmp_path, fault):
    store = Store(tmp_path / "home")
    profile = small_profile(steps=(replace(small_profile().steps[0], duration=1.0, warmup=0.0),))
    runner = Runner(profile, disk_dir, store, RunOptions(interval=0.2, engine_settings=EngineSettings(overrun_seconds=1.0)))

    async def go():
        async for event in runner.events():
            if isinstance(event, SampleTaken) and event.phase == "measure" and event.sample.t < 0.5:
                victim = engine_workers()[0]
                if fault == "crash":
                    victim.kill()
                else:
                    victim.suspend()  # SIGSTOP: alive but making no progress

    asyncio.run(go())
    result = runner.result
    assert result.status == "failed"
    reason = result.steps[0].error
    assert ("killed by SIGKILL (signal 9)" in reason) if fault == "crash" else ("overran" in reason), reason
    assert engine_workers() == []
    assert not list(disk_dir.glob("labtui-[0-9]*"))
    assert store.find_result(result.id).status == "failed"


@pytest.mark.parametrize("phase", ["warmup", "measure"])
def test_a_cancel_keeps_the_finished_steps_and_says_where_the_stopped_one_was(disk_dir, tmp_path, phase):
    # A step stopped in its warm-up has measured nothing: the result says which step it was and how
    # far in. One stopped while measuring is kept, aborted, with the part it measured.
    store = Store(tmp_path / "home")
    first, second = small_profile().steps
    profile = small_profile(steps=(first, replace(second, duration=30.0, warmup=30.0 if phase == "warmup" else 0.2)))
    runner = Runner(profile, disk_dir, store, RunOptions(interval=0.2))
    seen: list = []
    _cancel_when(runner, lambda e: isinstance(e, SampleTaken) and e.index == 1 and e.phase == phase, seen)
    result = store.find_result(runner.result.id)
    assert result.status == "aborted"
    expected = [("read", "completed")] + ([("write", "aborted")] if phase == "measure" else [])
    assert [(s.name, s.status) for s in result.steps] == expected
    kept = result.steps[0]
    finished = next(e.result for e in seen if isinstance(e, StepFinished) and e.index == 0)
    assert (kept.read.ios, kept.read.bytes, kept.read.seconds) == (
        finished.read.ios, finished.read.bytes, finished.read.seconds)  # exactly what the step measured
    stopped = [w for w in result.warnings if w.startswith("step 2 of 2, 'write' was stopped after ")]
    if phase == "measure":
        assert stopped == [] and runner.stopped_step is None
        assert result.steps[1].write.ios > 0 and "of the part measured" in result.steps[1].error
        return
    said = " s, in its warm-up: nothing of it is kept, only the steps that finished"
    assert len(stopped) == 1 and stopped[0].endswith(said), result.warnings
    assert runner.stopped_step == stopped[0]


@pytest.mark.parametrize("engine", registered())
def test_a_cancel_as_the_step_collects_its_result_keeps_the_whole_measured_window(disk_dir, tmp_path, engine,
                                                                                  monkeypatch):
    # The last measured sample is in: the engine is now collecting the step's final counts (the
    # native workers' results, fio's final report). A cancel there kept nothing of the step.
    require(engine)
    store = Store(tmp_path / "home")
    step = replace(small_profile().steps[0], write_percent=30, duration=1.0, warmup=0.2)
    options = RunOptions(interval=0.2, engine=engine)
    exits = None
    if engine == "fio":
        # fio's collecting ends when its exit is seen: on a loaded machine its last report, its final
        # one and its exit were often all in before the cancel got to the run, which then completed.
        # A fio slow to exit holds the run in that moment until the cancel, whatever the load.
        slow = slow_fio(tmp_path)
        options.engine_settings = EngineSettings(fio_path=str(slow.wrapper))
        exits = ExitWatch(monkeypatch)
    runner = Runner(small_profile(steps=(step,)), disk_dir, store, options)
    seen: list = []
    if exits is None:
        _cancel_when(runner, lambda e: isinstance(e, SampleTaken) and e.phase == "measure"
                     and e.sample.t >= step.duration - 0.05, seen)
    else:
        _cancel_once(runner, exits.waiting, seen)
    result = store.find_result(runner.result.id)
    assert result.status == "aborted" and "cancel" in result.error
    (kept,) = result.steps
    finished = [e for e in seen if isinstance(e, StepFinished)]
    if finished:  # the engine was quicker than the cancel: the step is whole
        assert kept.status == "completed" and kept.read.ios == finished[0].result.read.ios
    else:
        assert kept.status == "aborted", kept
        assert kept.read.ios > 0 and kept.write.ios > 0
        # The whole window, not a part of it. Its end is the engine's: a fio starved of CPU (three
        # tests at a time on two CPUs) checked its 1 s runtime late and reported 1.9 s.
        assert 0.8 <= kept.total.seconds <= 2.5, kept.total
        assert "whole" in kept.error, kept.error
        if engine == "fio":  # its output read to the end: the window is fio's own final report
            assert "fio's final report" in kept.error, kept.error
    assert sum(s.read_ios for s in kept.samples) <= kept.read.ios and len(kept.samples) >= 3
    assert not list(disk_dir.glob("labtui-[0-9]*"))



def test_a_settings_file_not_read_is_said_with_the_run_not_passed_over(tmp_path):
    """config.toml names fio and DiskSpd: a run that could not read it (a FIFO, another user's file, bad TOML) says
    so with its result, instead of silently running the programs found on PATH."""
    store = Store(tmp_path / "home")
    store.settings_path().parent.mkdir(parents=True)
    store.settings_path().write_text('fio_path = "/opt/fio/bin/fio\n')  # an unclosed string
    runner = Runner(small_profile(), tmp_path, store)
    said = [w for w in runner._warnings if str(store.settings_path()) in w]
    assert len(said) == 1 and said[0].endswith("the run used the engines' defaults (fio and DiskSpd from PATH)"), said
