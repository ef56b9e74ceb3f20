"""The panel under the Disks screen's table (widgets/disk_detail.py): the link, health and space of the
row."""

from __future__ import annotations

from disks_support import _move_to
from labtui.machine.target_choice import DeviceScan
from labtui.model.result import DriveFacts
from labtui.tui.quick_trial import QuickTrial
from tui_support import (
    FAKE_DISKS,
    FAKE_VOLUMES,
    disks_ready,
    make_app,
    screen_text,
    wait_for,
    widget_text,
)


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


async def test_low_free_space_is_warned_about(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await _move_to(pilot, "vol:/data")
        text = screen_text(app)
        assert "low space" in text
        assert "Warning: quick-sanity needs 2.0 GiB (test file 1.0 GiB + margin 1.0 GiB), only 1.5 GiB is free" in text
        # The Run screen's Override fields make the test file smaller: the room is the run's as it would start.
        app.quick_trial = QuickTrial(file_size=256 * 1024**2)
        await wait_for(pilot, lambda: "Room for quick-sanity: it needs 1.2 GiB" in widget_text(app, "#volume-detail"))
        assert "Warning" not in widget_text(app, "#volume-detail")
        assert screen_text(app).count("low space") == text.count("low space") - 1  # /data's note is gone


def health_scan() -> DeviceScan:
    hot = DriveFacts(source="smartctl + sysfs", temperature_c=71.0, warning_c=82.0, health_passed=False,
                     critical_warning="available spare below its threshold", percentage_used=97, media_errors=3,
                     aer_correctable=2, port_aer_correctable=5)
    return DeviceScan(FAKE_DISKS, FAKE_VOLUMES, {
        "nvme0n1": (hot, None),
        "sda": (DriveFacts(source="drivetemp hwmon", temperature_c=36.0), "Permission denied"),
        "sdb": (None, "smartctl is not installed"),
    })


async def test_the_disks_screen_says_temperature_health_and_pcie_errors_with_their_source(labtui_home):
    app = make_app(labtui_home, device_source=health_scan)
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        assert "Temp" in screen_text(app) and "71 °C" in screen_text(app)
        detail = widget_text(app, "#volume-detail")
        assert ("Temperature 71 °C (warning 82) · health CRITICAL: available spare below its threshold, 97 % used, "
                "3 media errors · PCIe errors 7 since boot (5 at the port) · from smartctl + sysfs") in detail
