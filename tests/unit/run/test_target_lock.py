"""One measuring run per disk: a second labtui run (another store, another process) on a disk a run
is measuring is refused in preflight, in one line, writing nothing; a check holds the disk across
its passes; a dead holder blocks nothing. Real processes and real flocks; each test has a lock
directory of its own (conftest), so the suite's own runs do not meet here."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import labtui_cmd
from labtui.cli import build_parser
from labtui.commands import check
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run import target_lock
from labtui.run.runner import Runner, RunOptions
from labtui.run.target_lock import TargetBusy
from synthetic import READ, WRITE, run_result

# Holds the lock of the disk of argv[1] until its stdin closes.
HOLDER = ("import sys\nfrom labtui.run import target_lock\nlock, problem = target_lock.hold(sys.argv[1])\n"
          "assert lock is not None, problem\nprint('held', flush=True)\nsys.stdin.read()\n")


def holder(target: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(target)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


def busy(target: Path) -> str | None:
    """The refusal a run on `target` would get now, or None if the disk is free (the probe lets go at once)."""
    try:
        lock, problem = target_lock.hold(target)
    except TargetBusy as exc:
        return str(exc)
    assert lock is not None, problem
    lock.release()
    return None


# What `labtui run` adds to the refusal: the way to wait instead.
WAIT_HINT = " (--wait starts this run once it has)"


def refusal(pid: int, target: Path, disk: str) -> re.Pattern:
    return re.compile(rf"another labtui run \(pid {pid}, user root, since \d\d:\d\d, -t {re.escape(str(target))}\) "
                      rf"is measuring {re.escape(disk)}: wait for it to end")


def command_profile(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "hold.toml"
    path.write_text(f'name = "hold"\nfree_space_margin = "0"\n[[steps]]\nname = "cmd"\nkind = "command"\n'
                    f'command = {json.dumps(command)}\ntimeout = "1h"\n')
    return path


def test_a_second_run_on_a_disk_being_measured_is_refused_in_one_line_writing_nothing(disk_dir, tmp_path):
    first_target, second_target = disk_dir / "lock-first", disk_dir / "lock-second"  # two directories, one disk
    first_target.mkdir()
    second_target.mkdir()
    started = tmp_path / "started"
    env = os.environ | {"LABTUI_HOME": str(tmp_path / "home-a")}
    first = subprocess.Popen(labtui_cmd("run", "-p", str(command_profile(tmp_path, f"touch {started}; sleep 3600")),
                                        "-t", str(first_target), "--yes", "--json"),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while not started.exists():
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read() if first.poll() else ""
            time.sleep(0.02)
        # Another store, an I/O profile: refused before its test file.
        other_home = tmp_path / "home-b"
        second = subprocess.run(labtui_cmd("run", "-p", "quick-sanity", "--repeat", "1", "-t", str(second_target), "--yes",
                                           "--json"),
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                                env=os.environ | {"LABTUI_HOME": str(other_home)})
    finally:
        first.send_signal(signal.SIGTERM)
        out, err = first.communicate(timeout=30)
    disk = target_lock.target_key(second_target).name
    assert second.returncode == 2 and second.stdout == ""
    (line,) = second.stderr.splitlines()
    assert line.startswith("labtui: error: ") and line.endswith(WAIT_HINT), line
    assert refusal(first.pid, first_target, disk).fullmatch(line[15:].removesuffix(WAIT_HINT)), line
    assert list(second_target.iterdir()) == [] and Store(other_home).result_files() == []
    assert first.returncode == 1 and json.loads(out)["status"] == "aborted", err  # it measured on, undisturbed
    assert busy(second_target) is None  # its end let the disk go


def test_run_wait_starts_once_the_run_measuring_the_disk_has_ended(tmp_path):
    # Issue 39, item 7: labtui run --wait, instead of a refusal to retry by hand.
    target = tmp_path / "wait"
    target.mkdir()
    proc = holder(target)
    env = os.environ | {"LABTUI_HOME": str(tmp_path / "home")}
    run = subprocess.Popen(labtui_cmd("run", "-p", str(command_profile(tmp_path, "true")), "-t", str(target), "--yes",
                                      "--wait", "--json"),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        said = run.stderr.readline()
        assert said.startswith(f"labtui: waiting for the disk: another labtui run (pid {proc.pid}"), said
        assert said.rstrip().endswith("This run starts when it has ended; nothing is written meanwhile (Ctrl+C gives "
                                      "up).")
        time.sleep(1.5)  # the disk is looked at once a second: still busy
        assert run.poll() is None and Store(tmp_path / "home").result_files() == []
    finally:
        proc.stdin.close()  # the other run ends
        proc.wait()
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    assert json.loads(out)["status"] == "completed"
    assert busy(target) is None


def test_a_check_holds_the_disk_from_its_first_pass_to_its_last(tmp_path, monkeypatch, capsys):
    """Between the passes (the first run has ended, the second not begun) the disk is still the check's."""
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "home"))
    base = run_result("20261101-120000-base", {READ: [40_000, 50_000, 60_000], WRITE: [32_000, 40_000, 48_000]})
    Store().save_result(base)
    rng = random.Random(7)
    slow = {step: [mean * rng.lognormvariate(0.0, 0.02) for _ in range(3)] for step, mean in ((READ, 20_000),
                                                                                               (WRITE, 16_000))}
    passes = iter([run_result("20261101-121000-slow", slow, minutes=10),
                   run_result("20261101-122000-slow", slow, minutes=20)])
    target = tmp_path / "target"
    target.mkdir()
    seen = []

    def drive(runner: Runner):
        seen.append(busy(target))
        runner.close()  # the pass ends: what the run holds, it lets go
        return next(passes)

    args = build_parser().parse_args(["check", "--baseline", base.id, "-t", str(target), "--file-size", "1M",
                                      "--confirm", "3", "--yes"])
    assert check.run(args, drive=drive) == 1
    assert "confirming with 3 fresh runs" in capsys.readouterr().err
    disk = target_lock.target_key(target).name
    assert len(seen) == 2 and all(seen) and all(refusal(os.getpid(), target, disk).fullmatch(s) for s in seen), seen
    assert busy(target) is None  # the check let it go at its end


