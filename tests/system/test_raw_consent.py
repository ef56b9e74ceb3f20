"""Consent to destroy a raw device binds to that device and what was on it, and the kernel keeps it so.

Every device here is a loop device over a scratch image, made by this test and removed by name.
Between the consent and the writes (and between steps) the tests re-point a link, re-attach the
loop device, mkfs it, write a file system onto it behind labtui's back, mount it in another
mount namespace, stack a loop device on it: each time, nothing the consent did not cover is written.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import require_root
from engines import registered
from labtui.engine.base import Job
from labtui.engine.events import StepFinished
from labtui.engine.registry import get_engine
from labtui.errors import LabtuiError
from labtui.machine import guard
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.settings import EngineSettings
from loopdev import attach, blocks_written, detach, reattach

MIB = 1024 * 1024

pytestmark = pytest.mark.usefixtures("as_root")


@pytest.fixture
def as_root():
    require_root("these tests make loop devices")


def loop_device(image: Path, size_mib: int = 16, *, mkfs: bool = False, partscan: bool = False):
    return attach(image, size_mib, mkfs="mkfs.ext4" if mkfs else None, partscan=partscan)


def digest(path: str | Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def write_profile(*, steps: int = 1, cooldown: float = 0.0, first_reads: bool = False) -> Profile:
    read = Step(name="read", block_size=65536, threads=1, outstanding=2, duration=0.3, warmup=0.0, cooldown=cooldown)
    write = Step(name="write", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.3,
                 warmup=0.0, cooldown=cooldown)
    chosen = ((read,) if first_reads else ()) + (write,) * (steps - int(first_reads))
    return Profile(name="w", title="w", file_size=8 * MIB, free_space_margin=0, steps=chosen)


def ext4_head(tmp_path: Path) -> bytes:
    image = tmp_path / "ext4-source.img"
    with open(image, "wb") as handle:
        handle.truncate(16 * MIB)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True, capture_output=True)
    with open(image, "rb") as handle:
        return handle.read(1 * MIB)


def overwrite(device: str, data: bytes, offset: int = 0) -> None:
    """Someone else writes to the device (no O_EXCL: the kernel lets them)."""
    fd = os.open(device, os.O_WRONLY)
    try:
        os.pwrite(fd, data, offset)
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- item 1: consent binds


def test_a_link_re_pointed_after_consent_does_not_redirect_the_writes(tmp_path):
    with loop_device(tmp_path / "blank.img") as blank, loop_device(tmp_path / "ext4.img", mkfs=True) as ext4:
        link = tmp_path / "target"
        link.symlink_to(blank)
        before = digest(ext4)
        seen: list = []
        runner = Runner(write_profile(), link, Store(tmp_path / "home"),
                        RunOptions(destroy_data=str(link), engine_settings=EngineSettings(observe=seen.append)))
        runner.preflight()
        link.unlink()
        link.symlink_to(ext4)
        result = asyncio.run(runner.run())
        assert digest(ext4) == before, "the device the link now names was written"
        # The consent was for the blank device, and the run kept to it.
        assert result.status == "completed" and result.steps[0].write.ios > 0
        assert 1 <= blocks_written(blank, 65536, 8 * MIB) <= seen[-1].all_phase_ios


def test_a_file_system_written_onto_the_device_after_consent_is_refused(tmp_path):
    with loop_device(tmp_path / "blank.img") as blank:
        runner = Runner(write_profile(), blank, Store(tmp_path / "home"), RunOptions(destroy_data=blank))
        runner.preflight()
        overwrite(blank, ext4_head(tmp_path))
        before = digest(blank)
        result = asyncio.run(runner.run())
        assert digest(blank) == before, "a device whose contents changed since consent was written"
        assert result.status == "failed"
        assert "changed since" in result.error and "ext4" in result.error


def test_mkfs_on_the_consented_device_is_refused_by_the_kernel_until_the_run_ends(tmp_path):
    with loop_device(tmp_path / "blank.img") as blank:
        runner = Runner(write_profile(), blank, Store(tmp_path / "home"), RunOptions(destroy_data=blank))
        runner.preflight()
        mkfs = subprocess.run(["mkfs.ext4", "-q", "-F", "-F", blank], capture_output=True, text=True)
        after_mkfs = digest(blank)
        result = asyncio.run(runner.run())
        if mkfs.returncode == 0:  # the file system was made: the run must not destroy it
            assert result.status == "failed" and digest(blank) == after_mkfs
        else:
            assert "busy" in mkfs.stderr.lower() or "in use" in mkfs.stderr.lower()
            assert result.status == "completed"
        # Once the run is over, the device is free again.
        assert subprocess.run(["mkfs.ext4", "-q", "-F", blank], capture_output=True).returncode == 0


def test_re_attaching_the_loop_device_to_another_image_after_consent_writes_nothing_to_it(tmp_path):
    other = tmp_path / "other.img"
    with open(other, "wb") as handle:
        handle.truncate(16 * MIB)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(other)], check=True, capture_output=True)
    before = digest(other)
    with loop_device(tmp_path / "blank.img") as blank:
        runner = Runner(write_profile(), blank, Store(tmp_path / "home"), RunOptions(destroy_data=blank))
        runner.preflight()
        attached = reattach(blank, other)
        try:
            result = asyncio.run(runner.run())
        finally:
            if attached.returncode == 0:
                detach(blank, other)
        assert digest(other) == before, "the image attached after consent was written"
        assert result.status == "failed" and "changed since" in result.error


def test_contents_changed_between_steps_are_refused(tmp_path):
    with loop_device(tmp_path / "blank.img") as blank:
        runner = Runner(write_profile(steps=2, cooldown=1.0, first_reads=True), blank, Store(tmp_path / "home"),
                        RunOptions(destroy_data=blank))
        head = ext4_head(tmp_path)

        async def go():
            async for event in runner.events():
                if isinstance(event, StepFinished) and event.index == 0:
                    overwrite(blank, head)

        asyncio.run(go())
        result = runner.result
        assert result.status == "failed" and "changed since" in result.error
        assert [s.status for s in result.steps] == ["completed"]
        with open(blank, "rb") as handle:
            assert handle.read(len(head)) == head


def test_a_device_node_pointed_elsewhere_between_steps_is_refused(tmp_path):
    """A node of labtui's target path re-made for another device between two write steps."""
    with loop_device(tmp_path / "blank.img") as blank, loop_device(tmp_path / "ext4.img", mkfs=True) as ext4:
        node = tmp_path / "node"
        os.mknod(node, 0o600 | 0o060000, os.stat(blank).st_rdev)
        before = digest(ext4)
        runner = Runner(write_profile(steps=2, cooldown=1.0), node, Store(tmp_path / "home"),
                        RunOptions(destroy_data=str(node)))

        async def go():
            async for event in runner.events():
                if isinstance(event, StepFinished) and event.index == 0:
                    node.unlink()
                    os.mknod(node, 0o600 | 0o060000, os.stat(ext4).st_rdev)

        asyncio.run(go())
        assert digest(ext4) == before
        result = runner.result
        assert result.status == "failed" and "another device" in result.error


