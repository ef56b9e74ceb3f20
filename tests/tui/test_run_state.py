"""The Run screen's typed state, alone: where a run is (RunState), a run on several volumes in turn
(SweepPlan), and a cancel confirmed as the run completed (late_cancel)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from factories import make_result
from labtui.machine.target_choice import Target
from labtui.tui.run_state import RunState, SweepPlan, late_cancel


def test_a_state_says_whether_a_run_is_on_its_way_and_whether_its_events_arrive():
    assert [s for s in RunState if s.busy] == [RunState.STARTING, RunState.RUNNING, RunState.STOPPING]
    assert [s for s in RunState if s.live] == [RunState.RUNNING, RunState.STOPPING]
    assert RunState.DONE == "done"  # its value is the screen's CSS class (-done)


def test_a_sweep_runs_each_volume_in_turn_and_stops_where_a_run_is_cancelled():
    a, b, c = (Target(Path(f"/mnt/{n}")) for n in "abc")
    plan = SweepPlan([a, b, c])
    assert plan.total == 3 and plan.params is None  # asked once, as it starts
    assert plan.next_target() is a and plan.number == 1
    plan.ran(make_result("20240501-103005-aaaa"))
    assert plan.next_target() is b and plan.number == 2
    assert plan.could_not("the disk is busy") and plan.skipped == [(b, "the disk is busy")]
    assert plan.next_target() is c
    plan.ran(replace(make_result("20240501-104005-cccc"), status="aborted"))
    assert plan.next_target() is None and [r.id for r in plan.completed()] == ["20240501-103005-aaaa"]
    # Cancelled on the last volume: nothing was left to skip; cancelled earlier, the rest are named.
    early = SweepPlan([a, b, c])
    early.next_target()
    early.ran(None)
    assert [t for t, _why in early.skipped] == [b, c] and early.next_target() is None
    assert not SweepPlan([a]).could_not("nothing was starting")


def test_a_cancel_confirmed_before_the_run_completed_keeps_it_as_aborted():
    result = make_result()
    kept = late_cancel(result, confirmed_at=10.0, ended_at=10.5)
    assert kept is not None and kept.status == "aborted" and "confirmed as the run completed" in (kept.error or "")
    assert late_cancel(result, confirmed_at=10.5, ended_at=10.5) is None  # after (or as) it completed: completed
    assert late_cancel(result, confirmed_at=10.0, ended_at=None) is None
