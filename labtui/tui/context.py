"""The typed handle on the app: what labtui's screens and widgets use of it, and the base screen that gives it.

Screens and widgets reach the app's shared state (the store, the chosen profile and target, the
clock the tests fix) through `LabtuiContext` rather than through `labtui.app`, which imports the
screens. `labtui.app` checks with mypy that its app keeps this side of the bargain. Textual's own
side of the app (`push_screen`, `notify`, themes) stays on `self.app`.

The modals and the widgets a test hosts in a bare Textual app (the chart, the prompts) read only
display choices, each with the default a plain app would have (`cursor_blinks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar, cast

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from labtui.tui.work import report_failure

if TYPE_CHECKING:
    from textual.app import App

    from labtui.machine.target_choice import DeviceScan, Target
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.results.store import Store
    from labtui.settings import Settings
    from labtui.tui.quick_trial import QuickTrial
    from labtui.tui.run_indicator import RunIndicator

ResultT = TypeVar("ResultT")

# A command palette entry: (name, what it does, what runs when it is chosen).
Command = tuple[str, str, Callable[[], object]]


class RunControl(Protocol):
    """The run that is going, as the app sees it: it can be stopped, and says how it ended."""

    @property
    def outcome(self) -> RunResult | None: ...

    async def abort(self, by: str) -> None:
        """Stop the run and wait until its partial result is saved; `by` is what stopped it (a signal's
        name, "quitting labtui"), for the result's error."""
        ...


class LabtuiContext(Protocol):
    """What the screens share through the app. Everything the machine provides can be injected."""

    store: Store
    settings: Settings  # config.toml as read at start, and as the choices since have changed it
    clock: Callable[[], datetime]
    home: Path
    cwd: Path  # where exports go unless the person names another place
    hosts_file: str | None  # `labtui --hosts FILE`: the Fleet screen opens it
    cursor_blink: bool
    plain_glyphs: bool
    device_source: Callable[[], DeviceScan]
    engine_check: Callable[[], list[tuple[str, str | None]]]  # (engine, why it cannot run here or None)
    # The choices a run uses (Textual reactives on the app: screens watch them by name).
    profile: Profile | None
    target: Target | None
    run_active: bool
    run_indicator: RunIndicator | None  # the run that is going, for every screen's top line
    unsaved_profile: str | None  # the profile with unsaved edits in the Workload screen
    active_run: RunControl | None
    stopped_by: str | None  # the signal that is ending the app, if one is
    taking_to_run: bool  # switching to the Run screen for a run (run again, marked volumes), not by the user
    quick_trial: QuickTrial  # the Run screen's Override fields: runs started there and on marked volumes take them

    @property
    def profile_as_run(self) -> Profile | None: ...

    def choose_profile(self, profile: Profile) -> None: ...

    def choose_target(self, target: Target) -> None: ...

    def remember_engine(self, name: str) -> None: ...

    def remember_hosts_file(self, path: str) -> None: ...

    def request_run(self, result: RunResult) -> None: ...

    def run_on_volumes(self, targets: list[Target]) -> None: ...

    def screen_modes(self) -> list[tuple[str, str, str]]: ...

    def palette_searches(self) -> Iterator[Command]: ...


def lab(app: App) -> LabtuiContext:
    """`app` as labtui's app (only labtui's app hosts the screens and widgets that ask)."""
    return cast("LabtuiContext", app)


def cursor_blinks(app: App) -> bool:
    """Whether text cursors blink: labtui's app says (tests and snapshots stop them), any other app blinks."""
    return bool(getattr(app, "cursor_blink", True))


class LabtuiScreen(Screen[ResultT]):
    """A screen of labtui's: `self.lab` is the app's shared state, typed; a worker that fails is reported."""

    # The ids of the keys the footer leaves out first when they do not all fit, in the order they
    # give way (labtui.widgets.keys_footer); they still work, and ? Help and the palette list them.
    FOOTER_SECONDARY: ClassVar[tuple[str, ...]] = ()

    def footer_secondary(self) -> tuple[str, ...]:
        return self.FOOTER_SECONDARY

    @property
    def lab(self) -> LabtuiContext:
        return lab(self.app)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # What a worker found comes as its own message; only a failure is handled here.
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.work_failed(event.worker, event.worker.error)

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        """`worker` raised `error`. Screens that show a failure in place (and tell which work it was) override this."""
        report_failure(self, "Could not finish what this screen was doing", error)
