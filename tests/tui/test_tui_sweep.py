"""The Disks screen's marks: several volumes marked, the profile run on each in turn with the real
native engine, ending on their comparison; volumes a run cannot use are refused a mark."""

from __future__ import annotations

from pathlib import Path

import pytest

from labtui.machine.devices import Volume
from labtui.machine.target_choice import DeviceScan
from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from labtui.screens.confirm import ConfirmModal
from labtui.screens.disks import DisksScreen
from labtui.settings import Settings
from labtui.widgets.volume_table import VolumeTable
from tui_support import FAKE_DISKS, disks_ready, make_app, screen_text, short_profile, wait_for, widget_text

GIB = 1024**3


@pytest.fixture
def disk_dir(disk_dir, request) -> Path:
    """A directory of this test's own on the module's real disk directory."""
    path = disk_dir / request.node.name.replace("[", "-").replace("]", "")
    path.mkdir()
    return path


def _machine(disk_dir: Path) -> DeviceScan:
    """The fake disks, with two volumes whose mount points are real directories on a real disk.

    Their labtui folders are made here: the runner makes one only at a real mount point (by this
    machine's mount table), and these are not.
    """
    volumes = []
    for name, disk in (("a", "nvme0n1"), ("b", "sda")):
        (disk_dir / name / "labtui").mkdir(parents=True)
        volumes.append(Volume(mount_point=str(disk_dir / name), source=f"/dev/{disk}1", filesystem="ext4",
                              device=f"/dev/{disk}1", disk=disk, size_bytes=100 * GIB, free_bytes=50 * GIB,
                              dev_id=f"fake:{name}"))
    volumes.append(Volume(mount_point="/dev/shm", source="tmpfs", filesystem="tmpfs", pseudo=True,
                          size_bytes=16 * GIB, free_bytes=16 * GIB, dev_id="0:25"))
    return DeviceScan(FAKE_DISKS, tuple(volumes))


def _prepare(home: Path) -> None:
    store = Store(home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / "tiny.toml").write_text(short_profile("tiny", "500ms"))
    store.save_settings(Settings(profile="tiny", profile_origin="user"))


async def _move_to(pilot, key: str) -> None:
    table = pilot.app.screen.query_one(VolumeTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.pause()


async def test_marked_volumes_run_in_turn_and_end_on_their_comparison(labtui_home, disk_dir):
    _prepare(labtui_home)
    scan = _machine(disk_dir)
    a, b = (f"vol:{disk_dir / n}" for n in "ab")
    app = make_app(labtui_home, device_source=lambda: scan)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        screen = app.screen
        assert "Run marked" not in screen_text(app)  # nothing marked: the key is not offered
        await pilot.press("R")  # yet pressed, it says how to mark
        await wait_for(pilot, lambda: any("Mark volumes with Space, then press R" in str(n.message)
                                          for n in app._notifications), what="how to mark volumes")
        assert app.screen is screen
        await _move_to(pilot, "vol:/dev/shm")
        await pilot.press("space")
        # Memory: refused, with the reason.
        assert screen.marked == [] and any("tmpfs (memory)" in str(n.message) for n in app._notifications)
        for key in (a, b):
            await _move_to(pilot, key)
            await pilot.press("space")
        assert screen.marked == [a, b]
        text = screen_text(app)
        assert "• nvme0n1" in text and "• sda1" in text and "Run marked" in text and "Mark" in text
        # R asks first (issue 39, item 2), naming the profile, each volume's directory, the file and the time.
        await pilot.press("R")
        question = await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal)
                                  and widget_text(app, "#confirm-message"), what="the question")
        assert f"{disk_dir / 'a'}: {disk_dir / 'a' / 'labtui'}" in question
        assert f"{disk_dir / 'b'}: {disk_dir / 'b' / 'labtui'}" in question
        assert "Short trial" in question and "16MiB test file" in question and "about 0:" in question
        await pilot.press("escape")  # not now: nothing starts
        await wait_for(pilot, lambda: app.screen is screen, what="back on Disks")
        await pilot.pause(0.2)
        assert app.screen is screen and not app.run_active and Store(labtui_home).load_results() == ([], [])
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question again")
        await pilot.press("enter")  # Enter (or y) goes
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), timeout=120,
                       what="the comparison of the two volumes")
        results = app.screen.results
        assert [r.target.path for r in results] == [str(disk_dir / "a" / "labtui"), str(disk_dir / "b" / "labtui")]
        assert [r.tags for r in results] == [(f"volume:{disk_dir / 'a'}",), (f"volume:{disk_dir / 'b'}",)]
        assert all(r.status == "completed" for r in results)
        assert "B vs A" in screen_text(app)
        saved, _broken = Store(labtui_home).load_results()
        assert {r.id for r in saved} == {r.id for r in results}


