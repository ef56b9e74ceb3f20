"""A run as it goes on the Run screen (widgets/run_live.py): drawn once per tick, only on show, its
preparation, charts, notes and the stop question."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from labtui.engine import cpubound
from labtui.engine.events import RunStarted, SampleTaken
from labtui.engine.native.engine import NativeEngine
from labtui.model.profile import Profile, Step
from labtui.screens.help import HelpScreen
from labtui.screens.history import HistoryScreen
from labtui.widgets.live_chart import LiveChart
from run_support import MIB, QueuedRunner
from tui_support import (
    ScriptedRunner,
    make_app,
    open_run,
    screen_text,
    scripted_run,
    wait_for,
    wavy_result,
    widget_text,
)


async def test_a_burst_of_samples_is_drawn_once_per_tick(labtui_home, monkeypatch):
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    drawn = []
    real_show = LiveChart.show
    monkeypatch.setattr(LiveChart, "show", lambda self, *a, **k: drawn.append(1) or real_show(self, *a, **k))
    step = Step("Read 4K random", block_size=4096, threads=1, outstanding=4, duration=600, warmup=0)
    profile = Profile("fast", steps=(step,), file_size=16 * MIB)
    from labtui.engine.events import StepStarted

    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 600.0),
              StepStarted(0, 1, step, 1, "labtui native: ...")]
    events += [SampleTaken(0, "measure", Sample(t=(i + 1) / 100, seconds=0.01, read_ios=100 + i,
                                                 read_bytes=(100 + i) * 4096, cpu_percent=5.0))
               for i in range(5000)]
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: screen.live.version >= len(events), timeout=20, what="5,000 samples")
        await pilot.pause(1.2)
        # Fifty seconds of 10 ms samples: bounded by the chart buffer, drawn a few times, not 5,000 times.
        assert len(screen.live.current.buffer) <= 4096 and 0 < len(drawn) <= 3 * 10
        assert "read IOPS" in screen_text(app)
        worker = screen.stop()
        assert worker is not None


async def test_a_warning_or_a_step_end_while_another_screen_is_shown_draws_no_chart(labtui_home, monkeypatch):
    """The charts are drawn only while the Run screen is on show, then caught up when it is shown again."""
    from labtui.engine.events import RunWarning, StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    drawn = []
    real_show = LiveChart.show
    monkeypatch.setattr(LiveChart, "show", lambda self, *a, **k: drawn.append(self.id) or real_show(self, *a, **k))
    step = Step("Read 4K random", block_size=4096, threads=1, outstanding=4, duration=600, warmup=0)
    profile = Profile("fast", steps=(step,), file_size=16 * MIB)
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 600.0),
              StepStarted(0, 1, step, 1, "labtui native: ...")]
    events += [SampleTaken(0, "measure", Sample(t=i + 1.0, seconds=1.0, read_ios=100, read_bytes=100 * 4096))
               for i in range(3)]
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: screen.live.version >= len(events) and drawn, what="the charts drawn")
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        hidden_from = len(drawn)
        # What the run screen's consumer does with a warning (or a step's end) from the engine.
        screen.live.handle(RunWarning("step 'Read 4K random' is CPU-bound"))
        screen.live_view.post_message(screen.live_view.Changed())
        await pilot.pause(1.2)  # two redraw ticks
        assert len(drawn) == hidden_from
        await pilot.press("r")
        await wait_for(pilot, lambda: len(drawn) > hidden_from, what="the charts drawn again on show")
        screen.stop()


async def test_the_test_file_preparation_shows_its_progress(labtui_home):
    from labtui.engine.events import PrepareProgress
    from labtui.model.result import EngineInfo, TargetInfo

    step = Step("Read 4K random", block_size=4096, threads=1, outstanding=4, duration=10, warmup=0)
    profile = Profile("big", steps=(step,), file_size=4096 * MIB)
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 10.0),
              PrepareProgress(0, 4096 * MIB, 0.0), PrepareProgress(1024 * MIB, 4096 * MIB, 2.0)]
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: "writing the test file" in screen_text(app))
        text = screen_text(app)
        assert "1.0 GiB of 4.0 GiB at 512 MiB/s" in text and "25%" in text
        assert "ETA 0:16" in text  # 3 GiB more at 512 MiB/s, then the 10 s step
        screen.stop()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_cpu_bound_interval_is_said_on_the_run_screen(labtui_home, size):
    # At 80 columns the note was cut off in the narrow column beside the figures.
    from labtui.engine.events import StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read 4K random", block_size=4096, threads=1, outstanding=32, duration=60, warmup=0)
    profile = Profile("fast", steps=(step,), file_size=16 * MIB)

    def sample(t, bound):
        return SampleTaken(0, "measure", Sample(t=t, seconds=1.0, read_ios=150_000, read_bytes=150_000 * 4096,
                                                cpu_percent=60.0, engine_cpu_percent=97.0 if bound else 50.0,
                                                engine_bound=True if bound else None))

    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 60.0),
              StepStarted(0, 1, step, 1, "labtui native: ..."), sample(1.0, False), sample(2.0, True)]
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: "CPU-bound:" in screen_text(app), what="the CPU-bound note")
        text = screen_text(app)
        assert "· CPU-bound" in text  # on the step's status line
        # The whole machine's CPU is named so: beside the engine's own in the note, a bare "CPU %" read as its.
        assert re.search(r"^ *machine CPU % +60\.0 ", text, re.M), text
        # The run's clock stays whole on one line however narrow the screen ("run" above "0:02" was not).
        assert any(re.search(r"run \d+:\d\d · ETA \d+:\d\d", line) for line in text.splitlines()), text
        # The notes' box as it is on screen, read line after line (cut to its height, it lost the advice).
        box = screen.query_one("#run-info").region
        said = " ".join(" ".join(line[box.x:box.right].split()) for line in text.splitlines()[box.y:box.bottom])
        note = "CPU-bound: the engine's busiest worker uses 97 % of a CPU; " + NativeEngine.cpu_advice.own
        assert box.width >= 60, box  # at 80 columns a column of 24 beside the figures
        if size[0] >= 100:
            assert note in said, text
        else:
            # Issue 39, item 21: at 80x24 the note took lines from the charts and cut its advice. One
            # short line; ? says it in full.
            assert said == "CPU-bound: the engine's limit, not the disk's (? says why and what helps)", text
            assert box.height == 1  # a line more for the chart
            await pilot.press("question_mark")  # the key the short line names
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
            assert widget_text(app, "#help-note") == note
            await pilot.press("escape")
        screen.stop()


@pytest.mark.parametrize(("outstanding", "engine_cpu", "note"), [
    # Four blocking threads (the page cache on) at 40 % each: a CPU's worth together, taking turns at
    # one interpreter, as the step's verdict will say. By their sum ("uses 160 % of a CPU") the
    # note advised more threads; by each one's share, a quieter machine.
    (4, 160.0, "CPU-bound: the 4 I/O threads of the engine's busiest worker use 160 % of a CPU together (or wait "
               "for one); " + cpubound.INTERPRETER),
    # At 15 % each, less than a CPU together: they waited for one (or none was idle).
    (4, 60.0, "CPU-bound: the 4 I/O threads of the engine's busiest worker are on a CPU only 15 % of the time each; "
              + NativeEngine.cpu_advice.crowded),
    # One thread copying from the page cache all the time: more threads or fio only copy faster.
    (1, 97.0, "CPU-bound: the engine's busiest worker uses 97 % of a CPU; " + cpubound.CACHED),
], ids=["threads-taking-turns", "threads-waiting", "own-limit"])
async def test_the_cpu_bound_note_of_a_page_cache_step_advises_what_would_help(labtui_home, outstanding,
                                                                               engine_cpu, note):
    from labtui.engine.events import StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read 4K cached", block_size=4096, threads=1, outstanding=outstanding, duration=60, warmup=0,
                cache="on")
    profile = Profile("cached", steps=(step,), file_size=16 * MIB)
    busy = Sample(t=1.0, seconds=1.0, read_ios=150_000, read_bytes=150_000 * 4096, cpu_percent=99.0,
                  engine_cpu_percent=engine_cpu, engine_bound=True)
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 60.0),
              StepStarted(0, 1, step, 1, "labtui native: ..."), SampleTaken(0, "measure", busy)]
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: "CPU-bound:" in screen_text(app), what="the CPU-bound note")
        text = screen_text(app)
        box = screen.query_one("#run-info").region
        said = " ".join(" ".join(line[box.x:box.right].split()) for line in text.splitlines()[box.y:box.bottom])
        assert note in said, text
        assert "try more threads" not in said
        screen.stop()


async def test_the_stop_question_and_the_command_line_stay_on_screen_however_long_the_notes(labtui_home):
    # At 80x24 on a loaded machine the CPU-bound note (and the run's warnings) pushed the command line,
    # and "Stop the run?" in its place, below the screen: x seemed to do nothing.
    from labtui.engine.events import RunWarning, StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read 4K random", block_size=4096, threads=1, outstanding=32, duration=60, warmup=0)
    profile = Profile("fast", steps=(step,), file_size=16 * MIB)
    bound = Sample(t=1.0, seconds=1.0, read_ios=150_000, read_bytes=150_000 * 4096, cpu_percent=100.0,
                   engine_bound=True)
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 60.0),
              StepStarted(0, 1, step, 1, "labtui native: 1 logical worker on 1 process, io_uring, 32 outstanding each"),
              *(RunWarning(f"warning number {i} of the run, long enough to take a line of its own") for i in range(3)),
              SampleTaken(0, "measure", bound)]
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        live = screen.live
        await wait_for(pilot, lambda: len(live.warnings) == 3 and live.current.last is not None
                       and screen.live_view.drawn_version == live.version, what="the notes drawn")
        # No CPU figure of the engine's own in the sample: the note says the machine's (it raised TypeError),
        # at 80 columns in one short line, in full on ? (issue 39, item 21).
        assert "CPU-bound: the CPUs' limit, not the disk's (? says why and what helps)" in screen_text(app)
        assert (screen.help_note() or "").startswith("CPU-bound: the machine has no idle CPU")
        assert "Command line: labtui native" in screen_text(app)
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.asking)
        text = screen_text(app)
        assert "Stop the run? y stops it" in text and "n keeps it running." in text, text
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen.asking)
        assert "Stop the run?" not in screen_text(app) and "Command line: labtui native" in screen_text(app)
        screen.stop()


async def test_the_live_chart_says_warm_up_then_charts_the_measure_window_from_zero(labtui_home):
    from labtui.engine.events import StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read 64K random", block_size=65536, threads=2, outstanding=4, duration=8, warmup=3)
    profile = Profile("short", steps=(step,), file_size=64 * MIB)

    def interval(t: float, ios: int) -> Sample:
        return Sample(t=t, seconds=1.0, read_ios=ios, read_bytes=ios * 65536, read_lat_mean_ms=1.0, cpu_percent=20.0)

    runner = QueuedRunner()
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:  # one chart at a time: IOPS first
        screen = await open_run(pilot)
        screen.begin(runner)
        fed = 0

        async def feed(*events) -> list[str]:
            """The IOPS chart's lines once `events` are drawn."""
            nonlocal fed
            for event in events:
                runner.queue.put_nowait(event)
            fed += len(events)
            await wait_for(pilot, lambda: screen.live.version >= fed and screen.live_view.drawn_version == screen.live.version,
                           what="the samples drawn")
            await pilot.pause()
            chart = app.screen.query_one("#chart-iops", LiveChart)
            return [chart.render_line(y).text for y in range(chart.size.height)]

        await feed(RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 11.0),
                   StepStarted(0, 1, step, 1, "labtui native: ..."))
        # The warm-up (slow, then 10x faster): seconds before measuring, and said to be the warm-up.
        lines = await feed(*(SampleTaken(0, "warmup", interval(t, ios)) for t, ios in ((-2.0, 500), (-1.0, 5000),
                                                                                        (0.0, 5000))))
        assert "warm-up" in lines[0] and "-2s" in lines[-1], lines
        lines = await feed(*(SampleTaken(0, "measure", interval(float(t), 5000)) for t in (1, 2, 3)))
        # Measuring: the measure window alone, from its own start, as its figures below and the result have it.
        assert "warm-up" not in lines[0] and "-" not in lines[-1] and "3s" in lines[-1], lines
        assert screen.live.current.chart_points(8)[0].read_ios == 5000
        screen.stop()


