"""Preflight refuses a step the machine cannot start, before a byte is written: too many threads
(a thread or fio job per I/O in flight), or more kernel AIO events than fs.aio-max-nr leaves; and a run
on a drive that reports a critical warning (--force measures it anyway)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd, require_tool
from engines import having, require
from labtui.engine import limits
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.drive import DriveReader, forget_refusals
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.settings import EngineSettings


def profile(threads: int, outstanding: int, cache: str) -> Profile:
    step = Step(name="deep", block_size=4096, threads=threads, outstanding=outstanding, duration=1.0, warmup=0.0,
                cache=cache)
    return Profile(name="deep", file_size=16 * 1024 * 1024, free_space_margin=0, steps=(step,))


@pytest.fixture
def aio_pool(tmp_path, monkeypatch):
    """This test's fs.aio-max-nr and fs.aio-nr (the kernel's defaults, whatever this machine has set)."""
    limit, used = tmp_path / "aio-max-nr", tmp_path / "aio-nr"
    limit.write_text("65536\n")
    used.write_text("128\n")
    monkeypatch.setattr(limits, "AIO_MAX_NR", limit)
    monkeypatch.setattr(limits, "AIO_NR", used)
    return used


def refused(runner: Runner, target: Path) -> str:
    target.mkdir()  # a directory that exists: a missing one is refused for that, first
    try:
        with pytest.raises(LabtuiError) as caught:
            runner.preflight()
        assert list(target.iterdir()) == []  # nothing written
    finally:
        shutil.rmtree(target, ignore_errors=True)
    return str(caught.value)


# The engines that start a thread per I/O in flight with the page cache on (the native engine's
# blocking loop, fio's psync jobs).
@pytest.mark.parametrize("engine", having(lambda e: e.needs(profile(256, 1024, "on").steps[0]).threads == 256 * 1024))
def test_a_thread_per_io_in_flight_is_capped(tmp_path, disk_dir, engine):
    require(engine)
    target = disk_dir / f"limits-{engine}"
    runner = Runner(profile(256, 1024, "on"), target, Store(tmp_path / "h"), RunOptions(engine=engine))
    message = refused(runner, target)
    assert "step 'deep' would start 262,144 threads (256 threads x 1024 outstanding" in message
    assert "at most 1,024 for a step" in message and "cache off" in message


def test_fio_with_the_page_cache_on_at_64_x_64_is_refused_before_the_file_is_written(tmp_path, disk_dir):
    target = disk_dir / "limits-fio-64"
    runner = Runner(profile(64, 64, "on"), target, Store(tmp_path / "h"), RunOptions(engine="fio"))
    assert "would start 4,096 threads" in refused(runner, target)


def test_cache_off_where_o_direct_is_refused_counts_as_cache_on(tmp_path):
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no tmpfs at /dev/shm")
    target = shm / f"labtui-limits-{tmp_path.name}"
    runner = Runner(profile(64, 64, "off"), target, Store(tmp_path / "h"))
    assert "would start 4,096 threads" in refused(runner, target)  # in memory: the page cache it is


# The engines that reserve kernel AIO events with the page cache off (the native engine's AIO loop, fio's libaio).
@pytest.mark.parametrize("engine", having(lambda e: e.needs(profile(256, 1024, "off").steps[0]).aio_events > 0,
                                          EngineSettings(native_backend="aio")))
def test_deep_cache_off_queues_are_refused_naming_fs_aio_max_nr(tmp_path, disk_dir, aio_pool, engine):
    require(engine)
    target = disk_dir / f"aio-{engine}"
    settings = EngineSettings(native_backend="aio")  # the native engine's kernel AIO loop (io_uring needs no events)
    runner = Runner(profile(256, 1024, "off"), target, Store(tmp_path / "h"),
                    RunOptions(engine=engine, engine_settings=settings))
    message = refused(runner, target)
    assert "needs 262,144 kernel AIO events (256 threads x 1024 outstanding)" in message
    assert "fs.aio-max-nr is 65,536 with 65,408 free" in message and "sysctl -w fs.aio-max-nr=524288" in message


def test_events_other_programs_hold_count_against_the_pool(tmp_path, disk_dir, aio_pool):
    runner = Runner(profile(16, 1024, "off"), disk_dir, Store(tmp_path / "h"),
                    RunOptions(engine_settings=EngineSettings(native_backend="aio")))
    runner.preflight()  # 16,384 of 65,408 free
    runner.close()  # it will not run: the disk is free for the next (a run holds it from its preflight)
    aio_pool.write_text("60000\n")
    again = Runner(profile(16, 1024, "off"), disk_dir / "aio-shared", Store(tmp_path / "h"),
                   RunOptions(engine_settings=EngineSettings(native_backend="aio")))
    assert "with 5,536 free" in refused(again, disk_dir / "aio-shared")


def test_io_uring_and_modest_steps_pass(tmp_path, disk_dir, aio_pool):
    # A native cache-off step on io_uring holds a ring per worker, no AIO events; Q32T16 with the
    # page cache on is 512 threads.
    for step_profile in (profile(256, 1024, "off"), profile(16, 32, "on")):
        runner = Runner(step_profile, disk_dir, Store(tmp_path / "h"),
                        RunOptions(engine_settings=EngineSettings(native_backend="io_uring", missing_backends={})))
        runner.preflight()


def test_the_cli_says_so_in_one_line_and_writes_nothing(labtui_home, tmp_path):
    require_tool("fio")
    file = tmp_path / "deep.toml"
    file.write_text('name = "deep"\nfile_size = "16MiB"\nfree_space_margin = "0"\n\n[[steps]]\nname = "Q64T64"\n'
                    'block_size = "4KiB"\nthreads = 64\noutstanding = 64\nduration = "1s"\ncache = "on"\n')
    target = tmp_path / "target"
    target.mkdir()
    out = subprocess.run(labtui_cmd("run", "-p", str(file), "-t", str(target), "-e", "fio", "--yes"),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "step 'Q64T64' would start 4,096 threads" in out.stderr and list(target.iterdir()) == []


FIXTURE = FIXTURES / "smartctl-json" / "SAMSUNG_MZVL21T0HCLR-00B00_23.json"


def smartctl_with_warning(folder: Path) -> str:
    data = json.loads(FIXTURE.read_text())
    data["nvme_smart_health_information_log"]["critical_warning"] = 1
    data["smart_status"] = {"passed": False, "nvme": {"value": 1, "spare_below_threshold": True}}
    (folder / "answer.json").write_text(json.dumps(data))
    script = folder / "smartctl"
    script.write_text(f'#!/bin/sh\ncat "{folder / "answer.json"}"\n')
    script.chmod(0o755)
    return str(script)


def test_a_critical_warning_refuses_the_run_before_writing_and_force_measures_anyway(tmp_path):
    program = smartctl_with_warning(tmp_path)
    forget_refusals()
    target = tmp_path / "target"
    target.mkdir()
    profile = Profile(name="p", file_size=1024 * 1024, free_space_margin=0,
                      steps=(Step(name="r", block_size=65536, duration=0.2, warmup=0.0),))

    def options(force: bool) -> RunOptions:
        return RunOptions(force=force, drive=lambda disk: DriveReader(disk, smartctl_path=program))

    if not devices.target_info(target).disk:
        pytest.skip("no disk under the temporary directory")
    runner = Runner(profile, target, Store(tmp_path / "home"), options(False))
    with pytest.raises(LabtuiError, match="reports a critical warning: available spare below its threshold "
                                          r"\(smartctl.*nothing was written.*--force measures it anyway"):
        runner.preflight()
    assert list(target.iterdir()) == []
    forced = Runner(profile, target, Store(tmp_path / "home"), options(True))
    forced.preflight()
    forced.close()
    assert any("measured anyway (--force)" in w for w in forced._warnings)
    forget_refusals()


def test_room_is_made_by_one_rule_and_a_smaller_file_is_offered_only_where_one_fits():
    # The Run screen and `labtui run` say how to make room by make_room, each in its controls' words. Where
    # the margin alone is more than is free (needs 1.1 GiB: test file 64.0 MiB + margin 1.0 GiB, 906 MiB free),
    # no test file is small enough: offering --file-size would send the person the wrong way. Where one fits,
    # the largest that does, in whole MiB, as --file-size reads it back.
    from labtui.run.preflight import NoRoom, make_room

    words = {"file_size": "--file-size", "target": "-t DIR", "profile": "a smaller free_space_margin"}
    fits = NoRoom("not enough free space in /mnt: ...", room_for_file=1706 * 1024**2 + 12345)
    assert make_room(fits, **words) == ("Make room: a smaller test file (--file-size, at most 1706MiB), another target "
                                        "(-t DIR) or, for the profile, a smaller free_space_margin.")
    margin = NoRoom("not enough free space in /mnt: ...", room_for_file=-118 * 1024**2)
    assert make_room(margin, **words) == "Make room: another target (-t DIR) or, for the profile, a smaller free_space_margin."
    assert make_room(margin, file_size="Override file size", profile="a smaller Free margin") == (
        "Make room: for the profile, a smaller Free margin.")
    assert make_room(LabtuiError("permission denied: cannot write in /mnt"), **words) == ""
    # baseline --more: the stored profile (its file size too) is the baseline's, not the person's to change
    assert make_room(fits, file_size=None, profile=None, target="-t DIR") == (
        "Make room there or give another target (-t DIR).")


def test_as_root_run_yes_refuses_a_target_through_another_users_link_in_one_line(labtui_home):
    # guard2: `run -t /tmp/bench --yes`, alice's link to another disk, wrote root's test file there unseen.
    from hostile_user import anothers_link

    if os.geteuid() != 0:
        pytest.skip("the rule is root's")
    with anothers_link("run") as (alice, link, other):
        out = subprocess.run(labtui_cmd("run", "-p", "quick-sanity", "-t", str(link), "--yes"),
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert f"{link} is a link to {other} and {alice.name} made it" in out.stderr
        assert f"(-t {other})" in out.stderr and list(other.iterdir()) == []


def test_a_hosts_room_refusal_is_said_in_the_fleet_screens_words():
    # The agent of a fleet run says it in the command line's words (--file-size, -t DIR, the profile's
    # keys): the Fleet screen said those to a person who has Override fields and a Workload screen.
    from labtui.commands.common import room_said
    from labtui.run.preflight import NoRoom, room_in_tui_words

    said = str(room_said(NoRoom("not enough free space on /srv", room_for_file=64 * 1024**2)))
    assert "--file-size" in said and "-t DIR" in said and "free_space_margin" in said
    tui = room_in_tui_words(said)
    assert tui == ("not enough free space on /srv. Make room: a smaller test file (Override file size on the Run "
                   "screen, at most 64MiB), another target (its target in the hosts file) or, for the profile, a "
                   "smaller Test file or Free margin (Workload screen, w)."), tui
    assert room_in_tui_words("ssh: Connection refused") == "ssh: Connection refused"
