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


# --------------------------------------------------------------------------- what no drive can say

NVME = fixture("SAMSUNG_MZVL21T0HCLR-00B00_23.json")
SATA = fixture("WDC_WD20EFRX-68EUZN0_17.json")


def _edited(text: str, change) -> str:
    data = json.loads(text)
    change(data)
    return json.dumps(data)


def _number(text: str, spelt: str) -> str:
    """`text` (JSON) with the number 987654321987 written as `spelt`: what json.dumps would not write."""
    return text.replace("987654321987", spelt)


@pytest.mark.parametrize("spelt", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400, "65262", "-273"],
                         ids=["nan", "inf", "-inf", "1e400", "400-digits", "0xFFFF-K", "0-K"])
def test_a_temperature_no_drive_can_have_is_unknown_not_a_fact(spelt):
    """A sensor that cannot be read makes smartctl say 65262 °C (0xFFFF K) or -273 °C (0 K); Python's JSON reads
    NaN and Infinity, and a 400-digit number ended `labtui disks` and every run with an OverflowError.
    The composite temperature of the health log stands in where `temperature.current` is no temperature."""

    def current(data):
        data["temperature"].update(current=987654321987, op_limit_max=987654321987, critical_limit_max=987654321987)

    report = smartctl.parse(_number(_edited(NVME, current), spelt))
    assert report.temperature_c == 29.0  # the health log's composite
    assert report.warning_c is None and report.critical_c is None

    def both(data):
        data["temperature"]["current"] = 987654321987
        data["nvme_smart_health_information_log"]["temperature"] = 987654321987

    assert smartctl.parse(_number(_edited(NVME, both), spelt)).temperature_c is None


def test_an_ata_temperature_byte_past_what_a_drive_can_have_is_unknown():
    def hot(data):
        del data["temperature"]
        for attribute in data["ata_smart_attributes"]["table"]:
            if attribute["id"] == 194:
                attribute["raw"]["value"] = 0xFF  # the raw's low byte is °C: 255
    assert smartctl.parse(_edited(SATA, hot)).temperature_c is None


@pytest.mark.parametrize("spelt", ["-1", str(2**128), "1" + "0" * 400, "1.5", "true"],
                         ids=["negative", "2**128", "400-digits", "fraction", "true"])
def test_a_counter_no_drive_can_keep_is_unknown(spelt):
    """NVMe keeps its counters in 128 bits: a negative one, one past that, or not a whole number is not a count."""

    def counters(data):
        log = data["nvme_smart_health_information_log"]
        for key in ("media_errors", "data_units_written", "unsafe_shutdowns", "percentage_used"):
            log[key] = 987654321987

    report = smartctl.parse(_number(_edited(NVME, counters), spelt))
    assert (report.media_errors, report.data_written_bytes, report.unsafe_shutdowns, report.percentage_used) == \
        (None, None, None, None)
    most = smartctl.parse(_number(_edited(NVME, counters), str(2**128 - 1)))  # the largest a drive can say
    assert most.media_errors == 2**128 - 1 and most.data_written_bytes == (2**128 - 1) * smartctl.DATA_UNIT


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"smartctl": {"exit_status": ' + "1" * 5000 + "}}"],
                         ids=["nested", "5000-digits"])
def test_an_answer_json_cannot_hold_is_a_value_error(text):
    """Nested 100,000 deep (RecursionError) or a 5,000-digit number (past Python's limit): ValueError, which
    `ask` turns into the one line that says smartctl's answer did not read, not an internal error."""
    with pytest.raises(ValueError):
        smartctl.parse(text)
