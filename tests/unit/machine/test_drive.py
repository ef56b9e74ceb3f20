"""The drive's facts (labtui.machine.drive): smartctl where it answers (real outputs of real drives), sysfs
trees laid out as the kernel documents them (hwmon, the PCIe link, AER) for the rest, read into one
DriveFacts with its source. smartctl's JSON alone: test_smartctl.py; the sysfs files alone: test_drive_sysfs.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import FIXTURES
from fakesys import NVME_CTRL, NVME_PCI, NVME_PORT, SATA_SCSI, build_lab_machine
from labtui.machine import drive, drive_sysfs

SMARTCTL = FIXTURES / "smartctl-json"


def fixture(name: str) -> str:
    return (SMARTCTL / name).read_text()


def lab(tmp_path: Path):
    fake = build_lab_machine(tmp_path / "sys")
    fake.hwmon(NVME_CTRL, 1, "nvme", 41850, max_mc=81850, crit_mc=84850)
    fake.aer(NVME_PCI, correctable=3)
    fake.aer(NVME_PORT, correctable=7, nonfatal=1)
    fake.hwmon(SATA_SCSI, 2, "drivetemp", 36000, max_mc=70000, crit_mc=75000, nested=True)
    return fake


def test_sysfs_hwmon_link_and_aer_without_smartctl(tmp_path):
    fake = lab(tmp_path)
    facts = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path="").facts()
    assert facts is not None
    assert facts.source == "nvme hwmon + sysfs"
    assert (facts.temperature_c, facts.warning_c, facts.critical_c) == (41.85, 81.85, 84.85)
    assert (facts.pcie_speed, facts.pcie_width) == ("8.0 GT/s PCIe", 2)
    assert (facts.aer_correctable, facts.aer_nonfatal, facts.aer_fatal) == (3, 0, 0)
    assert (facts.port_aer_correctable, facts.port_aer_nonfatal) == (7, 1)
    assert facts.aer_total == 11
    reading = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path="").reading()
    assert reading is not None and reading.temperature_c == 41.85 and reading.link_gts == 8.0
    assert reading.pcie_width == 2


def test_drivetemp_on_a_sata_disk(tmp_path):
    fake = lab(tmp_path)
    facts = drive.DriveReader("sda", sys_root=fake.root, smartctl_path="").facts()
    assert facts is not None and facts.source.startswith("drivetemp hwmon")
    assert facts.temperature_c == 36.0 and facts.warning_c == 70.0
    assert facts.pcie_width is None  # the HBA's link is not the drive's


def test_nothing_readable_is_none(tmp_path):
    fake = lab(tmp_path)
    assert drive.DriveReader("loop1", sys_root=fake.root, smartctl_path="").facts() is None
    reader = drive.DriveReader("loop1", sys_root=fake.root, smartctl_path="")
    assert reader.reading() is None and reader.smartctl_problem == "smartctl is not installed"


def test_aer_file_without_a_total_and_a_dead_sensor(tmp_path):
    assert drive_sysfs.parse_aer("RxErr 1\nBadTLP 0", "TOTAL_ERR_COR") is None
    fake = lab(tmp_path)
    fake.file(f"{NVME_CTRL}/hwmon1/temp1_input", "-273150")
    facts = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path="").facts()
    assert facts is not None and facts.temperature_c is None


def fake_smartctl(tmp_path: Path, answers: list[str]) -> Path:
    """A `smartctl` answering the given real outputs in turn (the last one from then on)."""
    folder = tmp_path / "answers"
    folder.mkdir(exist_ok=True)
    for i, text in enumerate(answers):
        (folder / f"{i}.json").write_text(text)
    script = tmp_path / "smartctl"
    script.write_text(
        "#!/bin/sh\n"
        f'd="{folder}"; n=$(cat "$d/count" 2>/dev/null || echo 0)\n'
        f'if [ -f "$d/$n.json" ]; then cat "$d/$n.json"; else cat "$d/{len(answers) - 1}.json"; fi\n'
        'echo $((n + 1)) > "$d/count"\n'
    )
    script.chmod(0o755)
    return script


def test_smartctl_first_sysfs_for_the_rest(tmp_path):
    fake = lab(tmp_path)
    program = fake_smartctl(tmp_path, [fixture("SAMSUNG_MZVL21T0HCLR-00B00_23.json")])
    facts = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path=str(program)).facts()
    assert facts is not None and facts.source == "smartctl + sysfs"
    assert facts.temperature_c == 29.0 and facts.percentage_used == 16  # smartctl's, not hwmon's 41.85
    assert facts.pcie_width == 2 and facts.port_aer_correctable == 7  # sysfs's


def test_a_device_smartctl_refuses_is_not_asked_again(tmp_path):
    fake = lab(tmp_path)
    program = fake_smartctl(tmp_path, ['{"smartctl": {"exit_status": 2, "messages": [{"string": "Permission denied"}]}}'])
    drive.forget_refusals()
    reader = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path=str(program))
    for _ in range(3):
        assert reader.reading() is not None  # hwmon answers
    assert (tmp_path / "answers" / "count").read_text().strip() == "1"
    assert reader.smartctl_problem == "Permission denied"
    drive.forget_refusals()
    assert os.access(program, os.X_OK)


def _smartctl_saying(tmp_path: Path, current: str) -> Path:
    """A `smartctl` printing a real drive's answer (smartctl -j -a) with its temperature written as `current`."""
    data = json.loads((FIXTURES / "smartctl-json" / "SAMSUNG_MZVL21T0HCLR-00B00_23.json").read_text())
    data["temperature"]["current"] = 987654321987
    data["nvme_smart_health_information_log"]["temperature"] = 987654321987
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(data).replace("987654321987", current))
    script = tmp_path / "smartctl"
    script.write_text(f"#!/bin/sh\ncat '{answer}'\n")
    script.chmod(0o755)
    return script


def test_a_temperature_smartctl_cannot_have_gives_way_to_the_drive_s_sensor(tmp_path):
    """65262 °C (a sensor read as 0xFFFF K) was the drive's temperature before and after every step, shown and
    compared; a 400-digit one ended `labtui disks` and every run with "internal error: OverflowError". Now
    neither is a temperature: the hwmon sensor's reading is the drive's, or none where there is no sensor."""
    fake = build_lab_machine(tmp_path / "sys")
    fake.hwmon(NVME_CTRL, 1, "nvme", 41850, max_mc=81850, crit_mc=84850)
    for current in ("65262", "-273", "1" + "0" * 400, "NaN"):
        drive.forget_refusals()
        reader = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path=str(_smartctl_saying(tmp_path, current)))
        facts = reader.facts()
        assert facts is not None and reader.smartctl_problem is None, current
        assert facts.source == "nvme hwmon + sysfs" and facts.temperature_c == 41.85, current
        assert facts.percentage_used == 16  # the rest of smartctl's answer stands
        reading = reader.reading()
        assert reading is not None and reading.source == "nvme hwmon" and reading.temperature_c == 41.85, current
    fake.file(f"{NVME_CTRL}/hwmon1/temp1_input", "65535000")  # the sensor cannot be read either
    facts = drive.DriveReader("nvme0n1", sys_root=fake.root, smartctl_path=str(_smartctl_saying(tmp_path, "65262"))).facts()
    assert facts is not None and facts.temperature_c is None
    drive.forget_refusals()
