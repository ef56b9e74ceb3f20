"""The Run screen's keys, and which of them each moment of a run offers (`offered`): a key that
would do nothing now is left out of the footer and the command palette.

The screen (run.py) binds these and answers them; what decides whether a key is offered is here, as
a function of the run's state (`RunState`) and a few facts the screen passes, so that it reads (and
is tested) in one place.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding, BindingType

from labtui.tui.run_state import RunState

# A finished run's comparison names c in its own text ("c shows it in full"): at 80 columns,
# with o and c both on, c is the key that gives way.
FOOTER_SECONDARY = ("run-compare", "run-explain")

BINDINGS: list[BindingType] = [
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
    # A Start pressed before the engine check answered waits for it (a second or so): the way not to start.
    # Taken first, as the cursor is in the tags then (x is typed there: a tag's letter).
    Binding("escape,x", "cancel_start", "Do not start", priority=True, id="run-cancel-start",
            tooltip="Do not start the run waiting for the engine check: nothing is started, nothing written"),
    # In the tags, letters are typed: the way out to the screen's keys, taken first (d typed after it is Disks).
    Binding("escape", "leave_field", "Leave field", priority=True, id="run-leave-field",
            tooltip="Out of the tags field (d, w, h and the other keys then work again)"),
    # After a run the result has the cursor (o, c and e are its keys); the tags were five Tabs away. r, the
    # key that brings a person to this screen, puts the cursor there from the screen itself too.
    # Not in the footer (full after a run even at 120 columns): ? lists it.
    Binding("r", "to_tags", "Tags", id="run-tags", show=False,
            tooltip="The cursor into the next run's tags (Escape leaves them: the screen's keys work again)"),
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


def offered(action: str, state: RunState, *, asking: bool, waiting: bool, narrow: bool, finished: bool,
            compared: bool, typing: Callable[[], bool], starting: bool = False) -> bool:
    """Whether the Run screen offers `action` now: `asking` "Stop the run?" is on screen, `waiting` for
    another run's disk, `narrow` one chart at a time, `finished` the run ended with a result, `compared`
    it has a previous run to compare with; `typing()` the cursor is in a field (asked only for Escape's
    way out, as it looks at the focus); `starting` a Start waits for the engine check."""
    running, done = state is RunState.RUNNING, state is RunState.DONE
    if action == "start":
        return not state.busy
    if action == "cancel_run":
        return running
    if action == "stop_waiting":
        return state is RunState.STARTING and waiting
    if action == "cancel_start":
        return starting and not state.busy
    if action == "leave_field":
        return not state.busy and not starting and typing()
    if action == "to_tags":
        return not state.busy and not typing()
    if action in ("confirm_stop", "keep_running"):
        return running and asking
    if action == "next_chart":
        return running and narrow
    if action == "open_result":
        return done and finished
    if action in ("compare_previous", "explain"):
        return done and compared
    return True
