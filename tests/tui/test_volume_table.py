"""The Disks screen's table (widgets/volume_table.py): its rows' order, the link cell, every row whole."""

from __future__ import annotations

from dataclasses import replace

import pytest

from labtui.machine.devices import Volume
from labtui.machine.target_choice import DeviceScan
from labtui.widgets.volume_table import VolumeTable, link_cell, table_rows
from tui_support import (
    FAKE_DISKS,
    FAKE_VOLUMES,
    GIB,
    disks_ready,
    fake_scan,
    make_app,
    screen_text,
)


def test_rows_put_usable_disk_volumes_first_and_unusable_ones_last():
    keys = [row.key for row in table_rows(fake_scan())]
    assert keys == ["vol:/", "vol:/boot/efi", "vol:/data", "disk:sdb", "vol:/dev/shm", "vol:/mnt/iso"]


def test_the_link_cell_names_the_generation_and_flags_a_slower_link():
    nvme = FAKE_DISKS[0]
    assert link_cell(nvme) == ("Gen3 x4 (max Gen4)", True)
    assert link_cell(replace(nvme, pcie_speed="16.0 GT/s PCIe")) == ("Gen4 x4", False)
    assert link_cell(replace(nvme, pcie_width=2)) == ("Gen3 x2 (max Gen4 x4)", True)
    assert link_cell(FAKE_DISKS[1]) == ("SATA 6G", False)
    assert link_cell(replace(FAKE_DISKS[1], sata_speed="3.0 Gbps")) == ("SATA 3G (max 6G)", True)
    assert link_cell(FAKE_DISKS[2]) == ("", False)  # the kernel gave no link speed


def adapters_scan() -> DeviceScan:
    """The fake machine plus the same NVMe SSD behind two PCIe adapters, mounted where a lab would."""
    disks, volumes = list(FAKE_DISKS), list(FAKE_VOLUMES)
    for n, adapter in ((1, "a"), (2, "b")):
        disks.append(replace(FAKE_DISKS[0], name=f"nvme{n}n1", path=f"/dev/nvme{n}n1", serial=f"S5GXNX0T99999{n}",
                             partitions=[f"nvme{n}n1p1"]))
        volumes.append(Volume(mount_point=f"/mnt/lab-nvme-adapter-{adapter}/data", source=f"/dev/nvme{n}n1p1",
                              filesystem="xfs", device=f"/dev/nvme{n}n1p1", disk=f"nvme{n}n1",
                              size_bytes=915 * GIB, free_bytes=900 * GIB, dev_id=f"259:{10 + n}"))
    return DeviceScan(tuple(disks), tuple(volumes))


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_row_says_which_volume_it_is_whole(labtui_home, size):
    """Nothing in the table is cut: two volumes on two adapters differ only in their mount point."""
    app = make_app(labtui_home, device_source=adapters_scan)
    async with app.run_test(size=size) as pilot:
        await disks_ready(pilot)
        table = app.screen.query_one(VolumeTable)
        widths = {column.key.value: column.width for column in table.columns.values()}
        assert sum(w + 2 for w in widths.values()) <= size[0] - 2  # no sideways scrolling
        cells = {key: dict(zip(widths, (c.plain for c in table.get_row(key)), strict=True))
                 for key in app.screen.rows}
        for n, adapter in ((1, "a"), (2, "b")):
            row = cells[f"vol:/mnt/lab-nvme-adapter-{adapter}/data"]
            assert row["mount"].replace("\n", "") == f"/mnt/lab-nvme-adapter-{adapter}/data"
            assert row["device"] == f"nvme{n}n1p1"
        assert cells["vol:/"]["device"] == "nvme0n1p2" and cells["vol:/boot/efi"]["device"] == "nvme0n1p1"
        assert all("…" not in text for row in cells.values() for text in row.values())
        assert all(len(line) <= widths[key] for row in cells.values() for key, text in row.items()
                   for line in text.split("\n"))
        text = screen_text(app)
        assert "Mount point" in text and "…" not in text.split("\n")[2]  # the header whole
        shown = cells["vol:/mnt/lab-nvme-adapter-b/data"]["mount"].split("\n")
        assert all(line in text for line in shown)
        if size[0] == 80:  # too narrow for the whole path on one line beside the rest
            assert shown == ["/mnt/lab-nvme-", "adapter-b/data"]
        else:
            assert "Gen3 x4 (max Gen4)" in text  # a link is said whole
