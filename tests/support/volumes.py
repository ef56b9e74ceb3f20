"""A lab machine's volumes and disks as a volume sweep sees them (labtui.machine.volume_sweep): injected, never this machine's."""

from __future__ import annotations

from labtui.machine.devices import Disk, Volume

GIB = 1024**3
MIB = 1024**2

DISKS = (
    Disk(name="nvme0n1", path="/dev/nvme0n1", kind="NVMe", model="WD_BLACK SN850X 4000GB"),
    Disk(name="sda", path="/dev/sda", kind="SATA SSD", model="CT500MX500SSD1"),
    Disk(name="sdc", path="/dev/sdc", kind="USB", model="SanDisk Ultra", removable=True),
    Disk(name="loop3", path="/dev/loop3", kind="virtual"),
)


def vol(mount: str, fs: str = "ext4", *, device: str | None = "/dev/nvme0n1p2", disk: str | None = "nvme0n1",
        free: int | None = 400 * GIB, dev_id: str | None = None, **kw) -> Volume:
    return Volume(mount_point=mount, source=device or fs, filesystem=fs, device=device, disk=disk,
                  free_bytes=free, size_bytes=900 * GIB, dev_id=dev_id or f"id:{mount}", **kw)


MACHINE = (
    vol("/", dev_id="259:2"),
    vol("/data", "xfs", device="/dev/sda1", disk="sda"),
    vol("/small", device="/dev/sda2", disk="sda", free=25 * GIB),
    vol("/dev/shm", "tmpfs", device=None, disk=None, pseudo=True),
    vol("/var/lib/docker/overlay2/x/merged", "overlay", device=None, disk=None, pseudo=True),
    vol("/mnt/share", "nfs4", device=None, disk=None),
    vol("/mnt/iso", "iso9660", device="/dev/sr0", disk="sr0", read_only=True),
    vol("/media/stick", "vfat", device="/dev/sdc1", disk="sdc"),
    vol("/mnt/image", device="/dev/loop3", disk="loop3"),
    vol("/srv/again", dev_id="259:2"),  # a second mount of the root file system
)