@pytest.mark.parametrize("engine", registered())
def test_every_engine_re_checks_the_device_right_before_it_writes(tmp_path, engine):
    with loop_device(tmp_path / "blank.img") as blank:
        facts, lease = guard.clear_raw_target(blank, writes=True, confirm=blank)
        try:
            overwrite(blank, ext4_head(tmp_path))
            before = digest(blank)
            fake = tmp_path / "diskspd"  # a DiskSpd stand-in that overwrites its target if it ever starts
            fake.write_text("#!/bin/sh\nfor a; do f=$a; done\nprintf overwritten > \"$f\"\n")
            fake.chmod(0o755)
            eng = get_engine(engine, EngineSettings(diskspd_path=str(fake)))
            step = write_profile().steps[0]
            job = Job(path=Path(lease.path), file_size=8 * MIB, raw_device=True, hold=lease)

            async def go():
                async for _ in eng.run_step(step, job):
                    pass

            with pytest.raises(LabtuiError, match="changed since"):
                asyncio.run(go())
            assert digest(blank) == before
        finally:
            lease.close()


def test_a_native_worker_refuses_a_device_other_than_the_one_cleared(tmp_path):
    from labtui.engine.native import worker as nw

    with loop_device(tmp_path / "a.img") as a, loop_device(tmp_path / "b.img") as b:
        cfg = {"path": b, "write_percent": 100, "direct": False, "identity": {"rdev": os.stat(a).st_rdev}}
        with pytest.raises(nw.NotTheFile, match="not the device"):
            nw._open(cfg)


