"""Steady state by one engine run per round, for engines that cannot end a run when it is steady.

DiskSpd runs for a fixed time, and fio's own check cannot express SNIA's two-part rule: each
round is then a complete run of the step for `duration` (warm-up before the first only), its
figure judged (Job.judge) after it ends, until the rule holds or the round limit is reached.
The step's result is its measurement window: the exact counts of the window's rounds summed,
their latency mean weighted by I/Os, the extremes of their extremes. Percentiles of separate
runs cannot be combined (their histograms are gone), so the window has none unless it is one
round. Between rounds the disk idles for the engine's start-up (a few tenths of a second),
which the native engine's continuous rounds avoid.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from labtui.engine.base import Engine, EngineFailed, Job
from labtui.engine.events import Event, SampleTaken, SteadyRound, StepFinished
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, LatencySummary, Sample, SteadyState, StepResult, settled


async def run_in_rounds(engine: Engine, step: Step, job: Job) -> AsyncIterator[Event]:
    """Run `step` (one with a steady-state rule) as one engine run per round; yields its events."""
    rule = step.steady
    assert rule is not None
    judge = job.steady_judge()
    plain = replace(step, steady_state="")
    rounds: list[StepResult] = []
    figures: list[float] = []
    samples: list[Sample] = []
    offset = 0.0  # measured seconds of the rounds before: a round's samples continue the series
    state: SteadyState = judge(rule, (), step.duration)
    while not state.finished:
        first = not rounds
        round_step = plain if first else replace(plain, warmup=0.0)
        finished: StepResult | None = None
        async for event in engine.run_step(round_step, job):
            if isinstance(event, StepFinished):
                finished = event.result
            elif isinstance(event, SampleTaken):
                if event.phase == "measure":
                    event = SampleTaken(event.index, event.phase, replace(event.sample, t=event.sample.t + offset))
                yield event
            else:
                yield event
        if finished is None:
            raise EngineFailed(f"{engine.name} ended round {len(rounds) + 1} without a result")
        if finished.status != "completed":
            yield StepFinished(job.index, replace(finished, step=step, steady_state=state,
                                                  error=f"round {len(rounds) + 1}: {finished.error or 'failed'}"))
            return
        rounds.append(finished)
        samples += [replace(s, t=s.t + offset) for s in finished.samples]
        offset += finished.total.seconds
        total = finished.total
        figure = rule.figure_of(total.ios, total.bytes, total.seconds, finished.latency.mean)
        figures.append(figure if figure is not None else 0.0)
        state = judge(rule, figures, step.duration)
        yield SteadyRound(job.index, state)
    yield StepFinished(job.index, settled(window_result(step, rounds[-rule.window:], tuple(samples), state)))


def window_result(step: Step, window: list[StepResult], samples: tuple[Sample, ...], state: SteadyState) -> StepResult:
    """The step's result from the rounds of its measurement window (complete runs each)."""
    last = window[-1]
    cpu = [(r.cpu_percent, r.total.seconds) for r in window if r.cpu_percent is not None]
    cpu_seconds = [r.cpu_seconds for r in window if r.cpu_seconds is not None]
    engine_cpu = [r.engine_cpu_percent for r in window if r.engine_cpu_percent is not None]
    return replace(
        last,
        step=step,
        read=_summed([r.read for r in window]),
        write=_summed([r.write for r in window]),
        latency=_merged([(r.latency, r.total.ios) for r in window]),
        read_latency=_merged([(r.read_latency, r.read.ios) for r in window]),
        write_latency=_merged([(r.write_latency, r.write.ios) for r in window]),
        cpu_percent=(sum(c * s for c, s in cpu) / sum(s for _, s in cpu)) if cpu and sum(s for _, s in cpu) > 0 else None,
        cpu_seconds=sum(cpu_seconds) if cpu_seconds else None,
        engine_cpu_percent=max(engine_cpu) if engine_cpu else None,
        engine_bound=next((r.engine_bound for r in window if r.engine_bound), None),
        samples=samples,
        steady_state=state,
    )


def _summed(parts: list[DirectionStats]) -> DirectionStats:
    return DirectionStats(sum(p.ios for p in parts), sum(p.bytes for p in parts), sum(p.seconds for p in parts))


def _merged(parts: list[tuple[LatencySummary, int]]) -> LatencySummary:
    """Latency over several runs: the mean weighted by I/Os, min and max of theirs, no percentiles."""
    measured = [(lat, ios) for lat, ios in parts if ios and lat.mean is not None]
    if not measured:
        return LatencySummary()
    if len(parts) == 1:
        return parts[0][0]
    ios = sum(n for _, n in measured)
    weighted = sum((lat.mean or 0.0) * n for lat, n in measured)  # every one has a mean (measured above)
    lows = [lat.min for lat, _ in measured if lat.min is not None]
    highs = [lat.max for lat, _ in measured if lat.max is not None]
    return LatencySummary(
        mean=weighted / ios,
        min=min(lows) if lows else None,
        max=max(highs) if highs else None,
    )
