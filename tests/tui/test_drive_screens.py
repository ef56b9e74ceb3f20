"""The drive on screen and in the CLI: the Disks screen's temperature and health, `labtui disks --json`,
and a run refused before writing on a drive that reports a critical warning (--force measures anyway)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.drive import DriveReader, forget_refusals
from labtui.machine.target_choice import DeviceScan
from labtui.model.profile import Profile, Step
from labtui.model.result import DriveFacts
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from tui_support import FAKE_DISKS, FAKE_VOLUMES, disks_ready, make_app, screen_text, widget_text

FIXTURE = FIXTURES / "smartctl-json" / "SAMSUNG_MZVL21T0HCLR-00B00_23.json"


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


def test_labtui_disks_json_gives_each_disk_its_health_and_why_smartctl_said_nothing(labtui_home):
    out = subprocess.run(labtui_cmd("disks", "--json"), capture_output=True, text=True, timeout=60,
                         env=os.environ | {"LABTUI_HOME": str(labtui_home)})
    assert out.returncode == 0, out.stderr
    disks = json.loads(out.stdout)["disks"]
    assert disks and all("health" in d for d in disks)
    # Here: a virtio disk Debian's smartctl cannot identify, and no hwmon or AER in the VM's sysfs.
    for d in disks:
        health = d["health"]
        assert health["facts"] is not None or health["smartctl_problem"]


def smartctl_with_warning(folder: Path) -> str:
    data = json.loads(FIXTURE.read_text())
    data["nvme_smart_health_information_log"]["critical_warning"] = 1
    data["smart_status"] = {"passed": False, "nvme": {"value": 1, "spare_below_threshold": True}}
    (folder / "answer.json").write_text(json.dumps(data))
    script = folder / "smartctl"
    script.write_text(f'#!/bin/sh\ncat "{folder / "answer.json"}"\n')
    script.chmod(0o755)
    return str(script)


def test_a_critical_warning_refuses_the_run_before_writing_and_force_measures_anyway(tmp_path):
    program = smartctl_with_warning(tmp_path)
    forget_refusals()
    target = tmp_path / "target"
    target.mkdir()
    profile = Profile(name="p", file_size=1024 * 1024, free_space_margin=0,
                      steps=(Step(name="r", block_size=65536, duration=0.2, warmup=0.0),))

    def options(force: bool) -> RunOptions:
        return RunOptions(force=force, drive=lambda disk: DriveReader(disk, smartctl_path=program))

    if not devices.target_info(target).disk:
        pytest.skip("no disk under the temporary directory")
    runner = Runner(profile, target, Store(tmp_path / "home"), options(False))
    with pytest.raises(LabtuiError, match="reports a critical warning: available spare below its threshold "
                                          r"\(smartctl.*nothing was written.*--force measures it anyway"):
        runner.preflight()
    assert list(target.iterdir()) == []
    forced = Runner(profile, target, Store(tmp_path / "home"), options(True))
    forced.preflight()
    forced.close()
    assert any("measured anyway (--force)" in w for w in forced._warnings)
    forget_refusals()


async def test_the_result_screen_shows_the_drive_and_the_drop_of_the_step_under_the_cursor(labtui_home):
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import Drop
    from labtui.screens.result import ResultScreen

    result = make_result()
    hot = (DriveFacts(source="smartctl + sysfs", temperature_c=61.0, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                      pcie_width=4, aer_correctable=0),
           DriveFacts(source="smartctl + sysfs", temperature_c=84.0, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                      pcie_width=4, aer_correctable=0))
    drop = Drop(2.0, 5 * 1024**3, 1800.0, 420.0, "thermal", "the drive reached 83 °C at 2 s (its warning threshold is 82 °C)")
    steps = (replace(result.steps[0], drive_before=hot[0], drive_after=hot[1], drops=(drop,)), *result.steps[1:])
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultScreen(replace(result, steps=steps)))
        await pilot.pause()
        text = widget_text(app, "#step-drive")
        assert "Drive: 61 → 84 °C (max 84 °C, warning 82 °C), link 8.0 GT/s PCIe x4, no PCIe errors; smartctl + sysfs" \
            in text, text
        assert "Throughput drop at 2 s, after 5.0 GiB: 1,800 → 420 MiB/s (-77 %), thermal" in text
