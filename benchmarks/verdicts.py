"""How often labtui's verdicts are wrong, on synthetic results of known truth (the real compare and check code).

Every trial builds RunResults as the engines do (exact counts per direction, latency by Little's
law, per-second samples of an autocorrelated AR(1) series around each run's figure) for the I/O
steps of a built-in profile, with a known run-to-run noise per step, and runs them through
labtui.analysis.comparison.compare and labtui.analysis.checks.confirmed (the code `labtui compare` and `labtui check`
run). Steps' noise differs: each step's noise is the level times a factor from 1/sqrt(2) to
sqrt(2) (log-uniform), so the noisiest step is twice as noisy as the quietest.

- compare, nothing changed: claims (better or worse) per 100 metric lines (every metric: IOPS,
  MiB/s, latency, p99, CPU), A and B with the same repetitions;
- compare, power: IOPS lines called worse when every step's throughput truly dropped 10 % / 15 %;
- check, nothing changed: checks that FAIL (exit 1) per 100, and checks that cannot tell (exit 3),
  with the command's defaults: tolerance 10 %, the re-run as many runs as the baseline (at least
  3), a second pass of 8 runs when the first fails or is doubtful (judged on its own) or is only
  too noisy to tell (pooled with it);
- check, power: FAIL when every step's throughput dropped 10 % / 15 %, and when one step did;
- check, a true regression of the tolerance: checks that PASS although every step's throughput
  dropped 10 % (what the 95 % confidence bound and the test's power must keep rare).

It is pure CPU, seeded and not timing-sensitive:

    python benchmarks/verdicts.py [--trials 200] [--seed 1] [--jobs N]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from labtui.analysis.checks import FAILED, INCONCLUSIVE, PASSED, confirmed
from labtui.analysis.comparison import compare
from labtui.analysis.figures import CLAIMS, WORSE
from labtui.analysis.metrics import IOPS
from labtui.commands.check import DEFAULT_TOLERANCE_PCT, MIN_RUNS
from labtui.model.profile import Step
from labtui.model.result import DirectionStats, EngineInfo, HostInfo, LatencySummary, RunResult, Sample, StepResult, TargetInfo
from labtui.results.store import builtin_profiles
from labtui.run.request import DEFAULT_CONFIRM

NOISE = (0.01, 0.03, 0.05, 0.10, 0.20)
SPREAD = math.sqrt(2.0)  # a step's noise is the level times a factor in [1/SPREAD, SPREAD]
INTERVALS = 8  # per-second samples per step (short steps keep the benchmark fast)
INTERVAL_CV, INTERVAL_PHI = 0.08, 0.7  # how the seconds of one run wander: 8 %, lag-1 correlation 0.7
SHAPES = ("quick-sanity", "configmgr-sql", "cdm-standard")  # 2, 4 and 8 I/O steps
HOST = HostInfo(name="bench", os="Linux", kernel="6.1", cpu_model="x", cpu_count=2)
TARGET = TargetInfo(path="/mnt/x", device="/dev/x1", disk="x", kind="NVMe", model="Synthetic SSD", serial="1",
                    filesystem="ext4", mount_point="/mnt/x")
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class Disk:
    """A disk of known truth: each step's mean IOPS and run-to-run noise (log-scale sd)."""

    def __init__(self, steps: list[Step], noise: float, rng: random.Random) -> None:
        self.steps = steps
        self.rng = rng
        self.iops = {s.name: rng.uniform(2_000, 200_000) for s in steps}
        self.sd = {s.name: noise * SPREAD ** rng.uniform(-1, 1) for s in steps}
        self.count = 0

    def result(self, runs: int, shift: dict[str, float] | None = None) -> RunResult:
        """`runs` repetitions of the profile; `shift` multiplies some steps' true throughput."""
        self.count += 1
        shift = shift or {}
        out = []
        for rep in range(1, runs + 1):
            for step in self.steps:
                mean = self.iops[step.name] * shift.get(step.name, 1.0)
                value = mean * math.exp(self.rng.gauss(0.0, self.sd[step.name]))
                out.append(_step_result(step, value, rep, self.rng))
        profile = replace(PROFILES[self.steps[0].name], repeat=runs)
        started = EPOCH + timedelta(minutes=self.count)
        return RunResult(id=f"r{self.count}", status="completed", started=started, ended=started, host=HOST,
                         target=TARGET, engine=EngineInfo("native", "1"), profile=profile, steps=tuple(out))


