"""The Run screen with the real native engine on small files: live view, the end, cancel, refusals, quitting."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from pathlib import Path

import pytest
from textual.widgets import Input

from labtui.engine import cpubound
from labtui.engine.events import RunStarted, SampleTaken
from labtui.engine.native.engine import NativeEngine
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from labtui.screens.confirm import ConfirmModal
from labtui.screens.help import HelpScreen
from labtui.screens.history import HistoryScreen
from labtui.screens.params import ParamsModal
from labtui.screens.prompt import TextPrompt
from labtui.screens.run import RunScreen
from labtui.screens.run_driver import RunDriver
from labtui.settings import Settings
from labtui.tui.run_state import RunState
from labtui.widgets.live_chart import LiveChart
from tui_support import (
    ScriptedRunner,
    disks_ready,
    make_app,
    open_run,
    screen_text,
    set_text,
    short_profile,
    wait_for,
    widget_text,
)

MIB = 1024 * 1024


def prepare(home: Path, target: Path, profile: str = "tiny", text: str | None = None) -> None:
    """A user profile in `home`, chosen, with `target` as the chosen directory."""
    store = Store(home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / f"{profile}.toml").write_text(text or short_profile(profile))
    store.save_settings(Settings(profile=profile, profile_origin="user", target=str(target)))




async def start_measuring(pilot, screen: RunScreen) -> None:
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: measured(screen) >= 1, timeout=30, what="measuring")


async def refused_start(pilot) -> str:
    """Start the run (Ctrl+S); the refusal the screen shows instead."""
    app = pilot.app
    await pilot.press("ctrl+s")
    return await wait_for(pilot, lambda: "Not started" in widget_text(app, "#run-message")
                          and widget_text(app, "#run-message"), what="the refusal")


def measured(screen: RunScreen) -> int:
    step = screen.live.current if screen.live else None
    return sum(1 for s in step.buffer.samples if s.t > 0) if step else 0


@pytest.fixture
def target(disk_dir, request) -> Path:
    path = disk_dir / request.node.name.replace("[", "-").replace("]", "")
    path.mkdir()
    return path


class SampleValve:
    """Holds the Run screen's event stream after each measured sample until the test lets it on.

    The engine runs on meanwhile (its events queue up): what the screen shows is the run as of the
    last sample let through, however fast or loaded the machine, and the run is still on for it.
    """

    def __init__(self, monkeypatch) -> None:
        from labtui.run.runner import Runner

        self.allowed = 0
        self.passed = 0
        self.open = False
        self._moved = asyncio.Event()
        real_events = Runner.events
        valve = self

        async def events(runner):
            # Closed with this stream, so a cancel still reaches the run (workers reaped, file removed).
            async with contextlib.aclosing(real_events(runner)) as stream:
                async for event in stream:
                    yield event
                    if isinstance(event, SampleTaken) and event.phase == "measure":
                        valve.passed += 1
                        while not valve.open and valve.passed >= valve.allowed:
                            valve._moved.clear()
                            await valve._moved.wait()

        monkeypatch.setattr(Runner, "events", events)

    def allow(self, samples: int) -> None:
        self.allowed = samples
        self._moved.set()

    def release(self) -> None:
        self.open = True
        self._moved.set()


async def test_a_run_live_then_run_again_from_history_and_compare(labtui_home, target, monkeypatch):
    prepare(labtui_home, target, text=short_profile(duration="3s"))
    drawn = []
    real_show = LiveChart.show
    monkeypatch.setattr(LiveChart, "show", lambda self, *a, **k: drawn.append(self.id) or real_show(self, *a, **k))
    valve = SampleValve(monkeypatch)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        assert "Short trial" in screen_text(app) and str(target) in widget_text(app, "#setup-target")
        assert "[native]" in screen_text(app)
        valve.allow(1)
        await pilot.press("ctrl+s")
        # The run as of its first measured second: on, whatever the load.
        live = ("Step 1 of 1", "measuring", "read IOPS", "x Cancel run")
        first = await wait_for(pilot, lambda: measured(screen) == 1 and all(w in (text := screen_text(app)) for w in live)
                               and text, timeout=30, what="the first measured sample on screen")
        assert app.run_active and "Command line: labtui native: 1 logical worker on 1 process" in first
        valve.allow(2)
        # The figures move on with the next sample: the live view is not a still picture.
        await wait_for(pilot, lambda: measured(screen) == 2 and screen_text(app) != first, timeout=30,
                       what="the second sample on screen")
        assert app.run_active
        # While another screen is on show, the charts are not drawn.
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        hidden_from = len(drawn)
        valve.release()
        await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the end of the run")
        assert len(drawn) == hidden_from
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is screen)
        text = screen_text(app)
        assert "Completed: tiny" in text and "Read 4K random" in text
        assert "No earlier completed run of tiny on this disk" in text
        assert not app.run_active and list(target.iterdir()) == []  # the test file is gone
        first_id = screen.outcome.id
        # History lists it; "run again" repeats it and compares with it at the end.
        await pilot.press("h")
        history = app.screen
        await wait_for(pilot, lambda: first_id in [r.key for r in history.query_one("#results").rows])
        # a asks first (issue 39, item 2): what it writes, where, for how long; Escape changes nothing.
        await pilot.press("a")
        question = await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal)
                                  and widget_text(app, "#confirm-message"), what="Run tiny again?")
        assert f"tiny (Short trial) on {target}" in question and "with native" in question
        assert "16MiB test file to write" in question and "about 0:0" in question
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is history, what="back on History")
        assert screen.driver.pending is None and screen.outcome.id == first_id
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="Run tiny again?")
        await pilot.press("enter")
        # The Run screen at once, then the second run's end (however quickly it came).
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: screen.state == "done" and screen.outcome is not None
                       and screen.outcome.id != first_id and screen.previous is not None, timeout=40,
                       what="the second run and its comparison")
        text = screen_text(app)
        assert f"A = {first_id}" in text and "B vs A" in text
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        assert first_id in screen_text(app) and screen.outcome.id in screen_text(app)
    results, _ = Store(labtui_home).load_results()
    assert [r.status for r in results] == ["completed", "completed"]


async def test_cancel_asks_then_keeps_the_partial_result_as_aborted(labtui_home, target):
    # Far longer than the test takes however slow the machine: the run is still on at every answer.
    prepare(labtui_home, target, text=short_profile(duration="10m"))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        await start_measuring(pilot, screen)
        await pilot.press("x")
        await wait_for(pilot, lambda: "Stop the run?" in screen_text(app))
        assert "steps finished so far are kept, marked aborted" in str(screen.query_one("#run-question").content)
        assert "Command line" not in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: "Stop the run?" not in screen_text(app))
        assert screen.state == "running" and "Command line" in screen_text(app)
        await pilot.press("escape")  # asks too; a second Escape answers no
        await wait_for(pilot, lambda: "Stop the run?" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Stop the run?" not in screen_text(app))
        assert screen.state == "running"
        await pilot.press("x")
        await wait_for(pilot, lambda: "Stop the run?" in screen_text(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.state == "done", timeout=10, what="the run to stop")
        assert "Aborted" in screen_text(app) and "cancelled by the user" in screen_text(app)
        assert not app.run_active and list(target.iterdir()) == []
    results, _ = Store(labtui_home).load_results()
    assert [r.status for r in results] == ["aborted"]


async def test_quitting_during_a_run_stops_it_and_keeps_the_result(labtui_home, target):
    prepare(labtui_home, target, text=short_profile(duration="30s"))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        await start_measuring(pilot, screen)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "A run is going" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, timeout=10, what="the app to exit")
    results, _ = Store(labtui_home).load_results()
    assert [r.status for r in results] == ["aborted"]
    assert list(target.iterdir()) == []


async def test_a_refused_preflight_is_a_message_and_nothing_is_written(labtui_home, tmp_path):
    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_text("x")
    prepare(labtui_home, not_a_directory)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        message = await refused_start(pilot)
        assert f"{not_a_directory} exists and is a file" in message and "Nothing was written" in message
        assert screen.state == "idle" and not app.run_active
    assert Store(labtui_home).result_files() == []


async def test_a_run_on_a_disk_another_run_measures_waits_for_it_and_can_stop_waiting(labtui_home, target):
    """Issue 39, item 7: another labtui process holds the disk's lock. The run waits (it was refused,
    to be retried by hand), says for whom, starts nothing until the disk is free, and Escape stops it."""
    import subprocess
    import sys

    from labtui.run import target_lock

    prepare(labtui_home, target, text=short_profile(duration="300ms"))
    hold = ("import sys\nfrom labtui.run import target_lock\nlock, _ = target_lock.hold(sys.argv[1])\n"
            "print('held', flush=True)\nsys.stdin.read()\n")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(target)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(target_lock.TargetBusy) as refused:
            target_lock.hold(target)
        who = str(refused.value).removesuffix(": wait for it to end")
        app = make_app(labtui_home)
        async with app.run_test(size=(200, 24)) as pilot:
            screen = await open_run(pilot)
            for attempt in range(2):
                await pilot.press("ctrl+s")
                message = await wait_for(pilot, lambda: "Waiting for the disk" in (t := widget_text(app, "#run-message"))
                                         and t, what="the waiting state")
                assert message == (f"Waiting for the disk: {who}. This run starts when it has ended; nothing is "
                                   "written meanwhile. Escape stops waiting.")
                assert f"pid {holder.pid}" in message and screen.state == "starting" and not app.run_active
                assert app.run_indicator is not None and app.run_indicator.waiting
                if attempt == 0:
                    await pilot.press("escape")
                    stopped = await wait_for(pilot, lambda: "Not started" in (t := widget_text(app, "#run-message"))
                                             and t, what="the wait stopped")
                    assert stopped == "Not started: you stopped waiting for the disk\nNothing was written."
                    assert screen.state == "idle" and app.run_indicator is None
            await pilot.pause(1.5)  # the disk is looked at once a second: still busy, still waiting
            assert screen.state == "starting" and list(target.iterdir()) == []
            holder.stdin.close()  # the other run ends
            holder.wait()
            await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the run, once the disk was free")
            assert screen.outcome.status == "completed"
    finally:
        if holder.poll() is None:
            holder.stdin.close()
            holder.wait()
    assert len(Store(labtui_home).result_files()) == 1 and list(target.iterdir()) == []


async def test_without_a_target_the_screen_says_where_to_choose_one(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_run(pilot)
        assert "choose a volume and a directory on the Disks screen (d)" in widget_text(app, "#setup-target")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Choose a profile (w) and a target (d) first" in widget_text(app, "#run-message"))


async def test_the_engine_line_offers_what_the_machine_has_not_what_the_path_holds(labtui_home):
    # The app asks `engine_check` (injected here), so a diskspd on the test machine's PATH changes nothing.
    def engines():
        return [("native", None), ("fio", "fio is not installed: apt-get install fio"), ("diskspd", None)]

    app = make_app(labtui_home, engine_check=engines)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        assert screen.query_one("#setup-engine").options == (("native", "native"), ("DiskSpd", "diskspd"))
        assert widget_text(app, "#setup-engines") == "fio is not installed"
        assert "[native]  DiskSpd   fio is not installed" in screen_text(app)


async def test_tags_and_a_quick_trial_typed_before_the_run_are_saved_with_it(labtui_home, target):
    prepare(labtui_home, target, text=short_profile(duration="1s"))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        # Typed as a person would, into the field the cursor is in: no letter starts the run untagged.
        await pilot.press(*"hp-adapter, slot-2")
        assert screen.state == "idle" and screen.runner is None
        # A quick trial (issue 39, item 6): the CLI's --duration, --file-size and --repeat, each
        # field showing the profile's own value until one is typed.
        fields = {f: screen.query_one(f"#trial-{f}", Input) for f in ("duration", "file-size", "repeat")}
        assert [f.placeholder for f in fields.values()] == ["1s", "16MiB", "1"]
        await pilot.press("shift+tab", "shift+tab", *"8M", "shift+tab", *"500ms", "tab", "tab", "tab")
        await wait_for(pilot, lambda: "(Short trial, overridden)" in widget_text(app, "#setup-profile"),
                       what="the profile as it would run")
        assert "a 8MiB test file to write" in widget_text(app, "#setup-profile")
        assert screen.query_one("#setup-tags", Input).has_focus
        await pilot.press("enter")  # Enter in the tags starts the run
        await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the run")
        said = "tiny overridden on the Run screen: duration 500ms in every step (was 1s), test file 8MiB (was 16MiB)"
        assert said in widget_text(app, "#done-title")
    results, _ = Store(labtui_home).load_results()
    assert results[0].tags == ("hp-adapter", "slot-2")
    assert results[0].profile.description == said and results[0].profile.title == "Short trial, overridden"
    assert results[0].profile.file_size == 8 * MIB and results[0].steps[0].step.duration == 0.5
    assert Store(labtui_home).load_settings().engine == "native"


async def test_a_quick_trial_the_profile_refuses_starts_nothing_and_says_which_field(labtui_home, target,
                                                                                     monkeypatch):
    prepare(labtui_home, target)
    started = []
    monkeypatch.setattr(RunDriver, "_preflight", lambda self, profile, *a, **k: started.append(profile))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_run(pilot)
        await set_text(pilot, "#trial-repeat", "1000")
        assert screen.query_one("#trial-repeat").has_class("-invalid")
        assert widget_text(app, "#run-message") == "Override repeat: must be from 1 to 100, got 1000"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: widget_text(app, "#run-message").startswith("Not started: "), what="the refusal")
        await set_text(pilot, "#trial-repeat", "")
        await set_text(pilot, "#trial-duration", "3x")
        assert "Override duration: " in widget_text(app, "#run-message")
        await set_text(pilot, "#trial-duration", "300ms")
        assert widget_text(app, "#run-message") == "" and not screen.query(".-invalid")
        assert started == []
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: started, what="the run's checks")
    assert started[0].description == "tiny overridden on the Run screen: duration 300ms in every step (was 2s)"


PARAM_PROFILE = """schema = 1
name = "reader"
title = "Read a file with a command"
free_space_margin = "0B"

