"""The drive under a run, read before, during and after each step: smartctl where it answers, sysfs else.

`DriveReader(disk)` asks `smartctl -j` first (model, temperature, thresholds, health, wear, thermal
transitions: labtui.machine.smartctl), then sysfs for what smartctl does not give or where it cannot
answer (not installed, not root, a drive it cannot open): the hwmon temperature, the PCIe link now
(labtui.machine.links) and the AER counters of the drive's function and of the port above it
(labtui.machine.drive_sysfs). Each reading says its source.

`facts()` is the whole reading (before and after a step); `reading()` the light one taken every few
seconds during a step: the temperature and the link (smartctl -A, the health log alone, where
smartctl answers; else sysfs files). A device smartctl cannot read is not asked again for a while:
one refusal per device, not one per sample, and none per run on a machine where it never answers.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

from labtui.machine import drive_sysfs, links, programs, smartctl
from labtui.machine.smartctl import SmartctlError, SmartReport
from labtui.model.result import DriveFacts, DriveReading

SYS = Path("/sys")
REFUSAL_SECONDS = 600.0  # how long a device smartctl could not read is left unasked
_refused: dict[tuple[str, str], tuple[float, str]] = {}  # (smartctl, device) -> (when, why)


def forget_refusals() -> None:
    """Ask smartctl again about every device (a test that puts another smartctl on PATH)."""
    _refused.clear()


class DriveReader:
    """Reads one disk (its kernel name: nvme0n1, sda) through smartctl and sysfs.

    `smartctl`: the program to ask ("" never asks; None finds it on PATH), `sys_root` the sysfs to read.
    """

    def __init__(self, disk: str, *, sys_root: Path = SYS, smartctl_path: str | None = None) -> None:
        self.disk = disk
        self.sys_root = sys_root
        self.smartctl_problem: str | None = None  # why smartctl gave nothing (shown where the source is)
        self._refusal: str | None = None  # as root, why the smartctl found is not run (labtui.machine.programs)
        try:
            self.program = programs.find(smartctl_path or "smartctl") if smartctl_path != "" else None
        except programs.ProgramRefused as exc:
            self.program, self._refusal = None, str(exc)
        block = sys_root / "block" / disk
        self._controller = self._nvme_controller(block)
        self._pci = (self._controller / "device") if self._controller is not None else drive_sysfs.pci_of(block)
        self._port = drive_sysfs.port_of(self._pci) if self._pci is not None else None
        self._hwmon_home = self._controller if self._controller is not None else block / "device"

    def _nvme_controller(self, block: Path) -> Path | None:
        if not self.disk.startswith("nvme"):
            return None
        device = block / "device"
        return device if (device / "device").exists() else None

    # ------------------------------------------------------------------ smartctl

    def _smart(self, brief: bool) -> SmartReport | None:
        if self.program is None:
            self.smartctl_problem = self._refusal or "smartctl is not installed"
            return None
        device = f"/dev/{self.disk}"
        key = (self.program, device)
        refused = _refused.get(key)
        if refused is not None and time.monotonic() - refused[0] < REFUSAL_SECONDS:
            self.smartctl_problem = refused[1]
            return None
        try:
            report = smartctl.ask(device, self.program, brief=brief)
        except SmartctlError as exc:
            self.smartctl_problem = str(exc)
            _refused[key] = (time.monotonic(), str(exc))
            return None
        self.smartctl_problem = None
        return report

    # ------------------------------------------------------------------ sysfs

    def _link(self) -> tuple[str | None, int | None]:
        if self._pci is None or self._controller is None:
            return None, None  # an HBA's link is not the drive's: only an NVMe drive's function is its own
        facts = links.pcie_link(self._pci)
        return facts.get("pcie_speed"), facts.get("pcie_width")

    def _hwmon(self) -> drive_sysfs.Hwmon | None:
        return drive_sysfs.hwmon_of(self._hwmon_home)

    # ------------------------------------------------------------------ readings

    def facts(self) -> DriveFacts | None:
        """Everything the drive and the kernel say now; None where neither says anything."""
        report = self._smart(brief=False)
        hwmon = self._hwmon()
        speed, width = self._link()
        aer = drive_sysfs.aer_of(self._pci) if self._pci is not None else drive_sysfs.Aer()
        port = drive_sysfs.aer_of(self._port) if self._port is not None else drive_sysfs.Aer()
        sysfs_said = any(v is not None for v in (speed, width, aer.correctable, aer.nonfatal, aer.fatal,
                                                  port.correctable))
        facts = DriveFacts(source="sysfs", pcie_speed=speed, pcie_width=width,
                           aer_correctable=aer.correctable, aer_nonfatal=aer.nonfatal, aer_fatal=aer.fatal,
                           port_aer_correctable=port.correctable, port_aer_nonfatal=port.nonfatal,
                           port_aer_fatal=port.fatal)
        if report is not None:
            facts = replace(facts, source="smartctl + sysfs" if sysfs_said else "smartctl",
                            **{k: getattr(report, k) for k in _SMART_FACTS})
        if hwmon is not None and facts.temperature_c is None:
            facts = replace(facts, source=f"{hwmon.name} hwmon" + (" + sysfs" if sysfs_said else ""),
                            temperature_c=hwmon.temperature_c, warning_c=hwmon.max_c, critical_c=hwmon.crit_c)
        if report is None and hwmon is None and not sysfs_said:
            return None
        return facts

    def reading(self) -> DriveReading | None:
        """The temperature and the link now (smartctl's health log, else the hwmon sensor); None: nothing."""
        report = self._smart(brief=True)
        speed, width = self._link()
        if report is not None and report.temperature_c is not None:
            return DriveReading("smartctl", report.temperature_c, report.warning_c, speed, width,
                                report.thermal_transitions)
        hwmon = self._hwmon()
        if hwmon is not None:
            return DriveReading(f"{hwmon.name} hwmon", hwmon.temperature_c, hwmon.max_c, speed, width)
        if speed is not None or width is not None:
            return DriveReading("sysfs", pcie_speed=speed, pcie_width=width)
        return None


_SMART_FACTS = ("temperature_c", "warning_c", "critical_c", "critical_warning", "health_passed", "percentage_used",
                "available_spare", "media_errors", "error_log_entries", "unsafe_shutdowns", "data_written_bytes",
                "warning_temp_minutes", "critical_temp_minutes", "thermal_transitions", "thermal_seconds")


def run_reader(disk: str) -> DriveReader | None:
    """The reader a run uses for its disk; None where LABTUI_DRIVE=off says runs read no drive (the tests'
    machine-independent runs; a person who wants no smartctl calls at all)."""
    return None if os.environ.get("LABTUI_DRIVE", "").lower() == "off" else DriveReader(disk)


def disk_facts(disk: str, sys_root: Path = SYS, smartctl_path: str | None = None) -> tuple[DriveFacts | None, str | None]:
    """A disk's facts for the Disks screen and `labtui disks`, and why smartctl said nothing (None: it did)."""
    reader = DriveReader(disk, sys_root=sys_root, smartctl_path=smartctl_path)
    return reader.facts(), reader.smartctl_problem
