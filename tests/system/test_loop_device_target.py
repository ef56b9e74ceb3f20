"""A real loop device as a run's target (labtui.machine.devices): described as itself, a virtual disk."""

import os

import pytest

from conftest import require_tool
from labtui.machine.devices import is_block_device, list_disks, target_info
from loopdev import attach_free, detach


def test_a_real_loop_device_is_described_as_itself(tmp_path):
    require_tool("losetup")
    if os.geteuid() != 0:
        pytest.skip("attaching a loop device needs root")
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as handle:
        handle.truncate(4 * 1024 * 1024)
    attached = attach_free(backing)
    if attached.returncode != 0:
        pytest.skip(f"no loop device here: {attached.stderr.strip()}")
    device = attached.stdout.strip()
    try:
        assert is_block_device(device)
        info = target_info(device)
        name = os.path.basename(device)
        assert (info.device, info.disk, info.kind, info.size_bytes) == (device, name, "virtual", 4 * 1024 * 1024)
        assert name in [d.name for d in list_disks()]
    finally:
        detach(device, backing)
