"""The Disks screen's table: its rows (volumes grouped under their disks), the link cell, and the
DataTable itself."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.widgets import DataTable

from labtui.analysis import bottleneck
from labtui.machine.devices import Disk, Volume
from labtui.machine.target_choice import DeviceScan

MARK = "•"  # before a marked volume's device, as History marks results

# Disks people benchmark come first; loop devices and RAM disks last.
_LOOPISH = ("loop", "ram", "zram")


@dataclass(frozen=True)
class Row:
    """One line of the table: a mounted volume (maybe on a disk), or a disk with nothing mounted."""

    key: str
    volume: Volume | None
    disk: Disk | None


def table_rows(scan: DeviceScan) -> list[Row]:
    """Volumes grouped under their disks in discovery order (NVMe first); unusable ones last."""
    order = {d.name: i for i, d in enumerate(scan.disks)}
    rows: list[tuple[tuple, Row]] = []
    mounted_disks = set()
    for v in scan.volumes:
        disk = scan.disk(v.disk)
        mounted_disks.add(v.disk)
        if not v.usable:
            group = 3
        elif disk is not None:
            group = 0
        else:
            group = 1
        rank = order.get(v.disk, len(order)) if v.disk else len(order)
        place = (group, rank if group == 0 else 0, v.mount_point != "/", v.mount_point)
        rows.append((place, Row(f"vol:{v.mount_point}", v, disk)))
    for d in scan.disks:
        if d.name in mounted_disks:
            continue
        group = 4 if d.name.startswith(_LOOPISH) else 2
        rows.append(((group, order[d.name], False, d.name), Row(f"disk:{d.name}", None, d)))
    return [row for _, row in sorted(rows, key=lambda item: item[0])]


def link_cell(disk: Disk | None) -> tuple[str, bool]:
    """('Gen3 x4 (max Gen4)', True): the negotiated link, and whether it is below the drive's best.

    A link below its maximum is the classic sign of a slow adapter, slot or riser.
    """
    link = bottleneck.link_of(disk) if disk is not None else None
    if link is None:
        return "", False
    return link.short_with_best, link.downgraded


def volume_kind(volume: Volume) -> str:
    """'memory', 'container' or 'network' where a volume is one of those (a run there is not a disk's), else ''."""
    if volume.filesystem in ("tmpfs", "ramfs", "devtmpfs"):
        return "memory"
    if volume.filesystem in ("overlay", "overlayfs", "aufs"):
        return "container"
    if volume.filesystem.startswith(("nfs", "cifs", "smb", "fuse.sshfs")) or volume.filesystem in ("9p", "virtiofs"):
        return "network"
    return ""


# Columns that fold over lines where the table is too wide, the mount point first to get room
# back (it tells the volumes apart: two adapters' volumes differ only in it); a device, a link
# and a figure are never cut. Too narrow even so, the file system and then the kind are left to the
# panel below, which shows every fact of the highlighted row.
FOLDING = ("mount", "model", "note", "kind")
OPTIONAL = ("fs", "kind")


class VolumeTable(DataTable):
    """The disks-and-volumes table; Enter chooses the highlighted volume."""

    help_scope = "disk table"

    BINDINGS = [
        # The screen's action, not DataTable's select and its message: a directory typed right after
        # Enter goes to the dialog only if it opens as Enter is handled (DisksScreen.action_choose_current).
        Binding("enter", "screen.choose_current", "Choose", id="disks-choose",
                tooltip="Make the highlighted volume the target: pick a directory on it"),
    ]