[params.source]
description = "a file to read"
type = "file"

[[steps]]
name = "cat"
kind = "command"
command = "cat {source} > /dev/null"
"""


async def test_a_profile_with_parameters_asks_for_them(labtui_home, target, tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(4096))
    prepare(labtui_home, target, "reader", PARAM_PROFILE)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ParamsModal))
        assert "source (a file): a file to read" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "needs source=PATH" in screen_text(app), what="the missing value")
        await set_text(pilot, "#param-source", str(tmp_path / "nope"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "no such file" in screen_text(app))
        await set_text(pilot, "#param-source", str(source))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the command step")
        assert "Completed: reader" in screen_text(app)
    results, _ = Store(labtui_home).load_results()
    assert results[0].params == {"source": str(source)}


async def test_a_raw_device_is_written_only_after_its_name_is_typed(labtui_home, tmp_path):
    from factories import write_profile
    from loopdev import digest, loop_device, loops_missing

    if loops_missing():
        pytest.skip(loops_missing())
    from labtui.machine.target_choice import Target

    with loop_device(tmp_path, 32) as device:
        before = digest(device)
        app = make_app(labtui_home)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_run(pilot)
            app.profile = write_profile()
            app.target = Target(Path(device))
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            assert f"Destroy the data on {device}?" in screen_text(app)
            await set_text(pilot, "#prompt-input", "/dev/sda")
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Not started" in screen_text(app), what="the guard's refusal")
            assert "refusing to write to raw device" in screen_text(app)
            assert digest(device) == before
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            await set_text(pilot, "#prompt-input", device)
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the raw run")
            assert screen.outcome.status == "completed"
        assert digest(device) != before


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


CROWDED_WARNING = ("step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy); "
                   + NativeEngine.cpu_advice.crowded)
DROP_WARNING = ("step 'Mix': the throughput dropped at 28 s, after 9.5 GiB: 158 → 89 MiB/s (-44 %), unexplained (the "
                "step was CPU-bound before and after it, so its throughput follows the CPU it got (a busier machine) as "
                "much as the disk; no sign of heat or a link change)")


@pytest.mark.parametrize("size", [(120, 35), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_notes_of_a_loaded_run_each_fit_their_panel_and_are_said_once(labtui_home, size):
    # Walked on verify-after-swap's third step under load: the live note said its advice, then each
    # finished step's CPU-bound warning said it again, and the panel's height cut the second warning
    # mid-sentence ("the workers waited for a CPU (other"); at 80x24 the notes were below the screen.
    from labtui.engine.events import RunWarning, StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read back at random", block_size=4096, threads=1, outstanding=32, duration=60, warmup=0, verify=True)
    profile = Profile("verify", steps=(step,), file_size=16 * MIB)
    crowded = Sample(t=1.0, seconds=1.0, read_ios=50_000, read_bytes=50_000 * 4096, cpu_percent=100.0,
                     engine_cpu_percent=22.0, engine_bound=True)
    warnings = [CROWDED_WARNING, CROWDED_WARNING.replace("Write the pattern", "Read back in order"), DROP_WARNING]
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 60.0),
              StepStarted(0, 1, step, 1, "labtui native: 1 logical worker on 1 process, io_uring, 32 outstanding "
                          "each, 4KiB random read, O_DIRECT, verified, file /mnt/x/labtui-1/labtui-1.dat (1GiB)"),
              *(RunWarning(w) for w in warnings), SampleTaken(0, "measure", crowded)]
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        live = screen.live
        await wait_for(pilot, lambda: live.current is not None and live.current.last is not None
                       and screen.live_view.drawn_version == live.version, what="the notes drawn")
        text = screen_text(app)
        box = screen.query_one("#run-info").region
        assert box.bottom <= screen.query_one("#run-command").region.y, text  # on the screen, above the command
        shown = [line[box.x:box.right].rstrip() for line in text.splitlines()[box.y:box.bottom]]
        said = " ".join(" ".join(line.split()) for line in shown)
        advice = NativeEngine.cpu_advice.crowded
        # Said once: the advice at most once, and the live note no longer says the waiting twice.
        assert said.count("try a quieter machine") <= 1 and "waits for a CPU" not in said, shown
        full = (screen.help_note() or "").splitlines()
        assert full == ["CPU-bound: the engine's busiest worker is on a CPU only 22 % of the time; " + advice,
                        "warning: step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy)",
                        "warning: step 'Read back in order' is CPU-bound: the machine had no idle CPU (100 % busy)",
                        "warning: " + DROP_WARNING], full
        # Each line shown is a note whole, or wraps on, or is its first line ending where a clause ends.
        for line in shown:
            if line.endswith("…"):
                head = line.removesuffix(" …").strip()
                assert any(n.startswith(head) and n[len(head)] in ";,:( " for n in full), line
        if size[0] >= 100:
            assert full[0] in said and all(n in said or n[:40] in said for n in full[1:]), shown
            assert said.endswith("? says the notes in full"), shown
        else:
            # Two lines above the figures: the live note in short (? says why), then the newest warning's first line.
            assert shown[0] == "CPU-bound: the CPUs' limit, not the disk's (? says why and what helps)", shown
            assert shown[1].startswith("warning: step 'Mix': the throughput dropped at 28 s") and len(shown) == 2, shown
            assert box.y < screen.query_one("#run-figures").region.y
        screen.stop()


def test_a_note_too_long_for_its_panel_is_said_by_a_first_line_that_ends_where_a_clause_ends():
    from labtui.tui.live_notes import HELP, Note, first_line, fit, said_once

    drop = "warning: " + DROP_WARNING
    assert first_line(drop, 300) == drop
    assert first_line(drop, 60) == "warning: step 'Mix': the throughput dropped at 28 s …"
    assert first_line("a" * 30 + " " + "b" * 40, 40) == "a" * 30 + " …"  # no clause: a word's end
    notes = said_once([Note("CPU-bound: busy; " + NativeEngine.cpu_advice.crowded, "CPU-bound: short (? says why)"),
                       Note("warning: " + CROWDED_WARNING), Note(drop)])
    assert notes[1].full == "warning: step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy)"
    assert fit(notes, 200, 8) == notes  # room for all, whole
    assert fit([], 70, 2, whole=False) == []  # no notes: no line saying ? has them
    tight = [n.full for n in fit(notes, 70, 6)]  # the live note whole, the others by their first lines, then ?
    assert tight[-1] == HELP and all(len(line) <= 70 for line in tight[1:]) and len(tight) == 4, tight
    assert [n.full for n in fit(notes, 70, 2, whole=False)] == ["CPU-bound: short (? says why)", first_line(drop, 70)]


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


class EndingRunner(ScriptedRunner):
    """A run that completes when told to: its result saved as completed (and `ended_at` set, as the
    runner does), then its last events still on their way to the screen for `linger` seconds."""

    def __init__(self, store: Store, result, linger: float = 0.0) -> None:
        from tui_support import scripted_run

        super().__init__(scripted_run(result, finished=False).script[:-1], None, result.engine.name)
        self.store, self.final, self.linger = store, result, linger
        self.end = asyncio.Event()
        self.ended_at = None

    async def events(self):
        import time

        from labtui.engine.events import RunFinished

        for event in self.script:
            yield event
        await self.end.wait()
        self.result, self.saved_path = self.store.save_result(self.final)
        self.ended_at = time.monotonic()
        await asyncio.sleep(self.linger)
        yield RunFinished(self.result, self.saved_path)


async def _asking(pilot, labtui_home, linger: float = 0.0):
    from tui_support import wavy_result

    app = pilot.app
    screen = await open_run(pilot)
    runner = EndingRunner(Store(labtui_home), wavy_result(), linger)
    screen.begin(runner)
    await wait_for(pilot, lambda: "measuring" in screen_text(app))
    await pilot.press("x")
    await wait_for(pilot, lambda: "Stop the run?" in screen_text(app))
    return screen, runner


def _key(name: str, at: float):
    from textual import events

    key = events.Key(name, name)
    key.time = at  # when it came in from the terminal
    return key


async def test_a_cancel_confirmed_while_the_run_completes_still_aborts_it(labtui_home):
    # y is typed, then the run completes before the busy UI gets to the key: the cancel wins.
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, runner = await _asking(pilot, labtui_home, linger=0.3)
        runner.end.set()
        await wait_for(pilot, lambda: runner.ended_at is not None)
        app.post_message(_key("y", runner.ended_at - 0.05))
        await wait_for(pilot, lambda: screen.state == "done", what="the end")
        assert screen.outcome.status == "aborted" and "Aborted" in screen_text(app)
        assert "cancelled by the user" in screen_text(app)
    (saved,) = Store(labtui_home).load_results()[0]
    assert saved.status == "aborted" and saved.error.startswith("cancelled by the user")


async def test_a_y_typed_before_the_end_but_read_after_it_still_aborts_the_run(labtui_home):
    # The question was on screen when the run ended; the y typed just before is read only now.
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, runner = await _asking(pilot, labtui_home)
        runner.end.set()
        await wait_for(pilot, lambda: screen.state == "done", what="the end")
        assert screen.outcome.status == "completed" and "Stop the run?" not in screen_text(app)
        app.post_message(_key("y", runner.ended_at - 0.05))
        await wait_for(pilot, lambda: screen.outcome.status == "aborted", what="the late cancel")
        assert "Aborted" in screen_text(app) and "against the previous run" not in screen_text(app).lower()
    (saved,) = Store(labtui_home).load_results()[0]
    assert saved.status == "aborted"


async def test_a_cancel_confirmed_after_the_run_completed_leaves_it_completed(labtui_home):
    import time

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, runner = await _asking(pilot, labtui_home, linger=0.3)
        runner.end.set()
        await wait_for(pilot, lambda: runner.ended_at is not None)
        app.post_message(_key("y", time.monotonic()))  # typed after the run had completed
        await wait_for(pilot, lambda: screen.state == "done", what="the end")
        await pilot.pause(0.2)
        assert screen.outcome.status == "completed" and "Completed" in screen_text(app)
        assert any("kept as completed" in n.message for n in app._notifications)
    (saved,) = Store(labtui_home).load_results()[0]
    assert saved.status == "completed"


async def test_start_before_the_engine_check_has_answered_says_so_and_starts_nothing(labtui_home, target):
    """`s` pressed while the engines are still being checked is not "No engine can run here"."""
    import threading

    from tui_support import fake_engines

    answered = threading.Event()

    def slow_engines():
        answered.wait(30)
        return fake_engines()

    app = make_app(labtui_home, engine_check=slow_engines)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await disks_ready(pilot)
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), what="the Run screen")
            screen = app.screen
            from labtui.machine.target_choice import Target
            from labtui.results.profile_file import parse_profile_text

            app.profile = parse_profile_text(short_profile(), "test")

            app.target = Target(target)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "Still checking which engines" in screen_text(app), what="the answer")
            assert "No engine can run here" not in screen_text(app)
            assert screen.runner is None
            answered.set()
            await wait_for(pilot, lambda: screen.engines, what="the engine check")
    finally:
        answered.set()


async def test_start_after_a_failed_engine_check_says_no_engine_can_run(labtui_home, target):
    """A check that failed has answered: Ctrl+S then says no engine can run, not that it is still checking."""

    def broken_engines():
        raise RuntimeError("the check broke")

    app = make_app(labtui_home, engine_check=broken_engines)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.engines_known,
                       what="the failed engine check")
        from labtui.machine.target_choice import Target
        from labtui.results.profile_file import parse_profile_text

        app.profile = parse_profile_text(short_profile(), "test")
        app.target = Target(target)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "No engine can run here" in screen_text(app), what="the answer")
        assert "Still checking" not in screen_text(app)


class AbortingRunner(ScriptedRunner):
    """A run that goes on until cancelled, then keeps what it has as aborted, as the engine's runner does."""

    def __init__(self, events, aborted) -> None:
        super().__init__(events)
        self.aborted = aborted

    async def events(self):
        try:
            async for event in super().events():
                yield event
        except asyncio.CancelledError:
            self.result = self.aborted
            raise


