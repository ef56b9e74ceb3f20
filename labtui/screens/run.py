"""The Run screen: start the chosen profile on the chosen target, watch it live, read the outcome.

It composes three widgets, one per part of a run's life (its `RunState`): the setup (`RunSetup`:
the profile, the target, the engines that can run here, a quick trial's overrides, tags), the
live view (`LiveView`) and the summary (`RunSummary`). Starting checks everything the runner's
preflight checks (a refusal is shown here, nothing is written), and for a raw block device asks
the person to type its name. During the run the runner's events — the same stream `labtui run`
prints — are consumed in a worker and kept in a `LiveRun` the live view draws. Cancelling asks
first; the runner then stops its workers, removes the test file and saves what was measured as
an aborted result. At the end: a summary per step, and the comparison with the previous run of
the same profile on the same disk, if there is one. Other screens ask for a run by message:
History's "run again" (`RunAgain`), the Disks screen's marked volumes in turn (`RunOnVolumes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from labtui.engine.events import PreconditionProgress, PrepareProgress, SampleTaken
from labtui.errors import LabtuiError, ValidationError
from labtui.model.result import RunResult
from labtui.run.live import LiveRun
from labtui.tui.context import LabtuiScreen
from labtui.tui.run_indicator import RunIndicator
from labtui.tui.run_state import RunState, SweepPlan
from labtui.tui.work import failure_text, post_found, report_failure
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.live_figures import NARROW
from labtui.widgets.run_live import LiveView
from labtui.widgets.run_setup import RunSetup
from labtui.widgets.run_summary import RunSummary, find_previous
from labtui.widgets.step_charts import StepCharts

if TYPE_CHECKING:
    from labtui.machine.guard import DeviceFacts
    from labtui.machine.target_choice import Target
    from labtui.model.profile import Profile
    from labtui.run.runner import Runner


class RunScreen(LabtuiScreen[None]):
    CSS_PATH = "run.tcss"
    # Typing here goes into the tags: the cursor is there from the start (on_mount). No plain letter
    # starts a run that writes, wherever the focus is: Enter in the tags or on Start, or Ctrl+S / F5.
    # Not AUTO_FOCUS: that would put the cursor back in the field every time the screen is shown
    # again, after Escape took it out so that the screens' keys work.
    AUTO_FOCUS = ""
    # A finished run's comparison names c in its own text ("c shows it in full"): at 80 columns,
    # with o and c both on, c is the key that gives way.
    FOOTER_SECONDARY = ("run-compare", "run-explain")
    BINDINGS = [
        Binding("ctrl+s,f5", "start", "Start", id="run-start", priority=True,
                tooltip="Start the profile on the target with the engine chosen (Enter in the tags or on Start too)"),
        Binding("x,escape", "cancel_run", "Cancel run", id="run-cancel",
                tooltip="Stop the run (asks first); the steps finished so far are kept, marked aborted"),
        # The answers to "Stop the run?" (Escape answers no as well). The question names its keys;
        # the footer stays as it is, as rebuilding it would cost more than asking.
        Binding("y", "confirm_stop", "Stop the run", id="run-stop", show=False,
                tooltip="Stop the run now; the steps finished so far are kept, marked aborted"),
        Binding("n", "keep_running", "Keep running", id="run-keep", show=False, tooltip="Do not stop the run"),
        Binding("escape,x", "stop_waiting", "Stop waiting", id="run-stop-waiting",
                tooltip="Do not wait for the other run on this disk: nothing is started, nothing written"),
        # In the tags, letters are typed: this is the way out to the screen's and the app's keys.
        Binding("escape", "leave_field", "Leave field", id="run-leave-field",
                tooltip="Out of the tags field (d, w, h and the other keys then work again)"),
        Binding("v", "next_chart", "Next chart", id="run-next-chart",
                tooltip="On a narrow terminal: show the next chart (IOPS, MiB/s, latency)"),
        Binding("o", "open_result", "Open result", id="run-open", tooltip="The finished run in full"),
        Binding("c", "compare_previous", "Compare", id="run-compare",
                tooltip="The full comparison with the previous run of this profile on this disk"),
        Binding("e", "explain", "How decided", id="run-explain",
                tooltip="Show or hide how the comparison's verdicts were reached: the tests, the pooled noise, "
                        "and what decided each line"),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
    ]

    class Progress(Message):
        """New samples or preparation progress: a burst collapses to the newest (the state is in LiveRun)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, RunScreen.Progress)

    class Changed(Message):
        """A step started or finished, or a warning came: redraw the step's frame now."""

    class EnginesChecked(Message):
        """Which engines can run here: (name, why it cannot, or None)."""

        def __init__(self, engines: list[tuple[str, str | None]]) -> None:
            super().__init__()
            self.engines = engines

    class PreflightPassed(Message):
        """The runner's checks passed: the run can begin."""

        def __init__(self, runner: Runner) -> None:
            super().__init__()
            self.runner = runner

    class RunEnded(Message):
        """The run's events have ended: it completed, was cancelled or failed (the runner has its result, if any)."""

    class PreviousFound(Message):
        """The previous completed run of `result`'s profile on its disk, or None."""

        def __init__(self, result: RunResult, previous: RunResult | None) -> None:
            super().__init__()
            self.result = result
            self.previous = previous

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
        self.runner: Runner | None = None
        self.live: LiveRun | None = None
        self.state = RunState.IDLE
        self.outcome: RunResult | None = None
        self.previous: RunResult | None = None
        self.explaining = False  # the finished run's comparison shows how it was decided (e)
        self._pending: RunResult | None = None  # a run asked for by another screen (History's "run again")
        self.sweep: SweepPlan | None = None  # a run on several volumes in turn
        self._stop_confirmed_at: float | None = None  # when the person confirmed the cancel
        self._late_y_possible = False  # the run ended with the question on screen
        self._engines_worker: Worker | None = None
        self._preflight_worker: Worker | None = None
        self._run_worker: Worker | None = None
        self._param_values: dict[str, dict[str, str]] = {}  # per profile: the values given last
        self._consented: DeviceFacts | None = None  # what a raw device held when the person agreed to destroy it
        self._run_target: Target | None = None  # where the run that is going writes
        self._waiting_for: str | None = None  # the other run this one waits for (its refusal), while it waits
        self._wait_stop = threading.Event()  # set: stop waiting for the disk

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ContextBar("Run")
        yield RunSetup(id="run-setup")
        yield LiveView(id="run-live")
        yield RunSummary(id="run-done")
        yield KeysFooter()

    @property
    def setup(self) -> RunSetup:
        return self.query_one(RunSetup)

    @property
    def live_view(self) -> LiveView:
        return self.query_one(LiveView)

    @property
    def asking(self) -> bool:
        """Whether "Stop the run?" is on screen."""
        return self.live_view.asking

    def on_mount(self) -> None:
        self.setup.focus_tags()
        for name in ("profile", "target"):
            self.watch(self.app, name, lambda _value: self._show_setup(), init=False)
        self._set_state(RunState.IDLE)
        self._show_setup()
        self.set_interval(1.0, self._clock_tick)
        self._engines_worker = self.check_engines()

    def on_screen_resume(self) -> None:
        if self.state.live:
            self.live_view.redraw()  # hidden meanwhile: draw what arrived

    def on_resize(self) -> None:
        self.query_one(StepCharts).set_single(self.size.width < NARROW)
        # Narrow, the notes (CPU-bound, warnings) go under the figures: beside them they had a
        # column of 24 cells at 80 and were cut off after their eighth line.
        self.set_class(self.size.width < NARROW, "-narrow")
        if self.state.live:
            self.live_view.drawn_version = -1
            self.call_after_refresh(self.live_view.want_frame)  # once the charts have their new size

    def _set_state(self, state: RunState) -> None:
        self.state = state
        for each in RunState:
            self.set_class(each is state, f"-{each.value}")
        self.live_view.going, self.live_view.stopping = state.live, state is RunState.STOPPING
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys that do nothing in the current state are left out of the footer (and the palette).
        running, done = self.state is RunState.RUNNING, self.state is RunState.DONE
        if action == "start":
            return not self.state.busy
        if action == "cancel_run":
            return running
        if action == "stop_waiting":
            return self.state is RunState.STARTING and self._waiting_for is not None
        if action == "leave_field":
            return not self.state.busy and self.setup.tags_focused
        if action in ("confirm_stop", "keep_running"):
            return running and self.asking
        if action == "next_chart":
            return running and self.size.width < NARROW
        if action == "open_result":
            return done and self.outcome is not None
        if action in ("compare_previous", "explain"):
            return done and self.previous is not None
        return True

    # ------------------------------------------------------------------ setup

    @work(thread=True, exit_on_error=False)
    def check_engines(self) -> None:
        post_found(self, self.EnginesChecked(self.lab.engine_check()))

    def on_run_screen_engines_checked(self, message: EnginesChecked) -> None:
        self._engines_known(message.engines)

    def _engines_known(self, engines: list[tuple[str, str | None]]) -> None:
        self.engines, self.engines_known = engines, True
        self.setup.show_engines(engines, self.lab.settings.engine)
        self._start_asked_for()

    def _start_asked_for(self) -> None:
        """Start what another screen asked for, once the engines are known."""
        if not self.engines:
            return
        if self._pending is not None:
            self.call_after_refresh(self._start_pending)
        elif self.sweep is not None and self.sweep.params is None:
            self.call_after_refresh(self._start_sweep)

    def on_run_screen_run_again(self, message: RunAgain) -> None:
        if self._refuse_while_busy():
            return
        self._pending = message.result
        self._start_asked_for()

    def on_run_screen_run_on_volumes(self, message: RunOnVolumes) -> None:
        if self._refuse_while_busy():
            return
        self.sweep = SweepPlan(list(message.targets))
        self._start_asked_for()

    def _refuse_while_busy(self) -> bool:
        if self.state.busy:
            self.notify("A run is going: cancel it first (x).", severity="warning")
        return self.state.busy

    def _show_setup(self) -> None:
        self.setup.show_plan(self.lab.profile, self.lab.target)

    def _say(self, text: str | Content, severity: str = "") -> None:
        self.setup.say(text, severity)

    def on_run_setup_trial_changed(self, message: RunSetup.TrialChanged) -> None:
        self.lab.quick_trial = message.trial  # the Disks screen's question says what a run on marked volumes runs

    def on_run_setup_start_asked(self, message: RunSetup.StartAsked) -> None:
        self.action_start()

    def action_leave_field(self) -> None:
        self.set_focus(None)

    # ------------------------------------------------------------------ starting

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        if worker is self._engines_worker:
            report_failure(self, "Could not tell which engines can run here", error)
            self._engines_known([])
        elif worker is self._preflight_worker:
            reason = failure_text(error)
            self._run_target = None
            if self._waiting_for is not None:
                self._waiting_for = None
                self.lab.run_indicator = None
            self._set_state(RunState.DONE if self.outcome is not None else RunState.IDLE)
            self._say(Content.assemble(("Not started: ", "$error bold"), reason, "\nNothing was written."))
            self._sweep_could_not(reason)
        elif worker is self._run_worker:
            # The run's end (RunEnded) came first; a result, if one was saved, is on show by now.
            if self.outcome is None:
                self._say(Content.assemble(("The run failed: ", "$error bold"), failure_text(error)))
        else:
            report_failure(self, "Could not read the previous run", error)

    def _start_pending(self) -> None:
        """Run again what History asked for: its profile (as it ran: the Override fields play no part),
        target and engine."""
        result, self._pending = self._pending, None
        if result is None:
            return
        if result.params:
            self._param_values[result.profile.name] = dict(result.params)
        if result.engine.name in {n for n, why in self.engines if why is None}:
            self.setup.choose_engine(result.engine.name)
        else:
            self.notify(f"{result.engine.name} cannot run here: the run uses {self.setup.engine or 'no engine'}",
                        title="Engine", severity="warning")
        self._start(overrides=False)

    def action_start(self) -> None:
        self._start(overrides=True)

    def _start(self, *, overrides: bool) -> None:
        if self.state.busy:
            self.notify("A run is going: cancel it first (x).", severity="warning")
            return
        profile, target = self.lab.profile, self.lab.target
        if profile is None or target is None:
            self._say("Choose a profile (w) and a target (d) first.", "warning")
            return
        if overrides:
            try:
                profile = self.setup.trial().apply(profile)
            except ValidationError as exc:
                self._say(Content.assemble(("Not started: ", "$error bold"), f"Override {exc}"))
                return
        engine = self.setup.engine
        if engine is None and not self.engines_known:
            # The engine check (a second or so: fio's and DiskSpd's versions) has not answered yet.
            self._say("Still checking which engines can run here: start again in a moment.", "warning")
            return
        if engine is None:
            self._say("No engine can run here: see the engine line above.", "error")
            return
        self._ask_params(profile, lambda params: self._ask_destroy(
            profile, target, lambda destroy: self._preflight(profile, target, engine, params, destroy)))

    # ------------------------------------------------------------------ several volumes in turn

    def _start_sweep(self) -> None:
        """Begin the run on each marked volume: the profile's parameters are asked once."""
        sweep = self.sweep
        if sweep is None or not sweep.waiting:
            self.sweep = None
            return
        profile, engine = self.lab.profile, self.setup.engine
        if profile is None or engine is None:
            self.sweep = None
            self._say("Choose a profile (w) first." if profile is None else "No engine can run here: see the engine "
                      "line above.", "warning" if profile is None else "error")
            return
        try:
            profile = self.setup.trial().apply(profile)
        except ValidationError as exc:
            self.sweep = None
            self._say(Content.assemble(("Not started: ", "$error bold"), f"Override {exc}"))
            return
        sweep.profile, sweep.engine, sweep.tags = profile, engine, self.setup.tags()

        def go(params: dict[str, str]) -> None:
            sweep.params = params
            self._sweep_next()

        def not_started() -> None:
            self.sweep = None

        self._ask_params(profile, go, not_started)

    def _sweep_next(self) -> None:
        """Start the next volume of the sweep, or end it on the comparison of its results."""
        sweep = self.sweep
        if sweep is None or sweep.params is None:
            return
        target = sweep.next_target()
        if target is None or sweep.profile is None:
            self._end_sweep()
            return
        self.notify(f"Volume {sweep.number} of {sweep.total}: {target.mount_point} ({target.directory})",
                    title="Run on marked volumes")
        self._preflight(sweep.profile, target, sweep.engine, sweep.params, None,
                        tags=(*sweep.tags, f"volume:{target.mount_point}"))

    def _end_sweep(self) -> None:
        from labtui.screens.compare import CompareScreen

        sweep, self.sweep = self.sweep, None
        if sweep is None:
            return
        results = sweep.completed()
        if sweep.skipped:
            self.notify("\n".join(f"{t.mount_point}: {why}" for t, why in sweep.skipped), title="Not run on",
                        severity="warning", timeout=12)
        if len(results) > 1:
            self.app.push_screen(CompareScreen(results))
        elif results:
            self.notify("Only one volume ran to the end: nothing to compare it with.", title="Run on marked volumes")

    def _sweep_could_not(self, reason: str) -> None:
        """A volume of the sweep could not start: note why and go on with the next one."""
        if self.sweep is not None and self.sweep.could_not(reason):
            self.call_after_refresh(self._sweep_next)

    # ------------------------------------------------------------------ the questions before a run

    def _ask_params(self, profile: Profile, then: Callable[[dict[str, str]], None],
                    cancelled: Callable[[], None] | None = None) -> None:
        """A profile with parameters (zpaq-extract's archive) asks for their values, the last ones offered."""
        from labtui.screens.params import ParamsModal

        if not profile.params:
            then({})
            return

        def answered(values: dict[str, str] | None) -> None:
            if values is None:
                self._say("Not started.")
                if cancelled is not None:
                    cancelled()
                return
            self._param_values[profile.name] = values
            then(values)

        self.app.push_screen(ParamsModal(profile, self._param_values.get(profile.name)), answered)

    def _ask_destroy(self, profile: Profile, target: Target, then: Callable[[str | None], None]) -> None:
        """A raw block device is written only after the person types its name (the guard checks it)."""
        from labtui.machine.devices import is_block_device
        from labtui.machine.guard import inspect_device
        from labtui.screens.prompt import TextPrompt

        path = target.directory
        self._consented = None
        if not (is_block_device(path) and profile.writes):
            then(None)
            return
        try:
            # What the person is shown is what they agree to destroy: the runner refuses if it changes.
            facts = inspect_device(path)
        except OSError as exc:
            self._say(f"Cannot start: cannot read {path}: {exc.strerror or exc}", "error")
            return

        def answered(name: str | None) -> None:
            if name is None:
                self._say("Not started: nothing was written.")
                return
            self._consented = facts
            then(name)

        self.app.push_screen(TextPrompt(
            f"Destroy the data on {path}?",
            f"{path} is a raw block device ({facts.dev_id}): {facts.describe()}. {profile.name} writes to it: "
            f"every byte it writes is lost. Type the device name ({path}) to go ahead.",
            check=lambda _text: None), answered)

    def _preflight(self, profile: Profile, target: Target, engine: str, params: dict[str, str],
                   destroy: str | None, *, tags: tuple[str, ...] | None = None) -> None:
        from labtui.run.runner import Runner, RunOptions

        tags = self.setup.tags() if tags is None else tags
        try:
            runner = Runner(profile, target.directory, self.lab.store,
                            RunOptions(engine=engine, engine_settings=self.lab.settings.engines, tags=tags, params=params,
                                       destroy_data=destroy, consented=self._consented if destroy else None))
        except LabtuiError as exc:
            self._say(f"Cannot start: {exc}", "error")
            self._sweep_could_not(str(exc))
            return
        self._set_state(RunState.STARTING)
        self._run_target = target
        self._say(f"Checking {target.directory} …")
        self._wait_stop = threading.Event()
        self._preflight_worker = self.preflight(runner)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def preflight(self, runner: Runner) -> None:
        """The runner's checks, off the UI thread (they inspect the target and the devices); a refusal
        raises. Where another labtui run is measuring the disk, it waits until that run has ended
        (`_waiting`), or until the person stops waiting."""
        from labtui.run.disk_wait import preflight_when_free

        stop = self._wait_stop
        if preflight_when_free(runner, stop, lambda refusal: self.app.call_from_thread(self._waiting, refusal)) is None:
            raise LabtuiError("you stopped waiting for the disk")
        post_found(self, self.PreflightPassed(runner))

    def _waiting(self, refusal: str) -> None:
        from labtui.run.disk_wait import waiting_words

        if self.state is not RunState.STARTING or self._wait_stop.is_set():
            return
        self._waiting_for = refusal
        self.set_focus(None)  # the tags were taken: the screens' keys work while it waits
        self._say(Content.assemble(
            ("Waiting for the disk: ", "$warning bold"), f"{waiting_words(refusal)}. This run starts when it has "
            "ended; nothing is written meanwhile. ", ("Escape", "bold"), " stops waiting."))
        self.refresh_bindings()
        self._publish()

    def action_stop_waiting(self) -> None:
        self._wait_stop.set()  # the worker ends within a second: "Not started" then
        self._say("Stopping the wait …", "warning")

    def on_unmount(self) -> None:
        self._wait_stop.set()  # labtui is ending: a run waiting for the disk is not started

    def on_run_screen_preflight_passed(self, message: PreflightPassed) -> None:
        self._waiting_for = None
        self.begin(message.runner)

    def begin(self, runner: Runner) -> None:
        """Watch `runner` (its preflight passed) run: its events drive this screen until it ends."""
        self.runner = runner
        if self._run_target is None:  # not through the checks here (a test's replayed run): the chosen one
            self._run_target = self.lab.target
        # The app's clock (fixed in tests and snapshots) times what the screen shows; the runner keeps its own.
        self.live = LiveRun(clock=lambda: self.lab.clock().timestamp())
        self.live_view.follow(self.live)
        self.outcome = self.previous = None
        self.lab.run_active = True
        self.lab.active_run = self
        self.lab.remember_engine(runner.engine.name)
        # The tags were this run's (the runner has them): the next run starts without any.
        self.setup.clear_tags()
        # The setup (the tags, Start) is hidden while the run goes: keys are the screen's (x cancels).
        self.set_focus(None)
        self._say("")
        self._set_state(RunState.RUNNING)
        self.live_view.show_all()
        self._publish()
        self._run_worker = self.consume(runner)

    @work(exclusive=True, group="run", exit_on_error=False)
    async def consume(self, runner: Runner) -> None:
        """The runner's events into the live state; the run's end, however it ends (done, cancelled, failed), as RunEnded."""
        live = self.live
        assert live is not None
        try:
            async for event in runner.events():
                live.handle(event)
                if isinstance(event, (SampleTaken, PrepareProgress, PreconditionProgress)):
                    self.post_message(self.Progress())
                else:
                    self.post_message(self.Changed())
        finally:
            self.post_message(self.RunEnded())

    # ------------------------------------------------------------------ live view

    def on_run_screen_progress(self, message: Progress) -> None:
        self.live_view.want_frame()

    def on_run_screen_changed(self, message: Changed) -> None:
        self._publish()
        # Hidden (History on show, a modal on top): nothing is drawn; on_screen_resume draws what came.
        if self.is_current:
            self.live_view.show_all()

    def _publish(self) -> None:
        """Say on every screen's top line that the run goes, its step and its time (app.run_indicator):
        set at most once a second (the clock's tick) and when a step starts, and only where it changed.
        A run waiting for its disk says that."""
        chosen = self.lab.profile  # what was started, until the run's first event names it
        if self.state is RunState.STARTING and self._waiting_for is not None:
            indicator = RunIndicator(chosen.name if chosen is not None else "?", self._run_target, waiting=True)
        elif self.live is not None and self.state.live:
            live = self.live
            step, started, eta = live.current, live.started, live.eta_seconds()
            name = started.profile.name if started is not None else chosen.name if chosen is not None else "?"
            indicator = RunIndicator(
                name, self._run_target,
                step.started.index + 1 if step is not None else None,
                step.started.total if step is not None else started.steps_total if started is not None else None,
                int(live.elapsed()), int(eta) if eta is not None else None)
        else:
            return
        if indicator != self.lab.run_indicator:
            self.lab.run_indicator = indicator

    def _clock_tick(self) -> None:
        self._publish()
        self.live_view.clock_tick()

    def help_note(self) -> str | None:
        """What ? says above the keys: the CPU-bound note in full while the step is CPU-bound."""
        return self.live_view.cpu_note if self.state.live else None

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
        # run's end (see _honour_cancel).
        key = event.key
        if self.asking and key in ("y", "n", "escape"):
            event.stop()
            event.prevent_default()
            if key == "y":
                self._confirm_stop(event.time)
            else:
                self.live_view.close_question()
            return
        late, self._late_y_possible = self._late_y_possible, False
        if key == "y" and late and self.state is RunState.DONE:
            # The question was on screen when the run ended; this y may have been typed before.
            event.stop()
            self._stop_confirmed_at = event.time
            self._honour_cancel()

    def action_confirm_stop(self) -> None:
        self._confirm_stop(time.monotonic())

    def action_keep_running(self) -> None:
        self.live_view.close_question()

    def _confirm_stop(self, at: float) -> None:
        self.live_view.close_question()
        self._stop_confirmed_at = at
        self.stop()

    def stop(self, why: str | None = None) -> Worker | None:
        """Cancel the run (the runner saves what it has as aborted, `why` its error: None when the person
        cancelled it here); the worker that is stopping, if any."""
        worker = self._run_worker
        if worker is None or not worker.is_running:
            return None
        if self.state is RunState.RUNNING:
            if self.runner is not None and why is not None:
                self.runner.stop_reason = why
            self._set_state(RunState.STOPPING)
            self.live_view.show_status()
            worker.cancel()
        return worker

    def _honour_cancel(self) -> None:
        """A cancel confirmed before the run completed wins, even if the run completed before this
        loop could act on it: the result is then kept as aborted, as asked. A cancel confirmed
        after the run completed changes nothing (and says so)."""
        at, runner, result = self._stop_confirmed_at, self.runner, self.outcome
        self._stop_confirmed_at = None
        if at is None or runner is None or result is None or result.status != "completed":
            return
        if runner.ended_at is None or at >= runner.ended_at:
            self.notify("The run had completed before the cancel was confirmed: it is kept as completed.",
                        title="Nothing to stop", timeout=8)
            return
        result = replace(result, status="aborted", error="cancelled by the user (confirmed as the run completed)")
        if getattr(runner, "save_error", None) is None:  # else it is only on this screen: nothing to rewrite
            try:
                self.lab.store.update_result(result)
            except LabtuiError as exc:
                self.notify(f"The result could not be marked aborted: {exc}", severity="error", timeout=12)
                return
        runner.result = self.outcome = result
        self.previous = None
        self._show_done()
        self.refresh_bindings()

    async def abort(self, by: str) -> None:
        """Stop the run and wait until its partial result is saved (for quitting and signals: `by`)."""
        worker = self.stop(f"stopped by {by}")
        if worker is None:
            return
        with contextlib.suppress(WorkerCancelled, WorkerFailed, asyncio.CancelledError):
            await worker.wait()
        # The run's end reaches this screen as a message (RunEnded), which a busy screen may not
        # have read yet: what the runner kept is known now, and labtui names it as it ends.
        if self.outcome is None and self.runner is not None:
            self.outcome = self.runner.result

    # ------------------------------------------------------------------ the end

    def on_run_screen_run_ended(self, message: RunEnded) -> None:
        runner = self.runner
        result: RunResult | None = runner.result if runner is not None else None
        self.lab.run_active = False
        self.lab.active_run = None
        self.lab.run_indicator = None
        self._run_target = None
        self.outcome = result
        self._late_y_possible = self.asking
        self.live_view.close_question()
        self._set_state(RunState.DONE)
        self._show_done()
        self._honour_cancel()
        result = self.outcome
        self.query_one(RunSummary).focus()  # arrows scroll the outcome
        if result is not None and result.status == "completed":
            self.look_up_previous(result)
        if self.sweep is not None:
            self.sweep.ran(result)
            self.call_after_refresh(self._sweep_next)

    @work(thread=True, exit_on_error=False)
    def look_up_previous(self, result: RunResult) -> None:
        post_found(self, self.PreviousFound(result, find_previous(self.lab.store, result)))

    def on_run_screen_previous_found(self, message: PreviousFound) -> None:
        if self.outcome is message.result and self.outcome.status == "completed":
            self.previous = message.previous
            self._show_comparison()
            self.refresh_bindings()

    def _show_done(self) -> None:
        runner = self.runner
        self.query_one(RunSummary).show_outcome(self.outcome, runner.saved_path if runner is not None else None,
                                                getattr(runner, "save_error", None))

    def _show_comparison(self) -> None:
        if self.outcome is not None:
            self.query_one(RunSummary).show_comparison(self.outcome, self.previous, self.lab.store,
                                                       explain=self.explaining)

    def action_explain(self) -> None:
        self.explaining = not self.explaining
        self._show_comparison()

    def action_scroll(self, pages: int) -> None:
        self.query_one(RunSummary).page(pages)

    def action_open_result(self) -> None:
        from labtui.screens.result import ResultScreen

        if self.outcome is not None:
            self.app.push_screen(ResultScreen(self.outcome))

    def action_compare_previous(self) -> None:
        from labtui.screens.compare import CompareScreen

        if self.outcome is not None and self.previous is not None:
            self.app.push_screen(CompareScreen([self.previous, self.outcome]))
