"""Where is my run? The few words every screen's top line says while a run is going.

The Run screen publishes a `RunIndicator` on the app once a second at most (and when a step
starts); the top line of whichever screen is on show draws it in place of the choice of profile
and target: the run's own profile and target then, whatever is chosen for the next run (the
Disks screen's marked volumes run elsewhere than the chosen target). A top line is redrawn only
when its words change, and only on the screen on show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labtui.machine.target_choice import Target
from labtui.units import human_duration

if TYPE_CHECKING:
    from labtui.run.live import LiveRun


@dataclass(frozen=True)
class RunIndicator:
    """The run that is going, as the top lines say it (whole seconds: it changes once a second at most)."""

    profile: str
    target: Target | None  # where this run writes (a volume of the marked ones, for a run on each)
    step: int | None = None  # 1-based; None before the first step (writing the test file)
    steps: int | None = None
    elapsed: int = 0  # seconds
    eta: int | None = None  # seconds left, where known
    key: str = "r"  # the key that shows the run
    waiting: bool = False  # it waits for another labtui run to end on its disk

    @classmethod
    def of(cls, live: LiveRun, chosen: str, target: Target | None) -> RunIndicator:
        """`live` as it is now; `chosen` names its profile until the run's first event does."""
        step, started, eta = live.current, live.started, live.eta_seconds()
        return cls(started.profile.name if started is not None else chosen, target,
                   step.started.index + 1 if step is not None else None,
                   step.started.total if step is not None else started.steps_total if started is not None else None,
                   int(live.elapsed()), int(eta) if eta is not None else None)

    def words(self, *, brief: bool = False, compact: bool = False) -> str:
        """'running quick-sanity · step 2/6 · 0:21, ETA 0:53 (r)'; `compact`, 'running quick-sanity 2/6 ·
        0:21, ETA 0:53 (r)'; `brief`, on the screen that shows the run itself, 'running quick-sanity'
        (its own lines say the step and the time)."""
        if self.waiting:
            return f"{self.profile} waits for the disk" + ("" if brief else f" ({self.key})")
        if brief:
            return f"running {self.profile}"
        parts = [f"running {self.profile}"]
        if self.step is not None and self.steps:
            if compact:
                parts[0] += f" {self.step}/{self.steps}"
            else:
                parts.append(f"step {self.step}/{self.steps}")
        eta = f", ETA {human_duration(self.eta)}" if self.eta is not None else ""
        parts.append(f"{human_duration(self.elapsed)}{eta} ({self.key})")
        return " · ".join(parts)