def _step_result(step: Step, iops: float, repetition: int, rng: random.Random) -> StepResult:
    # The run's seconds: an AR(1) series around its figure, rescaled so they average to it exactly.
    x, series = 0.0, []
    for _ in range(INTERVALS):
        x = INTERVAL_PHI * x + rng.gauss(0.0, INTERVAL_CV * math.sqrt(1 - INTERVAL_PHI**2))
        series.append(math.exp(x))
    scale = iops / (sum(series) / len(series))
    reads_share = (100 - step.write_percent) / 100
    samples, total_ios = [], 0
    for i, v in enumerate(series):
        ios = max(round(v * scale), 1)
        reads = round(ios * reads_share)
        lat = step.queue_depth / ios * 1000
        samples.append(Sample(t=i + 1.0, seconds=1.0, read_ios=reads, read_bytes=reads * step.block_size,
                              write_ios=ios - reads, write_bytes=(ios - reads) * step.block_size,
                              read_lat_mean_ms=lat if reads else None, write_lat_mean_ms=lat if ios - reads else None,
                              read_lat_p99_ms=lat * 2.5 if step.write_percent == 0 else None,
                              write_lat_p99_ms=lat * 2.5 if step.write_percent == 100 else None,
                              cpu_percent=20.0 * rng.uniform(0.9, 1.1)))
        total_ios += ios
    seconds = float(INTERVALS)
    reads = round(total_ios * reads_share)
    lat = step.queue_depth / (total_ios / seconds) * 1000
    p99 = lat * 2.5 * math.exp(rng.gauss(0.0, 0.05))  # the tail wanders a little on its own
    summary = LatencySummary(mean=lat, min=lat / 4, max=lat * 8, p50=lat * 0.9, p90=lat * 1.6, p95=lat * 2,
                             p99=p99, p999=p99 * 2, p9999=p99 * 3)
    return StepResult(step=step, read=DirectionStats(reads, reads * step.block_size, seconds),
                      write=DirectionStats(total_ios - reads, (total_ios - reads) * step.block_size, seconds),
                      latency=summary, read_latency=summary if reads else LatencySummary(),
                      write_latency=summary if total_ios - reads else LatencySummary(),
                      cpu_percent=sum(s.cpu_percent for s in samples) / len(samples), repetition=repetition,
                      samples=tuple(samples))


PROFILES = {}
STEPS = {}
for _p in builtin_profiles():
    if _p.name in SHAPES:
        _io = [replace(s, duration=float(INTERVALS)) for s in _p.steps if s.is_io]
        STEPS[_p.name] = _io
        for _s in _io:
            PROFILES[_s.name] = replace(_p, steps=tuple(_io))


def compare_trial(shape: str, noise: float, runs: int, drop: float, rng: random.Random) -> tuple[int, int, int]:
    """(claims among all metric lines, lines, IOPS lines called worse) for one A/B pair."""
    disk = Disk(STEPS[shape], noise, rng)
    a = disk.result(runs)
    b = disk.result(runs, {s.name: 1.0 - drop for s in disk.steps} if drop else None)
    comparison = compare([a, b])
    claims = lines = worse = 0
    for group in comparison.groups:
        for row in group.rows:
            delta = row.deltas[1]
            if delta is None:
                continue
            lines += 1
            claims += delta.verdict in CLAIMS
            if row.metric is IOPS and delta.verdict == WORSE:
                worse += 1
    return claims, lines, worse


def check_trial(shape: str, noise: float, base_runs: int, drop: float, one_step: bool,
                rng: random.Random) -> str:
    """The final outcome of one `labtui check` with the command's defaults."""
    disk = Disk(STEPS[shape], noise, rng)
    baseline = disk.result(base_runs)
    names = [s.name for s in disk.steps]
    shift = dict.fromkeys(names[:1] if one_step else names, 1.0 - drop) if drop else None
    first = disk.result(max(MIN_RUNS, base_runs), shift)
    reports, _ = confirmed(baseline, first, DEFAULT_TOLERANCE_PCT,
                           more=lambda report: disk.result(DEFAULT_CONFIRM, shift))
    return reports[-1].outcome


def pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:5.1f}" if n else "    -"


