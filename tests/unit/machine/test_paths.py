"""Paths no file system takes (a name past 255 bytes, a path past 4096), links in a loop, and
directories a user may not look into: refused in one line by the CLI and by the TUI's path fields,
never an internal error (Python 3.11's Path.exists() raises for each of them) and never a crash.

Real files; the permission case runs labtui as nobody (root looks into every directory).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd, require_root
from labtui.errors import ValidationError
from labtui.machine.devices import Volume
from labtui.machine.target_choice import check_directory

LONG_NAME = "a" * 300
NOBODY = 65534


def run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=60, **kwargs)


def refusal(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "internal error" not in out.stderr, out.stderr
    return out.stderr.strip()


def test_a_target_with_a_name_too_long_is_refused_in_one_line(labtui_home, tmp_path):
    message = refusal(run("run", "-t", str(tmp_path / LONG_NAME / "sub"), "--yes"))
    assert "a name in it is 300 bytes long, more than a file system takes (255)" in message
    assert LONG_NAME not in message, "a path that long is shown by its start and its length"
    assert os.listdir(tmp_path) == ["labtui-home"]


def test_a_target_path_past_what_the_system_takes_is_refused_in_one_line(labtui_home, tmp_path):
    deep = tmp_path.joinpath(*["d" * 200] * 25)
    message = refusal(run("run", "-t", str(deep), "--yes"))
    assert f"the path is {len(os.fsencode(deep))} bytes long, more than the system takes" in message


def test_a_target_in_a_loop_of_links_says_so(labtui_home, tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    message = refusal(run("run", "-t", str(tmp_path / "a" / "sub"), "--yes"))
    assert "its symbolic links lead to one another in a loop" in message


def test_a_profile_name_or_file_too_long_is_not_found_in_one_line(labtui_home, tmp_path):
    assert "no profile named 'aaaa" in refusal(run("run", "-p", LONG_NAME, "-t", str(tmp_path), "--yes"))
    message = refusal(run("run", "-p", str(tmp_path / f"{LONG_NAME}.toml"), "-t", str(tmp_path), "--yes"))
    assert "a name in it is 305 bytes long" in message
    assert "no profile named 'aaaa" in refusal(run("profiles", LONG_NAME))


def test_compare_svg_with_a_name_too_long_is_refused(labtui_home, tmp_path):
    message = refusal(run("compare", "x", "y", "--svg", str(tmp_path / f"{LONG_NAME}.svg")))
    assert "a name in it is 304 bytes long" in message


def test_the_tui_directory_field_refuses_a_name_too_long_instead_of_crashing(tmp_path):
    volume = Volume(mount_point=str(tmp_path), source="/dev/vda1", filesystem="ext4", device="/dev/vda1")
    with pytest.raises(ValidationError, match="a name in it is 300 bytes long") as caught:
        check_directory(str(tmp_path / LONG_NAME), volume, [volume])
    assert caught.value.field == "directory"
    with pytest.raises(ValidationError, match="bytes long, more than the system takes"):
        check_directory(str(tmp_path.joinpath(*["d" * 200] * 25)), replace(volume), [volume])


def test_the_tui_export_field_refuses_a_name_too_long_instead_of_crashing(tmp_path):
    from labtui.screens.export import check_path

    path, problem = check_path(f"{LONG_NAME}.csv", tmp_path)
    assert path is None and "a name in it is 304 bytes long" in problem
    dangling = tmp_path / "taken.csv"
    dangling.symlink_to(tmp_path / "nowhere")
    path, problem = check_path("taken.csv", tmp_path)
    assert path is None and "exists: choose another name" in problem
    assert check_path("labtui-export.csv", tmp_path) == (tmp_path / "labtui-export.csv", "")


@pytest.fixture
def open_dir():
    """A directory every user may enter (pytest's own temporary ones are its owner's alone)."""
    directory = Path(tempfile.mkdtemp(prefix="labtui-test-others-", dir="/tmp"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_a_directory_nobody_may_look_into_is_named_as_the_reason(open_dir):
    """As a user who may not search a directory on the way, the reason is that directory, not an internal error."""
    require_root("running labtui as another user")
    locked = open_dir / "locked"
    (locked / "inner").mkdir(parents=True)
    locked.chmod(0o700)
    home = open_dir / "home"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = {**os.environ, "LABTUI_HOME": str(home), "HOME": str(home)}
    for target in (locked / "inner", locked / "inner" / "sub"):
        out = subprocess.run([*as_nobody, sys.executable, "-m", "labtui", "run", "-t", str(target), "--yes"],
                             capture_output=True, text=True, timeout=60, env=env, cwd=home)
        message = refusal(out)
        assert message == f"labtui: error: permission denied: cannot look into {locked}, which holds {target}"
    assert list((locked / "inner").iterdir()) == [] and not list(home.rglob("*.toml"))


FIO_REPORT = FIXTURES / "fio-json" / "fio-2.17-legacy-randread+randwrite16k-nj2-libaio.json"


@pytest.mark.parametrize("command", [("show", "20240501-103005-a1b2"), ("run", "--yes"), ("import", str(FIO_REPORT))])
def test_a_labtui_home_too_long_is_a_clear_error(tmp_path, monkeypatch, command):
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / LONG_NAME))
    out = run(*command, cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    assert "a name in it is 300 bytes long" in out.stderr or "File name too long" in out.stderr, out.stderr
    assert os.listdir(tmp_path) == []
