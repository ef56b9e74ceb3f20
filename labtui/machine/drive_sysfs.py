"""A drive's temperature and its PCIe function's error counters, as sysfs shows them without smartctl.

- Temperatures (Documentation/ABI/testing/sysfs-class-hwmon): an hwmon device's `tempN_input`,
  `tempN_max`, `tempN_crit` in millidegrees Celsius, `tempN_label`, its `name`. The NVMe driver
  registers one under the controller (/sys/class/nvme/nvme0/hwmonN, name "nvme"; temp1 is the
  "Composite" temperature, temp1_max the drive's over-temperature threshold, temp1_crit its critical
  composite temperature: Documentation/hwmon/nvme.rst, kernel 5.5 and later); `drivetemp` one under a
  SATA or SAS disk's SCSI device (/sys/block/sdX/device/hwmon/hwmonN, name "drivetemp", kernel 5.6
  and later, where the module is loaded: Documentation/hwmon/drivetemp.rst).
- AER (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats, kernel 4.19 and later): each
  AER-capable PCI device's `aer_dev_correctable`, `aer_dev_nonfatal`, `aer_dev_fatal`, one
  "NAME COUNT" line per error kind, and the totals TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL.
  An endpoint's errors may be counted at its link partner (the port above it) instead: both are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from labtui.machine.sysfs import iterdir, read, read_int
from labtui.model.result import celsius

_PCI_ADDRESS = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")


@dataclass(frozen=True)
class Hwmon:
    """One temperature sensor of a drive, in °C; `name` the driver that registered it."""

    name: str
    temperature_c: float | None
    max_c: float | None = None
    crit_c: float | None = None


@dataclass(frozen=True)
class Aer:
    """A PCI function's AER totals since boot (None: the kernel does not count them for it)."""

    correctable: int | None = None
    nonfatal: int | None = None
    fatal: int | None = None


def _millidegrees(path: Path) -> float | None:
    value = read_int(path)
    # An unreadable sensor reads as an error or as absurd values (-273 °C): none is a temperature.
    return celsius(value / 1000.0) if value is not None and abs(value) < 10**9 else None


def hwmon_of(device: Path) -> Hwmon | None:
    """The first temperature sensor registered under `device` (an NVMe controller or a SCSI device):
    either hwmonN directly under it (the NVMe driver) or under its hwmon/ folder (drivetemp)."""
    candidates = [p for p in iterdir(device) if p.name.startswith("hwmon")]
    holder = device / "hwmon"
    candidates += [p for p in iterdir(holder) if p.name.startswith("hwmon")]
    for hwmon in sorted(candidates, key=lambda p: p.name):
        if not hwmon.name[5:].isdigit():
            continue
        temp = _millidegrees(hwmon / "temp1_input")
        if temp is None:
            continue
        return Hwmon(read(hwmon / "name") or "hwmon", temp, _millidegrees(hwmon / "temp1_max"),
                     _millidegrees(hwmon / "temp1_crit"))
    return None


def parse_aer(text: str | None, total: str) -> int | None:
    """The TOTAL line (TOTAL_ERR_COR ...) of an aer_dev_* file; None where it has none."""
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == total and parts[1].isdigit():
            return int(parts[1])
    return None


def aer_of(pci: Path) -> Aer:
    return Aer(
        parse_aer(read(pci / "aer_dev_correctable", lines=True), "TOTAL_ERR_COR"),
        parse_aer(read(pci / "aer_dev_nonfatal", lines=True), "TOTAL_ERR_NONFATAL"),
        parse_aer(read(pci / "aer_dev_fatal", lines=True), "TOTAL_ERR_FATAL"),
    )


def port_of(pci: Path) -> Path | None:
    """The PCIe port above a PCI function (its parent in the device tree), not the host bridge."""
    try:
        port = pci.resolve().parent
    except OSError:
        return None
    return port if _PCI_ADDRESS.fullmatch(port.name) else None


def pci_of(block: Path) -> Path | None:
    """The nearest PCI function above a block device (an NVMe controller's, an HBA's); None for virtual ones."""
    try:
        resolved = block.resolve()
    except OSError:
        return None
    for parent in (resolved, *resolved.parents):
        if _PCI_ADDRESS.fullmatch(parent.name):
            return parent
        if parent.name == "devices":
            break
    return None
