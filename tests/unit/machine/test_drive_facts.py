"""The drive's facts: smartctl's JSON (real outputs of real drives) and sysfs trees laid out as the kernel
documents them (hwmon, the PCIe link, AER), read into one DriveFacts with its source."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import FIXTURES
from fakesys import NVME_CTRL, NVME_PCI, NVME_PORT, SATA_SCSI, build_lab_machine
from labtui.machine import drive, drive_sysfs, smartctl

SMARTCTL = FIXTURES / "smartctl-json"


def fixture(name: str) -> str:
    return (SMARTCTL / name).read_text()


def test_nvme_consumer_drive_health_log():
    report = smartctl.parse(fixture("SAMSUNG_MZVL21T0HCLR-00B00_23.json"))
    assert report.protocol == "NVMe"
    assert report.model == "SAMSUNG MZVL21T0HCLR-00B00"
    assert report.temperature_c == 29.0
    assert report.critical_warning is None and report.health_passed is True
    assert report.percentage_used == 16
    assert report.media_errors == 0 and report.error_log_entries == 0
    assert report.unsafe_shutdowns == 1
    assert report.data_written_bytes == 113662783 * 512_000  # NVMe data units are 1000 x 512 bytes
    assert report.warning_temp_minutes == 0 and report.critical_temp_minutes == 0
    assert report.thermal_transitions is None  # this drive does not report thermal management


def test_nvme_error_log_entries_and_older_smartctl():
    assert smartctl.parse(fixture("nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json")).error_log_entries == 22
    intel = smartctl.parse(fixture("nvme-null-INTEL_SSDPEK1A058GA-nvme0.json"))  # smartctl 7.1
    assert intel.temperature_c == 44.0 and intel.unsafe_shutdowns == 18
    crucial = smartctl.parse(fixture("nvme-null-CT250P2SSD8-nvme0.json"))
    assert crucial.temperature_c == 26.0 and crucial.error_log_entries == 1


def test_sata_ssd_and_hdd_attributes():
    ssd = smartctl.parse(fixture("sat-Dell_Certified_Intel_S3520_Series_SSDs-SSDSCKJB240G7R-sdm.json"))
    assert ssd.protocol == "ATA" and ssd.temperature_c == 47.0
    assert ssd.unsafe_shutdowns == 167  # attribute 174
    assert ssd.media_errors == 0  # 5 + 197 + 198
    assert ssd.data_written_bytes is None  # attribute 241's unit is the vendor's (32 MiB here)
    hdd = smartctl.parse(fixture("WDC_WD20EFRX-68EUZN0_17.json"))
    assert hdd.temperature_c == 34.0 and hdd.error_log_entries == 0 and hdd.critical_warning is None
    assert hdd.percentage_used is None


def test_thresholds_thermal_management_and_critical_warning_by_smartmontools_keys():
    """A drive that reports what the fixtures' drives do not: the keys as smartmontools' nvmeprint.cpp writes them."""
    data = json.loads(fixture("SAMSUNG_MZVL21T0HCLR-00B00_23.json"))
    data["temperature"].update(op_limit_max=82, critical_limit_max=85)
    log = data["nvme_smart_health_information_log"]
    log.update(critical_warning=0x09, thermal_mgmt_temperature_1_transition_count=3,
               thermal_mgmt_temperature_1_total_time=40, thermal_mgmt_temperature_2_transition_count=1,
               thermal_mgmt_temperature_2_total_time=5)
    data["smart_status"] = {"passed": False, "nvme": {"value": 9, "spare_below_threshold": True,
                                                      "media_read_only": True}}
    report = smartctl.parse(json.dumps(data))
    assert (report.warning_c, report.critical_c) == (82.0, 85.0)
    assert report.thermal_transitions == 4 and report.thermal_seconds == 45
    assert report.critical_warning == "available spare below its threshold, media placed in read-only mode"
    assert report.health_passed is False


def test_smartctl_that_reads_no_drive_says_why(tmp_path):
    """Debian's smartctl on a device it cannot identify (the virtio disk, a loop device): its own message."""
    with pytest.raises(smartctl.SmartctlError, match="Unable to detect device type|No such device|Unable"):
        smartctl.ask("/dev/null")
    with pytest.raises(ValueError):
        smartctl.parse("not json")
    with pytest.raises(smartctl.SmartctlError, match="cannot run smartctl"):
        smartctl.ask("/dev/sda", str(tmp_path / "no-such-smartctl"))


def test_hostile_strings_are_made_printable():
    data = json.loads(fixture("nvme-null-CT250P2SSD8-nvme0.json"))
    data["model_name"] = "CT250\x1b[31mP2"
    assert "\x1b" not in (smartctl.parse(json.dumps(data)).model or "")


# --------------------------------------------------------------------------- sysfs


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
