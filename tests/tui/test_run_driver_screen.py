"""How the Run screen starts and stops a run (screens/run_driver.py): the runner's checks, a raw device's
consent, the wait for a busy disk, a cancel racing the run's end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from labtui.results.store import Store
from labtui.screens.prompt import TextPrompt
from labtui.screens.run import RunScreen
from run_support import prepare
from tui_support import (
    ScriptedRunner,
    make_app,
    open_run,
    screen_text,
    set_text,
    short_profile,
    wait_for,
    widget_text,
)


async def refused_start(pilot) -> str:
    """Start the run (Ctrl+S); the refusal the screen shows instead."""
    app = pilot.app
    await pilot.press("ctrl+s")
    return await wait_for(pilot, lambda: "Not started" in widget_text(app, "#run-message")
                          and widget_text(app, "#run-message"), what="the refusal")


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


@pytest.mark.parametrize("then", ["answer", "escape"])
async def test_a_start_pressed_before_the_engine_check_answers_starts_when_it_does_unless_cancelled(
        labtui_home, tmp_path, then):
    # "Still checking which engines can run here: start again in a moment": the person had to press it again.
    # Not "No engine can run here" either: the check has not answered.
    import threading

    from tui_support import disks_ready, fake_engines

    not_a_directory = tmp_path / "a-file"  # refused by the checks: the start is seen without a run
    not_a_directory.write_text("x")
    prepare(labtui_home, not_a_directory)
    answer = threading.Event()

    def slow_check():
        answer.wait(20)
        return fake_engines()

    app = make_app(labtui_home, engine_check=slow_check)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await disks_ready(pilot)
            await pilot.press("r")
            screen = await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen,
                                    what="the Run screen")
            await pilot.press("ctrl+s")  # the cursor in the tags: Escape is the way out of them, but for this
            await wait_for(pilot, lambda: "Starting when the engines are checked" in widget_text(app, "#run-message"),
                           what="the start waiting")
            assert "Do not start" in screen_text(app).splitlines()[-1] and not screen.engines_known
            assert "No engine can run here" not in screen_text(app) and screen.driver.worker is None
            if then == "escape":
                await pilot.press("escape")
                await wait_for(pilot, lambda: "you cancelled it" in widget_text(app, "#run-message"), what="cancelled")
            answer.set()
            await wait_for(pilot, lambda: screen.engines_known, what="the engine check")
            if then == "answer":
                message = await wait_for(pilot, lambda: "Not started" in widget_text(app, "#run-message")
                                         and widget_text(app, "#run-message"), what="the start, refused by its checks")
                assert f"{not_a_directory} exists and is a file" in message
            else:
                await pilot.pause()
                assert "you cancelled it" in widget_text(app, "#run-message") and screen.driver.worker is None
            assert screen.state == "idle" and "Do not start" not in screen_text(app).splitlines()[-1]
    finally:
        answer.set()
