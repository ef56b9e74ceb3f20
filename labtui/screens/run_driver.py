"""How the Run screen starts a run and stops it: the questions before it, the runner's checks, the wait
for the disk; the cancel and its race with the run's end.

Before a byte is written: a profile with parameters asks for their values (the last ones offered),
a raw block device asks the person to type its name, and the runner's preflight checks everything
off the UI thread (a refusal is said on the screen, nothing is written). Where another labtui run
is measuring the disk, the run waits for it, and says so, until it ends or the person stops
waiting. A run on several volumes in turn (`SweepPlan`) starts each volume's run as the one before
ends and ends on their comparison; History's "run again" starts its result's profile as it ran.
A cancel confirmed before the run completed wins, even where the run completed before the screen
could act on it (the key's own time decides).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.content import Content
from textual.message import Message
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from labtui.errors import LabtuiError, ValidationError
from labtui.run.request import RunRequest
from labtui.tui.context import LabtuiScreen
from labtui.tui.run_state import RunState, SweepPlan, late_cancel
from labtui.tui.work import failure_text, post_found

if TYPE_CHECKING:
    from labtui.machine.guard import DeviceFacts
    from labtui.machine.target_choice import Target
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.run.runner import Runner
    from labtui.widgets.run_live import LiveView
    from labtui.widgets.run_setup import RunSetup


class DrivenScreen(LabtuiScreen[None]):
    """The Run screen as its driver sees it (`labtui.screens.run.RunScreen` is the one): declared here, so
    that the driver's module needs nothing of the screen's (which imports it)."""

    setup: RunSetup
    live_view: LiveView
    state: RunState
    runner: Runner | None
    outcome: RunResult | None
    previous: RunResult | None
    engines_known: bool

    class PreflightPassed(Message):
        """The runner's checks passed: the run can begin."""

        def __init__(self, runner: Runner) -> None:
            super().__init__()
            self.runner = runner

    def set_state(self, state: RunState) -> None:
        raise NotImplementedError

    def publish(self) -> None:
        """Say on every screen's top line what the run is doing."""
        raise NotImplementedError

    def show_done(self) -> None:
        """Show the run's outcome."""
        raise NotImplementedError


