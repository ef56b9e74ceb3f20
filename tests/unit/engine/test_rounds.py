"""Steady state by one engine run per round (labtui.engine.rounds), with a stand-in engine: the warm-up before
the first round only, the series continued across rounds, and the step's result its window's rounds summed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from labtui.analysis import steady
from labtui.engine.base import Job
from labtui.engine.events import SampleTaken, SteadyRound, StepFinished
from labtui.engine.rounds import run_in_rounds, window_result
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, StepResult

STEP = Step(name="s", block_size=4096, duration=1.0, warmup=2.0, steady_state="iops:1%", steady_window=2,
            steady_max_rounds=5)


class Rounds:
    """An engine whose runs do the given IOPS in turn, one measured sample each."""

    name = "stand-in"

    def __init__(self, iops: list[int]) -> None:
        self.iops = iops
        self.asked: list[Step] = []

    async def run_step(self, step: Step, job: Job):
        self.asked.append(step)
        ios = self.iops[len(self.asked) - 1]
        sample = Sample(t=1.0, seconds=1.0, read_ios=ios, read_bytes=ios * 4096)
        yield SampleTaken(job.index, "measure", sample)
        yield StepFinished(job.index, StepResult(step=step, read=DirectionStats(ios, ios * 4096, 1.0), samples=(sample,),
                                                 latency=LatencySummary(mean=1.0 + len(self.asked), min=0.5, max=9.0)))


def test_rounds_run_until_the_rule_holds_and_the_result_is_the_windows_rounds():
    engine = Rounds([500, 900, 1000, 1005, 2000])
    job = Job(path=Path("/unused"), file_size=1 << 20, index=2, judge=steady.judge)

    async def run() -> list:
        return [event async for event in run_in_rounds(engine, STEP, job)]

    events = asyncio.run(run())
    assert [s.warmup for s in engine.asked] == [2.0, 0.0, 0.0, 0.0]  # steady at the 4th round: the 5th never runs
    assert all(s.steady_state == "" for s in engine.asked)  # each round a plain run of the step
    assert [e.sample.t for e in events if isinstance(e, SampleTaken)] == [1.0, 2.0, 3.0, 4.0]  # one series
    judged = [e.state for e in events if isinstance(e, SteadyRound)]
    assert len(judged) == 4 and judged[-1].finished and not judged[-2].finished
    result = events[-1].result
    assert isinstance(events[-1], StepFinished) and events[-1].index == 2 and result.step == STEP
    assert (result.read.ios, result.read.seconds) == (1000 + 1005, 2.0)  # the window: the last two rounds
    assert result.latency.mean == (4.0 * 1000 + 5.0 * 1005) / 2005 and result.latency.p99 is None
    assert [s.t for s in result.samples] == [1.0, 2.0, 3.0, 4.0] and result.steady_state == judged[-1]


def test_a_window_of_one_round_keeps_its_percentiles():
    one = StepResult(step=STEP, read=DirectionStats(10, 40960, 1.0), latency=LatencySummary(mean=1.0, p99=3.0))
    state = steady.judge(STEP.steady, (10.0,), STEP.duration)
    assert window_result(STEP, [one], (), state).latency.p99 == 3.0
