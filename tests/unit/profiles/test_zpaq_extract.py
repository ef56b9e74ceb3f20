"""The zpaq-extract profile with the real zpaq, through the runner and through `labtui run`."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import time
import tomllib
from pathlib import Path

import psutil
import pytest

from conftest import labtui_cmd, require_tool
from labtui.engine.events import SampleTaken, StepFinished, StepStarted
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[Path, int]:
    """A 24 MiB archive of random files made by Debian's zpaq, in a directory with a space in its name."""
    require_tool("zpaq")
    where = tmp_path_factory.mktemp("zpaq") / "my archives"
    (where / "src" / "sub").mkdir(parents=True)
    for i in range(6):
        (where / "src" / ("sub" if i % 2 else "") / f"file {i}").write_bytes(os.urandom(4 * MIB))
    path = where / "test arc.zpaq"
    subprocess.run(["zpaq", "a", path.name, "src", "-method", "1"], cwd=where, check=True, capture_output=True)
    return path, 24 * MIB


def events_of(runner: Runner) -> list:
    events: list = []

    async def go():
        async for event in runner.events():
            events.append(event)

    asyncio.run(go())
    return events


def test_zpaq_extract_times_the_extraction_with_live_disk_samples_and_removes_the_tree(archive, tmp_path):
    path, size = archive
    target = tmp_path / "target"
    target.mkdir()
    store = Store(tmp_path / "home")
    runner = Runner(store.profile("zpaq-extract"), target, store,
                    RunOptions(params={"archive": str(path)}, interval=0.05))
    seen_files: list[int] = []
    events: list = []

    async def go():
        async for event in runner.events():
            events.append(event)
            if isinstance(event, SampleTaken):
                seen_files.append(sum(len(files) for _, _, files in os.walk(target)))

    asyncio.run(go())
    result = runner.result
    assert result.status == "completed", result.error
    (step,) = result.steps
    assert step.exit_status == 0 and step.wall_seconds > 0
    assert step.command_line.startswith(f"zpaq x '{path}' -to {target}/labtui-{result.id}/labtui-scratch-")
    if result.target.disk:
        assert step.write.bytes >= size  # synced before the clock stopped: the files reached the disk
        assert step.peak_mib_s > 0
    kinds = [type(e) for e in events]
    first, last = kinds.index(StepStarted), kinds.index(StepFinished)
    assert any(kind is SampleTaken for kind in kinds[first:last]) and step.samples
    assert max(seen_files) > 0  # samples arrived while the extracted files were there
    assert list(target.iterdir()) == []  # the extracted tree is gone
    assert result.params == {"archive": str(path)}


