"""The manual's seed story (docs/comparing.md): what labtui concludes from the seed post's own figures, printed by labtui's
own code (the comparison's bottleneck lines and `show`'s link section) on those figures."""

import io
from dataclasses import replace

from rich.console import Console

from labtui.analysis.bottleneck import analyse
from labtui.analysis.comparison import compare
from labtui.render.comparison import bottleneck_lines
from labtui.render.result_tables import bottleneck_renderable
from manual import page
from seed_post import seed_results
from synthetic import step_result

BEGIN, END = "<!-- seed-bottleneck -->\n", "<!-- /seed-bottleneck -->"

# The SN850X (a PCIe 4.0 x4 drive) in either PCIe 3.0 adapter in the Z8 G4, whose slots are PCIe 3.0:
# the link as Linux reports it there.
Z8_SLOT = dict(pcie_speed="8.0 GT/s PCIe", pcie_width=4, pcie_max_speed="16.0 GT/s PCIe", pcie_max_width=4,
               pcie_port_max_speed="8.0 GT/s PCIe", pcie_port_max_width=16, transport="nvme", kind="NVMe")


def adapter_results():
    return [replace(r, target=replace(r.target, **Z8_SLOT)) for r in seed_results()]


def sata_result():
    """The post's SATA SSD: 8500 IOPS (530 MB/s) read and 4850 IOPS (303 MB/s) write, 64K random."""
    nvme = seed_results()[0]
    read, write = (s.step for s in nvme.steps)
    steps = tuple(replace(step_result(step, iops, cpu=None), latency=type(nvme.steps[0].latency)())
                  for step, iops in ((read, 8500), (write, 4850)))
    target = replace(nvme.target, model=None, kind="SATA SSD", transport="sata", sata_speed="6.0 Gbps",
                     sata_max_speed="6.0 Gbps")
    return replace(nvme, id="sata", target=target, steps=steps, tags=("the Z8's SATA SSD",))


def story() -> str:
    comparison = compare(adapter_results())
    lines = ["$ labtui compare startech hp      # ... the comparison, then:"]
    lines += [f"bottleneck: {title}: {line}" for title, line in bottleneck_lines(comparison)]
    console = Console(width=160, record=True, file=io.StringIO(), color_system=None)
    console.print(bottleneck_renderable(sata_result()))
    lines += ["", "$ labtui show sata                 # ... the figures, then:"]
    lines += [line.rstrip() for line in console.export_text().splitlines()]
    return "```text\n" + "\n".join(lines) + "\n```\n"


def test_the_manual_tells_the_seed_story_as_labtui_prints_it():
    text = page("comparing.md")
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert shown == story(), "docs/comparing.md's seed story is out of date; regenerate it with print(story())"


def test_the_story_figures():
    # 3,393 MiB/s is 3,558 MB/s: 90 % of PCIe 3.0 x4's 3,938 MB/s; 530 MiB/s is 556 MB/s: 93 % of SATA's 600.
    hp = analyse(adapter_results()[1]).steps[0]
    assert round(hp.used_bytes_per_second / 1e6) == 3558 and round(100 * hp.share) == 90
    sata = analyse(sata_result()).steps[0]
    assert round(sata.used_bytes_per_second / 1e6) == 557 and round(100 * sata.share) == 93
    assert (hp.verdict, sata.verdict) == ("link", "link")
