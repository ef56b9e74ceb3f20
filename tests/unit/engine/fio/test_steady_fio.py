"""Steady state with the real fio: fio's own check where it expresses the rule (its JSON
`steadystate` object read and checked against the same criterion computed on fio's own data),
labtui's rounds from fio's status reports where it does not."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace

import pytest

from conftest import require_tool
from labtui.analysis import steady
from labtui.engine.events import RunFinished, SteadyRound
from labtui.engine.fio.engine import fio_arguments, fio_judges
from labtui.model.profile import Profile, SteadyRule, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

pytestmark = pytest.mark.slow


def _run(step: Step, home, target):
    runner = Runner(Profile(name="fio-steady", file_size=32 * 1024**2, free_space_margin=0, steps=(step,)), target,
                    Store(home), RunOptions(engine="fio"))
    rounds = []

    async def consume():
        async for event in runner.events():
            if isinstance(event, SteadyRound):
                rounds.append(event.state)
            elif isinstance(event, RunFinished):
                break

    asyncio.run(consume())
    return runner, rounds


def _final_job(stdout: str) -> dict:
    start = [m.start() for m in re.finditer(r"^\{", stdout, re.M)][-1]
    return json.loads(stdout[start:])["jobs"][0]


def test_fio_criteria_over_one_second_rounds_map_to_fios_own_check():
    step = Step(name="s", block_size=4096, duration=1.0, warmup=2.0, steady_state="iops_slope:0.5%", steady_window=4,
                steady_max_rounds=30)
    assert fio_judges(step)
    args = fio_arguments(step, "/data/f", 1 << 20)
    assert {"--steadystate=iops_slope:0.5%", "--ss_dur=4", "--ss_ramp=2", "--ramp_time=2", "--runtime=33"} <= set(args)
    bw = Step(name="b", duration=1.0, warmup=0.0, steady_state="bw:1048576", steady_window=5)
    assert "--steadystate=bw:1048576" in fio_arguments(bw, "/f", 1 << 20)
    assert not any(a.startswith("--ss_ramp") for a in fio_arguments(bw, "/f", 1 << 20))
    # What fio cannot express: SNIA's two criteria, latency, rounds longer than fio's one-second points.
    for other in (Step(name="n", duration=1.0, steady_state="snia"),
                  Step(name="l", duration=1.0, steady_state="lat:5%"),
                  Step(name="r", duration=60.0, steady_state="iops_slope:1%")):
        assert not fio_judges(other)
        args = fio_arguments(other, "/f", 1 << 20)
        assert not any(a.startswith(("--steadystate", "--ss_dur")) for a in args)
        assert f"--runtime={int(other.duration * 25)}" in args  # labtui stops fio when the rule holds


def test_fios_steadystate_object_is_read_with_falling_figures_and_refused_when_garbled():
    from labtui.engine.fio import parse as fr
    from labtui.errors import ReportError

    # The shape fio 3.33 prints (its own run of iops_slope:50% over 3 s, figures falling this time).
    job = {"steadystate": {"ss": "iops_slope:50.000000%", "duration": 3, "attained": 1, "criterion": "-25.797390%",
                           "max_deviation": 0.0, "slope": -2984.5,
                           "data": {"bw_mean": 47390167, "iops_mean": 11569, "iops": [14114, 12450, 8145],
                                    "bw": [57810944, 50997045, 33362514]}}}
    state = fr.job_steadystate(job)
    assert (state.criterion_name, state.attained, state.criterion, state.percent) == ("iops_slope", True, -25.79739, True)
    assert state.slope == -2984.5 and state.iops == (14114, 12450, 8145) and state.bw_mean == 47390167
    assert fr.job_steadystate({}) is None
    for bad in ({"ss": "iops"}, {"ss": "iops:1%", "criterion": "x%", "duration": 3, "data": {}},
                {"ss": "iops:1%", "criterion": "1%", "duration": 3, "slope": "steep", "data": {}}):
        with pytest.raises(ReportError):
            fr.job_steadystate({"steadystate": bad})


def test_fios_steadystate_object_is_the_verdict_and_matches_the_criterion_on_its_data(labtui_home, tmp_path):
    require_tool("fio")
    step = Step(name="fio judges", block_size=4096, outstanding=4, duration=1.0, warmup=1.0,
                steady_state="iops_slope:50%", steady_window=3, steady_max_rounds=10)
    runner, rounds = _run(step, labtui_home, tmp_path)
    result = runner.result.steps[0]
    assert result.status == "completed", result.error
    state = result.steady_state
    fio = _final_job(runner.engine.raw_outputs[-1])["steadystate"]
    # fio's own verdict, read from its report.
    assert state.judged_by == "fio"
    assert state.attained == bool(fio["attained"])
    assert state.window_figures == tuple(float(v) for v in fio["data"]["iops"])
    assert state.slope == fio["slope"]
    # The window's figure is the step's (its I/Os over its seconds), not fio's average of its samples.
    assert state.mean == result.total.iops and state.mean == pytest.approx(fio["data"]["iops_mean"], rel=0.1)
    [criterion] = state.criteria
    assert criterion.value == pytest.approx(abs(float(fio["criterion"].rstrip("%"))))
    assert criterion.held == state.attained == (criterion.value < 50)
    # The same criterion computed by labtui on fio's own per-second data agrees (fio divides an
    # integer sum for the mean: within a thousandth).
    ours = steady.judge_window(SteadyRule.parse("iops_slope:50%", window=3), state.window_figures)
    assert ours.criteria[0].value == pytest.approx(criterion.value, rel=1e-3)
    assert ours.slope == pytest.approx(fio["slope"], rel=1e-9)
    # labtui's own rounds of the same run came live, one per second fio judged from.
    assert [len(r.rounds) for r in rounds] == list(range(1, len(rounds) + 1))
    assert 1 <= len(state.rounds) <= 10
    # The step's figures are its last window of seconds, from fio's reports.
    assert result.total.seconds == pytest.approx(min(3, len(state.rounds)), abs=0.3)
    assert result.latency.p99 is not None


def test_snia_with_fio_is_judged_by_labtui_from_fios_reports(labtui_home, tmp_path):
    require_tool("fio")
    step = Step(name="snia", block_size=4096, outstanding=4, duration=1.0, warmup=0.0, steady_state="snia",
                steady_max_rounds=6)
    runner, rounds = _run(step, labtui_home, tmp_path)
    result = runner.result.steps[0]
    assert result.status == "completed", result.error
    state = result.steady_state
    assert state.judged_by == "labtui" and rounds[-1] == replace(state, mean=rounds[-1].mean)
    assert state.mean == result.total.iops  # the window's figure, once the step has ended: the step's
    assert len(state.rounds) == (len(state.rounds) if state.attained else 6)
    # SNIA's rule on the recorded rounds, by hand.
    window = state.rounds[-5:]
    mean = sum(window) / 5
    values = {c.name: c.value for c in state.criteria}
    assert values["range"] == pytest.approx(100 * (max(window) - min(window)) / mean)
    # The window's counts: five rounds of about a second, differenced from fio's reports.
    assert result.total.seconds == pytest.approx(5.0, abs=0.5)
    assert result.total.iops == pytest.approx(mean, rel=0.15)
    assert result.latency.mean is not None and result.latency.p99 is not None
    assert not list(tmp_path.glob("labtui-[0-9]*"))
