"""Command steps on real processes: timing, disk counters, failures, time limits, setup/cleanup, cancellation;
the blocking helpers run in threads, whose errors reach the step."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import psutil
import pytest

from labtui.engine import subproc
from labtui.engine.command import engine as command_module
from labtui.engine.command.engine import CommandEngine, _in_thread, drop_page_cache, output_tail
from labtui.engine.events import RunFinished, RunWarning, SampleTaken, StepStarted
from labtui.engine.registry import ENGINES
from labtui.errors import LabtuiError
from labtui.model.profile import Profile, Step
from labtui.params import Param
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

MIB = 1024 * 1024


def command_profile(command: str, *, params=(), **fields) -> Profile:
    fields.setdefault("timeout", 30.0)
    step = Step(name="cmd", kind="command", command=command, **fields)
    return Profile(name="cmd", title="cmd", free_space_margin=0, steps=(step,), params=tuple(params))


def run_profile(profile: Profile, target: Path, home: Path, **options) -> tuple[Runner, list]:
    options.setdefault("interval", 0.1)
    target.mkdir(exist_ok=True)
    runner = Runner(profile, target, Store(home), RunOptions(**options))
    events: list = []

    async def go():
        async for event in runner.events():
            events.append(event)

    asyncio.run(go())
    return runner, events


def marker() -> str:
    """A `sleep` argument no other process on the machine has: finds this test's processes."""
    return f"{random.randint(1000, 9999)}.{random.randint(100, 999)}"


