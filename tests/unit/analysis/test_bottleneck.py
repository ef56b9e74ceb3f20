"""Where the bottleneck is: links read from fake sysfs trees, their ceilings, each step's share of
its link, the verdicts (link, not the link, CPU, cache, a link that does not add up), and how
show, compare and --json say it."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings

from fakesys import NVME_CTRL, NVME_PCI, NVME_PORT, SATA_SCSI, USB_DEVICE, USB_SCSI, FakeSys, build_lab_machine
from labtui.analysis import bottleneck
from labtui.analysis.bottleneck import CACHE, CPU, LINK, NOT_LINK, OVER, UNKNOWN, Link, analyse, link_of
from labtui.analysis.comparison import compare
from labtui.cli import main
from labtui.machine.devices import read_disk, target_info
from labtui.model.profile import MIB
from labtui.render.comparison import comparison_markdown
from labtui.results.store import Store
from strategies import run_results
from synthetic import GEN3, GEN4, MIXED, READ, SEED_TARGET, TARGET, WRITE, iops_for, run_result, seed_pair


def nvme(tmp_path, speed, width, max_speed, max_width, *, port=None):
    """A fake /sys with one NVMe drive whose PCI device trained at speed x width (and a root port)."""
    fake = FakeSys(tmp_path / "sys")
    fake.pcie(NVME_PCI, speed, width, max_speed, max_width)
    if port is not None:
        fake.pcie(NVME_PORT, *port)
    fake.file(f"{NVME_CTRL}/model", "WD_BLACK SN850X 4000GB")
    fake.file(f"{NVME_CTRL}/firmware_rev", "620361WD")
    fake.link(f"{NVME_CTRL}/device", NVME_PCI)
    fake.link("class/nvme/nvme0", NVME_CTRL)
    fake.disk(NVME_CTRL, "nvme0n1", "259:0", sectors=7814037168, rotational=0, device=NVME_CTRL)
    return read_disk("nvme0n1", fake.root)


def sata(tmp_path, speed, drive_generations):
    fake = FakeSys(tmp_path / "sys")
    fake.file(f"{SATA_SCSI}/vendor", "ATA     ")
    fake.file(f"{SATA_SCSI}/model", "CT500MX500SSD1")
    fake.ata_link(SATA_SCSI, speed, drive_generations)
    fake.disk(f"{SATA_SCSI}/block", "sda", "8:0", sectors=976773168, rotational=0, device=SATA_SCSI)
    return read_disk("sda", fake.root)


def usb(tmp_path, speed):
    fake = FakeSys(tmp_path / "sys")
    fake.file(f"{USB_DEVICE}/idVendor", "0bda")
    fake.file(f"{USB_DEVICE}/speed", speed)
    fake.file(f"{USB_SCSI}/model", "RTL9210B-CG")
    fake.disk(f"{USB_SCSI}/block", "sdb", "8:16", sectors=2000409264, rotational=0, device=USB_SCSI)
    return read_disk("sdb", fake.root)


# --------------------------------------------------------------------------- links from sysfs


def test_a_pcie_3_drive_at_its_best(tmp_path):
    link = link_of(nvme(tmp_path, GEN3, 4, GEN3, 4))
    assert (link.name, link.short, link.downgraded) == ("PCIe 3.0 x4", "Gen3 x4", False)
    assert link.code == (128, 130) and link.full_duplex
    assert link.bytes_per_second == pytest.approx(3_938_461_538, rel=1e-9)  # 8e9 x 128/130 x 4 / 8
    assert bottleneck.disk_note(nvme(tmp_path / "again", GEN3, 4, GEN3, 4)) is None


def test_a_pcie_4_drive_at_its_best(tmp_path):
    link = link_of(nvme(tmp_path, GEN4, 4, GEN4, 4, port=(GEN4, 4, GEN4, 16)))
    assert (link.name, round(link.bytes_per_second / 1e6), link.downgraded) == ("PCIe 4.0 x4", 7877, False)


def test_a_pcie_4_drive_held_at_8_gt_s_by_a_pcie_3_slot(tmp_path):
    disk = nvme(tmp_path, GEN3, 4, GEN4, 4, port=(GEN3, 16, GEN3, 16))
    assert (disk.pcie_port_max_speed, disk.pcie_port_max_width) == (GEN3, 16)
    link = link_of(disk)
    assert link.downgraded and link.short_with_best == "Gen3 x4 (max Gen4)"
    assert (link.best_name, link.best_speed) == ("PCIe 4.0 x4", "16 GT/s")
    assert link.cause() == "the port above it supports at most 8 GT/s: the slot, not the drive, sets the speed"
    assert bottleneck.disk_note(disk) == (
        "PCIe 3.0 x4, at most 3,938 MB/s: below the drive's PCIe 4.0 x4 (16 GT/s, 7,877 MB/s); "
        "the port above it supports at most 8 GT/s: the slot, not the drive, sets the speed")


def test_a_pcie_4_drive_trained_narrow_in_a_slot_that_could_do_better(tmp_path):
    disk = nvme(tmp_path, GEN4, 2, GEN4, 4, port=(GEN4, 2, GEN4, 4))
    link = link_of(disk)
    assert link.downgraded and link.short_with_best == "Gen4 x2 (max x4)" and link.best_speed == "16 GT/s x4"
    assert round(link.bytes_per_second / 1e6) == 3938
    assert "the port above it supports more: the link trained low" in link.cause()


def test_an_old_style_kernel_speed_and_no_port(tmp_path):
    # Kernels before 4.18 wrote "8 GT/s"; an NVMe on the host bridge itself has no port above it.
    link = link_of(nvme(tmp_path, "8 GT/s", 2, "8 GT/s", 4))
    assert (link.name, link.short_with_best) == ("PCIe 3.0 x2", "Gen3 x2 (max x4)")
    assert link.cause() == "the slot, an adapter or a riser holds it there"


def test_pcie_1_and_2_use_8b_10b(tmp_path):
    assert round(Link("PCIe", 2.5, 1).bytes_per_second / 1e6) == 250
    assert round(Link("PCIe", 5.0, 4).bytes_per_second / 1e6) == 2000
    assert Link("PCIe", 5.0, 4).code == (8, 10)
    assert Link("PCIe", 64.0, 4).code == (1, 1)  # PCIe 6.0 flit mode: no line code


def test_sata_6_gb_s(tmp_path):
    disk = sata(tmp_path, "6.0 Gbps", 3)
    assert (disk.sata_speed, disk.sata_max_speed) == ("6.0 Gbps", "6.0 Gbps")
    link = link_of(disk)
    assert (link.name, link.short, round(link.bytes_per_second / 1e6)) == ("SATA 6 Gb/s", "SATA 6G", 600)
    assert not link.full_duplex and not link.downgraded


def test_sata_3_gb_s_link_for_a_6_gb_s_drive(tmp_path):
    link = link_of(sata(tmp_path, "3.0 Gbps", 3))
    assert (link.name, round(link.bytes_per_second / 1e6)) == ("SATA 3 Gb/s", 300)
    assert link.downgraded and link.short_with_best == "SATA 3G (max 6G)"
    assert link.downgrade().startswith("below the drive's SATA 6 Gb/s (6 Gb/s, 600 MB/s)")


def test_a_3_gb_s_drive_at_its_best_and_a_link_that_is_down(tmp_path):
    assert not link_of(sata(tmp_path, "3.0 Gbps", 2)).downgraded
    down = sata(tmp_path / "down", "<unknown>", 3)
    assert down.sata_speed is None and link_of(down) is None


def test_usb(tmp_path):
    fast = link_of(usb(tmp_path, "5000"))
    assert (fast.name, fast.short, round(fast.bytes_per_second / 1e6), fast.full_duplex) == (
        "USB 3.2 Gen 1 (5 Gb/s)", "USB 5G", 500, True)
    slow = link_of(usb(tmp_path / "2", "480"))
    assert (slow.name, round(slow.bytes_per_second / 1e6), slow.full_duplex) == ("USB 2.0 (480 Mb/s)", 53, False)
    assert round(link_of(usb(tmp_path / "3", "10000")).bytes_per_second / 1e6) == 1212  # 128b/132b


def test_virtio_has_no_link(tmp_path):
    fake = FakeSys(tmp_path / "sys")
    fake.disk("devices/pci0000:00/0000:00:04.0/virtio1/block", "vda", "254:0", sectors=1000, rotational=1)
    disk = read_disk("vda", fake.root)
    assert disk.kind == "virtual" and link_of(disk) is None
    assert bottleneck.unknown_reason(disk).startswith("link unknown: a virtual disk")


def test_target_info_carries_the_link_facts(tmp_path):
    fake = build_lab_machine(tmp_path / "sys")
    line = "30 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    target = target_info(tmp_path, sys_root=fake.root, mountinfo=line)
    assert (target.disk, target.sata_speed, target.sata_max_speed) == ("sda", "6.0 Gbps", "6.0 Gbps")
    line = "30 1 259:2 / / rw,relatime shared:1 - xfs /dev/nvme0n1p2 rw\n"
    target = target_info(tmp_path, sys_root=fake.root, mountinfo=line)
    assert (target.pcie_port_max_speed, target.pcie_port_max_width) == (GEN4, 4)
    assert link_of(target).short_with_best == "Gen3 x2 (max Gen4 x4)"
    assert read_disk("sdb", fake.root).usb_speed == "5000 Mb/s"


# --------------------------------------------------------------------------- verdicts per step

SATA_TARGET = replace(TARGET, kind="SATA SSD", transport="sata", model="Samsung SSD 860 EVO", pcie_speed=None,
                      pcie_width=None, sata_speed="6.0 Gbps", sata_max_speed="6.0 Gbps")


def test_the_seed_post_read_is_limited_by_its_pcie_3_link():
    result = run_result("hp", {READ: [iops_for(3393)]}, target=SEED_TARGET)
    found = analyse(result)
    step = found.step(READ.name)
    assert step.verdict == LINK and step.share == pytest.approx(0.9034, abs=1e-4)
    assert step.used_bytes_per_second == pytest.approx(3393 * MIB)
    assert step.text == ("uses 90 % of a PCIe 3.0 x4 link (3,558 MB/s of 3,938 MB/s): the link limits it; the drive "
                         "supports PCIe 4.0 x4 (16 GT/s); the slot, an adapter or a riser holds it there")
    assert found.headline.startswith("PCIe 3.0 x4 (8 GT/s × 4 lanes, 128b/130b encoding): at most 3,938 MB/s each way")


def test_the_seed_post_sata_read_is_limited_by_its_link():
    step = analyse(run_result("sata", {READ: [iops_for(530)]}, target=SATA_TARGET)).step(READ.name)
    assert step.verdict == LINK and round(100 * step.share) == 93
    assert step.text.startswith("uses 93 % of a SATA 6 Gb/s link (556 MB/s of 600 MB/s): the link limits it")


def test_small_random_reads_are_not_the_link():
    four_k = replace(READ, name="Read 4K random", block_size=4096, threads=1, outstanding=1)
    step = analyse(run_result("q1", {four_k: [12_000]}, target=SEED_TARGET)).step(four_k.name)
    assert step.verdict == NOT_LINK and round(100 * step.share) == 1
    assert "the link is not the limit (it runs below the drive's PCIe 4.0 x4, with room for this step)" in step.text


def test_a_cpu_bound_step_says_cpu_not_disk():
    result = run_result("cpu", {READ: [iops_for(1000)]}, target=SEED_TARGET)
    bound = replace(result.steps[0], engine_bound="a worker process used 98 % of a CPU")
    step = analyse(replace(result, steps=(bound,))).step(READ.name)
    assert step.verdict == CPU
    assert step.text == ("CPU, not disk: a worker process used 98 % of a CPU "
                         "(it moved 1,049 MB/s, 27 % of what the link carries)")
    # Without link facts the CPU verdict still stands.
    alone = analyse(replace(result, steps=(bound,), target=replace(TARGET, pcie_speed=None, pcie_width=None)))
    assert alone.link is None and alone.step(READ.name).verdict == CPU
    assert step.short == "CPU, not disk: the engine's limit (27 % of a PCIe 3.0 x4 link)"
    # Workers that waited for a CPU: the CPUs' limit, as the step's warning says, not one worker's.
    crowded = replace(result.steps[0], engine_bound="the machine had no idle CPU (99 % busy)")
    assert analyse(replace(result, steps=(crowded,))).step(READ.name).short == (
        "CPU, not disk: the CPUs' limit (27 % of a PCIe 3.0 x4 link)")


def test_buffered_io_is_not_read_against_the_link():
    cached = replace(READ, cache="on")
    step = analyse(run_result("cache", {cached: [iops_for(3500)]}, target=SEED_TARGET)).step(cached.name)
    assert step.verdict == CACHE and step.text.startswith("cache on: the page cache served it")


def test_more_than_the_link_carries_is_called_out():
    tunnelled = replace(SEED_TARGET, pcie_speed="2.5 GT/s PCIe", pcie_max_speed="2.5 GT/s PCIe")  # Thunderbolt
    step = analyse(run_result("tb", {READ: [iops_for(2600)]}, target=tunnelled)).step(READ.name)
    assert step.verdict == OVER and "is more than a PCIe 1.0 x4 link carries (1,000 MB/s)" in step.text


def test_a_mixed_step_uses_the_busier_direction_of_pcie_and_both_of_sata():
    pcie = analyse(run_result("m", {MIXED: [iops_for(3000, MIXED)]}, target=SEED_TARGET)).step(MIXED.name)
    assert pcie.direction.startswith("read") and pcie.used_bytes_per_second == pytest.approx(0.7 * 3000 * MIB, rel=1e-3)
    half = analyse(run_result("m", {MIXED: [iops_for(500, MIXED)]}, target=SATA_TARGET)).step(MIXED.name)
    assert half.direction == "both" and half.used_bytes_per_second == pytest.approx(500 * MIB, rel=1e-3)


def test_repetitions_are_pooled():
    result = run_result("r", {READ: [iops_for(3000), iops_for(3400)]}, target=SEED_TARGET)
    step = analyse(result).step(READ.name)
    assert step.repetitions == 2 and step.used_bytes_per_second == pytest.approx(3200 * MIB, rel=1e-6)


def test_an_old_result_without_link_facts_says_nothing_but_link_unknown():
    old = run_result("old", {READ: [iops_for(3393)]}, target=replace(TARGET, pcie_speed=None, pcie_width=None))
    found = analyse(old)
    assert found.link is None and found.step(READ.name).verdict == UNKNOWN
    assert found.lines(every=False) == []
    assert found.headline == "link unknown: the kernel reported no link speed for this disk"
    assert compare([old, old]).bottlenecks == (None,)


@settings(max_examples=60, deadline=None)
@given(run_results())
def test_any_stored_result_can_be_analysed(result):
    found = analyse(result)
    json.dumps(found.to_json())
    assert all(s.verdict in bottleneck.VERDICTS for s in found.steps)


# --------------------------------------------------------------------------- comparisons


def test_both_adapters_meet_the_same_link():
    comparison = compare(list(seed_pair()))
    assert comparison.bottlenecks == (
        "both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive, which supports 16 GT/s",
        "both runs use 87 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive, which supports 16 GT/s",
    )
    md = comparison_markdown(comparison)
    assert ("- **Bottleneck**, Read 64K random (RND64K Q8T4 R): both runs use 90 % of a PCIe 3.0 x4 link: the link, "
            "not the adapter, limits this drive, which supports 16 GT/s") in md
    data = comparison.to_json()
    assert data["steps"][0]["bottleneck"] == comparison.bottlenecks[0]
    assert [round(b["steps"][0]["link_share_pct"]) for b in data["bottleneck"]] == [90, 90]


def test_different_drives_on_the_same_saturated_link_cannot_be_told_apart():
    other = replace(SEED_TARGET, model="Samsung SSD 990 PRO 4TB")
    line = compare(list(seed_pair(SEED_TARGET, other))).bottlenecks[0]
    assert line.endswith("the link limits every drive here, so this step cannot tell them apart")


def test_one_on_a_faster_link_is_said_per_result():
    gen4 = replace(SEED_TARGET, pcie_speed=GEN4)
    line = compare(list(seed_pair(SEED_TARGET, gen4))).bottlenecks[0]
    assert line == "A: the link limits it (90 % of a PCIe 3.0 x4 link); B: not the link (45 % of a PCIe 4.0 x4 link)"


def test_nothing_is_said_where_no_run_meets_its_link():
    four_k = replace(READ, name="Read 4K random", block_size=4096)
    a = run_result("a", {four_k: [10_000]}, target=SEED_TARGET)
    assert compare([a, a]).bottlenecks == (None,)


# --------------------------------------------------------------------------- the command line


def test_show_compare_and_json_say_it(labtui_home, capsys):
    a, b = seed_pair()
    old = run_result("old", {READ: [iops_for(3393)]}, target=replace(TARGET, pcie_speed=None, pcie_width=None))
    store = Store(labtui_home)
    for r in (a, b, old):
        store.save_result(r)
    assert main(["show", "hp"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "link: PCIe 3.0 x4 (8 GT/s × 4 lanes, 128b/130b encoding): at most 3,938 MB/s each way" in out
    assert "Read 64K random: uses 90 % of a PCIe 3.0 x4 link (3,558 MB/s of 3,938 MB/s): the link limits it" in out
    assert main(["show", "hp", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["bottleneck"]
    assert data["link"]["name"] == "PCIe 3.0 x4" and round(data["link"]["mb_s"]) == 3938
    assert data["link"]["downgraded"] and data["link"]["best"] == "PCIe 4.0 x4"
    assert data["steps"][0]["verdict"] == "link" and round(data["steps"][0]["link_share_pct"], 1) == 90.3
    assert main(["show", "old"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "link unknown: the kernel reported no link speed for this disk" in out
    assert main(["show", "old", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bottleneck"]["link"] is None
    assert main(["compare", "startech", "hp"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("bottleneck: Read 64K random (RND64K Q8T4 R): both runs use 90 % of a PCIe 3.0 x4 link: the link, not "
            "the adapter, limits this drive, which supports 16 GT/s") in out


def test_a_run_summary_names_only_what_limited_it():
    import io

    from rich.console import Console

    from labtui.render.result_tables import bottleneck_renderable

    def text(result):
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(bottleneck_renderable(result, every=False))
        return console.export_text()

    four_k = replace(READ, name="Read 4K random", block_size=4096)
    at_best = replace(SEED_TARGET, pcie_max_speed=GEN3)
    assert bottleneck_renderable(run_result("q", {four_k: [9_000]}, target=at_best), every=False) is None
    shown = text(run_result("s", {four_k: [9_000], READ: [iops_for(3393)]}, target=at_best))
    assert "Read 64K random: uses 90 % of a PCIe 3.0 x4 link" in shown and "Read 4K random" not in shown
    # A link below the drive's best is said even where no step met it.
    assert "below the drive's PCIe 4.0 x4" in text(run_result("q", {four_k: [9_000]}, target=SEED_TARGET))


def test_a_best_of_profile_holds_its_best_repetition_against_the_link():
    result = run_result("cdm", {READ: [iops_for(3000), iops_for(3500)]}, target=SEED_TARGET)
    best = replace(result, profile=replace(result.profile, aggregate="best"))
    assert analyse(best).step(READ.name).used_bytes_per_second == pytest.approx(3500 * MIB, rel=1e-6)
    assert analyse(result).step(READ.name).used_bytes_per_second == pytest.approx(3250 * MIB, rel=1e-6)


def test_the_headless_run_summary_says_what_limited_the_run(capsys):
    import asyncio

    from labtui.commands.progress import execute
    from labtui.commands.stops import Stops
    from tui_support import scripted_run

    result = run_result("20261201-120000-abcd", {READ: [iops_for(3393)], WRITE: [iops_for(1000, WRITE)]},
                        target=SEED_TARGET)
    runner = scripted_run(result, finished=True)
    runner.result = result  # the engine's runner holds its result when it says the run finished
    assert asyncio.run(execute(runner, as_json=False, stops=Stops())) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "link: PCIe 3.0 x4 (8 GT/s × 4 lanes, 128b/130b encoding): at most 3,938 MB/s each way" in out
    assert "Read 64K random: uses 90 % of a PCIe 3.0 x4 link (3,558 MB/s of 3,938 MB/s): the link limits it" in out
    assert "Write 64K random:" not in out  # 27 % of the link: not what limited it, so not a line of the summary


def test_labtui_disks_shows_each_link_and_warns_of_a_slow_one(tmp_path, monkeypatch, capsys):
    from labtui.machine import devices

    fake = build_lab_machine(tmp_path / "sys")  # its NVMe trained at 8 GT/s x2 in a 16 GT/s x4 slot
    found = [read_disk(name, fake.root) for name in ("nvme0n1", "sda", "sdb")]
    monkeypatch.setattr(devices, "list_disks", lambda **_: found)
    monkeypatch.setattr(devices, "list_volumes", lambda **_: [])
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["disks"]) == 0
    out = capsys.readouterr().out
    assert "Gen3 x2 (max Gen4 x4)" in out and "SATA 6G" in out and "USB 5G" in out
    assert ("warning: /dev/nvme0n1: link PCIe 3.0 x2, at most 1,969 MB/s: below the drive's PCIe 4.0 x4 "
            "(16 GT/s x4, 7,877 MB/s); the port above it supports more") in " ".join(out.split())
    assert main(["disks", "--json"]) == 0
    disks = {d["name"]: d for d in json.loads(capsys.readouterr().out)["disks"]}
    assert disks["nvme0n1"]["link"]["downgraded"] and round(disks["nvme0n1"]["link"]["mb_s"]) == 1969
    assert disks["sda"]["link"]["name"] == "SATA 6 Gb/s" and disks["sdb"]["link"]["name"] == "USB 3.2 Gen 1 (5 Gb/s)"


def test_a_sata_link_speed_that_differs_is_in_what_differs():
    slow = replace(SATA_TARGET, sata_speed="3.0 Gbps")
    a = run_result("a", {READ: [iops_for(280)]}, target=slow)
    b = run_result("b", {READ: [iops_for(530)]}, target=SATA_TARGET)
    comparison = compare([a, b])
    assert {row.label: row.values for row in comparison.differences}["SATA / SAS / USB link"] == ("3.0 Gbps", "6.0 Gbps")
    assert comparison.bottlenecks[0] == ("A: the link limits it (98 % of a SATA 3 Gb/s link); "
                                         "B: the link limits it (93 % of a SATA 6 Gb/s link)")


def test_at_its_best_is_said_only_where_the_drive_s_best_is_known():
    at_best = replace(SEED_TARGET, pcie_max_speed=GEN3)
    step = analyse(run_result("b", {READ: [iops_for(3393)]}, target=at_best)).step(READ.name)
    assert step.text.endswith("the link limits it (the drive's own best link: its interface is the limit)")
    unknown = replace(SEED_TARGET, pcie_max_speed=None, pcie_max_width=None)  # only the current link recorded
    step = analyse(run_result("u", {READ: [iops_for(3393)]}, target=unknown)).step(READ.name)
    assert step.text.endswith("the link limits it (whether the drive supports a faster link is not recorded)")


def test_sas_from_the_phy_of_the_disk_s_port(tmp_path):
    fake = FakeSys(tmp_path / "sys")
    host = "devices/pci0000:00/0000:00:03.0/0000:02:00.0/host0"
    scsi = f"{host}/port-0:0/end_device-0:0/target0:0:0/0:0:0:0"
    fake.file(f"{host}/phy-0:0/sas_phy/phy-0:0/negotiated_linkrate", "12.0 Gbit")
    fake.file(f"{host}/phy-0:0/sas_phy/phy-0:0/maximum_linkrate_hw", "12.0 Gbit")
    fake.link(f"{host}/port-0:0/phy-0:0", f"{host}/phy-0:0")
    fake.file(f"{scsi}/vendor", "SEAGATE ")
    fake.file(f"{scsi}/model", "ST4000NM0025    ")
    fake.disk(f"{scsi}/block", "sdc", "8:32", sectors=7814037168, rotational=1, device=scsi)
    disk = read_disk("sdc", fake.root)
    assert disk.sas_speed == "12.0 Gbit"
    link = link_of(disk)
    assert (link.name, link.short, round(link.bytes_per_second / 1e6), link.full_duplex) == (
        "SAS 12 Gb/s", "SAS 12G", 1200, True)
    assert round(Link("SAS", 22.5).bytes_per_second / 1e6) == 2400  # SAS-4: 128b/150b
    (fake.root / host / "phy-0:0/sas_phy/phy-0:0/negotiated_linkrate").write_text("Unknown\n")
    assert read_disk("sdc", fake.root).sas_speed is None


def test_an_imported_report_without_a_link_says_the_report_had_none():
    # Issue 39, item 18: a DiskSpd text from Windows said "the kernel reported no link speed".
    from conftest import FIXTURES
    from labtui.results.imports import import_file

    (result,) = import_file(FIXTURES / "diskspd-text" / "diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt")
    found = bottleneck.analyse(result)
    assert found.link is None
    assert found.unknown == "link unknown: the imported report does not say the disk's link"