def test_labtui_run_zpaq_extract_json(archive, tmp_path, labtui_home):
    path, size = archive
    target = tmp_path / "new target"
    target.mkdir()
    out = subprocess.run(labtui_cmd("run", "-p", "zpaq-extract", "--param", f"archive={path}", "-t", str(target),
                                    "--json", "--yes", "--interval", "100ms"), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    (step,) = data["steps"]
    assert data["status"] == "completed" and data["engine"] == {"name": "command"}
    assert data["params"] == {"archive": str(path)}
    assert step["kind"] == "command" and step["exit_status"] == 0 and step["wall_seconds"] > 0
    assert step["samples"] >= 1 and step["total"]["seconds"] == step["wall_seconds"]
    assert "Extract archive" in out.stderr and "wall, exit status 0" in out.stderr
    assert list(target.iterdir()) == []  # the extracted tree is removed
    saved = tomllib.loads(next((labtui_home / "results").glob("*.toml")).read_text())
    assert saved["steps"][0]["series"]["write_bytes"] and saved["params"] == {"archive": str(path)}
    shown = subprocess.run(labtui_cmd("show", data["id"]), capture_output=True, text=True)
    assert shown.returncode == 0 and "parameter archive" in shown.stdout and "wall, exit status 0" in shown.stdout


def one_line_error(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("labtui: error: "), out.stderr
    return lines[0]


def test_without_zpaq_the_run_is_refused_before_anything_happens(archive, tmp_path, labtui_home):
    path, _ = archive
    target = tmp_path / "t"
    env = dict(os.environ, PATH=str(tmp_path / "empty-bin"))
    out = subprocess.run(labtui_cmd("run", "-p", "zpaq-extract", "--param", f"archive={path}", "-t", str(target),
                                    "--yes"), capture_output=True, text=True, env=env)
    line = one_line_error(out)
    assert "needs zpaq, but zpaq is not installed" in line and "apt-get install zpaq" in line
    assert not target.exists() and not (labtui_home / "results").exists()


@pytest.mark.parametrize(
    "params, reason",
    [
        ([], "profile zpaq-extract needs --param archive=PATH"),
        (["--param", "archve=x.zpaq"], "has no parameter 'archve' (did you mean 'archive'?"),
        (["--param", "archive=no-such.zpaq"], "archive: no such file: "),
        (["--param", "archive"], "expected NAME=VALUE"),
    ],
)
def test_parameter_errors_are_one_line_and_change_nothing(tmp_path, labtui_home, params, reason):
    target = tmp_path / "t"
    out = subprocess.run(labtui_cmd("run", "-p", "zpaq-extract", *params, "-t", str(target), "--yes"),
                         capture_output=True, text=True, cwd=tmp_path)
    assert reason in one_line_error(out)
    assert not target.exists() and not (labtui_home / "results").exists()


def test_a_signal_stops_a_command_step_runs_its_cleanup_and_saves_the_abort(tmp_path, labtui_home):
    tag = f"{random.randint(1000, 9999)}.{random.randint(100, 999)}"
    profile = tmp_path / "hang.toml"
    profile.write_text(f"""
name = "hang"
free_space_margin = "0"

[params.marker]
description = "a file the cleanup creates"

[[steps]]
name = "Hang"
kind = "command"
command = "sh -c 'sleep {tag} & wait'"
cleanup = "touch {{marker}}"
timeout = "1m"
""")
    marker = tmp_path / "cleaned up"
    (tmp_path / "t").mkdir()
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(profile), "--param", f"marker={marker}",
                                       "-t", str(tmp_path / "t"), "--yes"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not _sleepers(tag) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    assert took < 3.0 and proc.returncode == 1, stderr
    assert "stopped by SIGTERM" in stderr
    time.sleep(0.2)
    assert _sleepers(tag) == [] and marker.exists()
    history = json.loads(subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True).stdout)
    (saved,) = history["results"]
    assert saved["status"] == "aborted"
    shown = json.loads(subprocess.run(labtui_cmd("show", saved["id"], "--json"), capture_output=True, text=True).stdout)
    assert shown["steps"][0]["status"] == "aborted" and shown["steps"][0]["wall_seconds"] > 0.3


def _sleepers(tag: str) -> list:
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        if f"sleep {tag}" in " ".join(p.info["cmdline"] or []) and p.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(p)
    return found


def test_a_failed_command_shows_its_exit_status_and_last_output(tmp_path, labtui_home):
    profile = tmp_path / "fails.toml"
    profile.write_text('name = "fails"\nfree_space_margin = "0"\n[[steps]]\nname = "Break"\nkind = "command"\n'
                       'command = "echo reading archive; echo \'zpaq error: bad archive\' >&2; exit 2"\n')
    (tmp_path / "t").mkdir()
    out = subprocess.run(labtui_cmd("run", "-p", str(profile), "-t", str(tmp_path / "t"), "--yes", "--json"),
                         capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    step = json.loads(out.stdout)["steps"][0]
    assert step["status"] == "failed" and step["exit_status"] == 2
    assert step["error"] == "the command exited with status 2"
    assert step["output_tail"] == "reading archive\nzpaq error: bad archive"
    assert "zpaq error: bad archive" in out.stderr  # shown as it ends, too
    shown = subprocess.run(labtui_cmd("show", json.loads(out.stdout)["id"]), capture_output=True, text=True)
    assert "failed: the command exited with status 2" in shown.stdout and "zpaq error: bad archive" in shown.stdout


def test_profiles_shows_the_parameter(labtui_home):
    out = subprocess.run(labtui_cmd("profiles", "zpaq-extract"), capture_output=True, text=True)
    assert out.returncode == 0 and "parameter {archive}: file, required" in out.stdout


def test_check_re_runs_a_zpaq_extract_baseline_with_its_archive(archive, tmp_path, labtui_home):
    path, _ = archive
    target = tmp_path / "t"
    target.mkdir()
    first = subprocess.run(labtui_cmd("run", "-p", "zpaq-extract", "--param", f"archive={path}", "-t", str(target),
                                      "--json", "--yes"), capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    baseline = json.loads(first.stdout)["id"]
    out = subprocess.run(labtui_cmd("check", "--baseline", baseline, "--tolerance", "99", "--confirm", "0",
                                    "--json", "--yes"), capture_output=True, text=True)
    # A one-run baseline of sub-second extractions on a busy machine may be too noisy to tell (3):
    # never a FAIL, and the re-run is what this test is about.
    report = json.loads(out.stdout)
    assert out.returncode in (0, 3) and report["outcome"] != "fail", out.stderr
    assert report["run_status"] == "completed" and len(report["runs"]) == 1
    rerun = json.loads(subprocess.run(labtui_cmd("show", report["runs"][0], "--json"), capture_output=True,
                                      text=True).stdout)
    assert rerun["params"] == {"archive": str(path)} and rerun["engine"]["name"] == "command"
    assert rerun["steps"][0]["wall_seconds"] > 0
