"""The Run screen: start the chosen profile on the chosen target, watch it live, read the outcome.

Before a run: the profile, the target, the engines that can run here, tags. Starting checks
everything the runner's preflight checks (a refusal is shown here, nothing is written), and for
a raw block device asks the person to type its name. During the run the runner's events — the
same stream `labtui run` prints — are consumed in a worker and kept in a `LiveRun`; the charts
and figures are drawn from it as samples arrive, twice a second at most, only while this screen
is the one on show, and a widget is repainted only where what it shows changed (the screen is
laid out again only when a widget's size may have). Cancelling asks first; the runner then
stops its workers, removes the test file and saves what was measured as an aborted result.
At the end: a summary per step, and the comparison with the previous run of the same profile
on the same disk, if there is one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, ProgressBar, Static
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from labtui.engine.cpubound import advice_for, interpreter_bound_now, io_threads, own_limit_now, whose_limit
from labtui.engine.events import PreconditionProgress, PrepareProgress, SampleTaken
from labtui.engine.registry import engine_title
from labtui.errors import LabtuiError, ValidationError
from labtui.machine.target_choice import Target, describe_in_full
from labtui.model.profile import Profile
from labtui.model.result import RunResult, split_tags
from labtui.render.result_tables import bottleneck_renderable, fmt_iops, fmt_mib, fmt_ms, result_steps_table
from labtui.render.steady_state import live_lines, steady_steps, steady_summary_lines
from labtui.run.live import FigureRow, LiveRun, precondition_text, prepare_text
from labtui.tui.context import LabtuiScreen, cursor_blinks
from labtui.tui.quick_trial import QuickTrial
from labtui.tui.run_indicator import RunIndicator
from labtui.tui.run_plan import plan_parts
from labtui.tui.styling import theme_style
from labtui.tui.work import failure_text, post_found, report_failure
from labtui.units import format_duration, format_size, human_duration
from labtui.widgets.choice import Choice
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.line_input import LineInput
from labtui.widgets.step_charts import StepCharts

if TYPE_CHECKING:
    from textual.timer import Timer

    from labtui.machine.guard import DeviceFacts
    from labtui.results.store import Store
    from labtui.run.runner import Runner

FRAME_SECONDS = 0.5  # charts and figures: at most 2 Hz (samples come at 1 Hz by default)
NARROW = 100  # below this width one chart shows at a time


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

    def __init__(self) -> None:
        super().__init__()
        self.engines: list[tuple[str, str | None]] = []  # (name, why it cannot run here or None)
        self.engines_known = False  # the check has answered (or failed, and said so)
        self.runner: Runner | None = None
        self.live: LiveRun | None = None
        self.state = "idle"  # idle, starting, running, stopping, done
        self.outcome: RunResult | None = None
        self.previous: RunResult | None = None
        self.explaining = False  # the finished run's comparison shows how it was decided (e)
        self._drawn_version = -1
        self._last_frame = 0.0  # time.monotonic() of the last frame drawn
        self._frame_timer: Timer | None = None  # a frame waiting for FRAME_SECONDS to pass since the last
        self._pending: RunResult | None = None  # a run asked for by another screen (History's "run again")
        self.asking = False  # whether "Stop the run?" is on screen
        self._stop_confirmed_at: float | None = None  # when the person confirmed the cancel
        self._late_y_possible = False  # the run ended with the question on screen
        self._engines_worker: Worker | None = None
        self._preflight_worker: Worker | None = None
        self._run_worker: Worker | None = None
        self._param_values: dict[str, dict[str, str]] = {}  # per profile: the values given last
        self._consented: DeviceFacts | None = None  # what a raw device held when the person agreed to destroy it
        # A run on several volumes in turn (the Disks screen's marked ones): those still to run,
        # the results so far, the volumes that could not start and why, and the run's inputs.
        self._sweep: list[Target] | None = None
        self._sweep_results: list[RunResult] = []
        self._sweep_skipped: list[tuple[Target, str]] = []
        self._sweep_total = 0
        self._sweep_inputs: tuple[str, dict[str, str], tuple[str, ...]] | None = None
        self._sweep_target: Target | None = None
        self._run_target: Target | None = None  # where the run that is going writes
        self._sweep_profile: Profile | None = None  # what a run on each marked volume runs (overrides applied)
        self._trial_problem: str | None = None  # why the Override fields cannot be used, while it is said
        self._waiting_for: str | None = None  # the other run this one waits for (its refusal), while it waits
        self._cpu_note: str | None = None  # the CPU-bound note in full, while the step is CPU-bound (for ?)
        self._wait_stop = threading.Event()  # set: stop waiting for the disk

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ContextBar("Run")
        with Vertical(id="run-setup"):
            yield Static(id="setup-profile", markup=False)
            yield Static(id="setup-target", markup=False)
            with Horizontal(id="setup-engine-row", classes="setup-row"):
                yield Static("Engine", classes="setup-label")
                yield Static("checking which engines can run here…", id="setup-engines", markup=False)
            # A quick trial, as the CLI's --duration, --file-size and --repeat: empty is the profile's own.
            with Horizontal(id="setup-trial-row", classes="setup-row"):
                yield Static("Override", classes="setup-label")
                for field, label in (("duration", "duration "), ("file-size", "  file size "), ("repeat", "  repeat ")):
                    yield Static(label, classes="trial-label")
                    yield LineInput(id=f"trial-{field}", compact=True, classes="trial-field")
            with Horizontal(classes="setup-row"):
                yield Static("Tags", classes="setup-label")
                yield LineInput(placeholder="optional, comma-separated (hp-adapter); Enter starts", id="setup-tags",
                            compact=True)
                yield Button("Start", id="setup-start", compact=True, variant="primary",
                             tooltip="Start the run (Enter here, Ctrl+S or F5 anywhere on this screen)")
            yield Static(id="run-message", markup=False)
        with Vertical(id="run-live"):
            yield Static(id="run-status", markup=False)
            with Horizontal(id="run-prepare"):
                yield ProgressBar(total=100, show_eta=False, id="prepare-bar")
                yield Static(id="prepare-text", markup=False)
            yield StepCharts(id="run-charts")
            with Horizontal(id="run-numbers"):
                yield Static(id="run-figures", markup=False)
                yield Static(id="run-info", markup=False)
            yield Static(id="run-steady", markup=False)
            yield Static(id="run-command", markup=False)
            yield Static(id="run-question", markup=False)
        with VerticalScroll(id="run-done"):
            yield Static(id="done-title", markup=False)
            yield Static(id="done-summary", markup=False)
            yield Static(id="done-compare", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#run-setup").border_title = "Next run"
        tags = self.query_one("#setup-tags", Input)
        for field in self.query(".trial-field").results(Input):
            field.cursor_blink = cursor_blinks(self.app)
        tags.cursor_blink = cursor_blinks(self.app)
        tags.focus()
        for name in ("profile", "target"):
            self.watch(self.app, name, lambda _value: self._show_setup(), init=False)
        self._set_state("idle")
        self._show_setup()
        self.set_interval(1.0, self._clock_tick)
        self._engines_worker = self.check_engines()

    def on_screen_resume(self) -> None:
        if self.state in ("running", "stopping"):
            self._drawn_version = -1  # hidden meanwhile: draw what arrived
            self._want_frame()
        if self.lab.pending_run is not None and self.state not in ("starting", "running", "stopping"):
            self._pending, self.lab.pending_run = self.lab.pending_run, None
            if self.engines:
                self._start_pending()
        if self.lab.pending_sweep is not None and self.state not in ("starting", "running", "stopping"):
            self._sweep, self.lab.pending_sweep = list(self.lab.pending_sweep), None
            if self.engines:
                self._start_sweep()

    def on_resize(self) -> None:
        self.query_one(StepCharts).set_single(self.size.width < NARROW)
        # Narrow, the notes (CPU-bound, warnings) go under the figures: beside them they had a
        # column of 24 cells at 80 and were cut off after their eighth line.
        self.set_class(self.size.width < NARROW, "-narrow")
        if self.state in ("running", "stopping"):
            self._drawn_version = -1
            self.call_after_refresh(self._want_frame)  # once the charts have their new size

    def _set_state(self, state: str) -> None:
        self.state = state
        for name in ("idle", "starting", "running", "stopping", "done"):
            self.set_class(name == state, f"-{name}")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys that do nothing in the current state are left out of the footer (and the palette).
        busy = self.state in ("starting", "running", "stopping")
        if action == "start":
            return not busy
        if action == "cancel_run":
            return self.state == "running"
        if action == "stop_waiting":
            return self.state == "starting" and self._waiting_for is not None
        if action == "leave_field":
            return not busy and self.query_one("#setup-tags", Input).has_focus
        if action in ("confirm_stop", "keep_running"):
            return self.state == "running" and self.asking
        if action == "next_chart":
            return self.state == "running" and self.size.width < NARROW
        if action == "open_result":
            return self.state == "done" and self.outcome is not None
        if action in ("compare_previous", "explain"):
            return self.state == "done" and self.previous is not None
        return True

    # ------------------------------------------------------------------ setup

    @work(thread=True, exit_on_error=False)
    def check_engines(self) -> None:
        post_found(self, self.EnginesChecked(self.lab.engine_check()))

    def on_run_screen_engines_checked(self, message: EnginesChecked) -> None:
        self._engines_known(message.engines)

    def _engines_known(self, engines: list[tuple[str, str | None]]) -> None:
        self.engines, self.engines_known = engines, True
        self._show_engines()
        if self._pending is not None:
            self.call_after_refresh(self._start_pending)
        elif self._sweep is not None:
            self.call_after_refresh(self._start_sweep)

    def _show_engines(self) -> None:
        row = self.query_one("#setup-engine-row")
        available = [(engine_title(n), n) for n, why in self.engines if why is None]
        for old in self.query("#setup-engine"):
            old.remove()
        missing = [(n, why) for n, why in self.engines if why is not None]
        text = self.query_one("#setup-engines", Static)
        # The first clause of each reason ("fio is not installed"); the tooltip has the whole of it.
        text.update("; ".join(why.split(":")[0] for _n, why in missing))
        text.tooltip = "\n".join(f"{engine_title(n)}: {why}" for n, why in missing) or None
        if not available:
            text.update("No engine can run here: " + "; ".join(why for _n, why in missing))
            return
        choice = Choice(tuple(available), id="setup-engine")
        remembered = self.lab.settings.engine
        row.mount(choice, before=text)
        if remembered in {n for _label, n in available}:
            choice.value = remembered
        choice.tooltip = "Space switches the engine; only engines that can run here are offered"

    def engine(self) -> str | None:
        choices = self.query("#setup-engine")
        return choices.first(Choice).value if choices else None

    def _show_setup(self) -> None:
        chosen: Profile | None = self.lab.profile
        target: Target | None = self.lab.target
        profile = chosen
        if chosen is not None:
            self._trial_placeholders(chosen)
            with contextlib.suppress(ValidationError):  # the setup says the profile as it would run
                profile = self._trial().apply(chosen)
        if profile is None:
            line = Content.styled("Profile  none: choose one on the Workload screen (w)", "$warning")
        else:
            line = Content.assemble(("Profile  ", "$text-muted"), (profile.name, "bold"),
                                    f" ({profile.title}) · " + " · ".join(plan_parts(profile, target)))
        self.query_one("#setup-profile", Static).update(line)
        if target is None:
            where = Content.styled("Target   none: choose a volume and a directory on the Disks screen (d)", "$warning")
        else:
            where = Content.assemble(("Target   ", "$text-muted"), (str(target.directory), "bold"),
                                     describe_in_full(target))
        self.query_one("#setup-target", Static).update(where)

    def _say(self, text: str | Content, severity: str = "") -> None:
        message = self.query_one("#run-message", Static)
        if isinstance(text, str):
            text = Content.styled(text, f"${severity}") if severity else Content(text)
        message.update(text)
        message.display = bool(text.plain)

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
            self._set_state("done" if self.outcome is not None else "idle")
            self._say(Content.assemble(("Not started: ", "$error bold"), reason, "\nNothing was written."))
            self._sweep_could_not(reason)
        elif worker is self._run_worker:
            # The run's end (RunEnded) came first; a result, if one was saved, is on show by now.
            if self.outcome is None:
                self._say(Content.assemble(("The run failed: ", "$error bold"), failure_text(error)))
        else:
            report_failure(self, "Could not read the previous run", error)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "setup-tags":
            event.stop()
            self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "setup-start":
            event.stop()
            self.action_start()

    def action_leave_field(self) -> None:
        self.set_focus(None)

    # ------------------------------------------------------------------ a quick trial

    def _trial(self) -> QuickTrial:
        """The Override fields' values (ValidationError naming the field whose text is not one)."""
        return QuickTrial.parse(*(self.query_one(f"#trial-{f}", Input).value for f in ("duration", "file-size",
                                                                                           "repeat")))

    def _trial_placeholders(self, profile: Profile) -> None:
        """Each Override field shows, greyed, the profile's own value: what an empty field means."""
        durations = {s.duration for s in profile.io_steps}
        shown = {"duration": format_duration(next(iter(durations))) if len(durations) == 1 else
                 "per step" if durations else "-",
                 "file-size": format_size(profile.file_size), "repeat": str(profile.repeat)}
        for field, text in shown.items():
            self.query_one(f"#trial-{field}", Input).placeholder = text

    def on_input_changed(self, event: Input.Changed) -> None:
        if not (event.input.id or "").startswith("trial-"):
            return
        event.stop()
        problem, bad, trial = None, None, QuickTrial()
        try:
            trial = self._trial()
            if self.lab.profile is not None:
                trial.apply(self.lab.profile)
        except ValidationError as exc:
            problem, trial = f"Override {exc}", QuickTrial()
            bad = "trial-" + exc.field.replace(" ", "-")
        for field in self.query(".trial-field"):
            field.set_class(field.id == bad, "-invalid")
        self.lab.quick_trial = trial  # the Disks screen's question says what a run on marked volumes runs
        if problem is not None:
            self._trial_problem = problem
            self._say(problem, "warning")
        elif self._trial_problem is not None:
            self._trial_problem = None
            self._say("")
        self._show_setup()

    def _start_pending(self) -> None:
        """Run again what History asked for: its profile (as it ran: the Override fields play no part),
        target and engine."""
        result, self._pending = self._pending, None
        if result is None:
            return
        if result.params:
            self._param_values[result.profile.name] = dict(result.params)
        available = {n for n, why in self.engines if why is None}
        choices = self.query("#setup-engine")
        if result.engine.name in available and choices:
            choices.first(Choice).value = result.engine.name
        elif result.engine.name not in available:
            self.notify(f"{result.engine.name} cannot run here: the run uses {self.engine() or 'no engine'}",
                        title="Engine", severity="warning")
        self._start(overrides=False)

    def action_start(self) -> None:
        self._start(overrides=True)

    def _start(self, *, overrides: bool) -> None:
        if self.state in ("starting", "running", "stopping"):
            self.notify("A run is going: cancel it first (x).", severity="warning")
            return
        profile, target = self.lab.profile, self.lab.target
        if profile is None or target is None:
            self._say("Choose a profile (w) and a target (d) first.", "warning")
            return
        if overrides:
            try:
                profile = self._trial().apply(profile)
            except ValidationError as exc:
                self._say(Content.assemble(("Not started: ", "$error bold"), f"Override {exc}"))
                return
        engine = self.engine()
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
        targets = self._sweep
        if not targets:
            self._sweep = None
            return
        profile, engine = self.lab.profile, self.engine()
        if profile is None or engine is None:
            self._sweep = None
            self._say("Choose a profile (w) first." if profile is None else "No engine can run here: see the engine "
                      "line above.", "warning" if profile is None else "error")
            return
        try:
            profile = self._trial().apply(profile)
        except ValidationError as exc:
            self._sweep = None
            self._say(Content.assemble(("Not started: ", "$error bold"), f"Override {exc}"))
            return
        self._sweep_profile = profile
        tags = self._typed_tags()
        self._sweep_results, self._sweep_skipped, self._sweep_total = [], [], len(targets)

        def go(params: dict[str, str]) -> None:
            self._sweep_inputs = (engine, params, tags)
            self._sweep_next()

        def not_started() -> None:
            self._sweep = None

        self._ask_params(profile, go, not_started)

    def _sweep_next(self) -> None:
        """Start the next volume of the sweep, or end it on the comparison of its results."""
        if self._sweep is None or self._sweep_inputs is None:
            return
        if not self._sweep:
            self._end_sweep()
            return
        target = self._sweep.pop(0)
        self._sweep_target = target
        engine, params, tags = self._sweep_inputs
        done = self._sweep_total - len(self._sweep)
        self.notify(f"Volume {done} of {self._sweep_total}: {target.mount_point} ({target.directory})",
                    title="Run on marked volumes")
        profile = self._sweep_profile
        if profile is None:  # the sweep started with one; nothing unchooses it
            self._end_sweep()
            return
        self._preflight(profile, target, engine, params, None, tags=(*tags, f"volume:{target.mount_point}"))

    def _end_sweep(self) -> None:
        from labtui.screens.compare import CompareScreen

        results = [r for r in self._sweep_results if r.status == "completed"]
        skipped = self._sweep_skipped
        self._sweep = self._sweep_inputs = self._sweep_target = None
        lines = [f"{t.mount_point}: {why}" for t, why in skipped]
        if skipped:
            self.notify("\n".join(lines), title="Not run on", severity="warning", timeout=12)
        if len(results) > 1:
            self.app.push_screen(CompareScreen(results))
        elif results:
            self.notify("Only one volume ran to the end: nothing to compare it with.", title="Run on marked volumes")

    def _typed_tags(self) -> tuple[str, ...]:
        return tuple(split_tags(self.query_one("#setup-tags", Input).value))

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

        tags = self._typed_tags() if tags is None else tags
        try:
            runner = Runner(profile, target.directory, self.lab.store,
                            RunOptions(engine=engine, engine_settings=self.lab.settings.engines, tags=tags, params=params,
                                       destroy_data=destroy, consented=self._consented if destroy else None))
        except LabtuiError as exc:
            self._say(f"Cannot start: {exc}", "error")
            self._sweep_could_not(str(exc))
            return
        self._set_state("starting")
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

        if self.state != "starting" or self._wait_stop.is_set():
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
        self.outcome = self.previous = None
        self._drawn_version = -1
        self.lab.run_active = True
        self.lab.active_run = self
        self.lab.remember_engine(runner.engine.name)
        # The tags were this run's (the runner has them): the next run starts without any.
        self.query_one("#setup-tags", Input).value = ""
        # The setup (the tags, Start) is hidden while the run goes: keys are the screen's (x cancels).
        self.set_focus(None)
        self._say("")
        self._set_state("running")
        self._show_live()
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
        self._want_frame()

    def on_run_screen_changed(self, message: Changed) -> None:
        self._publish()
        # Hidden (History on show, a modal on top): nothing is drawn; on_screen_resume draws what came.
        if self.is_current:
            self._show_live()

    def _want_frame(self) -> None:
        """Something new arrived: draw it now, or when the last frame is FRAME_SECONDS old.

        Samples come once a second by default, so each is drawn as it arrives; faster ones (or
        the test file's preparation, reported per few MiB) wait for the next frame, and a burst
        is drawn once. Nothing is drawn while another screen is on show.
        """
        if self._frame_timer is not None or not self.is_current:
            return
        wait = self._last_frame + FRAME_SECONDS - time.monotonic()
        if wait <= 0:
            self._frame()
        else:
            self._frame_timer = self.set_timer(wait, self._frame)

    def _frame(self) -> None:
        self._frame_timer = None
        live = self.live
        if self.state not in ("running", "stopping") or live is None or not self.is_current:
            return
        self._last_frame = time.monotonic()
        self._show_status()
        if live.version != self._drawn_version:
            self._drawn_version = live.version
            self._show_prepare()
            self._show_numbers()
            self._draw_charts()

    def _publish(self) -> None:
        """Say on every screen's top line that the run goes, its step and its time (app.run_indicator):
        set at most once a second (the clock's tick) and when a step starts, and only where it changed.
        A run waiting for its disk says that."""
        if self.state == "starting" and self._waiting_for is not None:
            chosen = self.lab.profile
            waiting = RunIndicator(chosen.name if chosen is not None else "?", self._run_target, waiting=True)
            if waiting != self.lab.run_indicator:
                self.lab.run_indicator = waiting
            return
        live = self.live
        if live is None or self.state not in ("running", "stopping"):
            return
        step = live.current
        started = live.started
        chosen = self.lab.profile  # what was started, until the run's first event names it
        name = started.profile.name if started is not None else chosen.name if chosen is not None else "?"
        eta = live.eta_seconds()
        indicator = RunIndicator(
            name, self._run_target,
            step.started.index + 1 if step is not None else None,
            step.started.total if step is not None else started.steps_total if started is not None else None,
            int(live.elapsed()), int(eta) if eta is not None else None)
        if indicator != self.lab.run_indicator:
            self.lab.run_indicator = indicator

    def _clock_tick(self) -> None:
        self._publish()
        # The run's clock and ETA move on even when no sample comes (a command step, a slow start);
        # while samples come, each frame has moved them on already.
        if time.monotonic() - self._last_frame < 1.0:
            return
        if self.state in ("running", "stopping") and self.live is not None and self.is_current:
            self._show_status()

    def _show_live(self) -> None:
        if self.live is None:
            return
        self._drawn_version = self.live.version
        self._show_status()
        self._show_prepare()
        self._show_numbers()
        self._draw_charts()

    def _show_status(self) -> None:
        live = self.live
        assert live is not None
        status = self.query_one("#run-status", Static)
        step = live.current
        eta = live.eta_seconds()
        clock = f"run {human_duration(live.elapsed())} · ETA {human_duration(eta) if eta is not None else 'unknown'}"
        if self.state == "stopping":
            show(status, Content.styled("Stopping: the workers are being stopped, the test file removed …", "$warning"))
            return
        if live.pause is not None:
            pause, began = live.pause
            left = max(0.0, pause.seconds - (live.clock() - began))
            total = live.started.steps_total if live.started is not None else "?"
            show(status, Content.assemble((f"Pause before step {pause.before + 1} of {total}", "bold"),
                                          f" · {human_duration(left)} left, nothing measured (the profile's pause)",
                                          f" · {clock}"))
            return
        if step is None:
            what = "writing the test file (incompressible data)" if live.prepare else "starting"
            if live.precondition is not None:
                what = "preconditioning: writing the test file sequentially, pass after pass"
            show(status, Content.assemble((what, "bold"), f" · {clock}"))
            return
        s = step.step
        phase = step.phase
        now = step.elapsed(live.clock())
        if s.is_io:
            if phase == "warmup":
                # A warm-up sample's t counts down to the start of measuring (it is negative).
                done = s.warmup + step.last.sample.t if step.last is not None else 0.0
                where = f"warm-up {human_duration(max(0.0, done))} of {human_duration(s.warmup)}"
            elif phase == "measure" and s.steady_state:
                measured = step.last.sample.t if step.last is not None else 0.0
                rounds = len(step.steady.rounds) if step.steady is not None else 0
                into = max(0.0, measured - rounds * s.duration)
                where = (f"round {min(rounds + 1, s.steady_max_rounds)} of at most {s.steady_max_rounds}, "
                         f"{human_duration(into)} of {human_duration(s.duration)}")
            elif phase == "measure":
                measured = step.last.sample.t if step.last is not None else 0.0
                where = f"measuring {human_duration(measured)} of {human_duration(s.duration)}"
            else:
                where = phase
        else:
            where = f"{phase} {human_duration(now)} (time limit {human_duration(s.timeout)})"
        label = f" ({s.label()})" if self.size.width >= NARROW else ""
        bound = (" · ", ("CPU-bound", "bold $warning")) if step.engine_bound else ()
        head = Content.assemble(
            (f"Step {step.started.index + 1} of {step.started.total}", "bold"),
            f" · {s.name}{label}" + pass_words(step.started.repetition),
            " · ", (where, "$accent"), *bound,
        )
        # Where it all does not fit on one line the clock goes whole on the next, not broken in two
        # ("… · CPU-bound · run" above "0:11 · ETA 0:30").
        width = status.content_region.width or self.size.width
        joint = " · " if head.cell_length + 3 + len(clock) <= width else "\n"
        show(status, Content.assemble(head, joint, clock))

    def _show_prepare(self) -> None:
        live = self.live
        box = self.query_one("#run-prepare")
        preconditioning = live is not None and live.preconditioning
        preparing = live is not None and (live.preparing or preconditioning)
        if box.display != preparing:
            box.display = preparing
        if live is not None and preconditioning and live.precondition is not None:
            c = live.precondition
            self.query_one("#prepare-bar", ProgressBar).update(total=max(1, c.bytes_total), progress=c.bytes_done)
            show(self.query_one("#prepare-text", Static), Content(precondition_text(c)))
        elif live is not None and preparing and live.prepare is not None:
            p = live.prepare
            self.query_one("#prepare-bar", ProgressBar).update(total=max(1, p.bytes_total), progress=p.bytes_done)
            show(self.query_one("#prepare-text", Static), Content(prepare_text(p)))

    def _show_numbers(self) -> None:
        live = self.live
        assert live is not None
        step = live.current
        figures = self.query_one("#run-figures", Static)
        info = self.query_one("#run-info", Static)
        show(figures, figures_content(step.figures()) if step is not None else Content(""))
        command = self.query_one("#run-command", Static)
        if step is not None and step.started.command_line:
            show(command, Content.assemble(("Command line: ", "bold"), step.started.command_line))
        else:
            show(command, Content(""))
        lines: list[Content] = []
        if step is not None and step.result is None and step.engine_bound:
            # While it runs; once it ends the run's warning (with the step's verdict) says it.
            cpu = step.last.sample.engine_cpu_percent if step.last is not None else None
            engine = live.started.engine.name if live.started is not None else "native"
            lanes = io_threads(step.step, engine)
            own_limit = own_limit_now(cpu, lanes)
            interpreter = not own_limit and interpreter_bound_now(cpu, lanes)
            if own_limit:
                busy = f"the engine's busiest worker uses {cpu:.0f} % of a CPU" + (
                    f" ({cpu / lanes:.0f} % for each of its {lanes} I/O threads)" if lanes > 1 and cpu else "")
            elif interpreter:
                # A sample carries no wait figures: the step's verdict tells turns from waiting.
                busy = (f"the {lanes} I/O threads of the engine's busiest worker use {cpu:.0f} % of a CPU together "
                        "(or wait for one)")
            elif cpu is None:  # no figure of the engine's own: only the machine's
                busy = "the machine has no idle CPU"
            else:
                who = (f"the {lanes} I/O threads of the engine's busiest worker run {cpu / lanes:.0f} % of the time "
                       "each" if lanes > 1 else f"the engine's busiest worker runs {cpu:.0f} % of the time")
                busy = f"{who} and wait{'' if lanes > 1 else 's'} for a CPU the rest, or no CPU is idle"
            cache_on = step.step.is_io and step.step.cache == "on"
            advice = advice_for(own_limit, engine, cache_on, interpreter)
            self._cpu_note = f"CPU-bound: {busy}; {advice}"
            # Narrow, in one short line (two, at 80 columns, cut its advice and the chart to two rows); ? says it all.
            limit = whose_limit(advice) or "this figure is not the disk's limit"
            short = f"CPU-bound: {limit} (? says why and what helps)"
            lines.append(Content.styled(short if self.size.width < NARROW else self._cpu_note, "$warning"))
        else:
            self._cpu_note = None
        if step is not None and step.result is not None and step.result.error:
            lines.append(Content.styled(f"step {step.result.status}: {step.result.error}", "$error"))
        for warning in live.warnings[-3:]:
            lines.append(Content.styled(f"warning: {warning}", "$warning"))
        show(info, Content("\n").join(lines))
        if info.display != bool(lines):
            info.display = bool(lines)  # under the figures (narrow), an empty line taken from the charts
        steady = self.query_one("#run-steady", Static)
        state = step.steady if step is not None else None
        if steady.display != (state is not None):
            steady.display = state is not None
        if state is not None:
            parts = live_lines(state, max(40, self.size.width - 4))
            style = "$success" if state.attained else "$warning" if state.finished else ""
            show(steady, Content("\n").join([Content.styled(parts[0], f"bold {style}".strip()),
                                              *(Content(p) for p in parts[1:])]))

    def _draw_charts(self) -> None:
        if not self.is_current:
            # A step's end or a warning arrives while another screen is on show: the tick draws
            # what is new once this screen is shown again.
            self._drawn_version = -1
            return
        live = self.live
        charts = self.query_one(StepCharts)
        if live is None or live.current is None:
            charts.display = False
            return
        if not charts.display:
            # Shown again: draw once it has its size (a chart of width 0 draws nothing).
            charts.display = True
            self.call_after_refresh(self._draw_charts)
            return
        step = live.current
        points = charts.points
        if not points:
            return
        note = "warm-up" if step.chart_phase == "warmup" else ""
        charts.draw_points(step.chart_points(points), step.directions(), note, command=not step.step.is_io)

    def help_note(self) -> str | None:
        """What ? says above the keys: the CPU-bound note in full while the step is CPU-bound."""
        return self._cpu_note if self.state in ("running", "stopping") else None

    def action_next_chart(self) -> None:
        charts = self.query_one(StepCharts)
        self.notify(f"Showing {charts.cycle()}", timeout=2)
        self.call_after_refresh(self._draw_charts)  # the chart shown has its size after the refresh

    # ------------------------------------------------------------------ cancelling

    def action_cancel_run(self) -> None:
        """Ask, in a line of the screen, whether to stop the run.

        Not a modal screen: measured with the charts on screen, pushing one (and dimming the
        screen under it) cost about 80 ms of CPU and dismissing it 35 ms more, the question line
        a few. On a machine whose CPUs the workers saturate, the UI gets a fraction of a CPU, so
        that was the difference between answering at once and answering in a second.
        """
        if self.state != "running" or self.asking:
            return
        self.asking = True
        question = self.query_one("#run-question", Static)
        text = Content.assemble(("Stop the run? ", "bold"), ("y", "bold"), " stops it (the steps finished so far are "
                                "kept, marked aborted; the test file is removed), ", ("n", "bold"), " keeps it running.")
        show(question, text)
        command = self.query_one("#run-command")
        # As high as the command line it covers (if it fits there), so the charts keep their size.
        needed = len(text.wrap(max(1, command.size.width - 2)))
        question.styles.height = max(needed, command.outer_size.height)
        question.display = True
        command.display = False

    def _close_question(self) -> None:
        if self.asking:
            self.asking = False
            self.query_one("#run-question").display = False
            self.query_one("#run-command").display = True

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
                self._close_question()
            return
        late, self._late_y_possible = self._late_y_possible, False
        if key == "y" and late and self.state == "done":
            # The question was on screen when the run ended; this y may have been typed before.
            event.stop()
            self._stop_confirmed_at = event.time
            self._honour_cancel()

    def action_confirm_stop(self) -> None:
        self._confirm_stop(time.monotonic())

    def action_keep_running(self) -> None:
        self._close_question()

    def _confirm_stop(self, at: float) -> None:
        self._close_question()
        self._stop_confirmed_at = at
        self.stop()

    def stop(self, why: str | None = None) -> Worker | None:
        """Cancel the run (the runner saves what it has as aborted, `why` its error: None when the person
        cancelled it here); the worker that is stopping, if any."""
        worker = self._run_worker
        if worker is None or not worker.is_running:
            return None
        if self.state == "running":
            if self.runner is not None and why is not None:
                self.runner.stop_reason = why
            self._set_state("stopping")
            self._show_status()
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
        self._close_question()
        self._set_state("done")
        self._show_done()
        self._honour_cancel()
        result = self.outcome
        self.query_one("#run-done", VerticalScroll).focus()  # arrows scroll the outcome
        if result is not None and result.status == "completed":
            self.look_up_previous(result)
        if self._sweep is not None:
            if result is not None:
                self._sweep_results.append(result)
            if result is None or result.status == "aborted":
                # Cancelled: the volumes after this one are not run; what ran is still compared.
                left = self._sweep or []
                self._sweep_skipped += [(t, "not run: the run before it was stopped") for t in left]
                self._sweep = []
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
        result = self.outcome
        title = self.query_one("#done-title", Static)
        summary = self.query_one("#done-summary", Static)
        self.query_one("#done-compare", Static).update("")
        if result is None:
            title.update("The run ended before anything could be saved.")
            summary.update("")
            return
        style = {"completed": "success", "aborted": "warning", "failed": "error"}[result.status]
        saved = self.runner.saved_path if self.runner is not None else None
        save_error = getattr(self.runner, "save_error", None)
        heading = Text.assemble((result.status.capitalize(), theme_style(self.app, style, bold=True)),
                                f": {result.profile.name} on {result.target.path} with {result.engine.name}"
                                f" · {human_duration(result.seconds)} · "
                                + (f"saved as {result.id}" if save_error is None else "NOT saved"))
        lines: list = [heading]
        if result.profile.overridden:  # a quick trial: what it changed, as the result keeps it
            lines.append(Text(result.profile.description, style=theme_style(self.app, "warning")))
        if result.tags:
            lines.append(Text(f"tags: {', '.join(result.tags)}"))
        if result.error:
            lines.append(Text(result.error, style=theme_style(self.app, style)))
        if save_error is not None:
            # The figures below exist only on this screen: say so, and why, so they can be copied.
            lines.append(Text(f"The result could not be saved ({save_error}); it is shown here only.",
                              style=theme_style(self.app, "error")))
        elif saved is not None:
            lines.append(Text(str(saved), style="dim"))
        for warning in result.warnings:
            lines.append(Text(f"warning: {warning}", style=theme_style(self.app, "warning")))
        limits = bottleneck_renderable(result, every=False, warning=theme_style(self.app, "warning"))
        if limits is not None:
            lines.append(limits)
        title.update(Group(*lines))
        steady = [line for s in steady_steps(result.steps) for line in steady_summary_lines(s)]
        table = result_steps_table(result) if result.steps else "No step finished."
        summary.update(Group(table, Text("\n".join(steady))) if steady else table)
        if result.status != "completed":
            self.query_one("#done-compare", Static).update(
                Text("An aborted or failed run is not compared with earlier ones.", style="dim"))

    def _show_comparison(self) -> None:
        from labtui.analysis.answer import comparison_answers
        from labtui.analysis.comparison import compare
        from labtui.analysis.context import engine_bound_warnings
        from labtui.analysis.known_noise import hint_from_store
        from labtui.render.comparison import answer_renderable, comparison_renderable
        from labtui.screens.compare import theme_colours

        box = self.query_one("#done-compare", Static)
        result, previous = self.outcome, self.previous
        if result is None:
            return
        if previous is None:
            box.update(Text(f"No earlier completed run of {result.profile.name} on this disk to compare with.",
                            style="dim"))
            return
        comparison = compare([previous, result], hint=hint_from_store(self.lab.store, [previous, result]))
        # This run's CPU-bound steps are warned of above the summary already: once is enough.
        said = set(engine_bound_warnings([result], comparison.letters[1:]))
        comparison = replace(comparison, warnings=tuple(w for w in comparison.warnings if w not in said))
        head = Text.assemble(("Against the previous run", "bold"),
                             f" of {result.profile.name} on this disk (A = {previous.id}, B = this run; "
                             "c shows it in full, e how it was decided):")
        colours = theme_colours(self.app)
        # The answer first, under its heading; the table; the method only when asked (e).
        box.update(Group(head, answer_renderable(comparison_answers(comparison), colours),
                         comparison_renderable(comparison, colours, answer=False, explain=self.explaining)))

    def action_explain(self) -> None:
        self.explaining = not self.explaining
        self._show_comparison()

    def _sweep_could_not(self, reason: str) -> None:
        """A volume of the sweep could not start: note why and go on with the next one."""
        if self._sweep is None or self._sweep_target is None:
            return
        self._sweep_skipped.append((self._sweep_target, reason))
        self.call_after_refresh(self._sweep_next)

    def action_scroll(self, pages: int) -> None:
        done = self.query_one("#run-done", VerticalScroll)
        (done.scroll_page_down if pages > 0 else done.scroll_page_up)()

    def action_open_result(self) -> None:
        from labtui.screens.result import ResultScreen

        if self.outcome is not None:
            self.app.push_screen(ResultScreen(self.outcome))

    def action_compare_previous(self) -> None:
        from labtui.screens.compare import CompareScreen

        if self.outcome is not None and self.previous is not None:
            self.app.push_screen(CompareScreen([self.previous, self.outcome]))


