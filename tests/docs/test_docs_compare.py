"""The manual's comparison example (docs/comparing.md) is what `labtui compare --markdown` prints for the seed
post's figures."""

from dataclasses import replace

import pytest

from labtui.analysis.comparison import compare
from labtui.model.result import RunResult
from labtui.render.comparison import comparison_markdown
from manual import page
from seed_post import seed_results
from synthetic import step_result

BEGIN, END = "<!-- seed-comparison -->\n", "<!-- /seed-comparison -->"




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