# --------------------------------------------------------------------------- item 2: the kernel's exclusivity


@contextmanager
def mounted_in_another_namespace(device: str, tmp_path: Path):
    point = tmp_path / "ns-mnt"
    point.mkdir()
    ready = tmp_path / "ns-ready"
    proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                             f"mount {device} {point} && touch {ready} && exec sleep 120"])
    try:
        deadline = time.monotonic() + 10
        while not ready.exists():
            assert proc.poll() is None, "the mount in the other namespace failed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        yield
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_mount_in_another_mount_namespace_is_seen_and_refused(tmp_path):
    with loop_device(tmp_path / "ext4.img", mkfs=True) as device:
        with mounted_in_another_namespace(device, tmp_path):
            assert not any(device in line for line in Path("/proc/self/mountinfo").read_text().splitlines())
            before = digest(device)
            with pytest.raises(LabtuiError, match="in use"):
                guard.clear_raw_target(device, writes=True, confirm=device)
            runner = Runner(write_profile(), device, Store(tmp_path / "home"), RunOptions(destroy_data=device))
            with pytest.raises(LabtuiError, match="another mount namespace"):
                runner.preflight()
            assert digest(device) == before


def test_a_partition_mounted_elsewhere_keeps_its_whole_disk_and_itself_safe(tmp_path):
    with loop_device(tmp_path / "disk.img", 32, partscan=True) as disk:
        subprocess.run(["addpart", disk, "1", "2048", "20480"], check=True, capture_output=True)
        part = f"{disk}p1"
        deadline = time.monotonic() + 5
        while not Path(part).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        subprocess.run(["mkfs.ext4", "-q", "-F", part], check=True, capture_output=True)
        with mounted_in_another_namespace(part, tmp_path):
            for target in (part, disk):
                with pytest.raises(LabtuiError, match="in use"):
                    guard.clear_raw_target(target, writes=True, confirm=target)


def test_a_device_backing_a_loop_device_is_refused(tmp_path):
    with loop_device(tmp_path / "ext4.img", mkfs=True) as lower:
        with loop_device(Path(lower)) as upper:
            before = digest(lower)
            with pytest.raises(LabtuiError, match=f"backs the loop device {upper}"):
                guard.clear_raw_target(lower, writes=True, confirm=lower)
            assert digest(lower) == before


def test_nobody_can_mount_the_device_while_the_run_holds_it(tmp_path):
    with loop_device(tmp_path / "blank.img") as blank:
        runner = Runner(write_profile(), blank, Store(tmp_path / "home"), RunOptions(destroy_data=blank))
        runner.preflight()
        try:
            point = tmp_path / "mnt"
            point.mkdir()
            attempt = subprocess.run(["unshare", "-m", "sh", "-c", f"mount {blank} {point} && umount {point}"],
                                     capture_output=True, text=True)
            assert attempt.returncode != 0
        finally:
            runner.close()
        # Released: now it can be had exclusively again.
        os.close(os.open(blank, os.O_RDONLY | os.O_EXCL))


