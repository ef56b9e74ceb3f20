"""labtui in a real terminal (tmux: a real pty, keys sent, the screen read back), end to end.

A person's whole session: choose a target directory on the Disks screen and a short profile on
the Workload screen, run it with the native engine and watch the figures move, find the run in
History, run it again, mark both and read the deltas in Compare. And what a signal does to a run
under the TUI: the run is aborted cleanly, its result kept, the terminal given back in order.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import psutil
import pytest

from labtui.machine.devices import list_volumes, volume_of
from labtui.results.store import Store
from labtui.settings import Settings
from tmux_terminal import Terminal, start
from tui_support import short_profile


@pytest.fixture
def home(tmp_path) -> Path:
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    return home




def figures_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip().startswith("read IOPS")), "")


def test_a_whole_session_run_history_again_compare(home, disk_dir):
    target = disk_dir / "e2e-target"
    target.mkdir()
    (home / "profiles" / "e2e.toml").write_text(short_profile("e2e", "3s"))
    mount = volume_of(target, list_volumes()).mount_point
    # 48 lines: on a loaded machine both runs are CPU-bound, and the Run screen's summary then says
    # so three times (the run, A and B) above its comparison table, which needs the room to show.
    term = start(home, "session", size=(120, 48))
    try:
        term.wait_for("Disks and volumes · read at", what="the disks")
        # Disks: the volume holding the temp directory, then the directory typed into the picker.
        for _ in range(30):
            detail = term.screen()
            if re.search(rf"^ {re.escape(mount)} · ", detail, re.M):
                break
            term.keys("Down")
        else:
            raise AssertionError(f"no row for the volume {mount}:\n{detail}")
        term.keys("Enter")
        term.wait_for("Target directory on", what="the directory picker")
        # ctrl+u is the field's binding, run once the key has gone up to the app and back down:
        # a path typed at once could reach the field first, and lose its leading "/" (under load).
        term.keys("C-u")
        term.wait_for("Type the directory the test file goes in", what="the path field emptied")
        term.keys(str(target), literal=True)
        term.wait_for(lambda t: f" {target}" in t and "is relative" not in t, what="the typed path in the field")
        term.keys("Enter")
        term.wait_for(f"target {target}", what="the chosen target in the top line")
        # Workload: the short profile, by name from the command palette.
        term.keys("w")
        term.wait_for("Profiles", what="the workload screen")
        term.keys("C-p")
        term.keys("Open profile e2e", literal=True)
        term.wait_for(lambda t: "Open profile e2e" in [line.strip() for line in t.splitlines()],
                      what="the palette's match")  # its search runs in the background
        term.keys("Enter")
        # The palette closes as its command runs: a key sent before it has gone can still reach it (under load).
        term.wait_for(lambda t: "profile e2e" in t and "Open profile" not in t, what="the profile chosen, the palette gone")
        # Run it and watch it.
        term.keys("r")
        term.wait_for("[native]", what="the run screen with its engines")
        term.keys("C-s")
        first = figures_line(term.wait_for(lambda t: figures_line(t) and "measuring" in t, what="live figures"))
        changed = term.wait_for(lambda t: figures_line(t) not in ("", first) or "Completed" in t,
                                what="the figures to move")
        assert "Completed" in changed or figures_line(changed) != first
        done = term.wait_for("Completed: e2e", what="the end of the run")
        assert "Read 4K random" in done and "No earlier completed run of e2e" in term.wait_for("No earlier")
        # History: the run is there; run it again from there.
        term.keys("h")
        listing = term.wait_for(lambda t: "e2e" in t and "1 result" in t, what="the run in History")
        assert "completed" in listing
        term.keys("a")
        term.wait_for("Run e2e again?", what="the question before a run")
        term.keys("Enter")
        # Its heading and its table in one frame: tmux may show a frame it has only partly read (two
        # full suites beside others' runs caught the heading without the table under it).
        term.wait_for(lambda t: "Against the previous run" in t and "B vs A" in t, timeout=60,
                      what="the second run and its comparison")
        # Both in History: mark them, compare.
        term.keys("h")
        term.wait_for("2 results", what="both runs listed")
        term.keys("Home")
        term.keys("Space")
        term.keys("Down")
        term.keys("Space")
        term.wait_for("2 marked")
        term.keys("c")
        # The whole comparison, not its first lines: tmux may show a frame it has only partly read.
        row = r"IOPS ↑\s+[\d,.]+\s+[\d,.]+\s+[+-]\d+\.\d %"
        compared = term.wait_for(lambda t: "B vs A" in t and re.search(row, t), what="the comparison")
        assert re.search(row, compared), compared
        assert re.search(r"(better|worse|within noise)", compared)
        term.keys("q")
        ended = term.wait_for("LABTUI-EXITED", what="labtui to quit")
        assert "LABTUI-EXITED 0" in ended
    finally:
        term.kill()
    results, broken = Store(home).load_results()
    assert [r.status for r in results] == ["completed", "completed"] and broken == []
    assert list(target.iterdir()) == []  # both runs removed their test files


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_typing_a_tag_on_a_fresh_run_screen_starts_no_run(home, disk_dir, size):
    # Issue 39, item 1: Tab once, then "swap-b". The s started an untagged run that wrote to the disk.
    target = disk_dir / f"tag-{size[0]}"
    target.mkdir()
    (home / "profiles" / "e2e.toml").write_text(short_profile("e2e", "60s"))
    Store(home).save_settings(Settings(profile="e2e", profile_origin="user", target=str(target)))
    term = start(home, f"tag-{size[0]}", size=size)
    try:
        term.wait_for("Disks and volumes · read at", what="the disks")
        term.keys("r")
        term.wait_for("[native]", what="the run screen with its engines")
        term.keys("Tab")
        term.keys("swap-b", literal=True)
        time.sleep(2)  # a run started by a letter writes its test file within this
        assert list(target.iterdir()) == [] and term.labtui_process().children(recursive=True) == []
        term.keys("r")
        shown = term.wait_for("Next run", what="the Run screen")
        assert "Step 1 of" not in shown and "Checking" not in shown and "writing the test file" not in shown
    finally:
        term.kill()
    assert list(target.iterdir()) == [] and Store(home).load_results() == ([], [])


def _started_run(home: Path, disk_dir: Path, name: str) -> tuple[Terminal, Path]:
    target = disk_dir / f"signal-{name}"
    target.mkdir()
    (home / "profiles" / "e2e.toml").write_text(short_profile("e2e", "60s"))
    Store(home).save_settings(Settings(profile="e2e", profile_origin="user", target=str(target)))
    term = start(home, name, size=(100, 30))
    term.wait_for("Disks and volumes · read at", what="the disks")
    term.keys("r")
    term.wait_for("[native]", what="the run screen")
    term.keys("C-s")
    term.wait_for("measuring", what="the run measuring")
    return term, target


def assert_aborted_cleanly(home: Path, target: Path, workers: list[psutil.Process], why: str | None = None) -> None:
    """The run's workers are gone, its test file removed, its result saved as aborted (`why` its error)."""
    _gone, alive = psutil.wait_procs(workers, timeout=3)
    assert alive == [], "the engine's workers outlived the run"
    results, _ = Store(home).load_results()
    assert [r.status for r in results] == ["aborted"]
    if why is not None:
        assert results[0].error == why
    assert list(target.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_aborts_the_run_keeps_the_result_and_restores_the_terminal(home, disk_dir, signum):
    term, target = _started_run(home, disk_dir, signum.name)
    try:
        labtui = term.labtui_process()
        workers = labtui.children(recursive=True)
        assert workers, "the native engine's workers should be running"
        if signum == signal.SIGHUP:
            term.kill()  # the terminal goes away: tmux hangs up on the programs in it
        else:
            labtui.send_signal(signum)
        labtui.wait(timeout=15)
        if signum == signal.SIGTERM:
            # Until stty's local-mode line is on the screen ("icanon" or "-icanon"): a frame taken as
            # stty writes could hold its first lines only (a loaded machine did).
            after = term.wait_for(lambda t: "LABTUI-EXITED" in t and " baud;" in t and "icanon" in t,
                                  what="the shell after labtui")
            assert "labtui: stopped by SIGTERM; the run's partial result was saved as" in after
            assert "LABTUI-EXITED 1" in after
            # The terminal is back in its normal mode: line editing and echo on.
            assert re.search(r"(?<!-)icanon", after) and re.search(r"(?<!-)\becho\b", after)
    finally:
        term.kill()
    assert_aborted_cleanly(home, target, workers, f"stopped by {signum.name}")


def test_a_confirmed_cancel_aborts_a_run_whose_workers_saturate_the_cpus(home, disk_dir):
    # 4 KiB reads from the page cache never wait for the disk: with two worker processes per
    # CPU, each with two threads, the CPUs are the limit and the UI has to compete for them.
    threads = 2 * (os.cpu_count() or 1)
    profile = short_profile("busy", "60s", threads=threads).replace('warmup = "0s"', 'warmup = "0s"\ncache = "on"')
    (home / "profiles" / "busy.toml").write_text(profile.replace("outstanding = 4", "outstanding = 2"))
    target = disk_dir / "cancel-busy"
    target.mkdir()
    Store(home).save_settings(Settings(profile="busy", profile_origin="user", target=str(target)))
    term = start(home, "cancel-busy", size=(80, 24))
    try:
        term.wait_for("Disks and volumes · read at", what="the disks")
        term.keys("r")
        term.wait_for("[native]", what="the run screen")
        term.keys("F5")  # Start's other key
        term.wait_for("measuring", what="the run measuring")
        workers = term.labtui_process().children(recursive=True)
        assert len(workers) >= threads
        term.keys("x")
        term.wait_for("Stop the run?", timeout=10, what="the question")
        confirmed = time.monotonic()
        term.keys("y")
        shown = term.wait_for("Aborted:", timeout=3, what="the run aborted within 3 s of confirming")
        assert time.monotonic() - confirmed < 3 and "cancelled by the user" in shown
    finally:
        term.kill()
    assert_aborted_cleanly(home, target, workers)
