"""The Run screen's keys and which each moment of a run offers (labtui/screens/run_keys.py)."""

from __future__ import annotations

import pytest

from labtui.screens.run import RunScreen
from labtui.screens.run_keys import BINDINGS, offered
from labtui.tui.run_state import RunState

ACTIONS = ("start", "cancel_run", "stop_waiting", "cancel_start", "leave_field", "to_tags", "confirm_stop",
           "keep_running", "next_chart", "open_result", "compare_previous", "explain", "scroll")


def shown(state: RunState, *, asking=False, waiting=False, narrow=False, finished=False, compared=False,
          typing=False, starting=False) -> set[str]:
    asked = []
    keys = {a for a in ACTIONS if offered(a, state, asking=asking, waiting=waiting, narrow=narrow, finished=finished,
                                          compared=compared, typing=lambda: asked.append(1) or typing,
                                          starting=starting)}
    assert len(asked) <= 2, "the focus is looked at for Escape's way out of a field and r's way in only"
    return keys


def test_each_moment_of_a_run_offers_only_the_keys_that_do_something():
    assert shown(RunState.IDLE) == {"start", "to_tags", "scroll"}
    assert shown(RunState.IDLE, typing=True) == {"start", "leave_field", "scroll"}
    # A Start waiting for the engine check: Escape (and x, in the tags too) does not start it.
    assert shown(RunState.IDLE, typing=True, starting=True) == {"start", "cancel_start", "scroll"}
    # Checking before the run: nothing to start again; Escape stops a wait for another run's disk only.
    assert shown(RunState.STARTING, typing=True) == {"scroll"}
    assert shown(RunState.STARTING, waiting=True) == {"stop_waiting", "scroll"}
    assert shown(RunState.RUNNING) == {"cancel_run", "scroll"}
    assert shown(RunState.RUNNING, asking=True, narrow=True) == {"cancel_run", "confirm_stop", "keep_running",
                                                                 "next_chart", "scroll"}
    assert shown(RunState.STOPPING, asking=True) == {"scroll"}
    # After a run the result has the cursor: r puts it in the next run's tags.
    assert shown(RunState.DONE) == {"start", "to_tags", "scroll"}
    assert shown(RunState.DONE, finished=True, compared=True) == {"start", "to_tags", "open_result",
                                                                  "compare_previous", "explain", "scroll"}


@pytest.mark.parametrize("binding", BINDINGS, ids=lambda b: b.action)
def test_every_key_is_answered_by_the_run_screen(binding):
    name = binding.action.split("(")[0]
    assert callable(getattr(RunScreen, f"action_{name}", None)), f"{binding.key}: RunScreen has no action_{name}"
    assert RunScreen.BINDINGS is BINDINGS
