"""How the native engine carries a step (labtui.engine.native.plan): which I/O loop, how many processes, and
the fallback where a loop asked for cannot run, said."""

from __future__ import annotations

from dataclasses import replace

import pytest

from labtui.engine.native.engine import NativeEngine
from labtui.engine.native.plan import plan
from labtui.engine.native.uring_loop import MAX_SLOTS
from labtui.errors import LabtuiError
from labtui.model.profile import Step
from labtui.settings import EngineSettings


def step(**fields) -> Step:
    base = dict(name="t", block_size=4096, pattern="random", write_percent=0, threads=2, outstanding=4,
                duration=1.5, warmup=0.5, cache="off", latency=True)
    base.update(fields)
    return Step(**base)


def test_auto_picks_io_uring_then_aio_then_threads_and_blocking_calls_at_depth_one():
    def loop(s: Step, direct: bool = True, cpus: int = 2, **missing: str) -> tuple[str, str | None]:
        carriage = plan(s, direct, missing=missing, cpus=cpus)
        return carriage.loop, carriage.note

    deep = step(outstanding=8)
    assert loop(deep) == ("io_uring", None)
    assert loop(deep, io_uring="disabled") == ("aio", None)
    assert loop(deep, io_uring="x", aio="y") == ("threads", None)
    assert loop(step(outstanding=1)) == ("sync", None)  # two threads on two CPUs: one I/O per process
    assert loop(step(outstanding=1), cpus=1) == ("io_uring", None)  # both on one: two I/Os in one ring
    assert loop(step(cache="on", outstanding=8), False) == ("threads", None)


def test_logical_workers_ride_on_at_most_one_process_per_cpu_unless_per_thread_is_asked():
    many = step(threads=16, outstanding=2)
    carriage = plan(many, True, missing={}, cpus=2)
    assert carriage.describe() == "16 logical workers on 2 processes, io_uring"
    assert carriage.groups == (tuple(range(8)), tuple(range(8, 16))) and carriage.most_slots == 16
    assert [len(g) for g in plan(step(threads=5), True, missing={}, cpus=2).groups] == [3, 2]
    assert plan(step(threads=1), True, missing={}, cpus=8).processes == 1
    # A ring drives at most MAX_SLOTS slots: a deeper step takes more processes than CPUs.
    deep = plan(step(threads=64, outstanding=1024), True, missing={}, cpus=2)
    assert deep.processes == 4 and deep.most_slots == MAX_SLOTS == 16384
    assert plan(step(threads=33, outstanding=1000), True, missing={}, cpus=2).most_slots <= MAX_SLOTS
    per_thread = plan(many, True, missing={}, cpus=2, mode="per-thread")
    assert per_thread.processes == 16 and per_thread.describe() == "16 logical workers on 16 processes (per-thread), io_uring"
    # The blocking loops carry one worker a process, whatever the mode.
    assert plan(replace(many, cache="on"), False, missing={}, cpus=2).processes == 16
    assert plan(many, True, missing={"io_uring": "x", "aio": "y"}, cpus=2).processes == 16
    with pytest.raises(LabtuiError, match="native_workers must be one of auto, per-thread, got 'each'"):
        plan(many, True, missing={}, cpus=2, mode="each")
    with pytest.raises(LabtuiError, match="native_workers must be one of auto, per-thread, got 'each'"):
        NativeEngine(EngineSettings(native_workers="each")).check_available()
    # A step's own key wins over config.toml's, and the command line says how the workers ran.
    engine = NativeEngine(EngineSettings(native_workers="per-thread", cpus=2, missing_backends={}))
    assert engine.carriage(many).processes == 16
    assert engine.carriage(replace(many, native_workers="auto")).processes == 2
    assert "16 logical workers on 2 processes, io_uring, 2 outstanding each" in NativeEngine(
        EngineSettings(cpus=2, missing_backends={})).command_line(many, "/x", 1 << 30)
    assert engine.needs(many).threads == 16 and NativeEngine(EngineSettings(cpus=2, missing_backends={})).needs(many).threads == 2


def test_a_backend_asked_for_by_name_falls_back_where_it_cannot_run_and_says_why():
    deep = step(outstanding=8)
    assert plan(deep, True, "aio", missing={}, cpus=2).backend == "aio"
    carriage = plan(deep, True, "io_uring", missing={"io_uring": "io_uring is disabled here"}, cpus=2)
    assert carriage.backend == "aio" and "io_uring is disabled here" in carriage.note and "aio ran instead" in carriage.note
    carriage = plan(step(cache="on", outstanding=8), False, "io_uring", missing={}, cpus=2)
    assert carriage.backend == "sync" and "O_DIRECT" in carriage.note and "sync ran instead" in carriage.note
    with pytest.raises(LabtuiError, match="native_backend"):
        plan(deep, True, "spdk", missing={}, cpus=2)
    # Refused before anything is written: the runner's preflight asks the engine first.
    with pytest.raises(LabtuiError, match="native_backend must be auto or one of io_uring, aio, sync, got 'spdk'"):
        NativeEngine(EngineSettings(native_backend="spdk")).check_available()
