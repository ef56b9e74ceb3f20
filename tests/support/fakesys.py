"""A fake /sys tree laid out like the kernel's: devices under devices/, symlinks from block/,
dev/block/MAJ:MIN, class/block and class/nvme into it, relative as the kernel makes them."""

from __future__ import annotations

import os
from pathlib import Path

NVME_PORT = "devices/pci0000:00/0000:00:01.1"  # the root port the NVMe's slot hangs off
NVME_PCI = f"{NVME_PORT}/0000:01:00.0"
NVME_CTRL = f"{NVME_PCI}/nvme/nvme0"
SATA_SCSI = "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0"
USB_DEVICE = "devices/pci0000:00/0000:00:14.0/usb2/2-1"
USB_SCSI = f"{USB_DEVICE}/2-1:1.0/host6/target6:0:0/6:0:0:0"


def vpd_pg80(serial: str) -> bytes:
    """VPD page 0x80 as the kernel exposes it: a 4-byte header, then the serial padded with spaces."""
    body = serial.rjust(20).encode("ascii")
    return bytes([0, 0x80]) + len(body).to_bytes(2, "big") + body


def identify(sata_generations: int) -> str:
    """An ATA IDENTIFY page as /sys/class/ata_device/*/id shows it: 256 hex words, 8 a line; word 76
    has a bit per SATA generation the drive supports (bit 1 = 1.5, 2 = 3.0, 3 = 6.0 Gb/s)."""
    words = [0] * 256
    words[0] = 0x0040
    words[76] = sum(1 << gen for gen in range(1, sata_generations + 1)) | 0x0100  # and NCQ
    return "\n".join(" ".join(f"{w:04x}" for w in words[i:i + 8]) for i in range(0, 256, 8))


