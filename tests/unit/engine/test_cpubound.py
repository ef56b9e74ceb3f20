"""Engine-bound detection: the rule on given loads, and a real step whose worker is starved of CPU."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from conftest import labtui_cmd
from labtui.engine import cpubound
from labtui.engine.cpubound import WorkerLoad, verdict
from labtui.engine.events import RunWarning, SampleTaken
from labtui.engine.fio.engine import FioEngine
from labtui.engine.native.engine import NativeEngine
from labtui.model.profile import Profile, Step
from labtui.render.result_json import result_to_json
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions


def test_a_worker_on_a_cpu_almost_all_the_time_is_cpu_bound():
    top, why = verdict([WorkerLoad(0.40, 0.0), WorkerLoad(1.86, 0.02)], 2.0, 60.0, cpu_count=4)
    assert top == 93.0 and "93 % of a CPU" in why


def test_a_worker_waiting_for_a_cpu_is_cpu_bound_even_at_low_cpu_use():
    top, why = verdict([WorkerLoad(0.6, 1.3)], 2.0, 50.0, cpu_count=2)
    assert top == 30.0
    assert "waiting for one 95 % of the time" in why and "65 % waiting" in why


def test_a_worker_that_ran_almost_all_the_time_and_hardly_waited_is_its_own_limit():
    # 89 % on a CPU, 4 % waiting: its own CPU is the limit (more threads or -e fio help), not a
    # busy machine's (a quieter one would not) — 'waited for a CPU' was said with the wrong advice.
    top, why = verdict([WorkerLoad(0.89, 0.04)], 1.0, 50.0, cpu_count=2)
    assert top == 89.0 and why.startswith(cpubound.OWN_CPU) and "89 % of a CPU" in why, why
    assert cpubound.advice(why) == NativeEngine.cpu_advice.own and "try more threads" in cpubound.advice(why)
    # 80 % on a CPU, 13 % waiting for one: the machine held it back, as before.
    _, why = verdict([WorkerLoad(0.80, 0.13)], 1.0, 50.0, cpu_count=2)
    assert "waiting for one 93 % of the time" in why, why


def test_a_machine_without_idle_cpu_makes_every_step_cpu_bound():
    _, why = verdict([WorkerLoad(0.5, 0.1)], 1.0, 96.0, cpu_count=2)
    assert "no idle CPU (96 % busy)" in why
    # 96 % of 64 CPUs leaves more than two idle: the disk may still be the limit.
    assert verdict([WorkerLoad(0.5, 0.1)], 1.0, 96.0, cpu_count=64)[1] is None


def test_a_worker_that_waits_for_the_disk_is_not_cpu_bound():
    top, why = verdict([WorkerLoad(0.5, 0.1), WorkerLoad(0.3, None)], 1.0, 40.0, cpu_count=2)
    assert top == 50.0 and why is None
    assert verdict([], 1.0, 99.0, 2) == (None, None)


def test_the_warning_names_the_step_says_cpu_bound_and_what_to_do():
    text = cpubound.warning("Read 4K", 2, "a worker process used 97 % of a CPU")
    assert "CPU-bound" in text and "'Read 4K' (repetition 2)" in text
    assert "this figure is the engine's limit, not the disk's: try more threads or -e fio" in text
    # A discarded preparing pass (Profile.discard_first) is named as such.
    assert "step 'Read 4K' (its preparing pass, not counted) is CPU-bound" in cpubound.warning("Read 4K", 0, "busy")


def test_every_advice_says_whose_limit_it_is_in_a_line_that_fits_80_columns():
    # Issue 39, item 21: at 80x24 the Run screen says the CPU-bound note in one short line (the
    # whole note on ?): whose limit the figure is, taken from the advice the engine gives.
    engines = [NativeEngine.cpu_advice, FioEngine.cpu_advice]
    said = {text: cpubound.whose_limit(text) for text in [cpubound.CACHED, cpubound.INTERPRETER,
                                                          cpubound.CARRIED_ADVICE,
                                                          *(a.own for a in engines), *(a.crowded for a in engines)]}
    assert said[cpubound.CACHED] == "the page cache's limit, not the disk's"
    assert said[cpubound.INTERPRETER] == "labtui's limit, not the disk's"
    assert said[NativeEngine.cpu_advice.own] == "the engine's limit, not the disk's"
    assert said[NativeEngine.cpu_advice.crowded] == said[cpubound.CARRIED_ADVICE] == "the CPUs' limit, not the disk's"
    for limit in said.values():
        assert limit is not None and len(f"CPU-bound: {limit} (? says why and what helps)") <= 78  # the notes at 80 columns
    assert cpubound.whose_limit("try more threads") is None  # an engine's advice in other words


@pytest.fixture
def starved_cpu():
    """This process and its children on one CPU, shared with two processes that spin on it.

    Workers inherit the affinity: each gets about a third of that CPU and waits for the rest.
    """
    saved = os.sched_getaffinity(0)
    cpu = max(saved)
    spin = f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, saved)
        for p in spinners:
            p.kill()
            p.wait()


def test_a_step_whose_worker_is_starved_of_cpu_is_marked_cpu_bound(disk_dir, tmp_path, starved_cpu):
    # Page-cache reads never wait for the disk: the worker wants a whole CPU and gets a third.
    # The runner drops the file's cache before a cache-on step, so the file is small enough to
    # be read back into it within the warm-up even from a disk that other jobs keep busy (1,024
    # blocks were not: at a few hundred reads a second the worker waited for the disk instead).
    step = Step(name="Starved 4K", block_size=4096, pattern="random", threads=1, outstanding=1,
                duration=1.5, warmup=0.5, cache="on")
    profile = Profile(name="starved", file_size=256 * 1024, free_space_margin=0, steps=(step,))
    store = Store(tmp_path / "home")
    (disk_dir / "starved").mkdir()
    runner = Runner(profile, disk_dir / "starved", store, RunOptions(interval=0.5))
    events = []

    async def go():
        async for event in runner.events():
            events.append(event)

    asyncio.run(go())
    result = runner.result
    (s,) = result.steps
    assert s.status == "completed", s.error
    # Starved, it waited for its CPU; on a machine loaded by more than this test (other tests at
    # once, a busy CI runner) the worker also blocks on its busy parent, and then the machine's
    # lack of an idle CPU is what marks it. Either is the right verdict for a starved worker.
    reasons = ("waiting for one", "the machine had no idle CPU")
    assert s.engine_bound and any(r in s.engine_bound for r in reasons), (s.engine_bound, s.engine_cpu_percent)
    assert s.engine_cpu_percent < 80  # it ran a fraction of the time: the rest it waited
    warnings = [w for w in result_to_json(result)["warnings"] if "CPU-bound" in w]
    assert len(warnings) == 1 and "Starved 4K" in warnings[0]
    assert any(isinstance(e, RunWarning) and "CPU-bound" in e.message for e in events)
    measured = [e.sample for e in events if isinstance(e, SampleTaken) and e.phase == "measure"]
    assert measured and sum(bool(x.engine_bound) for x in measured) >= len(measured) - 1
    # The saved file keeps the verdict; `show` says so too.
    saved = store.find_result(result.id).steps[0]
    assert saved.engine_bound == s.engine_bound and saved.engine_cpu_percent == s.engine_cpu_percent
    shown = subprocess.run(labtui_cmd("show", result.id), capture_output=True, text=True,
                           env={**os.environ, "LABTUI_HOME": str(tmp_path / "home"), "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    # It waited for its CPU: more threads would only wait longer.
    assert "CPU-bound" in shown.stdout and "try a quieter machine, fewer threads, or -e fio" in shown.stdout
    assert "try more threads" not in shown.stdout
    as_json = json.loads(subprocess.run(labtui_cmd("show", result.id, "--json"), capture_output=True, text=True,
                                        env={**os.environ, "LABTUI_HOME": str(tmp_path / "home")}).stdout)
    assert as_json["steps"][0]["engine_bound"] == s.engine_bound
    assert any("CPU-bound" in w and "Starved 4K" in w for w in as_json["warnings"])


def test_a_comparison_of_cpu_bound_figures_says_so():
    from dataclasses import replace

    from factories import make_result
    from labtui.analysis.comparison import compare

    a = make_result("20240501-103005-aaaa")
    bound = replace(a.steps[0], engine_bound="a worker process used 99 % of a CPU", engine_cpu_percent=99.0)
    b = make_result("20240501-113005-bbbb", steps=(bound, *a.steps[1:]))
    plain = compare([a, a])
    assert not any("CPU-bound" in w for w in plain.warnings)
    warnings = [w for w in compare([a, b]).warnings if "CPU-bound" in w]
    assert warnings == [f"B (20240501-113005-bbbb) is CPU-bound in {bound.name!r}: {NativeEngine.cpu_advice.own}"]


def test_the_live_state_flags_a_cpu_bound_interval_and_keeps_it_when_merged():
    from labtui.engine.events import StepStarted
    from labtui.model.result import Sample
    from labtui.run.live import LiveRun
    from labtui.series import merge_samples

    step = Step(name="s", duration=3, warmup=0)
    live = LiveRun(clock=lambda: 0.0)
    live.handle(StepStarted(0, 1, step, 1, None))
    calm = Sample(t=1.0, seconds=1.0, read_ios=10, engine_cpu_percent=40.0)
    busy = Sample(t=2.0, seconds=1.0, read_ios=10, engine_cpu_percent=98.0, engine_bound=True)
    live.handle(SampleTaken(0, "measure", calm))
    assert not live.current.engine_bound
    live.handle(SampleTaken(0, "measure", busy))
    assert live.current.engine_bound
    merged = merge_samples([calm, busy])
    assert merged.engine_bound is True and merged.engine_cpu_percent == pytest.approx(69.0)
    assert merge_samples([calm, calm]).engine_bound is None


def test_the_headless_progress_says_cpu_bound_live_and_at_the_step_end():
    import io

    from rich.console import Console

    from labtui.commands.progress import _Display
    from labtui.engine.events import StepFinished, StepStarted
    from labtui.model.result import Sample, StepResult

    out = io.StringIO()
    display = _Display(Console(file=out, width=200))
    display.live_mode = False
    step = Step(name="Read 4K", block_size=4096, duration=1, warmup=0)
    display.handle(StepStarted(0, 1, step, 1, None))
    display.handle(SampleTaken(0, "measure", Sample(t=1.0, seconds=1.0, read_ios=9000, engine_bound=True,
                                                    engine_cpu_percent=97.0)))
    live = Console(file=io.StringIO(), width=200, record=True)
    live.print(display.render())
    assert "CPU-bound: the engine's limit, not the disk's" in live.export_text()
    # Workers that waited for a CPU (no idle CPU, the busiest at 60 %): the CPUs were the limit, as the
    # step's warning will say, not one worker.
    display.handle(SampleTaken(0, "measure", Sample(t=2.0, seconds=1.0, read_ios=9000, engine_bound=True,
                                                    engine_cpu_percent=60.0)))
    live = Console(file=io.StringIO(), width=200, record=True)
    live.print(display.render())
    assert "CPU-bound: the CPUs' limit, not the disk's" in live.export_text()
    display.handle(StepFinished(0, StepResult(step=step, engine_bound="a worker process used 99 % of a CPU")))
    assert "Read 4K: 0.0 IOPS, 0.0 MiB/s [CPU-bound]" in out.getvalue()


def test_a_threaded_worker_is_judged_by_each_threads_share_not_their_sum():
    # Eight blocking threads, each running or ready an eighth of the time, sum to 100 %: each
    # waited for the disk seven eighths of it.
    assert verdict([WorkerLoad(0.5, 0.5, lanes=8)], 1.0, 40.0, cpu_count=2) == (50.0, None)
    # Eight threads ready to run 95 % of the time on average: no disk held them back.
    top, why = verdict([WorkerLoad(0.8, 6.8, lanes=8)], 1.0, 80.0, cpu_count=2)
    assert top == 80.0
    assert why == ("the 8 I/O threads of a worker process were, on average, on a CPU or waiting for one 95 % of "
                   "the time (85 % waiting: other work or a CPU quota held it back)")


def test_a_threaded_worker_on_more_than_one_cpu_is_not_its_own_limit_by_the_sum():
    # Four blocking threads on 0.6 CPUs (15 % each, the rest waiting for the disk): none of them
    # ran all the time, and together they kept less than a CPU busy.
    assert verdict([WorkerLoad(0.6, 0.05, lanes=4)], 1.0, 40.0, cpu_count=2) == (60.0, None)
    # Each of them on a CPU nearly all the time: the process is its own limit, said per thread.
    top, why = verdict([WorkerLoad(3.8, 0.0, lanes=4)], 1.0, 50.0, cpu_count=8)
    assert top == 380.0
    assert why == "a worker process used 380 % of a CPU (95 % for each of its 4 I/O threads)"
    assert cpubound.advice(why) == NativeEngine.cpu_advice.own


def test_processes_carrying_several_threads_each_that_kept_a_cpu_busy_leave_the_cpus_as_the_limit():
    # 16 threads on the two processes of a 2-CPU machine, each process on its CPU all the time:
    # more threads would only join the same processes, so the advice is not "try more threads".
    top, why = verdict([WorkerLoad(0.97, 0.02, carried=8), WorkerLoad(0.95, 0.03, carried=8)], 1.0, 99.0, cpu_count=2)
    assert top == 97.0
    assert why == "a process carrying 8 of the step's threads used 97 % of a CPU"
    advice = cpubound.advice(why)
    assert advice == cpubound.CARRIED_ADVICE and "more threads would only join them" in advice
    assert "more (or idler) CPUs" in advice and "try more threads" not in advice
    assert cpubound.warning("Q2T16", 1, why).startswith("step 'Q2T16' is CPU-bound: a process carrying 8")
    # One thread a process (fewer threads than CPUs, or per-thread): that worker's own limit, as before.
    assert verdict([WorkerLoad(0.97, 0.0, carried=1)], 1.0, 60.0, cpu_count=2)[1] == "a worker process used 97 % of a CPU"


def test_threads_of_one_worker_at_a_cpus_worth_together_take_turns_at_its_interpreter():
    # Measured on /dev/shm, cached 4 KiB random reads: one worker of 4 threads used 160 % of a CPU
    # (40 % each, nobody waiting for one on an idle pair of CPUs) for 136,505 IOPS where one thread
    # alone made 375,147 at 100 %. It was called "not CPU-bound": the interpreter's lock paced it.
    top, why = verdict([WorkerLoad(1.6, 0.1, lanes=4)], 1.0, 80.0, cpu_count=2)
    assert top == 160.0
    assert why == ("a worker process used 160 % of a CPU: its 4 I/O threads share one Python interpreter, "
                   "which runs Python for one of them at a time")
    advice = cpubound.advice(why, "native", cache_on=True)
    assert advice == cpubound.INTERPRETER and "try more threads" not in advice
    assert "worker processes" in advice and 'cache = "off"' in advice
    assert cpubound.warning("Read 4K cached", 1, why, "native", cache_on=True).endswith(cpubound.INTERPRETER)
    # The same CPU in one thread is that thread's own limit; in threads waiting for the CPUs, theirs.
    assert cpubound.advice(verdict([WorkerLoad(0.95, 0.0)], 1.0, 60.0, cpu_count=4)[1], cache_on=True) == cpubound.CACHED
    assert verdict([WorkerLoad(1.6, 2.0, lanes=4)], 1.0, 99.0, cpu_count=2)[1].startswith("the 4 I/O threads")
    # Live, by the sum over the threads; never for one thread, nor for a missing figure.
    assert cpubound.interpreter_bound_now(160.0, 4) and not cpubound.interpreter_bound_now(80.0, 4)
    assert not cpubound.interpreter_bound_now(97.0, 1) and not cpubound.interpreter_bound_now(None, 4)


def test_a_real_page_cache_step_of_one_worker_with_four_threads_is_marked_cpu_bound(disk_dir, tmp_path):
    # Its four threads read from memory and never wait for the disk: together they keep a CPU's
    # worth busy taking turns at one interpreter (on an idle machine: 160 %, unmarked before), or
    # wait for a CPU on a loaded one. Either way the figure is not the disk's.
    step = Step(name="Cached 4K x4", block_size=4096, pattern="random", threads=1, outstanding=4,
                duration=1.0, warmup=0.5, cache="on")
    profile = Profile(name="lanes", file_size=1024 * 1024, free_space_margin=0, steps=(step,))
    (disk_dir / "lanes").mkdir()

    async def go(runner):
        return [event async for event in runner.events()]

    # Three tests at a time on two CPUs: a neighbour may hold the worker's four threads to 89 % of a
    # CPU, just under the rule's 90 %, with neither them nor the machine waiting enough to say so.
    # That run is the machine's, not the rule's: it is tried again, up to three times in all.
    for _attempt in range(3):
        runner = Runner(profile, disk_dir / "lanes", Store(tmp_path / "home"), RunOptions(interval=0.5))
        events = asyncio.run(go(runner))
        (s,) = runner.result.steps
        assert s.status == "completed", s.error
        if s.engine_bound:
            break
    reasons = ("its 4 I/O threads share one Python interpreter", "waiting for one", "the machine had no idle CPU")
    assert s.engine_bound and any(r in s.engine_bound for r in reasons), (s.engine_bound, s.engine_cpu_percent)
    assert "try more threads" not in s.engine_bound
    (warned,) = [e.message for e in events if isinstance(e, RunWarning) and "CPU-bound" in e.message]
    assert "Cached 4K x4" in warned and "try more threads" not in warned


def test_the_advice_fits_the_reason():
    own = verdict([WorkerLoad(0.97, 0.0)], 1.0, 60.0, cpu_count=4)[1]
    waited = verdict([WorkerLoad(0.3, 0.7)], 1.0, 60.0, cpu_count=4)[1]
    crowded = verdict([WorkerLoad(0.5, 0.1)], 1.0, 99.0, cpu_count=2)[1]
    assert cpubound.advice(own) == NativeEngine.cpu_advice.own and "try more threads" in cpubound.advice(own)
    for reason in (waited, crowded):
        assert cpubound.advice(reason) == NativeEngine.cpu_advice.crowded
        assert cpubound.advice(reason, "fio") == FioEngine.cpu_advice.crowded
        assert "try more threads" not in cpubound.warning("Read 4K", 1, reason)
    assert cpubound.warning("Read 4K", 1, own).endswith(NativeEngine.cpu_advice.own)


def test_a_workers_figures_are_shares_of_the_interval_they_were_counted_over():
    # A 0.2 s window whose worker first woke past its end 0.5 s after its start, having waited
    # for a CPU 0.42 s of that: over the window's 0.2 s it read "on a CPU or waiting for one 235 %".
    top, why = verdict([WorkerLoad(0.05, 0.42, seconds=0.5)], 0.2, 50.0, cpu_count=4)
    assert top == 10.0
    assert why == ("a worker process was on a CPU or waiting for one 94 % of the time "
                   "(84 % waiting: other work or a CPU quota held it back)")
    # Own use of a CPU likewise: 0.19 s of CPU over 0.2 s readings, in a 0.1 s window, is 95 %, not 190 %.
    assert verdict([WorkerLoad(0.19, 0.0, seconds=0.2)], 0.1, 50.0, cpu_count=4) == (
        95.0, "a worker process used 95 % of a CPU")
    # A worker whose readings spanned no time (it never woke within the window) has no figures.
    assert verdict([WorkerLoad(0.0, 0.0, seconds=0.0), WorkerLoad(0.1, 0.0, seconds=0.5)], 0.5, 50.0,
                   cpu_count=4) == (20.0, None)


def test_a_window_too_short_to_tell_gets_no_cpu_verdict():
    assert verdict([WorkerLoad(0.0009, 0.06, seconds=0.061)], 0.001, 100.0, cpu_count=2) == (None, None)
    assert verdict([WorkerLoad(0.009, 0.0)], cpubound.MIN_SECONDS * 0.99, 100.0, cpu_count=2) == (None, None)


def test_a_page_cache_step_that_is_its_own_limit_is_told_to_turn_the_cache_off():
    own = "a worker process used 97 % of a CPU"
    text = cpubound.warning("Read 4K cached", 1, own, "native", cache_on=True)
    assert text.endswith(cpubound.CACHED) and "try more threads" not in text
    assert 'cache = "off"' in text
    # Waiting for a CPU is the CPUs' limit, cache or not; without the cache, more threads may help.
    assert cpubound.warning("r", 1, "the machine had no idle CPU (99 % busy)", cache_on=True).endswith(
        NativeEngine.cpu_advice.crowded)
    assert cpubound.warning("r", 1, own).endswith(NativeEngine.cpu_advice.own)


def test_the_live_own_limit_is_judged_by_each_io_threads_share_as_the_verdict_is():
    cached = Step(name="c", block_size=4096, threads=1, outstanding=4, cache="on")
    lanes = cpubound.io_threads(cached, "native")
    assert lanes == 4 and cpubound.io_threads(cached, "fio") == 1
    assert cpubound.io_threads(Step(name="d", outstanding=32, cache="off"), "native") == 1
    # The verdict on the same figures: each thread 40 %, not its own limit.
    assert verdict([WorkerLoad(1.6, 2.0, lanes=lanes)], 1.0, 99.0, cpu_count=2)[1].startswith("the 4 I/O threads")
    assert not cpubound.own_limit_now(160.0, lanes) and cpubound.own_limit_now(380.0, lanes)
    assert cpubound.own_limit_now(97.0) and not cpubound.own_limit_now(None, lanes)


def test_the_headless_progress_names_the_limit_of_a_page_cache_step_as_its_verdict_would():
    import io

    from rich.console import Console

    from labtui.commands.progress import _Display
    from labtui.engine.events import StepStarted
    from labtui.model.result import Sample

    def said(outstanding: int, engine_cpu: float) -> str:
        display = _Display(Console(file=io.StringIO(), width=200))
        display.live_mode = False
        step = Step(name="Read 4K cached", block_size=4096, outstanding=outstanding, duration=1, warmup=0, cache="on")
        display.handle(StepStarted(0, 1, step, 1, None))
        display.handle(SampleTaken(0, "measure", Sample(t=1.0, seconds=1.0, read_ios=9000, engine_bound=True,
                                                        engine_cpu_percent=engine_cpu)))
        live = Console(file=io.StringIO(), width=200, record=True)
        live.print(display.render())
        return live.export_text()

    # Four threads at 40 % each: a CPU's worth together, taking turns at one interpreter or waiting.
    assert "CPU-bound: the interpreter's or CPUs' limit, not the disk's" in said(4, 160.0)
    assert "CPU-bound: the CPUs' limit, not the disk's" in said(4, 60.0)
    assert "CPU-bound: the page cache's limit, not the disk's" in said(1, 97.0)


def test_an_impossible_cpu_figure_is_not_measured_and_judges_nothing(tmp_path):
    # 0.0001 CPU-seconds for 161k I/Os (both ends of a process's CPU window read together) is less
    # than any engine spends on one of them: the step's CPU time is not measured, and the process
    # is no evidence for a CPU-bound verdict ("used 100 % of a CPU" over its 0.1 ms readings).
    from labtui.analysis.metrics import ENGINE_CPU
    from labtui.engine.base import Job
    from labtui.engine.native.figures import step_result
    from labtui.render.comparison import fmt_value

    step = Step(name="Read 4K", block_size=4096, pattern="random", threads=1, outstanding=4, duration=2.0,
                warmup=0.0, cache="on")
    final = {"r_ios": 161_000, "w_ios": 0, "r_bytes": 161_000 * 4096, "w_bytes": 0, "cpu_seconds": 0.0001,
             "wait_seconds": 0.0, "cpu_window_seconds": 0.0001, "backend": "threads", "workers": [{"worker": 0}]}
    job = Job(path=tmp_path / "f", file_size=1 << 30)
    s = step_result(step, job, [final], 2.0, [], 40.0, "native", "completed", None)
    assert s.total.ios == 161_000 and s.cpu_seconds is None
    assert (s.engine_cpu_percent, s.engine_bound) == (None, None)
    assert fmt_value(ENGINE_CPU, ENGINE_CPU.value(s)) == "-"
    # The same process with a possible figure keeps it: 0.5 s over its 2 s readings, 3.1 µs per I/O.
    possible = step_result(step, job, [{**final, "cpu_seconds": 0.5, "cpu_window_seconds": 2.0}], 2.0, [], 40.0,
                           "native", "completed", None)
    assert possible.cpu_seconds == 0.5 and possible.engine_cpu_percent == 25.0 and possible.engine_bound is None
    assert round(ENGINE_CPU.value(possible), 2) == 3.11
