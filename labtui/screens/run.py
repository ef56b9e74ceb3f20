"""The Run screen: start the chosen profile on the chosen target, watch it live, read the outcome.

It composes a widget for each part of a run's life (its `RunState`): the setup (`RunSetup`: the
profile, the target, the engines that can run here, a quick trial's overrides, tags), the live
view (`LiveView`, which folds the runner's events — the stream `labtui run` prints — into a
`LiveRun` and draws it) and the summary (`RunSummary`, with the comparison with the previous run
of the same profile on the same disk). Starting goes through `RunDriver` (the questions, the
runner's checks, the wait for the disk, a run on several volumes in turn). Cancelling asks first;
the runner then stops its workers, removes the test file and saves what was measured as an
aborted result. Other screens ask for a run by message: History's "run again" (`RunAgain`), the
Disks screen's marked volumes in turn (`RunOnVolumes`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.worker import Worker

from labtui.run.live import LiveRun
from labtui.screens import run_keys
from labtui.screens.run_driver import DrivenScreen, RunDriver
from labtui.tui.run_indicator import RunIndicator
from labtui.tui.run_state import RunState, SweepPlan
from labtui.tui.work import failure_text, report_failure
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.live_figures import NARROW
from labtui.widgets.run_live import LiveView
from labtui.widgets.run_setup import RunSetup
from labtui.widgets.run_summary import RunSummary
from labtui.widgets.step_charts import StepCharts

if TYPE_CHECKING:
    from labtui.machine.target_choice import Target
    from labtui.model.result import RunResult
    from labtui.run.runner import Runner


class RunScreen(DrivenScreen):
    CSS_PATH = "run.tcss"
    # Typing here goes into the tags: the cursor is there from the start (on_mount). No plain letter
    # starts a run that writes, wherever the focus is: Enter in the tags or on Start, or Ctrl+S / F5.
    # Not AUTO_FOCUS: that would put the cursor back in the field every time the screen is shown
    # again, after Escape took it out so that the screens' keys work.
    AUTO_FOCUS = ""
    FOOTER_SECONDARY = run_keys.FOOTER_SECONDARY
    BINDINGS = run_keys.BINDINGS

    class RunAgain(Message):
        """Run `result`'s profile again (as it ran: the Override fields play no part) with its engine (History's a)."""

        def __init__(self, result: RunResult) -> None:
            super().__init__()
            self.result = result

    class RunOnVolumes(Message):
        """Run the chosen profile on each of `targets` in turn and compare them (the Disks screen's marked volumes)."""

        def __init__(self, targets: list[Target]) -> None:
            super().__init__()
            self.targets = targets

    def __init__(self) -> None:
        super().__init__()
        self.engines: list[tuple[str, str | None]] = []  # (name, why it cannot run here or None)
        self.engines_known = False  # the check has answered (or failed, and said so)
        self.driver = RunDriver(self)
        self.runner: Runner | None = None
        self.live: LiveRun | None = None
        self.state = RunState.IDLE
        self.outcome: RunResult | None = None
        self.previous: RunResult | None = None
        self.explaining = False  # the finished run's comparison shows how it was decided (e)
        self._late_y_possible = False  # the run ended with the question on screen
        self._arrived = False  # switched to from another screen: the resume puts the cursor in the tags
        self.setup, self.live_view, self.summary = RunSetup(id="run-setup"), LiveView(id="run-live"), RunSummary(id="run-done")

    def compose(self) -> ComposeResult:
        yield ContextBar("Run")
        yield self.setup
        yield self.live_view
        yield self.summary
        yield KeysFooter()

    @property
    def asking(self) -> bool:
        """Whether "Stop the run?" is on screen."""
        return self.live_view.asking

    def on_mount(self) -> None:
        # At once: a deferred focus() let the keys typed while the screen was made reach the field after
        # those typed once it was ("swap-b" typed right after r read "pswa-b" in the tags).
        self.setup.focus_tags(at_once=True)
        self.app.mode_change_signal.subscribe(self, self._mode_changed, immediate=True)
        for name in ("profile", "target", "unsaved_profile"):
            self.watch(self.app, name, lambda _value: self._show_setup(), init=False)
        self.set_state(RunState.IDLE)
        self._show_setup()
        self.set_interval(1.0, self._clock_tick)

    def _mode_changed(self, mode: str) -> None:
        # Come to by the user (r), not back from a screen it opened nor taken to for a run: what is typed
        # next is the next run's tags (with the summary focused, "walk-b" went to Workload on its `w`).
        self._arrived = mode == "run" and self.app.screen is self and not self.lab.taking_to_run

    def on_screen_resume(self) -> None:
        if self.state.live:
            self.live_view.redraw()  # hidden meanwhile: draw what arrived
        elif self._arrived:
            self.setup.focus_tags(at_once=True)
        self._arrived = False

    def on_resize(self) -> None:
        self.query_one(StepCharts).set_single(self.size.width < NARROW)
        # Narrow, the notes (CPU-bound, warnings) go under the figures: beside them they had a
        # column of 24 cells at 80 and were cut off after their eighth line.
        self.set_class(self.size.width < NARROW, "-narrow")
        if self.state.live:
            self.live_view.drawn_version = -1
            self.call_after_refresh(self.live_view.want_frame)  # once the charts have their new size

    def set_state(self, state: RunState) -> None:
        self.state = state
        for each in RunState:
            self.set_class(each is state, f"-{each.value}")
        self.live_view.going, self.live_view.stopping = state.live, state is RunState.STOPPING
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys that do nothing in the current state are left out of the footer (and the palette).
        return run_keys.offered(action, self.state, asking=self.asking, waiting=self.driver.waiting_for is not None,
                                narrow=self.size.width < NARROW, finished=self.outcome is not None,
                                compared=self.previous is not None, typing=lambda: self.setup.typing,
                                starting=self.driver.start_asked is not None)

    # ------------------------------------------------------------------ setup and starting

    def on_run_setup_engines_checked(self, message: RunSetup.EnginesChecked) -> None:
        self._engines_known(message.engines)

    def _engines_known(self, engines: list[tuple[str, str | None]]) -> None:
        self.engines, self.engines_known = engines, True
        self.setup.show_engines(engines, self.lab.settings.engine)
        self.driver.asked_for(engines)

    def on_run_screen_run_again(self, message: RunAgain) -> None:
        if not self._refuse_while_busy():
            self.driver.pending = message.result
            self.driver.asked_for(self.engines)

    def on_run_screen_run_on_volumes(self, message: RunOnVolumes) -> None:
        if not self._refuse_while_busy():
            self.driver.sweep = SweepPlan(list(message.targets))
            self.driver.asked_for(self.engines)

    def _refuse_while_busy(self) -> bool:
        if self.state.busy:
            self.notify("A run is going: cancel it first (x).", severity="warning")
        return self.state.busy

    def _show_setup(self) -> None:
        profile, target = self.lab.profile, self.lab.target
        if not self.state.busy and (profile, target) != (self.setup.profile, self.setup.target):
            # Why the last start was refused is of the profile and target it tried: "quick-sanity needs 2.0 GiB"
            # stayed under another profile chosen since, and "Choose ... a target (d) first" under the target.
            self.setup.say_again()
        self.setup.show_plan(profile, target)

    def on_run_setup_trial_changed(self, message: RunSetup.TrialChanged) -> None:
        self.lab.quick_trial = message.trial  # the Disks screen's question says what a run on marked volumes runs

    def on_run_setup_start_asked(self, message: RunSetup.StartAsked) -> None:
        self.action_start()

    def action_start(self) -> None:
        self.driver.start(overrides=True)

    def action_cancel_start(self) -> None:
        self.driver.cancel_start()

    def action_leave_field(self) -> None:
        self.set_focus(None)

    def action_to_tags(self) -> None:
        # At once, not by a deferred focus(): a tag typed right after r is the field's (LabtuiApp.on_key), not w's.
        self.setup.focus_tags(at_once=True)

    def action_stop_waiting(self) -> None:
        self.driver.stop_waiting()

    def on_unmount(self) -> None:
        self.driver.wait_stop.set()  # labtui is ending: a run waiting for the disk is not started

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        if worker is self.driver.worker:
            self.driver.failed(error)
        else:
            report_failure(self, "Could not finish what this screen was doing", error)

    def on_live_view_failed(self, message: LiveView.Failed) -> None:
        if self.outcome is None:  # else the run's end (Ended, first) shows the result that was saved
            self.setup.say(Content.assemble(("The run failed: ", "$error bold"), failure_text(message.error)))

    def on_driven_screen_preflight_passed(self, message: DrivenScreen.PreflightPassed) -> None:
        self.driver.passed()
        self.begin(message.runner)

    def begin(self, runner: Runner) -> None:
        """Watch `runner` (its preflight passed) run: its events drive this screen until it ends."""
        self.runner = runner
        if self.driver.target is None:  # not through the checks here (a test's replayed run): the chosen one
            self.driver.target = self.lab.target
        # The app's clock (fixed in tests and snapshots) times what the screen shows; the runner keeps its own.
        self.live = LiveRun(clock=lambda: self.lab.clock().timestamp())
        self.outcome = self.previous = None
        self.lab.run_active = True
        self.lab.active_run = self
        self.lab.remember_engine(runner.engine.name)
        # The tags were this run's (the runner has them): the next run starts without any.
        self.setup.clear_tags()
        # The setup (the tags, Start) is hidden while the run goes: keys are the screen's (x cancels).
        self.set_focus(None)
        self.setup.say("")
        self.set_state(RunState.RUNNING)
        self.live_view.watch_run(runner, self.live)
        self.publish()

    # ------------------------------------------------------------------ live view

    def on_live_view_changed(self, message: LiveView.Changed) -> None:
        self.publish()

    def publish(self) -> None:
        """Say on every screen's top line that the run goes, its step and its time (app.run_indicator):
        set at most once a second (the clock's tick) and when a step starts, and only where it changed.
        A run waiting for its disk says that."""
        chosen = self.lab.profile.name if self.lab.profile is not None else "?"
        if self.state is RunState.STARTING and self.driver.waiting_for is not None:
            indicator = RunIndicator(chosen, self.driver.target, waiting=True)
        elif self.live is not None and self.state.live:
            indicator = RunIndicator.of(self.live, chosen, self.driver.target)
        else:
            return
        if indicator != self.lab.run_indicator:
            self.lab.run_indicator = indicator

    def _clock_tick(self) -> None:
        self.publish()
        self.live_view.clock_tick()

    def help_note(self) -> str | None:
        """What ? says above the keys while a run goes: the notes under its figures in full (the
        CPU-bound note, the run's warnings), which a narrow or crowded panel shortens."""
        return self.live_view.notes_in_full if self.state.live else None

    def action_next_chart(self) -> None:
        self.notify(f"Showing {self.live_view.next_chart()}", timeout=2)

    # ------------------------------------------------------------------ cancelling

    def action_cancel_run(self) -> None:
        """Ask, in a line of the screen, whether to stop the run.

        Not a modal screen: measured with the charts on screen, pushing one (and dimming the
        screen under it) cost about 80 ms of CPU and dismissing it 35 ms more, the question line
        a few. On a machine whose CPUs the workers saturate, the UI gets a fraction of a CPU, so
        that was the difference between answering at once and answering in a second.
        """
        if self.state is RunState.RUNNING and not self.asking:
            self.live_view.ask_stop()

    def on_key(self, event: events.Key) -> None:
        # The answer is taken here, as the key arrives at this screen, rather than by a binding a
        # moment later: by then the run may have ended and the binding gone. The key's own time
        # (taken as it came in, not when this busy loop got round to it) decides a race with the
        # run's end (see RunDriver.honour_cancel).
        key = event.key
        if self.asking and key in ("y", "n", "escape"):
            event.stop()
            event.prevent_default()
            if key == "y":
                self.live_view.close_question()
                self.driver.confirm_stop(event.time)
            else:
                self.live_view.close_question()
            return
        late, self._late_y_possible = self._late_y_possible, False
        if key == "y" and late and self.state is RunState.DONE:
            # The question was on screen when the run ended; this y may have been typed before.
            event.stop()
            self.driver.stop_confirmed_at = event.time
            self.driver.honour_cancel()

    def action_confirm_stop(self) -> None:
        self.live_view.close_question()
        self.driver.confirm_stop(time.monotonic())

    def action_keep_running(self) -> None:
        self.live_view.close_question()

    def stop(self, why: str | None = None) -> Worker | None:
        """Cancel the run (its partial result saved as aborted; `why` its error, None: the person cancelled it)."""
        return self.driver.stop(why)

    async def abort(self, by: str) -> None:
        """Stop the run and wait until its partial result is saved (for quitting and signals: `by`)."""
        await self.driver.abort(by)

    # ------------------------------------------------------------------ the end

    def on_live_view_ended(self, message: LiveView.Ended) -> None:
        runner = self.runner
        result: RunResult | None = runner.result if runner is not None else None
        self.lab.run_active = False
        self.lab.active_run = None
        self.lab.run_indicator = None
        self.outcome = result
        self._late_y_possible = self.asking
        self.live_view.close_question()
        self.set_state(RunState.DONE)
        self.show_done()
        self.driver.honour_cancel()
        result = self.outcome
        self.summary.focus()  # arrows scroll the outcome
        if result is not None and result.status == "completed":
            self.summary.look_up_previous(result, self.lab.store)
        self.driver.ran(result)

    def on_run_summary_previous_found(self, message: RunSummary.PreviousFound) -> None:
        if self.outcome is message.result and self.outcome.status == "completed":
            self.previous = message.previous
            self._show_comparison()
            self.refresh_bindings()

    def show_done(self) -> None:
        runner = self.runner
        self.summary.show_outcome(self.outcome, runner.saved_path if runner is not None else None,
                                  getattr(runner, "save_error", None))

    def _show_comparison(self) -> None:
        if self.outcome is not None:
            self.summary.show_comparison(self.outcome, self.previous, self.lab.store, explain=self.explaining)

    def action_explain(self) -> None:
        self.explaining = not self.explaining
        self._show_comparison()

    def action_scroll(self, pages: int) -> None:
        self.summary.page(pages)

    def action_open_result(self) -> None:
        from labtui.screens.result import ResultScreen

        if self.outcome is not None:
            self.app.push_screen(ResultScreen(self.outcome))

    def action_compare_previous(self) -> None:
        from labtui.screens.compare import CompareScreen

        if self.outcome is not None and self.previous is not None:
            self.app.push_screen(CompareScreen([self.previous, self.outcome]))
