"""The run's result (labtui/model/result.py): its figures derive from exact counts; ids, links and disk names."""

import re
from datetime import datetime, timedelta, timezone

import pytest

from labtui.model.profile import Profile, Step
from labtui.model.result import DirectionStats, EngineInfo, HostInfo, RunResult, Sample, TargetInfo, new_result_id

MIB = 1024 * 1024


def test_peak_mib_s_takes_a_short_interval_with_its_neighbour():
    from labtui.model.result import DirectionStats, StepResult

    # The short last interval (10 MiB in 10 ms: "1,000 MiB/s") counts with the one before it.
    samples = (Sample(t=1, seconds=1.0, write_bytes=100 * MIB), Sample(t=2, seconds=1.0, write_bytes=300 * MIB),
               Sample(t=2.01, seconds=0.01, write_bytes=10 * MIB))
    result = StepResult(step=Step(name="c", kind="command", command="true"), samples=samples)
    assert result.peak_mib_s == pytest.approx(310 / 1.01)
    assert StepResult(step=result.step).peak_mib_s is None
    # A flush that wrote nearly everything in the last sliver: left out, it made the peak
    # (1 MiB/s) a hundredth of the mean (21 MiB over 0.21 s: 100 MiB/s).
    flushed = (Sample(t=0.1, seconds=0.1, write_bytes=MIB // 10), Sample(t=0.2, seconds=0.1, write_bytes=MIB // 10),
               Sample(t=0.21, seconds=0.01, write_bytes=20 * MIB + MIB * 8 // 10))
    total = sum(s.write_bytes for s in flushed)
    step = StepResult(step=result.step, write=DirectionStats(len(flushed), total, 0.21), samples=flushed)
    assert step.peak_mib_s == pytest.approx((MIB // 10 + 20 * MIB + MIB * 8 // 10) / 0.11 / MIB)
    assert step.peak_mib_s >= step.total.mib_s
    # A short first interval counts with the one after it.
    leading = (Sample(t=0.01, seconds=0.01, write_bytes=5 * MIB), Sample(t=1.01, seconds=1.0, write_bytes=5 * MIB),
               Sample(t=2.01, seconds=1.0, write_bytes=MIB))
    assert StepResult(step=result.step, samples=leading).peak_mib_s == pytest.approx(10 / 1.01)


def test_rates_derive_from_exact_counts():
    stats = DirectionStats(ios=1000, bytes=1000 * 65536, seconds=2.0)
    assert stats.iops == 500.0 and stats.mib_s == 31.25
    assert DirectionStats().iops == 0.0 and DirectionStats().mib_s == 0.0
    both = stats + DirectionStats(ios=10, bytes=10 * 4096, seconds=1.5)
    assert (both.ios, both.bytes, both.seconds) == (1010, 1000 * 65536 + 40960, 2.0)
    sample = Sample(t=1.0, seconds=0.5, read_ios=100, read_bytes=100 * MIB, write_ios=50, write_bytes=50 * MIB)
    assert (sample.read_iops, sample.write_iops, sample.iops) == (200.0, 100.0, 300.0)
    assert (sample.read_mib_s, sample.write_mib_s, sample.mib_s) == (200.0, 100.0, 300.0)
    assert Sample(t=0, seconds=0, read_ios=5).iops == 0.0


def test_pcie_link_text():
    assert TargetInfo(path="/").pcie_link is None
    assert TargetInfo(path="/", pcie_speed="8.0 GT/s PCIe", pcie_width=4).pcie_link == "8.0 GT/s PCIe x4"
    same = TargetInfo(path="/", pcie_speed="8.0 GT/s PCIe", pcie_width=4, pcie_max_speed="8.0 GT/s PCIe", pcie_max_width=4)
    assert same.pcie_link == "8.0 GT/s PCIe x4"
    slower = TargetInfo(path="/", pcie_speed="8.0 GT/s PCIe", pcie_width=2, pcie_max_speed="16.0 GT/s PCIe", pcie_max_width=4)
    assert slower.pcie_link == "8.0 GT/s PCIe x2 (max 16.0 GT/s PCIe x4)"


def test_result_ids_sort_by_start_time_and_run_seconds():
    started = datetime(2024, 5, 1, 12, 30, 5, tzinfo=timezone(timedelta(hours=2)))
    rid = new_result_id(started)
    assert re.fullmatch(r"20240501-103005-[0-9a-f]{4}", rid)
    later = new_result_id(started + timedelta(seconds=1))
    assert later > rid
    result = RunResult(id=rid, status="completed", started=started, ended=started + timedelta(seconds=90.5),
                       host=HostInfo(), target=TargetInfo(path="/"), engine=EngineInfo(name="native"),
                       profile=Profile(name="p"))
    assert result.seconds == 90.5


@pytest.mark.parametrize(("target", "name"), [
    (TargetInfo("/mnt/loop", device="/dev/loop0", disk="loop0", kind="virtual"), "loop0"),
    (TargetInfo("/mnt/vm", device="/dev/vda1", disk="vda", kind="virtual", transport="virtio"), "vda (virtual)"),
    (TargetInfo("/mnt/z", device="/dev/zram1", kind="virtual"), "zram1"),  # no whole disk: the device's name
    (TargetInfo("/mnt/n", device="/dev/nvme0n1p1", disk="nvme0n1", kind="NVMe", model="WD_BLACK SN850X"), "WD_BLACK SN850X"),
    (TargetInfo("/mnt/x"), "unknown disk"),
])
def test_a_disk_with_no_model_is_named_by_its_device_and_its_identity_is_unchanged(target, name):
    # "A and B: unknown disk, ext4": loop devices and virtual disks have no model, and every line said so.
    from labtui.model.result import disk_identity

    assert target.disk_name == name
    if target.model is None:  # the identity that matches runs to their disk stays what it was
        assert disk_identity(target, "lab") == f"{target.filesystem or 'unknown file system'} at {target.path} on lab"
