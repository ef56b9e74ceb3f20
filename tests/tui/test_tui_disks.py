"""The Disks screen: the device table, choosing a target volume and directory, and refusals."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from labtui.machine.devices import Volume
from labtui.machine.target_choice import DeviceScan
from labtui.results.store import Store
from labtui.screens.disks import DisksScreen
from labtui.screens.target_directory import TargetDirectoryModal
from labtui.settings import Settings
from labtui.widgets.volume_table import VolumeTable, link_cell, table_rows
from tui_support import (
    FAKE_DISKS,
    FAKE_HOME,
    FAKE_VOLUMES,
    GIB,
    disks_ready,
    fake_scan,
    make_app,
    screen_text,
    wait_for,
    widget_text,
)


def test_rows_put_usable_disk_volumes_first_and_unusable_ones_last():
    keys = [row.key for row in table_rows(fake_scan())]
    assert keys == ["vol:/", "vol:/boot/efi", "vol:/data", "disk:sdb", "vol:/dev/shm", "vol:/mnt/iso"]


def test_the_link_cell_names_the_generation_and_flags_a_slower_link():
    nvme = FAKE_DISKS[0]
    assert link_cell(nvme) == ("Gen3 x4 (max Gen4)", True)
    assert link_cell(replace(nvme, pcie_speed="16.0 GT/s PCIe")) == ("Gen4 x4", False)
    assert link_cell(replace(nvme, pcie_width=2)) == ("Gen3 x2 (max Gen4 x4)", True)
    assert link_cell(FAKE_DISKS[1]) == ("SATA 6G", False)
    assert link_cell(replace(FAKE_DISKS[1], sata_speed="3.0 Gbps")) == ("SATA 3G (max 6G)", True)
    assert link_cell(FAKE_DISKS[2]) == ("", False)  # the kernel gave no link speed


async def test_a_slower_link_is_flagged_before_any_run_with_what_it_costs(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        text = " ".join(screen_text(app).split())
        assert ("Link PCIe 3.0 x4, at most 3,938 MB/s: below the drive's PCIe 4.0 x4 (16 GT/s, 7,877 MB/s); "
                "the port above it supports at most 8 GT/s: the slot, not the drive, sets the speed") in text
        await _move_to(pilot, "vol:/data")
        text = " ".join(screen_text(app).split())
        assert "Link SATA 6 Gb/s (8b/10b encoding): at most 600 MB/s one direction at a time" in text
    async with make_app(labtui_home).run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        assert "slow link" in screen_text(pilot.app)  # narrow: no Link column, the note says it


async def _move_to(pilot, key: str) -> None:
    table = pilot.app.screen.query_one(VolumeTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.pause()


def adapters_scan() -> DeviceScan:
    """The fake machine plus the same NVMe SSD behind two PCIe adapters, mounted where a lab would."""
    disks, volumes = list(FAKE_DISKS), list(FAKE_VOLUMES)
    for n, adapter in ((1, "a"), (2, "b")):
        disks.append(replace(FAKE_DISKS[0], name=f"nvme{n}n1", path=f"/dev/nvme{n}n1", serial=f"S5GXNX0T99999{n}",
                             partitions=[f"nvme{n}n1p1"]))
        volumes.append(Volume(mount_point=f"/mnt/lab-nvme-adapter-{adapter}/data", source=f"/dev/nvme{n}n1p1",
                              filesystem="xfs", device=f"/dev/nvme{n}n1p1", disk=f"nvme{n}n1",
                              size_bytes=915 * GIB, free_bytes=900 * GIB, dev_id=f"259:{10 + n}"))
    return DeviceScan(tuple(disks), tuple(volumes))


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_row_says_which_volume_it_is_whole(labtui_home, size):
    """Nothing in the table is cut: two volumes on two adapters differ only in their mount point."""
    app = make_app(labtui_home, device_source=adapters_scan)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        table = app.screen.query_one(VolumeTable)
        widths = {column.key.value: column.width for column in table.columns.values()}
        assert sum(w + 2 for w in widths.values()) <= size[0] - 2  # no sideways scrolling
        cells = {key: dict(zip(widths, (c.plain for c in table.get_row(key)), strict=True))
                 for key in app.screen.rows}
        for n, adapter in ((1, "a"), (2, "b")):
            row = cells[f"vol:/mnt/lab-nvme-adapter-{adapter}/data"]
            assert row["mount"].replace("\n", "") == f"/mnt/lab-nvme-adapter-{adapter}/data"
            assert row["device"] == f"nvme{n}n1p1"
        assert cells["vol:/"]["device"] == "nvme0n1p2" and cells["vol:/boot/efi"]["device"] == "nvme0n1p1"
        assert all("…" not in text for row in cells.values() for text in row.values())
        assert all(len(line) <= widths[key] for row in cells.values() for key, text in row.items()
                   for line in text.split("\n"))
        text = screen_text(app)
        assert "Mount point" in text and "…" not in text.split("\n")[2]  # the header whole
        shown = cells["vol:/mnt/lab-nvme-adapter-b/data"]["mount"].split("\n")
        assert all(line in text for line in shown)
        if size[0] == 80:  # too narrow for the whole path on one line beside the rest
            assert shown == ["/mnt/lab-nvme-", "adapter-b/data"]
        else:
            assert "Gen3 x4 (max Gen4)" in text  # a link is said whole


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
        assert f"no such directory: {wanted}" in check
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


async def test_low_free_space_is_warned_about(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/data")
        text = screen_text(app)
        assert "low space" in text
        assert "Warning: quick-sanity needs 2.0 GiB (test file 1GiB + margin 1GiB), only 1.5 GiB is free" in text


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


async def test_a_key_that_leaves_the_screen_right_after_enter_opens_no_dialog_over_the_next_one(labtui_home):
    # Enter chooses the volume through a message the table sends; "r" typed at once switches to the
    # Run screen first, and the target dialog then opened over the Run screen, not the Disks one.
    from textual import events

    from labtui.screens.run import RunScreen

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/")
        app.post_message(events.Key("enter", None))
        app.post_message(events.Key("r", "r"))
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), what="the Run screen")
        for _ in range(10):
            await pilot.pause()
        assert isinstance(app.screen, RunScreen), f"{type(app.screen).__name__} over the Run screen"
        # On the Disks screen itself, Enter still opens it (Escape first: the Run screen's cursor is in its tags).
        await pilot.press("escape", "d")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen), what="the Disks screen")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TargetDirectoryModal), what="the dialog")
