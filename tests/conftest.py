"""Shared fixtures: an isolated LABTUI_HOME per test, and the rule for missing real tools."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


# The folders of benchmark reports among the fixtures; the others hold drives' smartctl outputs,
# a console font's table and results saved by an earlier labtui.
REPORT_FOLDERS = ("diskspd-text", "diskspd-xml", "fio-json", "fio-json-stream")


def report_fixtures() -> list[Path]:
    """The benchmark reports among the fixtures (fio, DiskSpd)."""
    return sorted(p for p in FIXTURES.glob("*/*") if p.suffix != ".md" and p.parent.name in REPORT_FOLDERS)


# Each test's wall and CPU seconds when LABTUI_TEST_CLOCK names a directory (tests/support/suite_clock.py;
# tests/support is on the path: pyproject's [tool.pytest.ini_options] pythonpath); the saved results several
# test modules share (tests/support/result_fixtures.py).
pytest_plugins = ("suite_clock", "result_fixtures", "run_fixtures")


# What the shell running the tests may set that changes what labtui, rich or Textual print: the
# terminal's size, colours forced or refused, labtui's own switches. Each test starts without
# them (subprocesses too, as they inherit os.environ); a test that wants one sets it.
MACHINE_ENV = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE",
               "TTY_INTERACTIVE", "LABTUI_GLYPHS", "LABTUI_DEBUG", "LABTUI_HOME")
# Textual's own switches that change what it draws (not the snapshot plugin's TEXTUAL_SNAPSHOT_*).
TEXTUAL_ENV = ("TEXTUAL_ANIMATIONS", "TEXTUAL_COLOR_SYSTEM", "TEXTUAL_DIM_FACTOR", "TEXTUAL_FILTERS", "TEXTUAL_THEME",
               "TEXTUAL_SMOOTH_SCROLL", "TEXTUAL_DEBUG", "TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_PRESS")


@pytest.fixture(scope="session", autouse=True)
def session_lock_dir(tmp_path_factory: pytest.TempPathFactory):
    """A lock directory for what runs before a test's own (module-scoped fixtures that make baselines)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LABTUI_LOCK_DIR", str(tmp_path_factory.mktemp("session-locks")))
        patch.setenv("LABTUI_DRIVE", "off")  # as machine_env says, for module-scoped runs too
        yield


@pytest.fixture(autouse=True)
def machine_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in MACHINE_ENV + TEXTUAL_ENV:
        monkeypatch.delenv(name, raising=False)
        # Importing readline (pdb, pytest's debugging plugin) sets COLUMNS and LINES in the C
        # environment behind os.environ's back, and subprocesses inherit that one.
        os.unsetenv(name)
    monkeypatch.setenv("TERM", "xterm-256color")
    # Runs lock the disk they measure in a directory all share (/run/lock): the tests' runs, on one
    # disk, in two workers (and other checkouts' suites), must not refuse one another. Each test
    # has a lock directory of its own; its subprocesses inherit it.
    monkeypatch.setenv("LABTUI_LOCK_DIR", str(tmp_path_factory.mktemp("locks")))
    # Runs read no drive (smartctl, hwmon): a CI machine's real NVMe would put its temperature on the
    # screens' snapshots. The drive's own tests turn it on, with a smartctl and a sysfs of their own.
    monkeypatch.setenv("LABTUI_DRIVE", "off")


@pytest.fixture(scope="module")
def disk_dir() -> Path:
    """A fresh directory on a real disk where O_DIRECT works (/var/tmp first: /tmp may be tmpfs)."""
    from labtui.engine.testfile import o_direct_supported

    for base in ("/var/tmp", tempfile.gettempdir()):
        if not os.access(base, os.W_OK):
            continue
        directory = Path(tempfile.mkdtemp(prefix="labtui-test-", dir=base))
        if o_direct_supported(directory):
            yield directory
            shutil.rmtree(directory, ignore_errors=True)
            return
        shutil.rmtree(directory, ignore_errors=True)
    if os.environ.get("CI"):
        pytest.fail("no directory on this machine supports O_DIRECT")
    pytest.skip("no directory here supports O_DIRECT")


@pytest.fixture
def labtui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "labtui-home"
    home.mkdir()
    monkeypatch.setenv("LABTUI_HOME", str(home))
    return home


@pytest.fixture
def io_uring_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native engine's I/O loop is io_uring, whatever this machine has (its command line names the loop)."""
    from labtui.engine.native import uring

    monkeypatch.setattr(uring, "_probed", None)


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    """Local time is UTC for the test (results show their times in local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def require_tool(name: str) -> str:
    """The path of a real tool the test drives; skip without it, except in CI where it must exist."""
    path = shutil.which(name)
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed, and CI must run this test (apt-get install {name})")
    pytest.skip(f"{name} is not installed")


def labtui_cmd(*args: str) -> list[str]:
    """The command line of the installed CLI, via this interpreter (works in any venv)."""
    return [sys.executable, "-m", "labtui", *args]


def brief_profile(directory: Path, *, duration: str = "300ms", warmup: str = "0s", threads: int = 1,
                  outstanding: int = 4, name: str = "brief") -> Path:
    """A profile file with quick-sanity's two steps (64 KiB random reads, then writes), brief: for a
    test of what a run says, keeps or survives rather than of what it measures. The builtin's 2 s
    warm-ups and 4 threads x 8 I/Os in flight cost such a test ~5 s and most of a CPU per run."""
    steps = "".join(f"""
[[steps]]
name = "{title}"
block_size = "64KiB"
pattern = "random"
write_percent = {percent}
threads = {threads}
outstanding = {outstanding}
duration = "{duration}"
warmup = "{warmup}"
""" for title, percent in (("Read 64K random", 0), ("Write 64K random", 100)))
    path = directory / f"{name}.toml"
    path.write_text(f'name = "{name}"\nfile_size = "4MiB"\nfree_space_margin = "0"\n{steps}')
    return path


def require_root(why: str) -> None:
    """Skip a test that needs root (loop devices, mounts) where it is not root; CI runs as root, so there it must run."""
    if os.geteuid() == 0:
        return
    if os.environ.get("CI"):
        pytest.fail(f"this test needs root ({why}), and CI runs as root")
    pytest.skip(f"needs root: {why}")
