"""A labtui killed with SIGKILL leaves nothing running, and its test file does not outlive the next run.

Real runs, real kills: engine processes (native workers, fio and its job processes) die with the
parent; the guardian removes the test file; and if the guardian was killed too, the next run finds
the run's marker, sees its owner is gone, and removes (or reports) what it left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from conftest import brief_profile, labtui_cmd
from engines import registered, require
from labtui.run import leftovers
from run_markers import marked_file

MIB = 1024 * 1024


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _wait(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _cmdline(process: psutil.Process) -> str:
    # A child may end (or be a zombie not yet reaped) between the listing and this read.
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def start_run(target: Path, engine: str) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """A long run, once it is measuring: the process and its descendants then."""
    target.mkdir(exist_ok=True)
    proc = subprocess.Popen(labtui_cmd("run", "-e", engine, "-p", "quick-sanity", "--repeat", "1", "-t", str(target),
                                       "--duration", "30s", "--file-size", "32M", "--yes"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    parent = psutil.Process(proc.pid)

    def measuring() -> bool:
        assert proc.poll() is None, proc.stderr.read()
        # The engine's processes: the run's others than its guardian.
        engine_up = any("guardian.py" not in _cmdline(c) for c in parent.children(recursive=True))
        return bool(list(target.glob("labtui-*/labtui-*.dat"))) and engine_up

    _wait(measuring, 60, "the run to be measuring")
    time.sleep(0.5)
    return proc, parent.children(recursive=True)


@pytest.mark.parametrize("engine", registered())
def test_sigkill_of_labtui_leaves_no_engine_process_and_no_test_file(tmp_path, labtui_home, engine):
    require(engine)
    target = tmp_path / f"kill-{engine}"
    proc, descendants = start_run(target, engine)
    pids = [p.pid for p in descendants]
    try:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        _wait(lambda: not _alive(pids), 5, "the engine processes to die with labtui")
        _wait(lambda: not list(target.iterdir()), 5, "the guardian to remove the run's directory and test file")
    finally:
        for pid in _alive(pids):
            os.kill(pid, signal.SIGKILL)
    # The marker stays, saying what happened, for the next run (or the TUI) to tell (leftovers.py).
    (marker,) = (labtui_home / "running").glob("*.json")
    noted = json.loads(marker.read_text())
    assert noted["pid"] == proc.pid and noted["killed"] >= noted["started"]
    # fio's processes are the guardian's to stop; the native workers die with labtui (PR_SET_PDEATHSIG).
    stopped = ["stopped its engine processes"] if engine == "fio" else []
    assert noted["cleaned"] == [*stopped, "removed its test file", "removed its directory"]
    messages = leftovers.clean_up(labtui_home / "running")
    assert len(messages) == 1 and f"run {noted['run']} (labtui pid {proc.pid}" in messages[0], messages
    assert " was killed at " in messages[0] and messages[0].endswith(
        "its guardian " + ", ".join(noted["cleaned"]))
    assert not list((labtui_home / "running").glob("*.json")), "said once"


def test_the_next_run_removes_what_a_run_killed_with_its_guardian_left(tmp_path, labtui_home):
    target = tmp_path / "killed"
    proc, descendants = start_run(target, "native")
    guardians = [p for p in descendants if "guardian" in " ".join(p.cmdline())]
    assert len(guardians) == 1, [p.cmdline() for p in descendants]
    left = list(target.glob("labtui-*/labtui-*.dat"))
    try:
        guardians[0].kill()
        _wait(lambda: not _alive([guardians[0].pid]), 5, "the guardian to die")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        _wait(lambda: not _alive([p.pid for p in descendants]), 5, "the workers to die with labtui")
    finally:
        for pid in _alive([p.pid for p in descendants]):
            os.kill(pid, signal.SIGKILL)
    assert [p.exists() for p in left] == [True], "with its guardian gone too, the test file stays ..."
    marker = json.loads(next((labtui_home / "running").glob("*.json")).read_text())
    assert marker["pid"] == proc.pid and marker["run_dir"] == str(left[0].parent)

    # ... until the next run, anywhere, sees its owner is gone.
    other = tmp_path / "next"
    other.mkdir()
    out = subprocess.run(labtui_cmd("run", "-p", str(brief_profile(tmp_path)), "-t", str(other),
                                    "--file-size", "4M", "--yes"), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"ended without cleaning up: removed {left[0].parent} and its test file" in out.stderr
    assert f"pid {proc.pid}" in out.stderr
    assert not left[0].exists() and list(target.iterdir()) == []
    assert not list((labtui_home / "running").glob("*.json"))


async def test_the_tui_says_as_it_starts_which_run_was_killed_and_what_was_cleaned(labtui_home, tmp_path):
    """What the guardian notes in a killed run's marker (as in the SIGKILL test above), said by the TUI."""
    from tui_support import make_app

    running, made, marker = marked_file(tmp_path, "20261201-100000-abcd")
    marker.abandon()
    made.unlink()
    made.parent.rmdir()
    noted = json.loads(marker.path.read_text()) | {"killed": time.time(), "cleaned": ["removed its test file",
                                                                                      "removed its directory"]}
    (labtui_home / "running").mkdir(mode=0o700)
    marker.path.rename(labtui_home / "running" / marker.path.name)
    (labtui_home / "running" / marker.path.name).write_text(json.dumps(noted))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        (said,) = [str(n.message) for n in app._notifications]
        assert said.startswith("run 20261201-100000-abcd (labtui pid") and " was killed at " in said, said
        assert said.endswith("its guardian removed its test file, removed its directory"), said
    assert not list((labtui_home / "running").iterdir()), "said once"
