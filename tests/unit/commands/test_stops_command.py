"""The stop signals over a headless command (labtui/commands/stops.py): during a run each goes to the run's loop;
between runs the first is noted and the next would end labtui; leaving the block gives the signals back."""

from __future__ import annotations

import asyncio
import os
import signal

from labtui.commands.stops import Stops


def test_a_first_signal_between_runs_is_noted_and_the_next_would_end_labtui():
    before = signal.getsignal(signal.SIGTERM)
    with Stops() as stops:
        assert signal.getsignal(signal.SIGTERM) is before, "nothing is held before the first run"
        stops.hold()
        os.kill(os.getpid(), signal.SIGTERM)
        assert stops.received == ["SIGTERM"] and stops.stopped_by == "SIGTERM"
        # The command finishes what it was doing; a second signal meets the default and ends it at once.
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and signal.getsignal(signal.SIGINT) is signal.SIG_DFL
        stops.note("stopped by the local labtui")  # a fleet agent's link said stop
        assert stops.since(1) == "stopped by the local labtui" and stops.since(2) is None
    assert signal.getsignal(signal.SIGTERM) is before, "given back to whatever had it"


async def test_during_a_run_each_signal_goes_to_the_runs_loop_and_the_handler_stays():
    got: list[str] = []
    before = signal.getsignal(signal.SIGINT)
    with Stops() as stops:
        stops.hold()
        with stops.during(got.append):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100):
                if got:
                    break
                await asyncio.sleep(0.01)
            assert got == ["SIGINT"] and stops.received == ["SIGINT"]
            assert signal.getsignal(signal.SIGINT) == stops._handle  # the run's front end decides, not the default
        assert stops.stopped_by == "SIGINT" and stops.since(0) == "SIGINT" and stops.since(1) is None
    assert signal.getsignal(signal.SIGINT) is before
