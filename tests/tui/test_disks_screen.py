"""The Disks screen (screens/disks.py) on a fake machine: its table read off the UI thread, choosing a
volume and a directory on it, rows that cannot be chosen, volumes marked and run in turn."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from disks_support import _move_to
from labtui.machine.devices import Volume
from labtui.machine.target_choice import DeviceScan
from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from labtui.screens.confirm import ConfirmModal
from labtui.screens.disks import DisksScreen
from labtui.screens.target_directory import TargetDirectoryModal
from labtui.settings import Settings
from tui_support import (
    FAKE_DISKS,
    FAKE_HOME,
    disks_ready,
    fake_scan,
    make_app,
    screen_text,
    short_profile,
    wait_for,
    widget_text,
)


async def test_table_shows_each_volume_with_its_disk(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        text = screen_text(app)
        for expected in ("nvme0n1p2", "NVMe", "Samsung SSD 980 PRO 1TB", "412 GiB", "ext4", "Gen3 x4 (max Gen4)",
                         "CT500MX500SSD1", "/data", "not mounted", "read-only", "cache-on only", "read at 09:26:53"):
            assert expected in text, expected
        # The volume's size is its file system's, the detail's the disk's: each says which (issue 39, item 18).
        assert "FS size" in text
        detail = widget_text(app, "#volume-detail")
        assert "/dev/nvme0n1 · 931 GiB NVMe disk · Samsung SSD 980 PRO 1TB" in detail
        assert "/ · ext4 on /dev/nvme0n1p2 · 915 GiB file system, 412 GiB free" in detail


async def test_first_paint_does_not_wait_for_device_discovery(labtui_home):
    release = threading.Event()

    def slow_scan():
        release.wait(10)
        return fake_scan()

    app = make_app(labtui_home, device_source=slow_scan)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))
        await pilot.pause(0.2)
        assert "Reading disks and volumes" in screen_text(app)
        release.set()
        await disks_ready(pilot)
        assert "nvme0n1p2" in screen_text(app)


async def test_refresh_reads_the_devices_again(labtui_home):
    calls = []

    def counting_scan():
        calls.append(1)
        return fake_scan()

    app = make_app(labtui_home, device_source=counting_scan)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        await pilot.press("f5")
        await wait_for(pilot, lambda: len(calls) == 2, what="a second scan")


async def test_a_failing_scan_is_shown_not_raised(labtui_home):
    def broken_scan():
        raise OSError("sysfs went away")

    app = make_app(labtui_home, device_source=broken_scan)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "sysfs went away" in screen_text(app), what="the error on screen")
        assert app.is_running


async def test_choose_the_root_volume_and_type_a_directory(labtui_home, tmp_path):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal))
        field = app.screen.query_one("#target-path", Input)
        assert field.value == str(FAKE_HOME)  # the home directory for the root volume
        wanted = tmp_path / "bench"
        field.value = str(wanted)
        await pilot.pause()
        # As `labtui run -t` says it: a directory that does not exist is refused, not made.
        # Read from the label, not the screen: a long temporary path wraps in the dialog.
        check = str(app.screen.query_one("#target-check", Static).render())
        assert f"No such directory: {wanted}" in check
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TargetDirectoryModal) and not wanted.exists()
        wanted.mkdir()
        field.value = str(wanted) + "/"
        await pilot.pause()
        assert "Exists" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))
        assert app.target is not None and app.target.directory == wanted
        assert app.target.mount_point == "/" and app.target.disk == "nvme0n1"
        assert "target " + str(wanted)[:20] in screen_text(app)
    assert Store(labtui_home).load_settings().target == str(wanted)


async def test_a_directory_typed_right_after_enter_goes_into_the_dialog(labtui_home):
    # Enter opened the dialog by the table's message: keys typed after it (queued on the table, as over
    # ssh they come in one read) met the table, and a q quit labtui.
    from textual import events

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/data")
        for key, character in (("enter", "\r"), ("slash", "/"), ("q", "q")):
            app.post_message(events.Key(key, character))  # as the terminal's driver posts them, none waited for
        await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal), what="the dialog")
        field = app.screen.query_one("#target-path", Input)
        # / starts a whole path: it replaces the directory offered (Enter, /data typed: not /data/labtui/data).
        await wait_for(pilot, lambda: field.value == "/q", what="/q typed in place of the path")
        assert app.focused is field and app.is_running


async def test_other_volumes_default_to_a_labtui_folder_at_their_mount_point(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/data")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal))
        assert app.screen.query_one("#target-path", Input).value == "/data/labtui"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))
        assert app.target is None


async def test_a_home_on_a_volume_of_its_own_is_that_volumes_default(labtui_home):
    """The rule `labtui run --all-volumes` uses: the home directory on the volume that holds it."""
    app = make_app(labtui_home, fake_home=Path("/data/lab"))
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        for key, expected in (("vol:/data", "/data/lab"), ("vol:/", "/labtui")):
            await _move_to(pilot, key)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal))
            assert app.screen.query_one("#target-path", Input).value == expected
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))


@pytest.mark.parametrize(
    ("row", "shown", "told"),
    [
        ("vol:/dev/shm", "Cannot be chosen: /dev/shm is tmpfs (memory)", "runs with the cache off"),
        ("vol:/mnt/iso", "Cannot be chosen: /mnt/iso is mounted read-only", "read-only"),
        ("disk:sdb", "Nothing on this disk is mounted", "has no mounted file system"),
    ],
    ids=["memory-for-cache-off", "read-only", "not-mounted"],
)
async def test_unusable_rows_say_why_and_cannot_be_chosen(labtui_home, row, shown, told):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, row)
        assert shown in screen_text(app)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, DisksScreen) and app.target is None
        assert any(told in str(n.message) for n in app._notifications)


async def test_a_remembered_target_gets_its_volume_facts_after_the_scan(labtui_home, tmp_path):
    Store(labtui_home).save_settings(Settings(target=str(tmp_path)))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        assert app.target.directory == tmp_path and app.target.mount_point == "/"


async def test_a_key_typed_right_after_enter_is_the_dialogs_as_if_typed_slowly(labtui_home):
    # Enter chose the volume through a message the table sent: "r" typed at once switched to the Run
    # screen first, and the dialog then opened over it. Enter opens the dialog as it is handled now, so
    # the r is the path's, as it is when typed slowly.
    from textual import events

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/")
        app.post_message(events.Key("enter", None))
        app.post_message(events.Key("r", "r"))
        await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal), what="the dialog")
        field = app.screen.query_one("#target-path", Input)
        await wait_for(pilot, lambda: field.value == f"{FAKE_HOME}r", what="r typed at the end of the path")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen), what="the Disks screen")


# The Disks screen's marks: several volumes marked, the profile run on each in turn with the real
# native engine, ending on their comparison; volumes a run cannot use are refused a mark.
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
