"""A fleet report's words (labtui/render/fleet_report.py): a step across the hosts in one line; warnings and
bottlenecks said once, with the hosts they apply to."""

from __future__ import annotations

from labtui.fleet.summary import StepSpread
from labtui.render.fleet_report import grouped_bottleneck, grouped_warnings, spread_line


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


def spread(**fields) -> StepSpread:
    base = dict(step="Read 4K", label="RND4K Q1T1", metric="IOPS", unit="IOPS", higher_is_better=True,
                figures=(("h2", 1200.0), ("h1", 1000.0), ("h3", 600.0)), differing=())
    base.update(fields)
    return StepSpread(**base)


def test_a_step_across_the_hosts_says_fastest_slowest_how_far_apart_and_the_claims():
    line = spread_line(spread(differing=(("h3", "worse", -40.0, "the means"),), outliers=(("h3", -38.5),)), "h1", True)
    assert line.startswith("Read 4K: fastest h2 (1,200 IOPS), slowest h3 (600 IOPS)")
    assert "; beyond noise against h1: none better, 1 worse (h3)" in line
    assert line.endswith("; far from the others: h3 (-38 % from the median)")
    assert "none differs from h1 beyond noise" in spread_line(spread(), "h1", True)
    assert "noise" not in spread_line(spread(), "h1", False)  # single runs: no claim either way


def test_many_hosts_of_one_verdict_are_counted_not_listed_and_a_command_step_says_its_own_unit():
    many = tuple((f"h{i}", "better", 20.0, "the means") for i in range(4, 9))
    assert spread_line(spread(differing=many), "h1", True).endswith("beyond noise against h1: 5 better, none worse")
    wall = spread(step="Extract", metric="wall time", unit="s", higher_is_better=False,
                  figures=(("h1", 12.25), ("h2", 14.0)))
    assert spread_line(wall, "h1", False) == "Extract: fastest h1 (12.2 s), slowest h2 (14.0 s), 14.3 % apart"
