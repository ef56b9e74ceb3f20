"""SIGINT, SIGTERM and SIGHUP end a headless run cleanly: fast, no children, no file, a saved abort."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import psutil
import pytest

from conftest import labtui_cmd, require_tool
from labtui.engine.base import engine_names


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("engine", ["native", "fio"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_run_aborts_cleanly(disk_dir, labtui_home, tmp_path, engine, signum):
    if engine == "fio":
        if "fio" not in engine_names():
            pytest.skip("the fio engine is not part of this build")
        require_tool("fio")
    target = disk_dir / f"sig-{engine}-{signum.name}"
    target.mkdir()
    proc = subprocess.Popen(
        labtui_cmd("run", "-e", engine, "-p", "quick-sanity", "-t", str(target), "--duration", "30s",
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
            if list(target.glob("labtui-*.dat")) and (
                (engine == "fio" and any("fio" in (c.name() or "") for c in _alive(children)))
                or (engine == "native" and len(children) >= 2)
            ):
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