def compare_cell(job: tuple) -> tuple[int, int, int]:
    """(claims, lines, IOPS lines called worse, IOPS lines) over `trials` pairs of one cell."""
    seed, noise, runs, drop, trials = job
    rng = random.Random(seed)
    claims = lines = worse = iops = 0
    for t in range(trials):
        shape = SHAPES[t % len(SHAPES)]
        c, l, w = compare_trial(shape, noise, runs, drop, rng)
        claims, lines, worse, iops = claims + c, lines + l, worse + w, iops + len(STEPS[shape])
    return claims, lines, worse, iops


def check_cell(job: tuple) -> tuple[int, int, int]:
    """(FAILs, cannot tells, PASSes) over `trials` checks of one cell."""
    seed, shape, noise, base, drop, one, trials = job
    rng = random.Random(seed)
    outcomes = [check_trial(shape, noise, base, drop, one, rng) for _ in range(trials)]
    return (sum(o == FAILED for o in outcomes), sum(o == INCONCLUSIVE for o in outcomes),
            sum(o == PASSED for o in outcomes))


def main(argv: list[str] | None = None) -> int:
    from concurrent.futures import ProcessPoolExecutor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="trials per cell (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per CPU)")
    args = parser.parse_args(argv)
    n = args.trials
    began = time.monotonic()
    reps = (1, 2, 3, 5)
    bases = (1, 3, 5)
    drops = ((0.10, False), (0.15, False), (0.15, True))
    compare_jobs = [(args.seed * 1000 + i, noise, runs, 0.0, n) for i, (noise, runs) in
                    enumerate((noise, runs) for noise in NOISE for runs in reps)]
    power_jobs = [(args.seed * 1000 + 500 + i, noise, 3, drop, n) for i, (noise, drop) in
                  enumerate((noise, drop) for noise in NOISE for drop in (0.10, 0.15))]
    check_keys = [(shape, noise, base, drop, one) for shape in SHAPES for noise in NOISE for base in bases
                  for drop, one in ((0.0, False), *drops)]
    check_jobs = [(args.seed * 1000 + 2000 + i, *key, n) for i, key in enumerate(check_keys)]
    with ProcessPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        compared = list(pool.map(compare_cell, compare_jobs))
        powered = list(pool.map(compare_cell, power_jobs))
        checked = dict(zip(check_keys, pool.map(check_cell, check_jobs)))

    print(f"compare, nothing changed: claims (better/worse) per 100 metric lines (IOPS, MiB/s, latency, p99, CPU), "
          f"{n} pairs per cell over {', '.join(SHAPES)}")
    print("noise    " + "".join(f"{r} vs {r}".rjust(9) for r in reps))
    for i, noise in enumerate(NOISE):
        row = compared[i * len(reps):(i + 1) * len(reps)]
        print(f"{noise * 100:4.0f} %  " + "".join(pct(c, l).rjust(9) for c, l, _, _ in row))
    print("\ncompare, power: IOPS lines called worse per 100 when every step truly dropped, 3 vs 3 runs")
    print("noise      -10 %    -15 %")
    for i, noise in enumerate(NOISE):
        row = powered[i * 2:(i + 1) * 2]
        print(f"{noise * 100:4.0f} %  " + "".join(pct(w, k).rjust(9) for _, _, w, k in row))
    for shape in SHAPES:
        print(f"\ncheck, {shape} ({len(STEPS[shape])} steps), tolerance {DEFAULT_TOLERANCE_PCT:g} %: per 100 checks "
              f"({n} per cell); baseline of b runs, re-run max({MIN_RUNS}, b), second pass {DEFAULT_CONFIRM}")
        print("               nothing changed              all -10 %   FAIL when the throughput dropped")
        print("noise   b     FAIL  cannot tell   PASS         PASS     all -10 %  all -15 %  one step -15 %")
        for noise in NOISE:
            for base in bases:
                fail, unsure, passed = checked[(shape, noise, base, 0.0, False)]
                false_pass = checked[(shape, noise, base, *drops[0])][2]
                power = [pct(checked[(shape, noise, base, d, o)][0], n) for d, o in drops]
                print(f"{noise * 100:4.0f} % {base:2d}   {pct(fail, n)}  {pct(unsure, n).rjust(11)}  {pct(passed, n)}"
                      f"        {pct(false_pass, n)}     {power[0].rjust(9)}  {power[1].rjust(9)}  {power[2].rjust(14)}")
    print(f"\n{time.monotonic() - began:.0f} s with {args.jobs} processes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
