"""Never destroy a disk: raw-device guard and full disks, on loop devices built from temp files.

These need root (losetup, mount); they skip, with the reason, only where loop devices cannot be
created. The devices are always loop devices over scratch files: a bug here cannot hurt a real disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import labtui_cmd
from factories import write_profile
from labtui.engine.base import Job
from labtui.engine.registry import engine_names, get_engine
from labtui.errors import LabtuiError
from labtui.machine.guard import check_raw_target, inspect_device
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.settings import EngineSettings
from loopdev import blocks_written, digest, loop_device, loops_missing

MIB = 1024 * 1024


pytestmark = pytest.mark.skipif(loops_missing() is not None, reason=str(loops_missing()))


def read_profile() -> Profile:
    steps = (Step(name="read", block_size=65536, threads=1, outstanding=4, duration=0.5, warmup=0.0),)
    return Profile(name="r", title="r", file_size=16 * MIB, free_space_margin=0, steps=steps)


def test_ext4_device_survives_a_write_profile_through_the_cli(tmp_path, labtui_home):
    with loop_device(tmp_path, 64, "mkfs.ext4") as device:
        before = digest(device)
        out = subprocess.run(labtui_cmd("run", "-p", "quick-sanity", "--repeat", "1", "-t", device, "--duration", "1s",
                                        "--file-size", "16M", "--yes"), capture_output=True, text=True)
        assert out.returncode == 2
        assert "refusing to write" in out.stderr and "ext4" in out.stderr and "--destroy-data=" in out.stderr
        assert out.stderr.count("\n") == 1
        # Naming another device does not count as confirmation.
        out = subprocess.run(labtui_cmd("run", "-p", "quick-sanity", "--repeat", "1", "-t", device, "--duration", "1s",
                                        "--file-size", "16M", "--yes", "--destroy-data=/dev/sdz"),
                             capture_output=True, text=True)
        assert out.returncode == 2 and "not this device" in out.stderr
        assert digest(device) == before
        assert not list(labtui_home.glob("results/*.toml")), "a refused run saves nothing"


@pytest.mark.parametrize("engine_name", engine_names())
def test_no_engine_writes_to_a_device_the_guard_did_not_clear(tmp_path, engine_name):
    """Each engine's own code path refuses, even if something skipped the runner's guard."""
    with loop_device(tmp_path, 64, "mkfs.ext4") as device:
        before = digest(device)
        engine = get_engine(engine_name)
        step = write_profile().steps[0]
        job = Job(path=Path(device), file_size=16 * MIB, raw_device=False)

        async def go():
            async for _ in engine.run_step(step, job):
                pass

        with pytest.raises(LabtuiError, match="refusing to write to raw device"):
            asyncio.run(go())
        assert digest(device) == before


@pytest.mark.parametrize("engine_name", engine_names())
def test_the_runner_guards_every_engine(tmp_path, engine_name):
    with loop_device(tmp_path, 64, "mkfs.ext4") as device:
        before = digest(device)
        runner = Runner(write_profile(), device, Store(tmp_path / "home"), RunOptions(engine=engine_name))
        with pytest.raises(LabtuiError, match="refusing to write"):
            runner.preflight()
        assert digest(device) == before


def test_a_mounted_device_is_refused_even_with_confirmation(tmp_path):
    with loop_device(tmp_path, 64, "mkfs.ext4") as device:
        mountpoint = tmp_path / "mnt"
        mountpoint.mkdir()
        if subprocess.run(["mount", device, str(mountpoint)], capture_output=True).returncode != 0:
            pytest.skip("cannot mount here")
        try:
            with pytest.raises(LabtuiError, match="mounted at"):
                check_raw_target(device, writes=True, confirm=device)
        finally:
            subprocess.run(["umount", str(mountpoint)], check=True)


def test_reading_a_device_with_data_is_allowed_and_changes_nothing(tmp_path):
    with loop_device(tmp_path, 64, "mkfs.ext4") as device:
        before = digest(device)
        facts = inspect_device(device)
        assert facts.holds_data and not facts.in_use
        runner = Runner(read_profile(), device, Store(tmp_path / "home"))
        result = asyncio.run(runner.run())
        assert result.status == "completed" and result.steps[0].read.ios > 0
        assert any("raw device" in w for w in result.warnings)
        assert digest(device) == before
        assert Path(device).exists(), "the device node must never be removed"


def test_with_confirmation_the_write_goes_ahead_on_a_blank_device(tmp_path):
    with loop_device(tmp_path, 64) as device:
        assert digest(device) == hashlib.sha256(bytes(64 * MIB)).hexdigest()
        with pytest.raises(LabtuiError, match="--destroy-data="):
            Runner(write_profile(), device, Store(tmp_path / "h")).preflight()
        seen: list = []
        runner = Runner(write_profile(), device, Store(tmp_path / "home"),
                        RunOptions(destroy_data=device, engine_settings=EngineSettings(observe=seen.append)))
        result = asyncio.run(runner.run())
        assert result.status == "completed" and result.steps[0].write.ios > 0
        written = blocks_written(device, 65536, 16 * MIB)
        assert 1 <= written <= seen[-1].all_phase_ios, "the confirmed write should have reached the device"
        assert Path(device).exists()


def test_a_file_system_that_fills_up_during_preparation_fails_cleanly(tmp_path):
    with loop_device(tmp_path, 48, "mkfs.ext4") as device:
        mountpoint = tmp_path / "small"
        mountpoint.mkdir()
        if subprocess.run(["mount", device, str(mountpoint)], capture_output=True).returncode != 0:
            pytest.skip("cannot mount here")
        try:
            target = mountpoint / "labtui"  # labtui's own folder: made for the run, removed after it
            store = Store(tmp_path / "home")
            free = shutil.disk_usage(mountpoint).free
            runner = Runner(write_profile(file_size=(free // MIB - 4) * MIB), target, store)
            runner.preflight()  # there is room now ...
            filler = mountpoint / "someone-else.bin"
            with open(filler, "wb") as handle:  # ... until another writer takes most of it
                handle.write(os.urandom(free // 2))
            result = asyncio.run(runner.run())
            assert result.status == "failed"
            assert "No space left" in result.error and "test file" in result.error
            assert sorted(p.name for p in mountpoint.iterdir()) == ["lost+found", "someone-else.bin"]
            assert filler.stat().st_size == free // 2  # nothing else touched
            assert store.find_result(result.id).status == "failed"
        finally:
            subprocess.run(["umount", str(mountpoint)], check=True)
