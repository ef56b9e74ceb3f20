"""SIGINT, SIGTERM and SIGHUP end a headless run cleanly: fast, no children, no file, a saved abort."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import psutil
import pytest

from conftest import brief_profile, labtui_cmd
from engines import registered, require
from full_pipe import signalled, wait_blocked_writing


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:  # ended (or a zombie not yet reaped) since the listing
        return ""


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("engine", registered())
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_run_aborts_cleanly(disk_dir, labtui_home, tmp_path, engine, signum):
    require(engine)
    target = disk_dir / f"sig-{engine}-{signum.name}"
    target.mkdir()
    proc = subprocess.Popen(
        labtui_cmd("run", "-e", engine, "-p", "quick-sanity", "--repeat", "1", "-t", str(target), "--duration", "30s",
                   "--file-size", "64M", "--yes"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # Wait until the first step is measuring: its engine processes exist then.
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        children: list[psutil.Process] = []
        while time.monotonic() < deadline:
            children = parent.children(recursive=True)
            # The engine's processes: every one the run started but its guardian.
            if list(target.glob("labtui-*/labtui-*.dat")) and any("guardian.py" not in _cmdline(c) for c in _alive(children)):
                break
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.1)
        time.sleep(1.0)
        children = parent.children(recursive=True)
        assert children, "the run should have engine processes by now"
        sent = time.monotonic()
        proc.send_signal(signum)
        proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    assert took < 3.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 1, stderr
    time.sleep(0.2)
    assert _alive(children) == [], "engine processes outlived the run"
    assert list(target.iterdir()) == [], "the test file must be removed"
    history = subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True, check=True)
    (saved,) = json.loads(history.stdout)["results"]
    assert saved["status"] == "aborted"
    shown = json.loads(subprocess.run(labtui_cmd("show", saved["id"], "--json"), capture_output=True, text=True,
                                      check=True).stdout)
    assert shown["error"] == f"stopped by {signum.name}"  # the real reason, not "cancelled by the user"
    if signum != signal.SIGHUP:  # after SIGHUP the terminal is gone, and so is the message
        assert "aborted" in stderr and signum.name in stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_after_the_run_ended_lets_its_result_out_whole(disk_dir, labtui_home, tmp_path, signum):
    """The run is over and saved, and its --json is being written to a reader that has not read yet:
    a signal then must not kill labtui half-way through the document (or before it), nor call the
    completed run aborted; a second signal ends it at once."""
    target = disk_dir / f"late-{signum.name}"
    target.mkdir()
    # More JSON than a pipe holds (64 KiB): labtui blocks writing it until the test reads.
    tags = [arg for i in range(100) for arg in ("--tag", f"{i:03d}-" + "x" * 1000)]
    proc = subprocess.Popen(
        labtui_cmd("run", "-p", str(brief_profile(tmp_path)), "-t", str(target), "--yes", "--json", *tags),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list((labtui_home / "results").glob("*.toml")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        wait_blocked_writing(proc)  # saved, and now stuck writing its report into the full pipe
        assert proc.poll() is None, "the report should not fit in the pipe"
        proc.send_signal(signum)
        time.sleep(0.3)
        assert proc.poll() is None, "a first signal lets the report out"
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    result = json.loads(out)
    assert result["status"] == "completed" and len(result["tags"]) == 100 and result["saved_to"]
    assert not list(target.iterdir())
    flat = err.replace("\n", "")
    if signum != signal.SIGHUP:
        assert f"{signum.name} came after the run had ended; its result (completed) is saved as {result['id']}" in flat
        assert "aborted" not in flat


def test_a_second_signal_after_the_run_ended_ends_labtui_at_once(disk_dir, labtui_home, tmp_path):
    target = disk_dir / "late2"
    target.mkdir()
    tags = [arg for i in range(100) for arg in ("--tag", f"{i:03d}-" + "x" * 1000)]
    proc = subprocess.Popen(
        labtui_cmd("run", "-p", str(brief_profile(tmp_path)), "-t", str(target), "--yes", "--json", *tags),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )

    def saved() -> None:
        deadline = time.monotonic() + 60
        while not list((labtui_home / "results").glob("*.toml")) and time.monotonic() < deadline:
            assert proc.poll() is None
            time.sleep(0.05)
        wait_blocked_writing(proc)

    # The pipe is never read: only the second signal can end it.
    assert signalled(proc, saved, times=2) == -signal.SIGTERM
    assert not list(target.iterdir())