async def test_a_run_stopped_to_quit_is_known_as_aborted_though_its_end_is_still_queued(labtui_home, monkeypatch):
    # A signal (or quitting) stops the run and waits for it, then names the aborted result as
    # labtui ends and exits 1. The screen learnt the outcome only from its RunEnded message, which
    # a busy screen (a frame being drawn on a loaded machine) had not read yet: labtui exited 0
    # without a word of the result (the SIGTERM case of tests/system/test_tui_terminal.py, under load).
    from dataclasses import replace

    from tui_support import scripted_run, wavy_result

    running = wavy_result()
    aborted = replace(running, status="aborted", error="cancelled by the user")
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(AbortingRunner(scripted_run(running, finished=False).script, aborted))
        await wait_for(pilot, lambda: screen.state == "running" and app.active_run is screen, what="the run going")
        busy = asyncio.Event()

        async def slow_frame(self, message) -> None:
            busy.set()
            await asyncio.sleep(1.0)

        monkeypatch.setattr(RunScreen, "on_live_view_changed", slow_frame)
        screen.live_view.post_message(screen.live_view.Changed())
        await busy.wait()  # the screen is in a frame: what the run's end posts waits behind it
        await app.stop_run()
        assert app.aborted_result is aborted


async def test_the_run_summary_warns_of_this_runs_cpu_bound_steps_once(labtui_home, target):
    # The summary's own warning says it for this run (B): its comparison says it for the previous
    # one (A) only. Said three times, the comparison fell below a 35-line screen.
    from dataclasses import replace

    from factories import make_result

    def bound(result):
        reason = "the machine had no idle CPU (100 % busy)"
        return replace(result, steps=tuple(replace(s, engine_bound=reason) for s in result.steps),
                       warnings=tuple(cpubound.warning(s.name, 1, reason) for s in result.steps))

    previous, outcome = bound(make_result("20240501-103005-aaaa")), bound(make_result("20240501-104005-bbbb", minutes=10))
    title, text = await run_summary(labtui_home, target, previous, outcome)
    # Its own warnings: the steps CPU-bound for one cause in one warning, the advice once (it was said once a step).
    assert ("warning: steps 'Read 64K random' and 'Write 64K random' are CPU-bound: the machine had no idle CPU "
            "(100 % busy); " + NativeEngine.cpu_advice.crowded) in title
    assert title.count("try a quieter machine") == 1, title
    assert f"A ({previous.id}) is CPU-bound in 'Read 64K random', 'Write 64K random'" in text
    assert f"B ({outcome.id}) is CPU-bound" not in text
    assert "B vs A" in text


