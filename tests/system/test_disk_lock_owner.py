"""A disk's lock is the running user's own, and the refusal says whose run holds it (issue 37, item 6).

Any user could make `/run/lock/labtui-disk-M-m.lock`, hold it, and block every run on that disk
forever, with a holder text of their choosing. Now root's locks live in /run/labtui, root's alone,
and a lock file or directory that is not the running user's alone is never used. Played by a real
unprivileged user holding the lock where it used to be, on a real loop device.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import labtui_cmd, require_tool
from hostile_user import hostile_user, mounted_disks, shared_place
from labtui.run import target_lock


def test_a_lock_a_user_holds_where_every_user_could_make_one_blocks_no_run_of_roots(monkeypatch, tmp_path):
    require_tool("flock")
    monkeypatch.delenv(target_lock.LOCK_DIR_ENV)  # the machine's own place, as a run has it
    with shared_place() as place, mounted_disks(place, 1) as (disk,), hostile_user("lock") as user:
        key = target_lock.target_key(disk)
        name = f"labtui-disk-{key.dev_id.replace(':', '-')}.lock"
        theirs = Path("/run/lock") / name
        holder = user.start("flock", "-n", str(theirs), "sleep", "60")
        try:
            deadline = time.monotonic() + 10
            while not theirs.exists():
                assert time.monotonic() < deadline and holder.poll() is None, "the user could not take the lock"
                time.sleep(0.02)
            target = disk / "t"
            target.mkdir()
            profile = tmp_path / "quick.toml"
            profile.write_text('name = "quick"\nfree_space_margin = "0"\n[[steps]]\nname = "cmd"\nkind = "command"\n'
                               'command = "true"\nsync = false\n')
            out = subprocess.run(labtui_cmd("run", "-p", str(profile), "-t", str(target), "--yes"),
                                 capture_output=True, text=True, timeout=120, env={**os.environ,
                                                                                   "LABTUI_HOME": str(tmp_path)})
            assert out.returncode == 0, out.stderr
            assert "another labtui run" not in out.stderr
            # Where root's runs keep their locks, the user cannot make one (nor look).
            assert target_lock.lock_dir() == Path("/run/labtui") and (Path("/run/labtui") / name).exists()
            assert user.sh(f"touch /run/labtui/{name}.x", check=False).returncode != 0
        finally:
            user.stop(holder)  # flock and the sleep it holds the lock for
            theirs.unlink(missing_ok=True)


def test_a_lock_file_or_directory_not_the_users_alone_is_not_used(tmp_path, monkeypatch):
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    monkeypatch.setenv(target_lock.LOCK_DIR_ENV, str(locks))
    key = target_lock.target_key(tmp_path)
    planted = locks / f"labtui-disk-{key.dev_id.replace(':', '-')}.lock"
    planted.write_text('{"pid": 1, "target": "/anything"}')
    os.chown(planted, 65534, 65534)  # a lock file of nobody's, however it got there
    lock, warning = target_lock.hold(tmp_path)
    assert lock is None and warning.startswith(f"could not take labtui's lock for {key.name} in {locks}:")
    planted.unlink()
    locks.chmod(0o777)
    lock, warning = target_lock.hold(tmp_path)
    assert lock is None and f"in {locks}: others can write it (mode 0777); another labtui run" in warning
    locks.chmod(0o700)
    lock, warning = target_lock.hold(tmp_path)
    try:
        assert lock is not None and warning is None
        assert oct(planted.stat().st_mode & 0o777) == "0o600"
        with pytest.raises(target_lock.TargetBusy, match=r"another labtui run \(pid \d+, user root, since"):
            target_lock.TargetLock.acquire(tmp_path, key)
    finally:
        lock.release()


def test_each_user_keeps_their_locks_where_only_they_can_make_them(tmp_path, monkeypatch):
    """Root's in /run/labtui; anyone else's in their runtime directory, else one of theirs in the temporary one."""
    monkeypatch.delenv(target_lock.LOCK_DIR_ENV)
    runtime = tmp_path / "run-user-1234"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert target_lock.lock_dir() == Path("/run/labtui")  # root (these tests run as root)
    monkeypatch.setattr(os, "geteuid", lambda: 1234)
    assert target_lock.lock_dir() == runtime / "labtui"
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/run")  # not a place to trust
    assert target_lock.lock_dir() == Path(tempfile.gettempdir()) / "labtui-locks-1234"
