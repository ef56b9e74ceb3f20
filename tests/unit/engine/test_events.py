"""The typed event stream of a run (labtui.engine.events): what the fronts read off its progress events, and that
the stream's union names every event a front must handle."""

from __future__ import annotations

import dataclasses
import typing

from labtui.engine import events
from labtui.engine.events import PreconditionProgress, PrepareProgress


def test_progress_is_the_share_written_and_the_time_left_at_the_rate_so_far():
    assert PrepareProgress(bytes_done=256, bytes_total=1024, seconds=2.0).fraction == 0.25
    assert PrepareProgress(bytes_done=0, bytes_total=0, seconds=0.0).fraction == 1.0  # nothing to write: done
    passes = PreconditionProgress(bytes_done=3 << 30, bytes_total=8 << 30, seconds=30.0, passes=2, passes_done=1)
    assert passes.fraction == 3 / 8 and passes.eta_seconds == 50.0
    assert PreconditionProgress(bytes_done=0, bytes_total=8 << 30, seconds=5.0, passes=2).eta_seconds is None


def test_the_union_is_every_event_of_the_module_and_each_is_frozen():
    declared = {cls for cls in vars(events).values()
                if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == events.__name__}
    assert set(typing.get_args(events.Event)) == declared and len(declared) == 11
    assert all(cls.__dataclass_params__.frozen for cls in declared)  # a front cannot change what another reads