def pass_words(repetition: int) -> str:
    """A pass beside its step's name: " #2", " · preparing pass, not counted", nothing for a first one."""
    if repetition == 0:
        return " · preparing pass, not counted"
    return f" #{repetition}" if repetition > 1 else ""


def find_previous(store: Store, result: RunResult) -> RunResult | None:
    """The previous completed run of the same profile on the same disk, read in full (None if none)."""
    from labtui.results.summaries import previous_comparable

    rows, _broken = store.summaries()
    row = previous_comparable(rows, result)
    if row is None:
        return None
    try:
        return store.read_result(store.results_dir / row.file)
    except LabtuiError:
        return None


def figures_content(rows: list[FigureRow]) -> Content:
    """Now, mean over the measured time, and extremes per series; read and write in their theme colours.

    Laid out as a Rich table with a simple head would be (columns three cells apart, a rule under
    the head), but as Content: it is redrawn with every sample, and a table is measured and
    rendered three times per update.
    """
    formats = {"IOPS": fmt_iops, "MiB/s": fmt_mib, "%": lambda v: "-" if v is None else f"{v:.1f}"}
    labels, cells = [], []
    for row in rows:
        series = row.series
        fmt = formats.get(series.unit, fmt_ms)
        unit = f" {series.unit}" if series.unit in ("ms", "%") else ""
        labels.append((f"{series.direction} {series.quantity}".strip() + unit, series.direction))
        cells.append([fmt(v) if v is not None else "-" for v in (row.current, row.mean, row.minimum, row.maximum)])
    heads = ("now", "mean", "min", "max")
    label_width = max((len(label) for label, _ in labels), default=0)
    widths = [max([len(head)] + [len(c[i]) for c in cells]) for i, head in enumerate(heads)]
    gap = "   "
    lines = [Content.styled(" " * label_width + "".join(gap + h.rjust(w) for h, w in zip(heads, widths)), "bold"),
             Content("─" * (label_width + sum(len(gap) + w for w in widths)))]
    for (label, direction), values in zip(labels, cells):
        colour = {"read": "$labtui-read", "write": "$labtui-write"}.get(direction, "")
        lines.append(Content.assemble(
            Content.styled(label.ljust(label_width), colour) if colour else label.ljust(label_width),
            "".join(gap + v.rjust(w) for v, w in zip(values, widths))))
    return Content("\n").join(lines)


def show(widget: Static, content: Content) -> None:
    """Show `content` in `widget` unless it shows it already. The screen is laid out again only
    where the widget's size may change (other lines, or lines of other lengths): a new frame
    of figures of the same widths repaints just that widget."""
    old = widget.content
    if isinstance(old, Content) and old == content and old.spans == content.spans:
        return
    same_shape = isinstance(old, Content) and [line.cell_length for line in old.split("\n")] == [
        line.cell_length for line in content.split("\n")]
    widget.update(content, layout=not same_shape)
