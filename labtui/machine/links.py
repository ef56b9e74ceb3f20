"""How a disk is attached, as sysfs says: its PCIe, SATA, SAS or USB link's speed now and at best.

A link that trained below its best (a PCIe x4 card at x1, a SATA III drive at 1.5 Gbps) is the first
suspect when one adapter measures slower than another (labtui.analysis.bottleneck reads these).
"""

from __future__ import annotations

import re
from pathlib import Path

from labtui.machine.sysfs import iterdir, read, read_int


def pcie_link(pci: Path) -> dict:
    """The PCIe link of a PCI device: now, the device's best, and the best of the port above it."""
    facts = {
        "pcie_speed": read(pci / "current_link_speed"),
        "pcie_width": read_int(pci / "current_link_width"),
        "pcie_max_speed": read(pci / "max_link_speed"),
        "pcie_max_width": read_int(pci / "max_link_width"),
    }
    try:
        port = pci.resolve().parent
    except OSError:
        return facts
    if _PCI_ADDRESS.fullmatch(port.name):  # not the host bridge ("pci0000:00"): a root port or switch port
        facts["pcie_port_max_speed"] = read(port / "max_link_speed")
        facts["pcie_port_max_width"] = read_int(port / "max_link_width")
    return facts


_PCI_ADDRESS = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
_SATA_GENERATIONS = {1: "1.5 Gbps", 2: "3.0 Gbps", 3: "6.0 Gbps"}  # IDENTIFY word 76, bits 1-3


def sata_link(resolved: str, sys_root: Path) -> dict:
    """A libata disk's link speed (/sys/class/ata_link) and its drive's fastest (/sys/class/ata_device).

    The disk's SCSI address H:C:T:L sits under the port it hangs off (".../ata3/host2/target2:0:0/2:0:0:0");
    behind a port multiplier the target number is the multiplier's port, whose link is linkN.T.
    """
    port = re.search(r"/ata(\d+)/host\d+/target\d+:\d+:(\d+)/", resolved)
    if port is None:
        return {}
    number, target = port.groups()
    name = f"{number}.{target}" if (sys_root / "class" / "ata_link" / f"link{number}.{target}").exists() else number
    speed = read(sys_root / "class" / "ata_link" / f"link{name}" / "sata_spd")
    return {
        "sata_speed": speed if speed and speed[0].isdigit() else None,  # "<unknown>" while the link is down
        "sata_max_speed": _identify_sata_speed(sys_root / "class" / "ata_device" / f"dev{name}.0" / "id"),
    }


def _identify_sata_speed(path: Path) -> str | None:
    """The fastest SATA generation a drive claims in its IDENTIFY data (sysfs: 256 hex words)."""
    words = (read(path, lines=True) or "").split()
    try:
        word = int(words[76], 16)
    except (IndexError, ValueError):
        return None
    if word in (0, 0xFFFF):  # not reported
        return None
    best = max((gen for gen in _SATA_GENERATIONS if word & (1 << gen)), default=None)
    return _SATA_GENERATIONS.get(best) if best else None


def sas_speed(resolved: Path) -> str | None:
    """The rate a SAS disk's link negotiated: the phys of the SAS port its end device hangs off
    (.../port-H:N/end_device-H:N/target.../H:C:T:L; the port links to its phys)."""
    port = next((parent for parent in resolved.parents if parent.name.startswith("port-")), None)
    if port is None:
        return None
    rates = []
    for phy in sorted(iterdir(port)):
        if phy.name.startswith("phy-"):
            rate = read(phy / "sas_phy" / phy.name / "negotiated_linkrate")
            if rate and rate[0].isdigit():  # not "Unknown" or "Phy disabled"
                rates.append(rate)
    return rates[0] if len(set(rates)) == 1 else None  # a narrow port, or a wide one at one rate


def usb_speed(resolved: Path) -> str | None:
    """The signalling rate of the USB device a disk sits behind ("480", "5000": Mb/s)."""
    for parent in resolved.parents:
        if (parent / "idVendor").exists():
            speed = read(parent / "speed")
            return f"{speed} Mb/s" if speed else None
        if parent.name == "devices":
            break
    return None