def test_without_a_terminal_a_raw_device_is_written_only_with_yes_as_well(tmp_path, labtui_home):
    """`echo n | labtui run -t DEV --destroy-data=DEV` asked nothing and wrote: with no terminal, --yes is the answer."""
    from conftest import labtui_cmd

    with loop_device(tmp_path / "ext4.img", mkfs=True) as device:
        before = digest(device)
        out = subprocess.run(
            labtui_cmd("run", "-p", "quick-sanity", "--repeat", "1", "-t", device, "--duration", "1s", "--file-size", "8M",
                       f"--destroy-data={device}"),
            input="n\n", capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().splitlines()[-1] == (
            f"labtui: error: not started, nothing written: quick-sanity would destroy the data on {device}, and with "
            "no terminal to ask on that needs --yes as well as --destroy-data")
        assert digest(device) == before
        assert not (labtui_home / "results").exists() or not list((labtui_home / "results").iterdir())


def test_without_a_terminal_preconditioning_a_raw_device_is_a_write_that_needs_yes(tmp_path, monkeypatch, capsys):
    """A profile whose steps only read still writes the device when it preconditions it."""
    import io

    from labtui.commands.progress import confirm

    reads = replace(write_profile(first_reads=True, steps=1), precondition=1)
    with loop_device(tmp_path / "blank.img") as device:
        runner = Runner(reads, device, Store(tmp_path / "home"), RunOptions(destroy_data=device))
        try:
            plan = runner.preflight()
            monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))  # an answer piped in is not enough either
            with pytest.raises(LabtuiError, match="needs --yes as well as --destroy-data"):
                confirm(runner, plan)
        finally:
            runner.close()
        assert "Go ahead" not in capsys.readouterr().err  # refused before asking


def test_the_prompt_names_the_device_and_what_is_on_it_and_no_keeps_it(tmp_path, labtui_home):
    """The question a person answers is about the device, and answering no changes nothing."""
    from conftest import labtui_cmd

    with loop_device(tmp_path / "ext4.img", mkfs=True) as device:
        before = digest(device)
        leader, follower = os.openpty()
        try:
            proc = subprocess.Popen(
                labtui_cmd("run", "-p", "quick-sanity", "--repeat", "1", "-t", device, "--duration", "1s", "--file-size", "8M",
                           f"--destroy-data={device}"),
                stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            os.write(leader, b"n\n")
            out, err = proc.communicate(timeout=60)
        finally:
            os.close(leader)
            os.close(follower)
        assert proc.returncode == 4  # ExitCode.DECLINED: a "no" at the prompt is not bad input (issue 39, item 17)
        assert f"raw device {device}" in err and "destroyed" in err and "ext4" in err and "16.0 MiB" in err
        assert "test file" not in err
        assert digest(device) == before


async def test_in_the_tui_what_the_person_was_shown_is_what_may_be_destroyed(labtui_home, tmp_path):
    """The prompt shows what is on the device; if that changes before the name is typed, nothing runs."""
    from labtui.machine.target_choice import Target
    from labtui.screens.prompt import TextPrompt
    from tui_support import make_app, open_run, screen_text, set_text, wait_for

    with loop_device(tmp_path / "blank.img") as device:
        app = make_app(labtui_home)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_run(pilot)
            app.profile = write_profile()
            app.target = Target(Path(device))
            await pilot.press("ctrl+s")  # no plain letter starts a run (issue 39, item 1)
            await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            await wait_for(pilot, lambda: "Destroy the data" in screen_text(app))
            assert "no partition table, file system" in app.screen.message  # shown, wrapped to the dialog
            overwrite(device, ext4_head(tmp_path))  # someone makes a file system meanwhile
            before = digest(device)
            await set_text(pilot, "#prompt-input", device)
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Not started" in screen_text(app) and "changed since you agreed"
                           in screen_text(app), what="the refusal")
            assert screen.runner is None or screen.runner.result is None
        assert digest(device) == before


# --------------------------------------------------------------------------- what the person is told


def scan_with(device: str, model: str):
    """The fake machine's scan with `device` among its disks, under a model name of the test's own."""
    from labtui.machine.devices import Disk
    from labtui.machine.target_choice import DeviceScan
    from tui_support import FAKE_DISKS, FAKE_VOLUMES

    loop = Disk(name=Path(device).name, path=device, kind="virtual", transport="virtual", model=model,
                size_bytes=16 * MIB)
    return DeviceScan((*FAKE_DISKS, loop), FAKE_VOLUMES)


