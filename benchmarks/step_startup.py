"""What a step takes beyond its plan: the start-up and wind-down the ETA counts for every I/O step.

Runs a profile of short steps (quick-sanity's 64 KiB random read and write, 4 threads x 8
outstanding, 1 s warm-up + 2 s measured) with each engine and times every step from its
StepStarted to its StepFinished event: the excess over warm-up + duration is the engine's
workers starting, the file opening, the workers stopping and their counts being collected.
Prints each engine's per-step excess (median and range over all steps), the test file's
preparation and what follows the last step, against labtui.model.profile.STEP_STARTUP_SECONDS (the
figure the plan uses before a run's own finished steps say otherwise).

    python benchmarks/step_startup.py --dir /var/tmp --steps 6 --engines native fio
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from labtui.engine.events import RunFinished, StepFinished, StepStarted
from labtui.model.profile import STEP_STARTUP_SECONDS
from labtui.results.store import Store, builtin_profiles
from labtui.run.runner import Runner, RunOptions

WARMUP, DURATION = 1.0, 2.0


async def measure(engine: str, directory: Path, steps: int) -> dict[str, object]:
    base = next(p for p in builtin_profiles() if p.name == "quick-sanity")
    profile = replace(base, file_size=256 * 1024**2, steps=tuple(
        replace(base.steps[i % 2], warmup=WARMUP, duration=DURATION, name=f"step {i + 1}") for i in range(steps)))
    home = Path(tempfile.mkdtemp(prefix="step-startup-home-"))
    target = Path(tempfile.mkdtemp(prefix="step-startup-", dir=directory))
    try:
        runner = Runner(profile, target, Store(home), RunOptions(engine=engine))
        await asyncio.to_thread(runner.preflight)
        began = time.monotonic()
        excess, first_step, last_end, finished = [], None, None, None
        async for event in runner.events():
            now = time.monotonic()
            if isinstance(event, StepStarted):
                step_began = now
                first_step = now - began if first_step is None else first_step
            elif isinstance(event, StepFinished):
                excess.append(now - step_began - WARMUP - DURATION)
                last_end = now
            elif isinstance(event, RunFinished):
                finished = now
        total = time.monotonic() - began
        return {"excess": excess, "before": first_step, "after": (finished or last_end) - last_end, "total": total,
                "planned": profile.planned_seconds}
    finally:
        shutil.rmtree(target, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where the test files go")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--engines", nargs="+", default=["native", "fio"])
    args = parser.parse_args()
    print(f"model's figure: STEP_STARTUP_SECONDS = {STEP_STARTUP_SECONDS} s a step")
    for engine in args.engines:
        m = asyncio.run(measure(engine, args.dir, args.steps))
        excess = m["excess"]
        print(f"{engine:7s} per-step excess median {statistics.median(excess):.2f} s "
              f"(range {min(excess):.2f}-{max(excess):.2f}, {len(excess)} steps); "
              f"before the first step {m['before']:.2f} s (test file), after the last {m['after']:.2f} s; "
              f"run {m['total']:.1f} s against a plan of {m['planned']:.1f} s")


if __name__ == "__main__":
    main()
