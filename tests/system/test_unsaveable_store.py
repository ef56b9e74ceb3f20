"""A store that cannot be written: refused before the run where that can be known, and otherwise
the result is still shown (and printed as --json) with where it could not be saved. No hang.

Real file systems: an immutable directory (chattr +i), a tmpfs that is full, LABTUI_HOME that is a file.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import brief_profile, labtui_cmd, require_root, require_tool
from labtui.engine.events import RunFinished, RunWarning
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
from labtui.results.files import BrokenFile
from labtui.results.store import Store
from labtui.run.runner import Runner

MIB = 1024 * 1024


def tiny_profile(duration: float = 0.3) -> Profile:
    step = Step(name="read", block_size=65536, threads=1, outstanding=1, duration=duration, warmup=0.0, cache="on")
    return Profile(name="tiny", title="tiny", file_size=MIB, free_space_margin=0, steps=(step,))


@contextmanager
def immutable(path: Path):
    require_root("chattr +i")
    require_tool("chattr")
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)


@contextmanager
def small_tmpfs(point: Path, size_kib: int):
    require_root("mounting a tmpfs")
    point.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "labtui-test", str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def fill(directory: Path, leave_bytes: int) -> None:
    """Fill the file system of `directory` up to `leave_bytes` free."""
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    with open(directory / "filler.bin", "wb") as handle:
        handle.write(b"\xff" * max(0, free - leave_bytes))
        handle.flush()
        os.fsync(handle.fileno())


# --------------------------------------------------------------------------- preflight


def test_preflight_refuses_when_labtui_home_is_a_file(tmp_path):
    home = tmp_path / "home"
    home.write_text("not a directory")
    with pytest.raises(LabtuiError, match=f"cannot save results in {home}"):
        Runner(tiny_profile(), tmp_path, Store(home)).preflight()
    assert home.read_text() == "not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"], "nothing was written"


ENTRY_POINTS = [(), ("history",), ("history", "--json"), ("profiles",), ("profiles", "quick-sanity"), ("show", "x"),
                ("compare", "a", "b"), ("export", "--format", "csv"), ("run", "--yes"), ("check",), ("baseline",),
                ("import", "fio.json")]


@pytest.mark.parametrize("args", ENTRY_POINTS, ids=[" ".join(a) or "tui" for a in ENTRY_POINTS])
def test_every_entry_point_refuses_a_labtui_home_that_is_a_file_in_one_line(tmp_path, args):
    # History said "no results yet" and `profiles` listed the built-ins, as though the results were gone.
    home = tmp_path / "home"
    home.write_text("not a directory")
    (tmp_path / "fio.json").write_text("{}")
    env = {**os.environ, "LABTUI_HOME": str(home)}
    out = subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 2, out.stderr
    assert out.stderr == f"labtui: error: {home} is not a directory, so labtui cannot keep its results and profiles " \
                         "there (set LABTUI_HOME to a directory)\n"
    assert home.read_text() == "not a directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fio.json", "home"], "nothing was written"


def test_a_results_or_profiles_folder_that_is_a_file_is_said_not_listed_as_empty(tmp_path):
    from labtui.errors import StoreError

    store = Store(tmp_path / "home")
    store.home.mkdir()
    store.results_dir.write_text("")
    store.profiles_dir.write_text("")
    refused = f"{store.results_dir} is not a directory, so labtui cannot keep its results there"
    for listing in (store.summaries, store.load_results, store.check_home):
        with pytest.raises(StoreError, match=refused):
            listing()
    # Profiles: the built-ins still list, the folder is named as what cannot be read (as the TUI lists it).
    profiles, broken = store.profiles()
    assert profiles and all(p.origin == "builtin" for p in profiles)
    assert broken == [BrokenFile(store.profiles_dir, f"{store.profiles_dir} is not a directory, so labtui cannot "
                                                     "keep its profiles there")]
    # Below a file: the same, naming the file.
    deeper = Store(tmp_path / "home" / "results" / "sub")
    with pytest.raises(StoreError, match=f"{store.results_dir} is not a directory, so labtui cannot keep its results "
                                         f"and profiles in {deeper.home}"):
        deeper.check_home()
    assert sorted(p.name for p in store.home.iterdir()) == ["profiles", "results"]


def test_preflight_refuses_an_immutable_results_directory(tmp_path):
    store = Store(tmp_path / "home")
    with immutable(store.results_dir):
        with pytest.raises(LabtuiError, match="cannot save results in .*Operation not permitted"):
            Runner(tiny_profile(), tmp_path / "work", store).preflight()
    assert not (tmp_path / "work").exists()


def test_preflight_refuses_a_full_store(tmp_path):
    with small_tmpfs(tmp_path / "full", 256) as point:
        fill(point, 0)
        with pytest.raises(LabtuiError, match="cannot save results in .*No space left"):
            Runner(tiny_profile(), tmp_path, Store(point / "home")).preflight()


# --------------------------------------------------------------------------- saving fails anyway


def test_a_save_that_fails_after_the_run_keeps_the_result_and_says_where(tmp_path):
    require_root("chattr +i")
    store = Store(tmp_path / "home")
    store.results_dir.mkdir(parents=True)
    (tmp_path / "work").mkdir()
    runner = Runner(tiny_profile(), tmp_path / "work", store)
    runner.preflight()
    events = []

    async def go():
        async for event in runner.events():
            events.append(event)
            if len(events) == 1:  # the run has started: now the store stops taking files
                subprocess.run(["chattr", "+i", str(store.results_dir)], check=True)

    try:
        asyncio.run(asyncio.wait_for(go(), timeout=60))  # no hang after the last step
    finally:
        subprocess.run(["chattr", "-i", str(store.results_dir)], capture_output=True)
    assert runner.result is not None and runner.result.status == "completed"
    assert runner.saved_path is None
    assert str(store.results_dir) in runner.save_error and "Operation not permitted" in runner.save_error
    assert isinstance(events[-1], RunFinished) and events[-1].path is None
    assert any(isinstance(e, RunWarning) and "not saved" in e.message for e in events)
    assert not list((tmp_path / "work").glob("labtui-[0-9]*")), "the test file is still removed"


def test_the_cli_prints_a_result_it_could_not_save(tmp_path):
    """The store fills up during the run: --json still prints the result, and says where it is not."""
    with small_tmpfs(tmp_path / "store", 64) as point:
        home = point / "home"
        env = dict(os.environ, LABTUI_HOME=str(home))
        # The run's marker in the store (one 4 KiB page of the tmpfs) is removed before the result is
        # saved, which helps a nearly full store take it. A short run's result fits in that page
        # (about 3.8 KiB): these tags make it too big for the page, as a real result often is.
        tags = [arg for i in range(12) for arg in ("--tag", f"{i:02d}-" + "x" * 800)]
        (tmp_path / "work").mkdir()
        proc = subprocess.Popen(
            labtui_cmd("run", "-p", str(brief_profile(tmp_path, duration="1s")), "-t", str(tmp_path / "work"), "--yes",
                       "--json", *tags),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        # Wait for the run to be past preflight (its test file exists), then fill the store.
        deadline = 30
        while not list((tmp_path / "work").glob("labtui-*/labtui-*.dat")) and deadline > 0:
            assert proc.poll() is None, proc.stderr.read()
            subprocess.run(["sleep", "0.05"])
            deadline -= 0.05
        fill(point, 0)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    data = json.loads(out)
    assert data["status"] == "completed" and len(data["steps"]) == 2
    assert data["saved_to"] is None and "No space left" in data["save_error"]
    flat = err.replace("\n", "")  # stderr is laid out for 80 columns: a long path may be folded anywhere
    assert "not saved" in flat and str(home / "results") in flat
    assert "Traceback" not in err


async def test_the_tui_shows_a_result_it_could_not_save(labtui_home, tmp_path):
    from labtui.machine.target_choice import Target
    from tui_support import make_app, open_run, screen_text, wait_for

    require_root("chattr +i")
    store = Store(labtui_home)
    store.results_dir.mkdir(parents=True)
    app = make_app(labtui_home)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_run(pilot)
            # Long enough that the store is made immutable while the step runs, however loaded the machine.
            app.profile = tiny_profile(duration=3.0)
            (tmp_path / "work").mkdir()
            app.target = Target(tmp_path / "work")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: screen.state == "running", timeout=30, what="the run")
            subprocess.run(["chattr", "+i", str(store.results_dir)], check=True)
            await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the end of the run")
            wanted = ("NOT saved", "Operation not permitted", "shown here only")
            # Read as one line: the store's path (a temporary one, of any length) wraps the message.
            await wait_for(pilot, lambda: all(w in " ".join(screen_text(app).split()) for w in wanted),
                           what="the unsaved result")
            assert screen.outcome is not None and screen.outcome.status == "completed"
    finally:
        subprocess.run(["chattr", "-i", str(store.results_dir)], capture_output=True)


def test_the_run_marker_is_rewritten_in_place_though_the_store_fills_up_meanwhile(tmp_path, monkeypatch):
    # The marker notes the test file once it exists. It was truncated, then written: a store that
    # filled up between the two (another writer, or this test's filling) took the freed page, the
    # marker was left empty and the run failed with "cannot create the test file: No space left".
    from labtui.run import leftovers

    with small_tmpfs(tmp_path / "store", 64) as point:
        marker = leftovers.RunMarker.create(point / "running", "20261201-000000-abcd",
                                            tmp_path / "labtui-20261201-000000-abcd")
        real = os.pwrite

        def pwrite_once_the_store_is_full(fd, data, offset):
            fill(point, 0)
            return real(fd, data, offset)

        monkeypatch.setattr(leftovers.os, "pwrite", pwrite_once_the_store_is_full)
        try:
            marker.record(11, 22, 33)
        finally:
            monkeypatch.undo()
        noted = json.loads(marker.path.read_text())
        assert (noted["dev"], noted["ino"], noted["size"]) == (11, 22, 33)
        assert noted["run_dir"] == str(tmp_path / "labtui-20261201-000000-abcd")
        marker.remove()
