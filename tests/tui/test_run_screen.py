"""The Run screen (screens/run.py) with a real native engine on a real disk: a run from start to its result, cancelled, quit."""

from __future__ import annotations

import asyncio
import contextlib
import re

from textual import events

from labtui.engine.events import SampleTaken
from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from labtui.screens.confirm import ConfirmModal
from labtui.screens.history import HistoryScreen
from labtui.screens.run import RunScreen
from labtui.widgets.live_chart import LiveChart
from run_support import prepare
from tui_support import (
    disks_ready,
    make_app,
    open_run,
    screen_text,
    short_profile,
    wait_for,
    widget_text,
)


async def start_measuring(pilot, screen: RunScreen) -> None:
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: measured(screen) >= 1, timeout=30, what="measuring")


def measured(screen: RunScreen) -> int:
    step = screen.live.current if screen.live else None
    return sum(1 for s in step.buffer.samples if s.t > 0) if step else 0


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
        # History lists it; "run again" repeats it and compares with it at the end. Back on Run the
        # cursor is in the tags (the next run's): Escape first, for the screen keys.
        await pilot.press("escape", "h")
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


async def test_a_refusal_to_start_is_taken_down_once_the_profile_or_target_it_was_of_changes(labtui_home, target):
    # "Not started: not enough free space ...: quick-sanity needs 2.0 GiB" stayed on the Run screen after another
    # profile was chosen on Workload; "Choose ... a target (d) first" after the target was chosen.
    from labtui.machine.target_choice import Target
    from labtui.results.store import builtin_profiles

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_run(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "a target (d) first" in widget_text(app, "#run-message"), what="the refusal")
        app.target = Target(target)
        await wait_for(pilot, lambda: widget_text(app, "#run-message") == "", what="the refusal taken down")
        await pilot.click("#trial-repeat")
        await pilot.press("0")  # a problem of the Override fields stays while it is one
        await wait_for(pilot, lambda: "Override repeat" in widget_text(app, "#run-message"), what="the problem")
        app.profile = next(p for p in builtin_profiles() if p.name == "cdm-standard")
        await pilot.pause()
        assert "Override repeat" in widget_text(app, "#run-message")


async def test_a_run_refused_for_room_says_how_to_make_room(labtui_home, target):
    # "Not started: not enough free space ...: needs 1.2 GiB (test file 256 MiB + margin 1.0 GiB)": the margin is the
    # profile's, which no Override field changes, and nothing said where to change it.
    from labtui.machine.target_choice import Target

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        app.target = Target(target)
        await open_run(pilot)
        await pilot.click("#trial-file-size")
        await pilot.press(*"900T", "ctrl+s")
        await wait_for(pilot, lambda: "Nothing was written" in widget_text(app, "#run-message"), what="the refusal")
        said = " ".join(widget_text(app, "#run-message").split())
        assert said.startswith("Not started: not enough free space in "), said
        assert re.search(r"Make room: a smaller test file \(Override file size above, at most \d+(MiB|GiB|TiB)\) or, for the "
                         r"profile, a smaller Test file or Free margin \(Workload screen, w\)\.", said), said


async def test_coming_back_to_the_run_screen_puts_the_cursor_in_the_tags_and_a_closed_help_leaves_it(labtui_home):
    # After a run, `r` back to Run and "walk-b" typed went to Workload on its `w`: the summary had the focus.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        tags = screen.query_one("#setup-tags")
        await pilot.press("escape")  # out of the field: the screen's keys
        assert not tags.has_focus
        await pilot.press("w")
        await wait_for(pilot, lambda: app.current_mode == "workload", what="Workload")
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is screen, what="back on Run")
        await pilot.pause()
        assert tags.has_focus
        await pilot.press("w", "a", "l", "k")
        assert app.screen is screen and tags.value == "walk"
        # Escape and a key after it in one read (over ssh): the key is the screen's, not the field's.
        app.post_message(events.Key("escape", "\x1b"))
        app.post_message(events.Key("w", "w"))
        await wait_for(pilot, lambda: app.current_mode == "workload", what="Workload after escape, w")
        assert tags.value == "walk"
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is screen, what="back on Run again")
        await pilot.pause()
        # Back from a screen the Run screen opened on top of itself (Help), the focus stays where it was.
        await pilot.press("escape", "f1")
        await wait_for(pilot, lambda: app.screen is not screen, what="help")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="help closed")
        await pilot.pause()
        assert not tags.has_focus


async def test_after_a_run_the_result_has_the_cursor_and_r_puts_it_in_the_next_runs_tags(labtui_home):
    # Where is the cursor when a run ends here? On the result: its own words name c and e ("c shows it in
    # full, e how it was decided"), and o opens it. The tags were five Tabs away: r, the key that brings a
    # person to this screen, puts the cursor there, and a tag typed then is the next run's.
    from tui_support import scripted_run, wavy_result

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        screen.begin(scripted_run(wavy_result(), finished=True))
        await wait_for(pilot, lambda: screen.state == "done", what="the end")
        tags = screen.query_one("#setup-tags")
        assert screen.summary.has_focus and not tags.has_focus
        assert ("r", "Tags") in {(k.keys, k.description) for k in app.key_help(screen)}  # ? says it
        for character in "rswap-b":  # in one read, as a terminal sends them typed fast: the w went to Workload
            app.post_message(events.Key("minus" if character == "-" else character, character))
        await wait_for(pilot, lambda: tags.value == "swap-b", what="the tag in the field")
        assert app.screen is screen and tags.has_focus
        assert screen.state == "done" and not app.run_active  # nothing started


async def test_a_tag_typed_right_after_r_opens_the_run_screen_is_kept_in_its_order(labtui_home):
    # The first r of a session makes the Run screen: the keys typed while it was made reached the tags after
    # those typed once it was ("swap-b" read "pswa-b"; in tmux at 120 ms a key on a loaded machine).
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        for character in "rswap-b":
            app.post_message(events.Key("minus" if character == "-" else character, character))
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.query("#setup-tags")
                       and app.screen.query_one("#setup-tags").has_focus, what="the Run screen")
        await pilot.pause(0.2)
        assert app.screen.query_one("#setup-tags").value == "swap-b"
