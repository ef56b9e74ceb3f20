"""`labtui make-archive` (labtui/commands/make_archive.py): bad requests refused in one line, never an overwrite,
what to install, and a stop (Ctrl+C, SIGTERM) that leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import labtui_cmd, require_tool
from full_pipe import signalled


@pytest.fixture
def work(tmp_path, labtui_home) -> Path:
    """An empty directory to make archives in (tmp_path also holds LABTUI_HOME)."""
    directory = tmp_path / "work"
    directory.mkdir()
    return directory


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--size", "1M", "arc.zip"], "must end in .zpaq"),
        (["--size", "1M", "arc*.zpaq"], "multi-part"),
        (["--size", "3", "--files", "4", "arc.zpaq"], "cannot make 4 files"),
        (["--size", "1M", "--files", "0", "arc.zpaq"], "--files: must be 1..100000"),
        (["--size", "1M", "--method", "9", "arc.zpaq"], "--method: zpaq's methods are 0..5"),
        (["--size", "lots", "arc.zpaq"], "--size: 'lots' is not a size"),
        # "no/such/dir is not a directory" sent no one to make it; "must end in .zpaq, got 'work'" for a directory
        (["--size", "1M", "no/such/dir/arc.zpaq"], "no such directory: "),
        (["--size", "1M", "."], "is a directory: give the archive's file name in it, e.g. "),
        (["--size", "8E", "arc.zpaq"], "unknown size unit"),
        (["--size", "900T", "arc.zpaq"], "not enough free space"),
    ],
)
def test_bad_requests_are_one_line_and_create_nothing(work, args, reason):
    require_tool("zpaq")
    out = subprocess.run(labtui_cmd("make-archive", *args), capture_output=True, text=True, cwd=work)
    assert out.returncode == 2 and reason in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert list(work.iterdir()) == []


def test_it_never_overwrites(work):
    require_tool("zpaq")
    out = work / "mine.zpaq"
    out.write_text("precious")
    made = subprocess.run(labtui_cmd("make-archive", "--size", "1M", str(out)), capture_output=True, text=True)
    assert made.returncode == 2 and "already exists" in made.stderr
    assert out.read_text() == "precious" and list(work.iterdir()) == [out]


def test_without_zpaq_it_says_what_to_install(work):
    env = dict(os.environ, PATH=str(work / "empty-bin"))
    made = subprocess.run(labtui_cmd("make-archive", "--size", "1M", str(work / "a.zpaq")),
                          capture_output=True, text=True, env=env)
    assert made.returncode == 2 and "needs zpaq, but zpaq is not installed" in made.stderr
    assert "apt-get install zpaq" in made.stderr and list(work.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_nothing_behind(work, signum):
    require_tool("zpaq")
    out = work / "big.zpaq"
    proc = subprocess.Popen(labtui_cmd("make-archive", "--size", "2G", "--files", "2", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def writing() -> None:
        deadline = time.monotonic() + 20
        while not list(work.glob(".labtui-make-archive-*/labtui-test-data/*")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.02)
        time.sleep(0.2)

    assert signalled(proc, writing, signum) == 130 and "interrupted" in proc.stderr.read()
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("out", ["", " "])
def test_an_empty_archive_name_is_refused_naming_it(work, capsys, monkeypatch, out):
    # "" was refused as "the archive's name must end in .zpaq ..., got 'tmp'": the current directory's name.
    from labtui.cli import main

    monkeypatch.chdir(work)
    assert main(["make-archive", "--size", "1M", out]) == 2
    assert capsys.readouterr().err == "labtui: error: OUT.zpaq: is empty: give the archive to create, e.g. /data/test.zpaq\n"
    assert list(work.iterdir()) == []