def mixed_result():
    """wavy_result() whose steps read 70 % and write 30 % (each sample split so)."""
    base = wavy_result()
    steps = []
    for step in base.steps:
        samples = []
        for s in step.samples:
            ios = s.read_ios + s.write_ios
            reads, lat = ios * 7 // 10, s.read_lat_mean_ms or s.write_lat_mean_ms
            samples.append(replace(s, read_ios=reads, read_bytes=reads * 65536, write_ios=ios - reads,
                                   write_bytes=(ios - reads) * 65536, read_lat_mean_ms=lat, read_lat_p99_ms=3 * lat,
                                   write_lat_mean_ms=1.5 * lat, write_lat_p99_ms=4 * lat))
        steps.append(replace(step, step=replace(step.step, write_percent=30, name="Mixed 70/30"), samples=tuple(samples)))
    return replace(base, profile=replace(base.profile, steps=tuple(s.step for s in steps)), steps=tuple(steps))


async def mixed_step_live(home, size: tuple[int, int]) -> tuple[int, list[str]]:
    """The IOPS chart's height and the figures' lines of mixed_result()'s step, live at `size`."""
    app = make_app(home)
    async with app.run_test(size=size) as pilot:
        screen = await open_run(pilot)
        screen.begin(scripted_run(mixed_result(), finished=False))
        await wait_for(pilot, lambda: screen.live.version >= 40 and screen.live_view.drawn_version == screen.live.version,
                       what="the samples drawn")
        return screen.query_one("#chart-iops", LiveChart).size.height, widget_text(app, "#run-figures").splitlines()


async def test_a_mixed_steps_chart_keeps_its_rows_at_80x24_and_120x35_is_as_it_was(labtui_home):
    # At 80x24 a mixed step's nine rows of figures left its chart four rows of plot (two of them its legend).
    height, figures = await mixed_step_live(labtui_home, (80, 24))
    # Read and write side by side, a line per quantity: now and mean of each.
    assert figures[0].split() == ["read", "now", "mean", "write", "now", "mean"], figures
    assert figures[2].split() == ["IOPS", "2,237", "2,325", "960", "997"], figures
    assert figures[-1] == "machine CPU %: 16.0 now, 14.0 mean" and len(figures) == 7
    # Its title, frame and axis take 4 of the chart's lines: 9 rows of plot where there were 4.
    assert height >= 13, height
    height, figures = await mixed_step_live(labtui_home, (120, 35))
    assert figures[0].split() == ["now", "mean", "min", "max"], figures  # wide: each series with its extremes
    assert figures[2].split() == ["read", "IOPS", "2,237", "2,325", "1,972", "2,670"] and len(figures) == 11, figures
    assert height == 19, height
