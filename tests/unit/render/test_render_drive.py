"""The drive during a run in words (labtui.render.drive), on synthetic readings: its temperature and link around
a step, the readings beside the throughput, and a disk's health cells, "-" where nothing was read."""

from __future__ import annotations

from dataclasses import replace

from labtui.model.result import DriveFacts, Sample, StepResult
from labtui.render import drive
from synthetic import READ

BEFORE = DriveFacts(source="smartctl + sysfs", temperature_c=45.0, warning_c=82.0, pcie_speed="8.0 GT/s PCIe",
                    pcie_width=4, aer_correctable=2, thermal_transitions=3, thermal_seconds=10)


def readings(*temps: float) -> tuple[Sample, ...]:
    return tuple(Sample(t=float(i + 1), seconds=1.0, read_ios=1024, read_bytes=1024 * 65536, drive_temp_c=c,
                        link_gts=8.0 if c is not None else None, link_width=4 if c is not None else None)
                 for i, c in enumerate(temps))


def test_a_step_that_heated_the_drive_throttled_and_retrained_says_each_in_one_line():
    after = replace(BEFORE, temperature_c=85.0, pcie_width=2, aer_correctable=5, thermal_transitions=5,
                    thermal_seconds=40)
    step = StepResult(step=READ, drive_before=BEFORE, drive_after=after, samples=readings(60.0, None, 84.0))
    assert drive.temperatures(step) == [45.0, 60.0, 84.0, 85.0]
    line = drive.step_drive_line(step)
    assert line is not None and line.startswith("45 → 85 °C (max 85 °C, warning 82 °C) ")
    assert ", link 8.0 GT/s PCIe x4 → 8.0 GT/s PCIe x2, 3 PCIe errors (AER), throttled (2 thermal transitions, 30 s)" \
           "; smartctl + sysfs" in line
    quiet = StepResult(step=READ, drive_before=BEFORE, drive_after=BEFORE)
    assert drive.step_drive_line(quiet) == "45 → 45 °C (max 45 °C, warning 82 °C), link 8.0 GT/s PCIe x4, " \
                                           "no PCIe errors; smartctl + sysfs"
    assert drive.step_drive_line(StepResult(step=READ)) is None


def test_the_temperature_bars_span_the_readings_own_range_not_from_zero():
    from labtui.render.sparkline import sparkline

    assert sparkline([48.0, 58.0]) == "▇█"  # from 0 °C, ten degrees apart look alike
    assert drive.temperature_spark([48.0, 58.0]) == "▂█" and drive.temperature_spark([50.0]) == ""


def test_the_readings_beside_their_throughput_and_what_the_result_file_keeps_beyond_the_limit():
    step = StepResult(step=READ, samples=readings(70.0, None, 71.0, 72.0))
    lines = drive.series_lines(step, limit=2)
    assert lines[0] == "     1.0 s       1,024 IOPS       64.0 MiB/s    70 °C  8 GT/s x4"
    assert len(lines) == 3 and lines[-1] == "  ... 1 more readings in the result file"
    said = drive.drive_json(step)
    assert [r["temperature_c"] for r in said["series"]] == [70.0, 71.0, 72.0] and said["max_temperature_c"] == 72.0
    assert said["before"] is None and drive.series_lines(StepResult(step=READ)) == []


def test_a_disks_health_cells_and_nothing_readable_says_why():
    worn = replace(BEFORE, health_passed=False, percentage_used=97, media_errors=1, port_aer_correctable=4)
    temp, health, aer, source = drive.health_cells(worn, "Permission denied")
    assert (temp, health, aer) == ("45 °C (warning 82)", "FAILED, 97 % used, 1 media error", "6 since boot (4 at the port)")
    assert source == "smartctl + sysfs"  # smartctl answered: its old refusal is not said
    assert drive.health_cells(None, "smartctl is not installed") == (
        "-", "-", "-", "nothing readable (smartctl is not installed)")
    assert drive.health_cells(replace(BEFORE, source="hwmon + sysfs"), "Permission denied")[3] == (
        "hwmon + sysfs; smartctl: Permission denied")
