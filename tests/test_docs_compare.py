"""The manual's comparison example (docs/comparing.md) is what `labtui compare --markdown` prints for the seed
post's figures."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from labtui.analysis.comparison import compare
from labtui.model.profile import Profile, Step
from labtui.model.result import EngineInfo, RunResult
from labtui.render.comparison import comparison_markdown
from manual import page
from synthetic import HOST, TARGET, step_result

BEGIN, END = "<!-- seed-comparison -->\n", "<!-- /seed-comparison -->"


def seed_results() -> list[RunResult]:
    """The seed post's DiskSpd figures (-r -t8 -o8 -b64K -d60 -Sh) for the two M.2 adapters, as results."""
    read = Step("Read 64K random 60s", block_size=65536, threads=8, outstanding=8, duration=60.0, warmup=5.0)
    write = replace(read, name="Write 64K random 60s", write_percent=100)
    profile = Profile("configmgr-sql-quick", title="ConfigMgr / SQL lab workload (quick)", file_size=20 * 1024**3,
                      steps=(read, write))
    target = replace(TARGET, path="D:\\", device=None, disk=None, serial=None, firmware=None, pcie_speed=None,
                     pcie_width=None, filesystem="NTFS", mount_point="D:\\")
    host = replace(HOST, name="HP-Z8-G4", os="Windows 11", kernel=None)
    out = []
    for rid, adapter, minute, (r_iops, w_iops) in (("startech", "StarTech PEX4M2E1", 0, (53_859, 52_319)),
                                                    ("hp", "HP 933576-001", 30, (54_293, 52_321))):
        started = datetime(2023, 3, 1, 10, minute, tzinfo=UTC)
        steps = (step_result(read, r_iops, cpu=None), step_result(write, w_iops, cpu=None))
        steps = tuple(replace(s, latency=type(s.latency)(), read_latency=type(s.latency)(),
                              write_latency=type(s.latency)()) for s in steps)  # the post gives no latency
        out.append(RunResult(id=rid, status="completed", started=started, ended=started, host=host,
                             target=target, engine=EngineInfo("diskspd", "2.1"), profile=profile, steps=steps,
                             tags=(adapter,)))
    return out


def test_the_manual_shows_the_seed_comparison_as_labtui_prints_it(utc):
    text = page("comparing.md")
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert shown == comparison_markdown(compare(seed_results())), (
        "docs/comparing.md's seed comparison is out of date; regenerate it with print(comparison_markdown(...))"
    )


def test_the_seed_difference_is_not_called_and_the_figures_match_the_post():
    c = compare(seed_results())
    read_iops = c.groups[0].row("iops")
    assert [f.value for f in read_iops.figures] == [53_859, 54_293]
    assert read_iops.deltas[1].relative_pct == pytest.approx(0.806, abs=0.001)
    assert read_iops.deltas[1].verdict == "noise unknown" and read_iops.deltas[1].basis == "single runs"
    assert round(c.groups[0].row("mib_s").figures[0].value) == 3366  # the post's "3366 MB/s"


def with_repetitions(result: RunResult, sd_fraction: float) -> RunResult:
    """Five repetitions around each step's figure with the given relative standard deviation."""
    z = (-(1.6**0.5), -(0.4**0.5), 0.0, 0.4**0.5, 1.6**0.5)  # mean 0, sample sd 1
    steps = []
    for rep, k in enumerate(z, 1):
        for s in result.steps:
            steps.append(step_result(s.step, s.total.iops * (1 + sd_fraction * k), rep, cpu=None))
    return replace(result, steps=tuple(steps), profile=replace(result.profile, repeat=5))


def test_the_manual_figures_for_repeated_runs():
    a, b = seed_results()
    # "if five runs of each spread by 1 %, Welch's test gives p = 0.28: within noise"
    loose = compare([with_repetitions(a, 0.01), with_repetitions(b, 0.01)]).groups[0].row("iops").deltas[1]
    assert loose.verdict == "within noise" and round(loose.test.p_value, 2) == 0.28
    # "spread by 0.2 %, p < 0.001: real, yet below the 5 % tolerance; with --tolerance 0.5 it is better"
    tight = [with_repetitions(a, 0.002), with_repetitions(b, 0.002)]
    delta = compare(tight).groups[0].row("iops").deltas[1]
    assert delta.verdict == "within tolerance" and delta.test.p_value < 0.001
    assert compare(tight, 0.5).groups[0].row("iops").deltas[1].verdict == "better"