def test_a_holder_that_dies_lets_the_disk_go_and_its_stale_file_blocks_nothing(tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    proc = holder(target)
    assert refusal(proc.pid, target, target_lock.target_key(target).name).fullmatch(busy(target) or "")
    proc.kill()  # no chance to clean up: the kernel lets go of its flock
    proc.wait()
    (stale,) = Path(os.environ["LABTUI_LOCK_DIR"]).iterdir()
    assert json.loads(stale.read_text())["pid"] == proc.pid  # what it wrote is still there
    profile = Profile("p", file_size=1024**2, free_space_margin=0, steps=(Step("Read 64K random"),))
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions())
    runner.preflight()
    assert json.loads(stale.read_text())["pid"] == os.getpid()  # taken over
    runner.close()
    assert busy(target) is None


def test_a_refused_preflight_lets_the_disk_go(tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    # Far more than any test disk has: refused after the lock was taken.
    profile = Profile("p", file_size=1024**5, free_space_margin=0, steps=(Step("Read 64K random"),))
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions())
    with pytest.raises(Exception, match="not enough free space"):
        runner.preflight()
    assert busy(target) is None


def test_the_lock_is_the_disks_not_the_directorys(tmp_path, disk_dir):
    here, there = tmp_path / "a" / "deeper", tmp_path / "b"
    here.mkdir(parents=True)
    there.mkdir()
    key = target_lock.target_key(here)
    assert target_lock.target_key(there) == key == target_lock.target_key(tmp_path / "not-made-yet")
    # A raw device target on that disk is the same disk.
    device = Path("/dev") / key.name
    if device.is_block_device():
        assert target_lock.target_key(device) == key
    proc = holder(here)
    try:
        assert busy(there) is not None
    finally:
        proc.stdin.close()
        proc.wait()
    assert busy(there) is None


def test_a_target_that_cannot_be_used_is_refused_for_itself_before_a_busy_disk(tmp_path):
    """Bad input is the person's to fix before any wait: a missing directory is said, not the lock."""
    (tmp_path / "here").mkdir()
    lock, problem = target_lock.hold(tmp_path / "here")  # another run measures the disk
    assert lock is not None, problem
    try:
        profile = Profile("p", file_size=1024**2, free_space_margin=0, steps=(Step("Read 64K random"),))
        missing = tmp_path / "nope"
        runner = Runner(profile, missing, Store(tmp_path / "home"), RunOptions())
        with pytest.raises(LabtuiError, match=r"^no such directory: "):
            runner.preflight()
        assert not missing.exists()
        # A usable target on that disk still waits for the lock.
        with pytest.raises(TargetBusy):
            Runner(profile, tmp_path / "here", Store(tmp_path / "home"), RunOptions()).preflight()
    finally:
        lock.release()


def test_a_check_on_a_target_that_cannot_be_used_is_refused_for_itself_before_a_busy_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "home"))
    base = run_result("20261101-120000-base", {READ: [40_000, 50_000, 60_000], WRITE: [32_000, 40_000, 48_000]})
    Store().save_result(base)
    (tmp_path / "here").mkdir()
    proc = holder(tmp_path / "here")  # another run measures the disk
    try:
        args = build_parser().parse_args(["check", "--baseline", base.id, "-t", str(tmp_path / "nope"), "--yes"])
        with pytest.raises(LabtuiError, match=r"^no such directory: "):
            check.run(args, drive=lambda runner: pytest.fail("the check ran"))
    finally:
        proc.stdin.close()
        proc.wait()