def test_a_raw_target_is_described_as_the_device_not_the_volume_holding_its_node(tmp_path):
    from labtui.machine.target_choice import Target, describe_in_full, run_extent

    with loop_device(tmp_path / "ext4.img", mkfs=True) as device:
        target = Target.at(Path(device), scan_with(device, "Lab Loop SSD"))
        assert target.raw and target.mount_point is None and target.free_bytes is None
        assert target.describe() == f"{device} (raw device: Lab Loop SSD, 16.0 MiB)"
        full = describe_in_full(target)
        assert "raw block device 7:" in full and "Lab Loop SSD, 16.0 MiB" in full and "ext4" in full
        assert " on /" not in full
        profile = write_profile()  # 8 MiB of a 16 MiB device
        # 0.3 s of writing and the step's start-up (0.4 s in the plan) round to a second.
        assert run_extent(profile, target) == "about 0:01 on the device's first 8MiB, no test file"
        assert "on the whole device" in run_extent(replace(profile, file_size=64 * MIB), target)
        # Known as raw before anything is read (no scan yet), and never as a directory with a test file.
        bare = Target.at(Path(device))
        assert bare.raw and "test file to write" not in run_extent(profile, bare)


async def test_the_run_screen_describes_a_raw_device_and_promises_no_test_file(labtui_home, tmp_path):
    """Run again on a raw device: the Run screen names the device, its model, size and contents."""
    from factories import make_result
    from labtui.model.result import TargetInfo
    from labtui.screens.prompt import TextPrompt
    from tui_support import again_from_history, make_app, open_run_here, screen_text, wait_for

    with loop_device(tmp_path / "ext4.img", mkfs=True) as device:
        before = digest(device)
        result = make_result(profile=replace(write_profile(), name="raw-w"),
                             target=TargetInfo(path=device, device=device, disk=Path(device).name))
        Store(labtui_home).save_result(result)
        app = make_app(labtui_home, device_source=lambda: scan_with(device, "Lab Loop SSD"))
        async with app.run_test(size=(120, 35)) as pilot:
            await open_run_here(pilot)
            await again_from_history(pilot, result.id)
            await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the consent prompt")
            await pilot.press("escape")
            await wait_for(pilot, lambda: "Not started" in screen_text(app), what="the Run screen again")
            text = " ".join(screen_text(app).split())
            assert f"Target {device} · raw block device" in text
            assert "Lab Loop SSD, 16.0 MiB" in text and "type ext4" in text
            assert "on the device's first 8MiB, no test file" in text
            assert "test file to write" not in text and " on / " not in text
            assert f"target {device} (raw device: Lab Loop SSD, 16.0 MiB)" in text  # the header
            # The Disks screen reads the devices again: the target stays the device, read afresh.
            overwrite(device, b"\0" * MIB)
            before = digest(device)
            await pilot.press("d")
            await pilot.press("f5")
            await wait_for(pilot, lambda: app.target.found is not None and "ext4" not in app.target.found,
                           what="the device read again")
            await pilot.press("r")
            await wait_for(pilot, lambda: "no partition table" in screen_text(app), what="the Run screen")
            assert f"Target {device} · raw block device" in " ".join(screen_text(app).split())
        assert digest(device) == before  # nothing but the test itself wrote to it


def test_the_cli_promises_no_preparation_on_a_raw_device(tmp_path, labtui_home):
    from conftest import brief_profile, labtui_cmd

    with loop_device(tmp_path / "blank.img") as device:
        proc = subprocess.run(
            labtui_cmd("run", "-p", str(brief_profile(tmp_path, duration="200ms")), "-t", device, "--file-size", "8M",
                       f"--destroy-data={device}", "--yes"),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "on the device itself, no test file" in proc.stderr
        assert "preparation" not in proc.stderr and "test file" not in proc.stderr.replace("no test file", "")