async def run_summary(home, target, previous, outcome) -> tuple[str, str]:
    """The Run screen's end for `outcome` with `previous` as the run before: its summary and its comparison."""
    prepare(home, target)
    app = make_app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.outcome, screen.previous = outcome, previous
        screen.show_done()
        screen._show_comparison()
        await pilot.pause()
        return (" ".join(widget_text(app, "#done-title").split()),
                " ".join(widget_text(app, "#done-compare").split()))


class QueuedRunner(ScriptedRunner):
    """A scripted run the test feeds event by event (the engine's stream, paused where the test looks)."""

    def __init__(self) -> None:
        super().__init__([])
        self.queue: asyncio.Queue = asyncio.Queue()

    async def events(self):
        while True:
            yield await self.queue.get()


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


def y_axis_reads_as_a_scale(chart: LiveChart) -> None:
    """The chart's y labels, as on screen, from 0 up: evenly spaced in rows and in values, the top above the data."""
    lines = [chart.render_line(y).text for y in range(chart.size.height)]
    ticks = [(row, m.group(1)) for row, line in enumerate(lines) if (m := re.match(r" *([\d.]+[kMG]?)┤", line))]
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}
    values = [float(v.rstrip("kMG")) * scale.get(v[-1], 1.0) for _, v in ticks]
    rows = [row for row, _ in ticks]
    assert len(ticks) >= 2 and values[-1] == 0 and values[0] >= max(chart.lines[0].ys), lines
    assert len({round(a - b, 6) for a, b in zip(values, values[1:])}) == 1, lines  # "2k 1.5k 500 0" was not
    assert max(b - a for a, b in zip(rows, rows[1:])) - min(b - a for a, b in zip(rows, rows[1:])) <= 1, lines


