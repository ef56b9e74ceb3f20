"""How a disk is attached (labtui.machine.links): its PCIe, SATA, SAS or USB link's speed now and at best, from
sysfs trees laid out as the kernel documents them."""

from __future__ import annotations

from fakesys import NVME_PCI, SATA_SCSI, USB_SCSI, FakeSys, build_lab_machine, identify
from labtui.machine import links


def test_the_pcie_link_of_a_drive_trained_below_its_best(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    assert links.pcie_link(fake.root / NVME_PCI) == {
        "pcie_speed": "8.0 GT/s PCIe", "pcie_width": 2, "pcie_max_speed": "16.0 GT/s PCIe", "pcie_max_width": 4,
        "pcie_port_max_speed": "16.0 GT/s PCIe", "pcie_port_max_width": 4,
    }


def test_a_pcie_device_right_under_the_host_bridge_has_no_port_to_read(tmp_path):
    fake = FakeSys(tmp_path / "sys")
    fake.pcie("devices/pci0000:00/0000:00:04.0", "8.0 GT/s PCIe", 4, "8.0 GT/s PCIe", 4)
    facts = links.pcie_link(fake.root / "devices/pci0000:00/0000:00:04.0")
    assert facts["pcie_width"] == 4 and "pcie_port_max_speed" not in facts


def test_a_sata_disk_says_its_link_now_and_the_fastest_its_drive_claims(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    resolved = str((fake.root / SATA_SCSI).resolve()) + "/block/sda"
    assert links.sata_link(resolved, fake.root) == {"sata_speed": "6.0 Gbps", "sata_max_speed": "6.0 Gbps"}
    # A SATA III drive on a link that trained at SATA I, and a link that is down.
    fake.file("devices/pci0000:00/0000:00:17.0/ata1/link1/ata_link/link1/sata_spd", "1.5 Gbps")
    assert links.sata_link(resolved, fake.root)["sata_speed"] == "1.5 Gbps"
    fake.file("devices/pci0000:00/0000:00:17.0/ata1/link1/ata_link/link1/sata_spd", "<unknown>")
    assert links.sata_link(resolved, fake.root)["sata_speed"] is None
    assert links.sata_link("/sys/devices/virtual/block/loop0", fake.root) == {}


def test_an_identify_page_that_claims_no_generation_says_nothing(tmp_path):
    fake = FakeSys(tmp_path)
    assert links._identify_sata_speed(fake.file("id-2", identify(2))) == "3.0 Gbps"
    blank = "\n".join(" ".join(["0000"] * 8) for _ in range(32))
    assert links._identify_sata_speed(fake.file("id-0", blank)) is None
    assert links._identify_sata_speed(fake.file("short", "0040 0000")) is None


def test_a_sas_disk_says_its_ports_rate_only_where_its_phys_agree(tmp_path):
    port = tmp_path / "host0/port-0:0"
    disk = port / "end_device-0:0/target0:0:0/0:0:0:0/block/sdc"
    disk.mkdir(parents=True)
    fake = FakeSys(tmp_path)
    fake.file("host0/port-0:0/phy-0:0/sas_phy/phy-0:0/negotiated_linkrate", "12.0 Gbit")
    assert links.sas_speed(disk) == "12.0 Gbit"
    fake.file("host0/port-0:0/phy-0:1/sas_phy/phy-0:1/negotiated_linkrate", "Phy disabled")
    assert links.sas_speed(disk) == "12.0 Gbit"  # a disabled phy of a wide port carries nothing
    fake.file("host0/port-0:0/phy-0:2/sas_phy/phy-0:2/negotiated_linkrate", "6.0 Gbit")
    assert links.sas_speed(disk) is None  # a wide port at two rates: no one rate to say
    assert links.sas_speed(tmp_path / "elsewhere/sdd") is None


def test_a_usb_disk_says_the_rate_of_the_usb_device_it_sits_behind(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    assert links.usb_speed((fake.root / USB_SCSI).resolve() / "block/sdb") == "5000 Mb/s"
    assert links.usb_speed((fake.root / SATA_SCSI).resolve() / "block/sda") is None