def alive_with(text: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if text in " ".join(proc.info["cmdline"] or []) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def wait_gone(text: str, seconds: float = 2.0) -> list[psutil.Process]:
    deadline = time.monotonic() + seconds
    while (left := alive_with(text)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_the_command_runner_is_no_io_engine():
    assert "command" not in ENGINES


def test_a_command_is_timed_with_the_disk_counters_alongside(tmp_path):
    target = tmp_path / "t"
    # Writes 16 MiB in two bursts; sync (the default) puts it on the disk before the clock stops.
    profile = command_profile("head -c 8M /dev/urandom > a && sleep 0.4 && head -c 8M /dev/urandom > b")
    runner, events = run_profile(profile, target, tmp_path / "home")
    result = runner.result
    assert result.status == "completed" and result.engine.name == "command"
    step = result.steps[0]
    assert step.status == "completed" and step.exit_status == 0 and step.error is None and step.output_tail is None
    assert 0.4 <= step.wall_seconds < 10
    assert step.command_line == profile.steps[0].command
    if result.target.disk:
        # The kernel's counts of the whole disk: at least what the command wrote.
        assert step.write.bytes >= 16 * MIB and step.write.seconds == step.wall_seconds
        assert step.total.mib_s == pytest.approx(step.total.bytes / step.wall_seconds / MIB)
        # The peak is the busiest interval (a short last one, the flush at the end, taken with the
        # one before): never below the mean of the same bytes, never above the busiest sample.
        assert step.peak_mib_s is not None and step.total.mib_s <= step.peak_mib_s * (1 + 1e-6)
        assert step.peak_mib_s <= max(s.mib_s for s in step.samples)
    # Samples arrive while the command runs (between its start and its end), all of them kept.
    kinds = [type(e) for e in events]
    live = [e for e in events if isinstance(e, SampleTaken)]
    assert kinds.index(StepStarted) < kinds.index(SampleTaken) and len(live) >= 3
    assert all(e.phase == "measure" for e in live)
    assert [e.sample for e in live] == list(step.samples)
    assert sum(s.write_bytes for s in step.samples) == step.write.bytes
    assert step.cpu_seconds is not None and step.cpu_percent is not None
    # The files it made stay (no cleanup was asked for); the result is saved and reads back.
    assert sorted(p.name for p in target.iterdir()) == ["a", "b"]
    assert Store(tmp_path / "home").find_result(result.id) == result


@pytest.mark.parametrize("interval", [1.0, 0.1])
def test_a_short_commands_mean_is_of_the_samples_span_and_never_above_its_peak(tmp_path, interval):
    # Shorter than one interval (one sample) and a few intervals long (a short last one). The
    # samples' counters were read before the clock started and after it stopped: their bytes over
    # the shorter wall time made the mean exceed the peak (98.9 against 98.8 MiB/s).
    target = tmp_path / "t"
    profile = command_profile("head -c 4M /dev/urandom > a && sleep 0.25 && head -c 4M /dev/urandom > b")
    runner, _ = run_profile(profile, target, tmp_path / "home", interval=interval)
    step = runner.result.steps[0]
    assert step.status == "completed", step.error
    if not runner.result.target.disk:
        pytest.skip("the target's disk has no kernel counters here")
    # The wall time is the samples' own span (each rounded to the microsecond).
    assert sum(s.seconds for s in step.samples) == pytest.approx(step.wall_seconds, abs=1e-6 * len(step.samples))
    assert step.total.bytes >= 8 * MIB
    assert step.total.mib_s <= step.peak_mib_s * (1 + 1e-6)


def test_a_failing_command_fails_the_step_with_its_status_and_output(tmp_path):
    lines = "; ".join(f"echo line{i}" for i in range(30))
    profile = command_profile(f"{lines}; echo oops >&2; exit 3")
    runner, events = run_profile(profile, tmp_path / "t", tmp_path / "home")
    result = runner.result
    step = result.steps[0]
    assert result.status == "failed" and step.status == "failed" and step.exit_status == 3
    assert step.error == "the command exited with status 3" and result.error == step.error
    # The last lines, stdout and stderr in the order written, bounded.
    assert step.output_tail.splitlines()[-2:] == ["line29", "oops"]
    assert len(step.output_tail.splitlines()) == 20
    assert step.wall_seconds is not None
    assert isinstance(events[-1], RunFinished)


def test_a_command_past_its_time_limit_is_stopped_with_every_process_it_started(tmp_path):
    tag = marker()
    # A grandchild: sh -c runs a shell that starts sleep in the background and waits for it.
    profile = command_profile(f"echo started; sh -c 'sleep {tag} & wait'", timeout=0.6)
    began = time.monotonic()
    runner, _ = run_profile(profile, tmp_path / "t", tmp_path / "home")
    took = time.monotonic() - began
    step = runner.result.steps[0]
    assert runner.result.status == "failed" and step.status == "failed"
    assert "exceeded its time limit of 600ms and was stopped" in step.error
    assert step.output_tail == "started"
    assert step.exit_status is not None and step.exit_status < 0  # killed by a signal
    assert 0.6 <= step.wall_seconds < 3 and took < 5
    assert wait_gone(f"sleep {tag}") == []


def test_processes_a_command_leaves_behind_are_stopped_and_do_not_hang_the_step(tmp_path):
    tag = marker()
    # The background sleep keeps the output pipe open: the step must not wait for it.
    profile = command_profile(f"sleep {tag} & echo done")
    began = time.monotonic()
    runner, events = run_profile(profile, tmp_path / "t", tmp_path / "home")
    assert time.monotonic() - began < 5
    assert runner.result.status == "completed"
    assert any("left processes running" in e.message for e in events if isinstance(e, RunWarning))
    assert wait_gone(f"sleep {tag}") == []


def test_setup_failure_fails_the_step_and_cleanup_still_runs(tmp_path):
    target = tmp_path / "t"
    profile = command_profile("touch ran", setup="echo no disk; exit 4", cleanup="touch ../cleaned")
    runner, _ = run_profile(profile, target, tmp_path / "home")
    step = runner.result.steps[0]
    assert step.status == "failed" and step.error == "the setup command exited with status 4"
    assert step.output_tail == "no disk" and step.wall_seconds is None
    assert not (target / "ran").exists() and (tmp_path / "cleaned").exists()


def test_setup_runs_first_and_a_failing_cleanup_is_a_warning(tmp_path):
    profile = command_profile("test -f prepared", setup="touch prepared", cleanup="echo cannot clean; exit 5")
    runner, _ = run_profile(profile, tmp_path / "t", tmp_path / "home")
    result = runner.result
    assert result.status == "completed" and result.steps[0].exit_status == 0
    assert any("cleanup command of step 'cmd' exited with status 5: cannot clean" in w for w in result.warnings)


def test_scratch_is_fresh_for_the_step_and_removed_afterwards(tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    (target / "mine").write_text("keep")
    # Runs inside the scratch directory, which starts empty; leaves a tree there and no cleanup.
    profile = command_profile("test -z \"$(ls -A)\" && pwd > {target}/where && mkdir -p d/e && touch d/e/f",
                              workdir="{scratch}")
    runner, _ = run_profile(profile, target, tmp_path / "home")
    assert runner.result.status == "completed", runner.result.error
    where = Path((target / "where").read_text().strip())
    # In the run's own directory, which goes with it.
    assert where.parent == target / f"labtui-{runner.result.id}" and where.name.startswith("labtui-scratch-")
    assert not where.exists() and sorted(p.name for p in target.iterdir()) == ["mine", "where"]


def test_parameters_reach_the_command_quoted_and_are_kept_with_the_result(tmp_path):
    source = tmp_path / "a dir" / "it's here.txt"
    source.parent.mkdir()
    source.write_text("hello")
    params = (Param("source", "a file", type="file"), Param("copies", default="2"))
    profile = command_profile("for i in $(seq {copies}); do cp {source} {scratch}/$i; done; cat {scratch}/2",
                              params=params)
    runner, _ = run_profile(profile, tmp_path / "t", tmp_path / "home", params={"source": str(source)})
    result = runner.result
    assert result.status == "completed", result.error
    assert result.params == {"source": str(source), "copies": "2"}
    assert "'" in result.steps[0].command_line and str(tmp_path / "t") in result.steps[0].command_line


def test_a_missing_parameter_or_program_stops_the_run_before_anything_happens(tmp_path, monkeypatch):
    target = tmp_path / "t"
    home = tmp_path / "home"
    profile = command_profile("cat {archive}", params=(Param("archive", "the archive", type="file"),))
    with pytest.raises(LabtuiError, match="needs --param archive=PATH: the archive"):
        Runner(profile, target, Store(home)).preflight()
    needs = command_profile("labtui-no-such-program --go", requires=("labtui-no-such-program",))
    with pytest.raises(LabtuiError, match="needs labtui-no-such-program, but labtui-no-such-program is not installed"):
        Runner(needs, target, Store(home)).preflight()
    elsewhere = command_profile("true", workdir="no/such/dir")
    target.mkdir()
    with pytest.raises(LabtuiError, match="working directory .*no/such/dir does not exist"):
        Runner(elsewhere, target, Store(home)).preflight()
    target.rmdir()
    assert not target.exists() and not home.exists()


def test_cancelling_stops_the_process_group_runs_cleanup_and_saves_an_aborted_step(tmp_path):
    tag = marker()
    target = tmp_path / "t"
    target.mkdir()
    profile = command_profile(f"sh -c 'sleep {tag} & wait'", cleanup="touch ../cleaned")
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions(interval=0.1))
    events: list = []

    async def go() -> float:
        async def consume():
            async for event in runner.events():
                events.append(event)

        task = asyncio.create_task(consume())
        deadline = time.monotonic() + 10
        while not alive_with(f"sleep {tag}") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        sent = time.monotonic()
        task.cancel()
        await asyncio.wait({task})
        return time.monotonic() - sent

    took = asyncio.run(go())
    assert took < 2.5, f"took {took:.2f} s to stop"
    assert wait_gone(f"sleep {tag}", 0.5) == []
    assert (tmp_path / "cleaned").exists()
    result = runner.result
    assert result.status == "aborted" and runner.saved_path.exists()
    (step,) = result.steps
    assert result.error == "cancelled by the user"
    # The step says how far it got, not who stopped it: that is the run's error ("stopped by SIGHUP").
    assert step.status == "aborted" and step.wall_seconds > 0.3
    assert step.error == (f"stopped {step.wall_seconds:.1f} s into its command, with every process it started: "
                          "the time and the disk's figures are of that part")
    assert step.samples  # what the disk did until then is kept


def test_a_cancel_while_the_commands_process_is_starting_kills_its_group_and_waits_for_nothing(tmp_path):
    """A stop that lands while asyncio connects the new child's pipes (a signal that came as the run
    began: the run's task first waits there). asyncio then killed the shell alone and waited for its
    pipes, which the `sleep` it had started held: the stop waited for the whole command."""
    tag = marker()  # the `sleep` runs 1000+ s: only a kill ends it
    target = tmp_path / "t"
    target.mkdir()
    started = tmp_path / "sleep-pid"
    profile = command_profile(f"sleep {tag} & echo $! > {started}; wait")
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions(interval=0.1))
    events: list = []

    async def go() -> tuple[bool, int]:
        loop = asyncio.get_running_loop()
        connect = loop.connect_read_pipe
        consumer: asyncio.Task | None = None

        async def stop_while_connecting(*args, **kwargs):
            # The child is forked, its shell has started `sleep`; its stdout is not connected yet.
            while not (started.exists() and started.read_text().strip()):
                await asyncio.sleep(0.01)
            assert consumer is not None
            consumer.cancel()
            (run,) = [t for t in asyncio.all_tasks() if t.get_name().startswith("labtui-run-")]
            while not run.cancelling():  # the run's task has been told to stop
                await asyncio.sleep(0)
            return await connect(*args, **kwargs)

        loop.connect_read_pipe = stop_while_connecting

        async def consume():
            async for event in runner.events():
                events.append(event)

        consumer = asyncio.create_task(consume())
        await asyncio.wait({consumer}, timeout=20)  # a net for the defect, not a measure
        waited = not consumer.done()
        pid = int(started.read_text())
        if waited:  # the stop waits for `sleep`: end it here, or the test would wait 1000+ s
            psutil.Process(pid).kill()
            await asyncio.wait({consumer})
        return waited, pid

    waited, pid = asyncio.run(go())
    assert not waited, "the stop waited for the command's `sleep`, which holds its output pipe"
    assert wait_gone(f"sleep {tag}") == []  # killed with its group by labtui, not by the test
    result = runner.result
    assert result.status == "aborted" and runner.saved_path.exists()
    (step,) = result.steps
    assert step.status == "aborted" and step.wall_seconds is None
    assert step.error == "stopped as its command was starting, before any of it was timed"
    assert not any(isinstance(e, RunFinished) for e in events)  # the consumer stopped listening


def test_a_stop_asked_for_before_a_child_is_forked_starts_nothing(monkeypatch):
    """The stop is already asked for when the start would fork (a signal's handler ran first): no
    child is started only to be killed."""
    forked: list = []
    create = asyncio.create_subprocess_exec

    async def recording(*args, **kwargs):
        forked.append(args)
        return await create(*args, **kwargs)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", recording)

    async def go() -> asyncio.Task:
        task = asyncio.create_task(subproc.spawn(["/bin/sh", "-c", "exit 0"]))
        asyncio.get_running_loop().call_soon(task.cancel)  # after the spawn's first step, before the fork's
        await asyncio.wait({task})
        return task

    task = asyncio.run(go())
    assert task.cancelled() and forked == []


def test_a_cancel_during_the_cleanup_keeps_the_command_it_timed_whole(tmp_path):
    # The command ran to its end and was timed; its cleanup (removing what an extraction made, say)
    # is running when the run is stopped: the step is finished, as it was measured, and the cleanup
    # still runs to its end. It was kept as "aborted", out of every comparison, for a stop it outlived.
    target = tmp_path / "t"
    target.mkdir()
    began, cleaned = tmp_path / "cleanup-began", tmp_path / "cleaned"
    profile = command_profile("head -c 4M /dev/urandom > out",
                              cleanup=f"touch {began} && sleep 0.5 && rm out && touch {cleaned} && exit 3")
    store = Store(tmp_path / "home")
    runner = Runner(profile, target, store, RunOptions(interval=0.1))
    events: list = []

    async def go() -> None:
        async def consume():
            async for event in runner.events():
                events.append(event)

        task = asyncio.create_task(consume())
        deadline = time.monotonic() + 20
        while not began.exists():
            assert time.monotonic() < deadline and not task.done(), "the cleanup never began"
            await asyncio.sleep(0.02)
        task.cancel()
        await asyncio.wait({task})

    asyncio.run(go())
    result = store.find_result(runner.result.id)
    assert result.status == "aborted" and result.error == "cancelled by the user"
    (step,) = result.steps
    assert step.status == "completed" and step.error is None and step.exit_status == 0, step
    assert step.wall_seconds > 0 and step.write.bytes >= 0
    assert cleaned.exists() and not (target / "out").exists()  # the cleanup ran to its end
    # What the cleanup said is a warning of the run, as it is when nothing stops it.
    assert any("the cleanup command of step 'cmd' exited with status 3" in w for w in result.warnings), result.warnings


def test_drop_caches_as_root_drops_and_otherwise_says_why_not(tmp_path, monkeypatch):
    if os.geteuid() != 0 or not os.path.exists(command_module.DROP_CACHES):
        pytest.skip("dropping the page cache needs root on Linux")
    profile = command_profile("true", drop_caches=True)
    runner, events = run_profile(profile, tmp_path / "t", tmp_path / "home")
    assert runner.result.status == "completed"
    assert not any("not dropped" in w for w in runner.result.warnings)
    # No non-root user can run this test's interpreter here (it lives under /root), so pretend, as the
    # cache is dropped (the run's own directory is still made by root, and checked to be).
    real = command_module.drop_page_cache

    def as_someone(*args: str) -> str | None:
        with monkeypatch.context() as patch:
            patch.setattr(os, "geteuid", lambda: 4242)
            return real(*args)

    assert as_someone() == "that needs root, and labtui runs as uid 4242"
    monkeypatch.setattr(command_module, "drop_page_cache", as_someone)
    runner, _ = run_profile(profile, tmp_path / "t2", tmp_path / "home")
    assert any("page cache was not dropped before step 'cmd': that needs root" in w for w in runner.result.warnings)
    assert drop_page_cache(str(tmp_path / "nope")).startswith("this system has no")


def test_output_tail_keeps_the_last_lines_within_bounds():
    assert output_tail("") is None
    assert output_tail("a\r\nb\n\n  \nc\n") == "a\nb\nc"
    tail = output_tail("\n".join("x" * 1000 for _ in range(30)))
    assert len(tail) == 4000 and tail.startswith("...")


def test_command_line_shows_the_command_as_it_will_run(tmp_path):
    engine = CommandEngine(params={"archive": "/a b/c.zpaq"})
    step = Step(name="x", kind="command", command="zpaq x {archive} -to {scratch}")
    line = engine.command_line(step, tmp_path, 0)
    assert line.startswith("zpaq x '/a b/c.zpaq' -to '" + str(tmp_path / "labtui-<run id>" / "labtui-scratch-"))
    assert engine.command_line(step, tmp_path, 0) == line  # the same scratch all run long


async def test_an_error_in_the_thread_reaches_the_awaiting_step():
    def hung_disk():
        raise OSError("the disk did not answer")

    with pytest.raises(OSError, match="did not answer"):
        await asyncio.wait_for(_in_thread(hung_disk), timeout=10)


async def test_a_value_from_the_thread_is_returned():
    assert await asyncio.wait_for(_in_thread(lambda: 42), timeout=10) == 42
