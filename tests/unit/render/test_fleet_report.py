"""A fleet report's words (labtui/render/fleet_report.py): warnings and bottlenecks said once, with the hosts they apply to."""

from __future__ import annotations

from labtui.render.fleet_report import grouped_bottleneck, grouped_warnings


def test_warnings_are_said_once_with_the_hosts_they_apply_to():
    letters, ids, hosts = "ABCD", ["i1", "i2", "i3", "i4"], ["h1", "h2", "h3", "h4"]
    cpu = "is CPU-bound in 'Read': this figure is the CPUs' limit, not the disk's"
    warnings = [f"{letter} ({i}) {cpu}" for letter, i in zip(letters, ids)]
    warnings += ["B (i2) is aborted: stopped; its figures cover only the steps that finished",
                 "C (i3) is aborted: stopped; its figures cover only the steps that finished",
                 "engines differ (A native, B native, C fio, D native): they issue and time I/O differently"]
    assert grouped_warnings(warnings, letters, ids, hosts) == [
        "every host (4): CPU-bound in 'Read': this figure is the CPUs' limit, not the disk's",
        "2 hosts (h2, h3): aborted: stopped; its figures cover only the steps that finished",
        "engines differ (h1 native, h2 native, h3 fio, h4 native): they issue and time I/O differently",
    ]
    assert grouped_warnings([warnings[1]], letters, ids, hosts) == [f"h2 {cpu}"]
    line = "A: CPU, not disk: the CPUs' limit; B: CPU, not disk: the CPUs' limit; C: the link"
    assert grouped_bottleneck(line, "ABC", ["h1", "h2", "h3"]) == "h1, h2: CPU, not disk: the CPUs' limit; h3: the link"
    assert grouped_bottleneck("all 3 runs use 90 % of a PCIe link: ...", "ABC", ["h1", "h2", "h3"]).startswith("all 3")