async def test_after_each_resize_the_charts_show_the_whole_series_at_their_new_size(labtui_home, monkeypatch):
    # Walked at 80x24 -> 120x35 -> 80x24: at 80x24 the IOPS chart's y axis read "2k 1.5k 500 0" (four
    # ticks on four rows: one lost, the rest unevenly spaced). And on a loaded machine the live view's
    # frame (its own timer) may come between the screen's resize and the layout that gives the charts
    # their sizes: each chart asks for the series anew once it has its size, whenever that comes.
    from labtui.engine.events import StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    real_on_resize = RunScreen.on_resize

    def on_resize_then_early_frame(self) -> None:
        real_on_resize(self)
        self.live_view._last_frame = 0.0
        self.live_view._frame()  # the frame before the layout, as under load

    monkeypatch.setattr(RunScreen, "on_resize", on_resize_then_early_frame)
    step = Step("Mixed 4K", block_size=4096, threads=4, outstanding=8, duration=600, warmup=0, write_percent=30)
    profile = Profile("mixed", steps=(step,), file_size=16 * MIB)
    samples = [SampleTaken(0, "measure", Sample(t=float(t), seconds=1.0, read_ios=1000 + 10 * t,
                                                read_bytes=(1000 + 10 * t) * 4096, write_ios=500, write_bytes=500 * 4096,
                                                read_lat_mean_ms=1.0, write_lat_mean_ms=2.0)) for t in range(1, 101)]
    runner = QueuedRunner()
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(runner)
        for event in (RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 600.0),
                      StepStarted(0, 1, step, 1, "labtui native: ..."), *samples[:50]):
            runner.queue.put_nowait(event)
        await wait_for(pilot, lambda: screen.live_view.drawn_version == screen.live.version == 52, what="50 samples")

        async def resized(size: tuple[int, int], charts: int, until: float) -> None:
            await pilot.resize_terminal(*size)

            def drawn() -> list[LiveChart]:
                shown = [c for c in app.screen.query(LiveChart) if c.display]
                return len(shown) == charts and all(c.size.width and c.lines and c.lines[0].xs[-1] == until and len(
                    c.lines[0].xs) > c.size.width // 2 for c in shown) and shown

            shown = await wait_for(pilot, drawn, timeout=10, what=f"the charts drawn anew at {size}")
            for chart in shown:
                y_axis_reads_as_a_scale(chart)
            for chart in shown:  # what is on screen is what was drawn for its size, from the first second
                assert chart._drawn_for == chart._drawing_key() and chart.lines[0].xs[0] <= 2.0
                assert [line.label for line in chart.lines] == ["read", "write"]
                assert len(chart.lines[0].xs) <= 2 * chart.size.width

        await resized((120, 35), 3, 50.0)  # the MiB/s and latency charts had never been drawn
        for event in samples[50:]:
            runner.queue.put_nowait(event)
        await wait_for(pilot, lambda: screen.live_view.drawn_version == screen.live.version == 102, what="100 samples")
        await resized((80, 24), 1, 100.0)  # the IOPS chart alone: every one of the 100 seconds, not 76 points of them
        assert len(app.screen.query_one("#chart-iops", LiveChart).lines[0].xs) == 100
        await resized((120, 35), 3, 100.0)  # the two hidden at 80 columns: not as they were at 50 s
        screen.stop()


async def test_the_run_summary_says_what_limited_the_run_and_its_comparison_the_link_both_met(labtui_home, target):
    from synthetic import seed_pair

    title, compared = await run_summary(labtui_home, target, *seed_pair())
    assert "Read 64K random: uses 90 % of a PCIe 3.0 x4 link (3,558 MB/s of 3,938 MB/s): the link limits it" in title
    assert "both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive" in compared


async def test_the_run_summary_says_the_answer_first_and_e_shows_how_it_was_decided(labtui_home, target):
    """The comparison with the previous run opens on the plain answer (issue 38 item 5); the method is behind e."""
    from synthetic import pair

    previous, outcome = pair(39_000)
    prepare(labtui_home, target)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.outcome, screen.previous, screen.state = outcome, previous, RunState.DONE
        screen.show_done()
        screen._show_comparison()
        screen.query_one("#run-done").focus()  # where the end of a run puts the cursor
        await pilot.pause()
        compared = " ".join(widget_text(app, "#done-compare").split())
        assert compared.startswith(
            "Against the previous run of quick-sanity on this disk (A = a, B = this run; c shows it in full, e how it "
            "was decided): B is slower at 64K random reads (-23 %, beyond noise and beyond the ±5 % tolerance); the "
            "other step shows no change beyond noise. A a: "), compared
        assert "How the verdicts were reached" not in compared
        await pilot.press("e")
        await pilot.pause()
        assert "How the verdicts were reached" in " ".join(widget_text(app, "#done-compare").split())
