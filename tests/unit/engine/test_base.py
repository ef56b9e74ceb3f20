"""The engine contract, over every registered engine; and a new engine is one package plus one registry line.

The engines come from the registry (labtui.engine.registry), never from a list here: an engine
added there is held to the same contract. The skeleton (labtui/engine/skeleton.py, the template of
a new engine) is registered by the `engine` fixture as a new engine would be, and runs like the
others (test_skeleton.py shows `labtui run --help` lists it and the Workload screen previews it).
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from labtui.engine import registry
from labtui.engine.base import CpuAdvice, Engine, EngineUnavailable
from labtui.engine.events import RunFinished, RunStarted, SampleTaken, StepFinished, StepStarted
from labtui.engine.limits import StepNeeds
from labtui.errors import LabtuiError
from labtui.model.profile import MIB, Profile, Step
from labtui.results.store import Store, builtin_profiles
from labtui.run.runner import Runner, RunOptions
from labtui.settings import ENGINE_KEYS

SKELETON = "skeleton"  # the template engine, registered by the test as a new engine would be
SIMPLE = Step(name="contract", block_size=4096, pattern="random", write_percent=50, threads=1, outstanding=1,
              duration=0.6, warmup=0.1, cache="off")


@pytest.fixture(params=[*registry.engine_names(), SKELETON])
def engine(request, monkeypatch) -> str:
    if request.param == SKELETON:
        monkeypatch.setitem(registry.ENGINES, SKELETON, "labtui.engine.skeleton:SkeletonEngine")
    return request.param


def test_an_engine_says_everything_labtui_says_of_it(engine):
    cls = registry.engine_class(engine)
    assert issubclass(cls, Engine) and cls.name == engine and engine.isidentifier() and engine.islower()
    assert isinstance(cls.title, str) and cls.title.strip() and registry.engine_title(engine) == cls.title
    assert isinstance(cls.cpu_advice, CpuAdvice) and "not the disk's" in cls.cpu_advice.own
    assert "not the disk's" in cls.cpu_advice.crowded
    assert set(cls.settings_keys) <= ENGINE_KEYS, "a key an engine reads must be one labtui.settings knows"
    assert isinstance(cls.preview_order, int)
    eng = cls()
    assert eng.command_line(SIMPLE, "/data/test.dat", 64 * MIB).strip()
    assert isinstance(eng.needs(SIMPLE), StepNeeds) and cls.io_threads(SIMPLE) >= 1
    for step in (s for p in builtin_profiles() for s in p.steps if s.is_io):
        with contextlib.suppress(LabtuiError):  # a step it cannot express says why (the preview shows it)
            assert eng.command_line(step, "/data/test.dat", 64 * MIB).strip()
    try:
        eng.check_available()
    except EngineUnavailable as exc:
        assert str(exc).strip() and "\n" not in str(exc), "what to install, on one line"


def _run(runner: Runner) -> list:
    async def go() -> list:
        return [event async for event in runner.events()]

    return asyncio.run(go())


def _cancelled(runner: Runner) -> float:
    """Run until the first measured sample, cancel as a front end does when the person stops the run: how long it took."""

    async def go() -> float:
        measuring = asyncio.Event()

        async def consume() -> None:
            async for event in runner.events():
                if isinstance(event, SampleTaken) and event.phase == "measure":
                    measuring.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(measuring.wait(), timeout=30)
        loop = asyncio.get_running_loop()
        began = loop.time()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return loop.time() - began

    return asyncio.run(go())


def _runnable(engine: str) -> None:
    try:
        registry.get_engine(engine).check_available()
    except EngineUnavailable as exc:
        pytest.skip(f"{engine} cannot run here: {exc}")


def test_an_engine_runs_a_step_whose_counts_agree(engine, disk_dir, tmp_path):
    _runnable(engine)
    target = disk_dir / f"contract-{engine}"
    target.mkdir()
    profile = Profile(name="contract", file_size=8 * MIB, free_space_margin=0, steps=(SIMPLE,))
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions(engine=engine, interval=0.2))
    events = _run(runner)
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert [type(e) for e in events if isinstance(e, StepStarted | StepFinished)] == [StepStarted, StepFinished]
    result = events[-1].result
    assert result.status == "completed", result.error
    assert result.engine.name == engine and runner.saved_path is not None and runner.saved_path.is_file()
    (step,) = result.steps
    preview = registry.get_engine(engine).command_line(SIMPLE, runner.plan.test_file, 8 * MIB)
    assert step.command_line and step.command_line.split()[0] == preview.split()[0], "the result keeps what ran"
    for direction in (step.read, step.write):  # exact counts: every I/O one block
        assert direction.ios > 0 and direction.bytes == direction.ios * SIMPLE.block_size
    # The measured seconds are the real elapsed ones: the warm-up is not in them.
    assert step.read.seconds == step.write.seconds == pytest.approx(SIMPLE.duration, rel=0.25)
    measured = [e.sample for e in events if isinstance(e, SampleTaken) and e.phase == "measure"]
    # Live figures are of the measure, each interval forward in time; what they add up to is the
    # engine's to keep near the exact counts (the native engine's live counters are read on the fly).
    assert measured and all(s.t > 0 and s.seconds > 0 and s.read_ios >= 0 and s.write_ios >= 0 for s in measured)
    live = sum(s.read_ios + s.write_ios for s in measured) / sum(s.seconds for s in measured)
    assert step.total.iops / 2 <= live <= step.total.iops * 2, (live, step.total.iops)
    lat = step.latency
    assert lat.min is not None and lat.mean is not None and lat.max is not None and lat.min <= lat.mean <= lat.max
    assert not list(target.glob("labtui-*")), "the test file is removed"


def test_a_cancelled_engine_stops_within_two_seconds(engine, disk_dir, tmp_path):
    _runnable(engine)
    target = disk_dir / f"cancel-{engine}"
    target.mkdir()
    step = Step(name="long", block_size=4096, threads=1, outstanding=1, duration=30.0, warmup=0.0, cache="off")
    runner = Runner(Profile(name="cancel", file_size=8 * MIB, free_space_margin=0, steps=(step,)), target,
                    Store(tmp_path / "home"), RunOptions(engine=engine, interval=0.2))
    assert _cancelled(runner) < 2.0
    assert runner.result is not None and runner.result.status == "aborted"
    assert not list(target.glob("labtui-*")), "the test file is removed"