async def test_a_space_mark_toggles_and_unmark_clears(labtui_home, disk_dir):
    _prepare(labtui_home)
    scan = _machine(disk_dir)
    a = f"vol:{disk_dir / 'a'}"
    app = make_app(labtui_home, device_source=lambda: scan)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        screen: DisksScreen = app.screen
        await _move_to(pilot, a)
        await pilot.press("space")
        assert screen.marked == [a]
        await pilot.press("space")
        assert screen.marked == []
        await pilot.press("space")
        await pilot.press("u")
        assert screen.marked == []


async def test_run_indicator_everywhere(labtui_home, disk_dir, monkeypatch):
    # Issue 39, items 4 and 5: the other screens did not say a run was going, and the Run screen's
    # top line named the target chosen earlier while the run wrote to the marked volume.
    from labtui.screens.history import HistoryScreen
    from labtui.screens.run import RunScreen
    from labtui.screens.run_driver import RunDriver
    from labtui.widgets.context_bar import ContextBar
    from tui_support import scripted_run, wavy_result

    _prepare(labtui_home)
    chosen = disk_dir / "chosen"
    chosen.mkdir()
    store = Store(labtui_home)
    store.save_settings(Settings(profile="tiny", profile_origin="user", target=str(chosen)))
    # The engine's part replayed: each volume's run passes its checks at once and goes on until stopped.
    monkeypatch.setattr(RunDriver, "_check", lambda self, runner, stop: self.screen.post_message(
        RunScreen.PreflightPassed(scripted_run(wavy_result(), finished=False))))
    refreshed: list[str] = []
    real_refresh = ContextBar.refresh_choice
    monkeypatch.setattr(ContextBar, "refresh_choice",
                        lambda self, *a: refreshed.append(self.screen_title) or real_refresh(self, *a))
    scan = _machine(disk_dir)
    app = make_app(labtui_home, device_source=lambda: scan)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, f"vol:{disk_dir / 'a'}")
        await pilot.press("space", "R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.state == "running",
                       what="the run on the marked volume")
        run = app.screen
        marked = str(disk_dir / "a" / "labtui")
        top = await wait_for(pilot, lambda: marked in (t := widget_text(app, "#context-choice")).replace("\n", "")
                             and t, what="the Run screen's top line naming the marked volume")
        # Whole, folded over two lines where it is long (the test's directory is). The profile is the one
        # chosen (tiny) until the replayed result, a quick-sanity one, arrives: either is this run's name here.
        assert top.startswith(("running tiny", "running quick-sanity")), top
        assert str(chosen) not in screen_text(app)
        # Every other screen says it too, with the step and the time, and r shows the run again.
        for key in ("h", "d", "w", "f"):
            await pilot.press(key)
            await wait_for(pilot, lambda: app.screen is not run, what=key)
            line = await wait_for(pilot, lambda: "running" in (t := widget_text(app, "#context-choice")) and t,
                                  what=f"the run in the top line ({key})")
            assert line.startswith("running quick-sanity") and "2/2" in line and "(r)" in line, line
            if key == "h":
                await pilot.press("r")
                await wait_for(pilot, lambda: app.screen is run, what="the Run screen again")
                await pilot.press("h")
                await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), what="History again")
        # The top lines of screens not on show are left alone while the run goes; shown, they catch up.
        refreshed.clear()
        await pilot.pause(2.2)  # two ticks of the run's clock
        assert set(refreshed) <= {"Fleet"}, refreshed
        run.stop()
        await wait_for(pilot, lambda: app.run_indicator is None and run.state != "running", what="the run's end")
        await pilot.press("d")
        await wait_for(pilot, lambda: widget_text(app, "#context-choice").startswith("profile "), what="the choice again")
