"""The Fleet host screen: one host's run, live, mid-step (its events as they came over the wire, a fixed clock)."""

from __future__ import annotations

from labtui.engine.events import RunStarted, SampleTaken, StepFinished, StepStarted
from labtui.fleet import wire
from labtui.fleet.hosts import Host
from labtui.fleet.session import Fleet
from labtui.results.store import Store
from labtui.screens.fleet_host import FleetHostScreen
from tui_support import each_size, make_app, wait_for, wavy_result


def host_mid_run(store_dir):
    """lab-02, its first step done and 30 of the second step's 40 measured seconds arrived."""
    result = wavy_result()
    moment = [1_714_557_600.0]  # the clock a host's live run is timed by (the app's, in the TUI)
    fleet = Fleet([Host("lab-02", "lab@192.0.2.2", target="/srv/bench")], lambda _host: {}, Store(store_dir),
                  clock=lambda: moment[0])
    run = fleet.runs[0]
    first, second = result.steps
    events = [RunStarted(result.id, result.profile, result.target, result.engine, 2, 84.0),
              StepStarted(0, 2, first.step, 1, first.command_line),
              *(SampleTaken(0, "measure", s) for s in first.samples),
              StepFinished(0, first),
              StepStarted(1, 2, second.step, 1, second.command_line),
              *(SampleTaken(1, "measure", s) for s in second.samples[:30])]
    for event in events:
        fleet._handle(run, wire.loads(wire.dumps(wire.event_to_wire(event))))
    moment[0] += 73.0  # the run's time on screen: the same on any machine
    return run


@each_size
def test_fleet_host_live(snap_compare, labtui_home, tmp_path, size):
    run = host_mid_run(tmp_path / "store")

    async def ready(pilot):
        screen = FleetHostScreen(run)
        await pilot.app.push_screen(screen)
        await wait_for(pilot, lambda: screen._drawn == run.live.version, what="the host's run drawn")
        await pilot.pause(0.3)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)
