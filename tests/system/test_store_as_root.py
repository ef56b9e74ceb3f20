"""As root, labtui refuses a data or config directory that another user can write (issue 37, item 5).

`config.toml` names the fio and DiskSpd programs labtui executes, and `running/` what the next run
deletes: a store another user could write let them run commands as root. Played by a real
unprivileged user: their store, their config.toml in root's store, a group-writable store, and a
store inside a directory everyone can write are each refused in one line before anything runs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import labtui_cmd
from hostile_user import hostile_user, open_to_all, shared_place


@pytest.fixture(scope="module")
def lab():
    with shared_place() as place, hostile_user("store") as user:
        yield place, user


def run_as_root(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, LABTUI_HOME=str(home))
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=60, env=env, cwd=home.parent)


def evil_config(home: Path, user, mark: Path) -> None:
    """As the user: a 'fio' that leaves a mark, named in config.toml."""
    user.sh(f"printf '#!/bin/sh\\ntouch {mark}\\necho fio-3.33\\n' > '{home}/fio' && chmod 755 '{home}/fio' && "
            f"printf 'fio_path = \"{home}/fio\"\\n' > '{home}/config.toml'")


def one_line_refusal(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    return out.stderr.strip()


def test_a_store_of_another_user_is_refused_before_their_fio_runs(lab):
    place, user = lab
    home = place / "theirs"
    home.mkdir()
    os.chown(home, user.uid, user.gid)
    mark = place / "ran-1"
    evil_config(home, user, mark)
    target = place / "t1"
    target.mkdir()
    out = run_as_root(home, "run", "-e", "fio", "-t", str(target), "--duration", "1s", "--file-size", "4M", "--yes")
    message = one_line_refusal(out)
    assert f"{home} belongs to {user.name}: as root labtui does not use {home}" in message, message
    assert "config.toml names the programs it runs (fio, DiskSpd)" in message and "LABTUI_HOME" in message
    assert not mark.exists(), "the user's program ran as root"
    assert list(target.iterdir()) == []


def test_a_config_file_of_another_user_in_roots_store_is_refused(lab):
    place, user = lab
    home = place / "roots"
    home.mkdir(mode=0o755)
    (home / "config.toml").write_text("")
    os.chown(home / "config.toml", user.uid, user.gid)
    message = one_line_refusal(run_as_root(home, "profiles"))
    assert f"{home / 'config.toml'} belongs to {user.name}" in message, message


@pytest.mark.parametrize("kind", ["group-writable", "in a directory everyone can write"])
def test_a_store_others_can_write_is_refused(lab, kind):
    place, user = lab
    if kind == "group-writable":
        home = place / "group"
        home.mkdir()
        home.chmod(0o775)
        expected = f"{home} can be written by the group root (mode 0775)"
    else:
        home = open_to_all(place / "open") / "home"
        home.mkdir(mode=0o755)
        expected = f"{place / 'open'} can be written by every user (mode 0777)"
    message = one_line_refusal(run_as_root(home, "history"))
    assert message.startswith(f"labtui: error: {expected}: as root labtui does not use"), message


def test_roots_own_store_is_used(lab):
    place, _user = lab
    home = place / "fine"
    home.mkdir(mode=0o700)
    out = run_as_root(home, "history")
    assert out.returncode == 0, out.stderr


def test_config_toml_linked_to_another_users_file_is_refused_where_it_is_read(lab):
    """Past the store's check by name (made before it, or raced): the file read is the one checked, on its
    descriptor. The link leads to the user's file naming their 'fio': the settings are refused in one line (a run
    says it with its result: tests/unit/run/test_runner.py), and their fio_path is not taken."""
    from labtui.results.store import Store

    place, user = lab
    home = place / "linked"
    home.mkdir(mode=0o700)
    theirs = place / "their-config"
    theirs.mkdir()
    os.chown(theirs, user.uid, user.gid)
    mark = place / "ran-linked"
    evil_config(theirs, user, mark)
    (home / "config.toml").symlink_to(theirs / "config.toml")
    found = Store(home).read_settings()
    assert found.broken == (f"{home / 'config.toml'}: refused: it belongs to {user.name}, who could choose the programs "
                            "labtui runs (fio_path, diskspd_path); chown it to the user running labtui, or remove it")
    assert found.settings.engines.fio_path is None and not mark.exists()


def test_config_toml_a_link_another_user_planted_is_refused_though_it_leads_to_roots_file(lab):
    """A directory they could write (refused by the store's check; read_settings checks again on its own): the
    link they put there leads to a file of root's holding a fio_path; it is not taken."""
    from labtui.results.store import Store

    place, user = lab
    home = place / "planted"
    home.mkdir()
    home.chmod(0o777)
    roots = place / "roots-other.toml"
    roots.write_text('fio_path = "/usr/bin/true"\n')
    user.sh(f"ln -s '{roots}' '{home}/config.toml'")
    found = Store(home).read_settings()
    assert found.broken == (f"{home / 'config.toml'}: refused: it is a link {user.name} made, who could choose the "
                            "programs labtui runs (fio_path, diskspd_path); chown it to the user running labtui, or "
                            "remove it")
    assert found.settings.engines.fio_path is None