class FakeSys:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def file(self, relative: str, content: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content + "\n")
        return path

    def link(self, relative: str, target: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(os.path.relpath(self.root / target, path.parent))

    def disk(self, directory: str, name: str, dev: str, *, sectors: int | None, rotational: int | None,
             device: str | None = None, removable: int = 0) -> str:
        """A whole disk at `directory`/name with its /sys/block, /sys/dev/block and class links."""
        path = f"{directory}/{name}"
        self.file(f"{path}/dev", dev)
        if sectors is not None:
            self.file(f"{path}/size", str(sectors))
        if rotational is not None:
            self.file(f"{path}/queue/rotational", str(rotational))
        self.file(f"{path}/removable", str(removable))
        self.file(f"{path}/ro", "0")
        (self.root / path / "holders").mkdir(parents=True, exist_ok=True)
        (self.root / path / "slaves").mkdir(parents=True, exist_ok=True)
        if device is not None:
            self.link(f"{path}/device", device)
        self.link(f"block/{name}", path)
        self.link(f"class/block/{name}", path)
        self.link(f"dev/block/{dev}", path)
        return path

    def pcie(self, pci: str, speed: str, width: int, max_speed: str, max_width: int) -> None:
        """A PCI device's link: now and at most (the kernel's current_/max_link_* files)."""
        self.file(f"{pci}/current_link_speed", speed)
        self.file(f"{pci}/current_link_width", str(width))
        self.file(f"{pci}/max_link_speed", max_speed)
        self.file(f"{pci}/max_link_width", str(max_width))

    def hwmon(self, device: str, number: int, name: str, millidegrees: int, *, max_mc: int | None = None,
              crit_mc: int | None = None, nested: bool = False) -> str:
        """A temperature sensor under `device` as the hwmon class lays it out (sysfs-class-hwmon): the NVMe
        driver's hwmonN right under the controller, drivetemp's under the SCSI device's hwmon/ folder."""
        path = f"{device}/hwmon/hwmon{number}" if nested else f"{device}/hwmon{number}"
        self.file(f"{path}/name", name)
        self.file(f"{path}/temp1_input", str(millidegrees))
        if name == "nvme":
            self.file(f"{path}/temp1_label", "Composite")
        if max_mc is not None:
            self.file(f"{path}/temp1_max", str(max_mc))
        if crit_mc is not None:
            self.file(f"{path}/temp1_crit", str(crit_mc))
        self.link(f"class/hwmon/hwmon{number}", path)
        return path

    def aer(self, pci: str, correctable: int = 0, nonfatal: int = 0, fatal: int = 0) -> None:
        """A PCI function's AER counters as sysfs-bus-pci-devices-aer_stats documents them: one
        "NAME COUNT" line per error kind, then the TOTAL_ERR_* line."""
        kinds = {
            "correctable": (["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr",
                             "HeaderOF"], "TOTAL_ERR_COR", correctable),
            "nonfatal": (["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF",
                          "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
                          "AtomicOpBlocked", "TLPBlockedErr"], "TOTAL_ERR_NONFATAL", nonfatal),
            "fatal": (["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF",
                       "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked",
                       "TLPBlockedErr"], "TOTAL_ERR_FATAL", fatal),
        }
        for kind, (names, total, count) in kinds.items():
            lines = [f"{n} {count if i == 0 else 0}" for i, n in enumerate(names)] + [f"{total} {count}"]
            self.file(f"{pci}/aer_dev_{kind}", "\n".join(lines))

    def ata_link(self, scsi_device: str, speed: str, drive_generations: int) -> None:
        """The libata link and device above a SATA disk's SCSI device (.../ataN/host*/target*/H:C:T:L)."""
        port = scsi_device.split("/host")[0]
        number = port.rsplit("/ata", 1)[1]
        link = f"{port}/link{number}"
        self.file(f"{link}/ata_link/link{number}/sata_spd", speed)
        self.file(f"{link}/ata_link/link{number}/sata_spd_limit", "<unknown>")
        self.file(f"{link}/ata_link/link{number}/hw_sata_spd_limit", "<unknown>")
        self.file(f"{link}/dev{number}.0/ata_device/dev{number}.0/id", identify(drive_generations))
        self.link(f"class/ata_link/link{number}", f"{link}/ata_link/link{number}")
        self.link(f"class/ata_device/dev{number}.0", f"{link}/dev{number}.0/ata_device/dev{number}.0")

    def partition(self, disk_path: str, name: str, number: int, dev: str) -> str:
        path = f"{disk_path}/{name}"
        self.file(f"{path}/partition", str(number))
        self.file(f"{path}/dev", dev)
        self.file(f"{path}/size", "2048")
        (self.root / path / "holders").mkdir(parents=True, exist_ok=True)
        self.link(f"class/block/{name}", path)
        self.link(f"dev/block/{dev}", path)
        return path


def build_lab_machine(root: Path) -> FakeSys:
    """An NVMe on a narrowed PCIe link, a SATA SSD, a USB hard disk, LVM on the NVMe, an idle loop."""
    fake = FakeSys(root)

    # NVMe: controller nvme0 on a PCIe 4.0 x4 slot that trained at 3.0 x2.
    fake.pcie(NVME_PCI, "8.0 GT/s PCIe", 2, "16.0 GT/s PCIe", 4)
    fake.pcie(NVME_PORT, "8.0 GT/s PCIe", 2, "16.0 GT/s PCIe", 4)
    fake.file(f"{NVME_CTRL}/model", "Samsung SSD 980 PRO 1TB                 ")
    fake.file(f"{NVME_CTRL}/serial", "S5GXNF0R123456      ")
    fake.file(f"{NVME_CTRL}/firmware_rev", "5B2QGXA7")
    fake.file(f"{NVME_CTRL}/transport", "pcie")
    fake.link(f"{NVME_CTRL}/device", NVME_PCI)
    fake.link("class/nvme/nvme0", NVME_CTRL)
    nvme = fake.disk(NVME_CTRL, "nvme0n1", "259:0", sectors=1953525168, rotational=0, device=NVME_CTRL)
    fake.partition(nvme, "nvme0n1p1", 1, "259:1")
    nvme_p2 = fake.partition(nvme, "nvme0n1p2", 2, "259:2")

    # SATA SSD behind libata: vendor "ATA", model and firmware revision on the SCSI device.
    fake.file(f"{SATA_SCSI}/vendor", "ATA     ")
    fake.file(f"{SATA_SCSI}/model", "Samsung SSD 870 ")
    fake.file(f"{SATA_SCSI}/rev", "2B6Q")
    fake.file(f"{SATA_SCSI}/vpd_pg80", vpd_pg80("S6PNNS0T000111A"))
    fake.ata_link(SATA_SCSI, "6.0 Gbps", 3)
    sda = fake.disk(f"{SATA_SCSI}/block", "sda", "8:0", sectors=976773168, rotational=0, device=SATA_SCSI)
    fake.partition(sda, "sda1", 1, "8:1")
    fake.partition(sda, "sda2", 2, "8:2")

    # USB hard disk: a SATA drive behind a USB bridge, which has the serial.
    fake.file(f"{USB_DEVICE}/idVendor", "1058")
    fake.file(f"{USB_DEVICE}/serial", "575834314142")
    fake.file(f"{USB_DEVICE}/speed", "5000")
    fake.file(f"{USB_SCSI}/vendor", "WD      ")
    fake.file(f"{USB_SCSI}/model", "My Passport 25E2")
    fake.file(f"{USB_SCSI}/rev", "4004")
    sdb = fake.disk(f"{USB_SCSI}/block", "sdb", "8:16", sectors=3907029168, rotational=1, device=USB_SCSI)
    fake.partition(sdb, "sdb1", 1, "8:17")

    # LVM: dm-0 built on the NVMe's second partition.
    dm = fake.disk("devices/virtual/block", "dm-0", "254:0", sectors=409600, rotational=0)
    fake.link(f"{dm}/slaves/nvme0n1p2", nvme_p2)
    fake.link(f"{nvme_p2}/holders/dm-0", dm)

    # Loop devices: an idle one (size 0, left out) and one in use.
    fake.disk("devices/virtual/block", "loop0", "7:0", sectors=0, rotational=1)
    fake.disk("devices/virtual/block", "loop1", "7:1", sectors=2048, rotational=1)
    return fake