class RunDriver:
    """The Run screen's way from "start" to a runner whose checks passed (then `RunScreen.begin`), and from
    "stop" to the run's saved result."""

    def __init__(self, screen: DrivenScreen) -> None:
        self.screen = screen
        self.pending: RunResult | None = None  # a run asked for by another screen (History's "run again")
        self.sweep: SweepPlan | None = None  # a run on several volumes in turn
        self.target: Target | None = None  # where the run being started (or going) writes
        self.waiting_for: str | None = None  # the other run this one waits for (its refusal), while it waits
        self.worker: Worker | None = None  # the runner's checks
        self.wait_stop = threading.Event()  # set: stop waiting for the disk
        self._param_values: dict[str, dict[str, str]] = {}  # per profile: the values given last
        self._consented: DeviceFacts | None = None  # what a raw device held when the person agreed to destroy it
        self.stop_confirmed_at: float | None = None  # when the person confirmed the cancel (the key's time)
        self.start_asked: bool | None = None  # Start pressed before the engine check answered (its `overrides`)

    def _say(self, text: str | Content, severity: str = "") -> None:
        self.screen.setup.say(text, severity)

    def _not_started(self, why: str | Content) -> None:
        self._say(Content.assemble(("Not started: ", "$error bold"), why))

    def asked_for(self, engines: list[tuple[str, str | None]]) -> None:
        """Start what was asked for before the engines were known: Start here, or another screen's run."""
        if self.start_asked is not None and self.screen.engines_known:  # start() says if no engine can run
            overrides, self.start_asked = self.start_asked, None
            self.screen.refresh_bindings()  # Escape no longer takes it back
            if self.pending is None and self.sweep is None:  # else another screen's run, asked for since, goes
                self.screen.call_after_refresh(self.start, overrides=overrides)
                return
        if not engines:
            return
        if self.pending is not None:
            self.screen.call_after_refresh(self._start_pending, engines)
        elif self.sweep is not None and self.sweep.params is None:
            self.screen.call_after_refresh(self._start_sweep)

    def _start_pending(self, engines: list[tuple[str, str | None]]) -> None:
        """Run again what History asked for: its profile (as it ran: the Override fields play no part),
        target and engine."""
        result, self.pending = self.pending, None
        if result is None:
            return
        if result.params:
            self._param_values[result.profile.name] = dict(result.params)
        setup = self.screen.setup
        if result.engine.name in {n for n, why in engines if why is None}:
            setup.choose_engine(result.engine.name)
        else:
            self.screen.notify(f"{result.engine.name} cannot run here: the run uses {setup.engine or 'no engine'}",
                               title="Engine", severity="warning")
        self.start(overrides=False)

    def start(self, *, overrides: bool) -> None:
        """The chosen profile on the chosen target with the engine chosen (the Override fields' if `overrides`)."""
        screen = self.screen
        if screen.state.busy:
            screen.notify("A run is going: cancel it first (x).", severity="warning")
            return
        profile, target = screen.lab.profile, screen.lab.target
        if profile is None or target is None:
            self._say("Choose a profile (w) and a target (d) first.", "warning")
            return
        try:
            asked, profile = screen.setup.request(profile, target, overrides=overrides)
        except ValidationError as exc:
            self._not_started(f"Override {exc}")
            return
        if asked.engine is None and not screen.engines_known:
            # The engine check (a second or so: fio's and DiskSpd's versions) has not answered yet: started when
            # it does (asked_for). "Start again in a moment" had the person press it again.
            self.start_asked = overrides
            self._say("Starting when the engines are checked… (Escape: do not start)", "warning")
            screen.refresh_bindings()
            return
        if asked.engine is None:
            self._say("No engine can run here: see the engine line above.", "error")
            return
        self._ask_params(profile, lambda params: self._ask_destroy(profile, target, lambda destroy: self._preflight(
            profile, target, replace(asked, params=tuple(params.items()), destroy_data=destroy))))

    def cancel_start(self) -> None:
        """Escape or x while a Start waits for the engine check: it is not started."""
        self.start_asked = None
        self._say("Not started: you cancelled it while the engines were being checked. Nothing was written.")
        self.screen.refresh_bindings()

    # ------------------------------------------------------------------ several volumes in turn

    def _start_sweep(self) -> None:
        """Begin the run on each marked volume: the profile's parameters are asked once."""
        sweep, screen = self.sweep, self.screen
        if sweep is None or not sweep.waiting:
            self.sweep = None
            return
        profile, engine = screen.lab.profile, screen.setup.engine
        if profile is None or engine is None:
            self.sweep = None
            self._say("Choose a profile (w) first." if profile is None else "No engine can run here: see the engine "
                      "line above.", "warning" if profile is None else "error")
            return
        try:
            trial = screen.setup.trial()
            profile = trial.apply(profile)
        except ValidationError as exc:
            self.sweep = None
            self._not_started(f"Override {exc}")
            return
        sweep.profile, sweep.engine, sweep.tags, sweep.overrides = profile, engine, screen.setup.tags(), trial.overrides

        def go(params: dict[str, str]) -> None:
            sweep.params = params
            self.sweep_next()

        def not_started() -> None:
            self.sweep = None

        self._ask_params(profile, go, not_started)

    def sweep_next(self) -> None:
        """Start the next volume of the sweep, or end it on the comparison of its results."""
        sweep = self.sweep
        if sweep is None or sweep.params is None:
            return
        target = sweep.next_target()
        if target is None or sweep.profile is None:
            self._end_sweep()
            return
        self.screen.notify(f"Volume {sweep.number} of {sweep.total}: {target.mount_point} ({target.directory})",
                           title="Run on marked volumes")
        self._preflight(sweep.profile, target, RunRequest(
            profile=sweep.profile.name, target=str(target.directory), engine=sweep.engine,
            overrides=sweep.overrides, tags=(*sweep.tags, f"volume:{target.mount_point}"),
            params=tuple(sweep.params.items())))

    def _end_sweep(self) -> None:
        from labtui.screens.compare import CompareScreen

        sweep, self.sweep = self.sweep, None
        if sweep is None:
            return
        results = sweep.completed()
        if sweep.skipped:
            self.screen.notify("\n".join(f"{t.mount_point}: {why}" for t, why in sweep.skipped), title="Not run on",
                               severity="warning", timeout=12)
        if len(results) > 1:
            self.screen.app.push_screen(CompareScreen(results))
        elif results:
            self.screen.notify("Only one volume ran to the end: nothing to compare it with.",
                               title="Run on marked volumes")

    def _could_not(self, reason: str) -> None:
        """A volume of the sweep could not start: note why and go on with the next one."""
        if self.sweep is not None and self.sweep.could_not(reason):
            self.screen.call_after_refresh(self.sweep_next)

    def ran(self, result: RunResult | None) -> None:
        """The run that was going ended: a sweep goes on with its next volume."""
        self.target = None
        if self.sweep is not None:
            self.sweep.ran(result)
            self.screen.call_after_refresh(self.sweep_next)

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

        self.screen.app.push_screen(ParamsModal(profile, self._param_values.get(profile.name)), answered)

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

        self.screen.app.push_screen(TextPrompt(
            f"Destroy the data on {path}?",
            f"{path} is a raw block device ({facts.dev_id}): {facts.describe()}. {profile.name} writes to it: "
            f"every byte it writes is lost. Type the device name ({path}) to go ahead.",
            check=lambda _text: None), answered)

    # ------------------------------------------------------------------ the runner's checks

    def _preflight(self, profile: Profile, target: Target, request: RunRequest) -> None:
        """The runner for `request` (`profile` its profile, overridden), its checks started in a worker."""
        screen = self.screen
        try:
            runner = request.runner(profile, screen.lab.store, engine_settings=screen.lab.settings.engines,
                                    consented=self._consented if request.destroy_data else None)
        except LabtuiError as exc:
            self._say(f"Cannot start: {exc}", "error")
            self._could_not(str(exc))
            return
        screen.set_state(RunState.STARTING)
        self.target = target
        self._say(f"Checking {target.directory} …")
        self.wait_stop = stop = threading.Event()
        self.worker = screen.run_worker(lambda: self._check(runner, stop), thread=True, exclusive=True, group="run",
                                        exit_on_error=False)

    def _check(self, runner: Runner, stop: threading.Event) -> None:
        """The runner's checks, in a worker thread (they inspect the target and the devices); a refusal
        raises. Where another labtui run is measuring the disk, it waits until that run has ended
        (`_waiting`), or until the person stops waiting."""
        from labtui.run.disk_wait import preflight_when_free

        app = self.screen.app
        if preflight_when_free(runner, stop, lambda refusal: app.call_from_thread(self._waiting, refusal)) is None:
            raise LabtuiError("you stopped waiting for the disk")
        post_found(self.screen, self.screen.PreflightPassed(runner))

    def _waiting(self, refusal: str) -> None:
        from labtui.run.disk_wait import waiting_words

        screen = self.screen
        if screen.state is not RunState.STARTING or self.wait_stop.is_set():
            return
        self.waiting_for = refusal
        screen.set_focus(None)  # the tags were taken: the screens' keys work while it waits
        self._say(Content.assemble(
            ("Waiting for the disk: ", "$warning bold"), f"{waiting_words(refusal)}. This run starts when it has "
            "ended; nothing is written meanwhile. ", ("Escape", "bold"), " stops waiting."))
        screen.refresh_bindings()
        screen.publish()

    def stop_waiting(self) -> None:
        self.wait_stop.set()  # the worker ends within a second: "Not started" then
        self._say("Stopping the wait …", "warning")

    def passed(self) -> None:
        self.waiting_for = None

    def failed(self, error: BaseException) -> None:
        """The checks refused (or the person stopped waiting): nothing was written."""
        from labtui.run.preflight import RUN_SCREEN_ROOM, make_room

        screen = self.screen
        reason = failure_text(error)
        self.target = None
        if self.waiting_for is not None:
            self.waiting_for = None
            screen.lab.run_indicator = None
        screen.set_state(RunState.DONE if screen.outcome is not None else RunState.IDLE)
        # Room is made here: say where (the margin is the profile's, which no Override field changes).
        room = make_room(error, file_size=RUN_SCREEN_ROOM["file_size"], profile=RUN_SCREEN_ROOM["profile"])
        self._not_started(Content.assemble(reason, "\n" + room if room else "", "\nNothing was written."))
        self._could_not(reason)

    # ------------------------------------------------------------------ stopping

    def stop(self, why: str | None = None) -> Worker | None:
        """Cancel the run (the runner saves what it has as aborted, `why` its error: None when the person
        cancelled it here); the worker that is stopping, if any."""
        screen = self.screen
        worker = screen.live_view.worker
        if worker is None or not worker.is_running:
            return None
        if screen.state is RunState.RUNNING:
            if screen.runner is not None and why is not None:
                screen.runner.stop_reason = why
            screen.set_state(RunState.STOPPING)
            screen.live_view.show_status()
            worker.cancel()
        return worker

    def confirm_stop(self, at: float) -> None:
        """The person confirmed the cancel with a key typed `at` (its monotonic time)."""
        self.stop_confirmed_at = at
        self.stop()

    def honour_cancel(self) -> None:
        """A cancel confirmed before the run completed wins: the result is then kept as aborted, as asked.
        A cancel confirmed after the run completed changes nothing (and says so)."""
        screen = self.screen
        at, runner, result = self.stop_confirmed_at, screen.runner, screen.outcome
        self.stop_confirmed_at = None
        if at is None or runner is None or result is None or result.status != "completed":
            return
        aborted = late_cancel(result, at, runner.ended_at)
        if aborted is None:
            screen.notify("The run had completed before the cancel was confirmed: it is kept as completed.",
                          title="Nothing to stop", timeout=8)
            return
        if getattr(runner, "save_error", None) is None:  # else it is only on this screen: nothing to rewrite
            try:
                screen.lab.store.update_result(aborted)
            except LabtuiError as exc:
                screen.notify(f"The result could not be marked aborted: {exc}", severity="error", timeout=12)
                return
        runner.result = screen.outcome = aborted
        screen.previous = None
        screen.show_done()
        screen.refresh_bindings()

    async def abort(self, by: str) -> None:
        """Stop the run and wait until its partial result is saved (for quitting and signals: `by`)."""
        worker = self.stop(f"stopped by {by}")
        if worker is None:
            return
        with contextlib.suppress(WorkerCancelled, WorkerFailed, asyncio.CancelledError):
            await worker.wait()
        # The run's end reaches the screen as a message (Ended), which a busy screen may not
        # have read yet: what the runner kept is known now, and labtui names it as it ends.
        screen = self.screen
        if screen.outcome is None and screen.runner is not None:
            screen.outcome = screen.runner.result
