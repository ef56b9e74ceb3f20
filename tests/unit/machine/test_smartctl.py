"""smartctl's JSON as labtui.machine.smartctl reads it: real outputs of real drives, by smartmontools' own keys."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from labtui.machine import smartctl

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
