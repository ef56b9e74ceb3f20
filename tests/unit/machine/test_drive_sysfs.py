"""A drive's temperature and its PCIe function's error counters as sysfs shows them (labtui.machine.drive_sysfs),
on trees laid out as the kernel documents them (sysfs-class-hwmon, sysfs-bus-pci-devices-aer_stats)."""

from __future__ import annotations

from fakesys import NVME_CTRL, NVME_PCI, NVME_PORT, SATA_SCSI, USB_SCSI, FakeSys, build_lab_machine
from labtui.machine import drive_sysfs
from labtui.machine.drive_sysfs import Aer, Hwmon


def test_the_nvme_drivers_sensor_right_under_the_controller_and_drivetemps_under_its_hwmon_folder(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    fake.hwmon(NVME_CTRL, 1, "nvme", 41850, max_mc=81850, crit_mc=84850)
    fake.hwmon(SATA_SCSI, 2, "drivetemp", 36000, nested=True)
    assert drive_sysfs.hwmon_of(fake.root / NVME_CTRL) == Hwmon("nvme", 41.85, 81.85, 84.85)
    assert drive_sysfs.hwmon_of(fake.root / SATA_SCSI) == Hwmon("drivetemp", 36.0, None, None)
    assert drive_sysfs.hwmon_of(fake.root / USB_SCSI) is None


def test_a_dead_sensor_is_skipped_for_the_next_one_that_reads_a_temperature(tmp_path):
    fake = FakeSys(tmp_path)
    fake.hwmon("ctrl", 0, "nvme", -273150)  # what an unreadable sensor reads
    fake.hwmon("ctrl", 3, "nvme", 250000)  # and an absurd one
    assert drive_sysfs.hwmon_of(tmp_path / "ctrl") is None
    fake.hwmon("ctrl", 4, "nvme", 38000)
    assert drive_sysfs.hwmon_of(tmp_path / "ctrl") == Hwmon("nvme", 38.0)
    fake.file("ctrl/hwmon_extra/temp1_input", "20000")  # not hwmonN: not a sensor
    assert drive_sysfs.hwmon_of(tmp_path / "ctrl").temperature_c == 38.0


def test_aer_counts_are_the_files_total_lines_and_none_where_the_kernel_keeps_none(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    assert drive_sysfs.aer_of(fake.root / NVME_PCI) == Aer(None, None, None)  # no AER files: not counted, not 0
    fake.aer(NVME_PCI, correctable=3, fatal=1)
    assert drive_sysfs.aer_of(fake.root / NVME_PCI) == Aer(3, 0, 1)
    assert drive_sysfs.parse_aer("RxErr 1\nBadTLP 0", "TOTAL_ERR_COR") is None
    assert drive_sysfs.parse_aer("TOTAL_ERR_COR many\nTOTAL_ERR_COR 4", "TOTAL_ERR_COR") == 4
    assert drive_sysfs.parse_aer(None, "TOTAL_ERR_COR") is None


def test_a_block_devices_pci_function_and_the_port_above_it(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    pci = drive_sysfs.pci_of(fake.root / "block/nvme0n1")
    assert pci == (fake.root / NVME_PCI).resolve()
    assert drive_sysfs.port_of(pci) == (fake.root / NVME_PORT).resolve()
    assert drive_sysfs.port_of((fake.root / NVME_PORT).resolve()) is None  # above it the host bridge, no port
    assert drive_sysfs.pci_of(fake.root / "block/loop1") is None  # a virtual device has none
