"""The Run screen's state, typed: where the screen is in a run's life, and a run on several volumes in turn.

No Textual here: the screen keeps these and draws from them; a test can build and step them alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from labtui.run.request import Overrides

if TYPE_CHECKING:
    from labtui.machine.target_choice import Target
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult


class RunState(StrEnum):
    """Where the Run screen is. Its value is the screen's CSS class (`-running`), which shows its parts."""

    IDLE = "idle"  # the setup: nothing started yet
    STARTING = "starting"  # the runner's checks (or the wait for the disk) before anything is written
    RUNNING = "running"
    STOPPING = "stopping"  # cancelled: the workers are being stopped, the partial result saved
    DONE = "done"  # the summary of the run that ended

    @property
    def busy(self) -> bool:
        """A run is on its way: nothing else may start."""
        return self in (RunState.STARTING, RunState.RUNNING, RunState.STOPPING)

    @property
    def live(self) -> bool:
        """The run's events arrive: the live view is on show."""
        return self in (RunState.RUNNING, RunState.STOPPING)


@dataclass
class SweepPlan:
    """A run on several volumes in turn (the Disks screen's marked ones), ending on their comparison.

    Built from the volumes; the profile (its overrides applied), engine and tags are fixed as it
    starts and the profile's parameters once they are asked (`params`: None until then). Each run
    that ends is `ran`; a volume that could not start is kept in `skipped` with why.
    """

    waiting: list[Target]  # the volumes still to run, in order
    total: int = 0
    profile: Profile | None = None
    overrides: Overrides = Overrides()  # the Override fields' (already applied to `profile`), as each run's request says
    engine: str = ""
    tags: tuple[str, ...] = ()
    params: dict[str, str] | None = None
    current: Target | None = None  # the volume whose run is starting or going
    results: list[RunResult] = field(default_factory=list)
    skipped: list[tuple[Target, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.total = self.total or len(self.waiting)

    def next_target(self) -> Target | None:
        """The next volume to run on (now the current one), or None when every one has had its turn."""
        self.current = self.waiting.pop(0) if self.waiting else None
        return self.current

    @property
    def number(self) -> int:
        """The current volume's place in the plan, from 1."""
        return self.total - len(self.waiting)

    def ran(self, result: RunResult | None) -> None:
        """The current volume's run ended: an aborted one (or one with nothing saved) stops the plan there."""
        if result is not None:
            self.results.append(result)
        if result is None or result.status == "aborted":
            # Cancelled: the volumes after this one are not run; what ran is still compared.
            self.skipped += [(t, "not run: the run before it was stopped") for t in self.waiting]
            self.waiting = []

    def could_not(self, reason: str) -> bool:
        """The current volume could not start (`reason`): noted; False if no volume was starting."""
        if self.current is None:
            return False
        self.skipped.append((self.current, reason))
        return True

    def completed(self) -> list[RunResult]:
        return [r for r in self.results if r.status == "completed"]


def late_cancel(result: RunResult, confirmed_at: float, ended_at: float | None) -> RunResult | None:
    """A cancel confirmed (`confirmed_at`, the key's monotonic time) before the run completed wins, even
    if the run completed before the screen could act on it: `result` as aborted. None where the run had
    completed first (`ended_at`), or its end is not known: it stays completed."""
    if ended_at is None or confirmed_at >= ended_at:
        return None
    return replace(result, status="aborted", error="cancelled by the user (confirmed as the run completed)")
