"""The live block of `labtui run` and of `labtui run --hosts` is one display (commands/live_display.py):
drawn in place on a terminal, said as lines into a pipe, let go of when the terminal hangs up."""

import io

import pytest
from rich.console import Console

from labtui.commands.fleet import _Display as FleetDisplay
from labtui.commands.live_display import LiveDisplay
from labtui.commands.progress import _Display as RunDisplay
from labtui.fleet.host_run import HostRun
from labtui.fleet.hosts import Host


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=100, color_system=None), out


class _Fleet:
    """The one thing the fleet display reads of a fleet: its hosts' runs."""

    def __init__(self, *names: str) -> None:
        self.runs = [HostRun(Host(name=n, ssh=f"lab@{n}")) for n in names]


def displays(console: Console) -> list[LiveDisplay]:
    fleet = FleetDisplay(console, check=False)
    fleet.fleet = _Fleet("lab-01", "lab-02")  # type: ignore[assignment]  # a stand-in with the runs only
    return [RunDisplay(console), fleet]


@pytest.mark.parametrize("which", [0, 1], ids=["run", "fleet"])
def test_on_a_terminal_both_keep_one_block_and_say_lines_above_it(which):
    console, out = terminal()
    display = displays(console)[which]
    assert display.live_mode
    display.start()
    assert display.live is not None and display.live.is_started
    display.say("warning: [not markup]", "yellow")
    display.update()
    display.stop()
    assert display.live is None
    assert "warning: [not markup]" in out.getvalue()
    display.stop()  # twice is harmless: the end of a run stops it whatever happened before


@pytest.mark.parametrize("which", [0, 1], ids=["run", "fleet"])
def test_into_a_pipe_there_is_no_block_only_lines(which):
    out = io.StringIO()
    display = displays(Console(file=out, width=100))[which]
    assert not display.live_mode
    display.start()
    assert display.live is None
    display.say("step 1/1: read")
    display.update()
    display.stop()
    assert "step 1/1: read" in out.getvalue()
    assert "\x1b[" not in out.getvalue()  # no cursor movement, nothing redrawn


def test_after_a_hang_up_nothing_is_redrawn_and_lines_still_go_out():
    console, out = terminal()
    display = RunDisplay(console)
    display.start()
    display.detach()
    assert display.live is None and not display.live_mode
    display.update()  # no Live to redraw: nothing happens
    display.say("labtui: stopped by SIGHUP")
    assert out.getvalue().endswith("labtui: stopped by SIGHUP\n")


def test_the_fleet_block_is_its_hosts_table():
    console, _out = terminal()
    display = displays(console)[1]
    screen = Console(file=io.StringIO(), width=100, record=True)
    screen.print(display.render())
    text = screen.export_text()
    assert "lab-01" in text and "lab-02" in text and "recent MiB/s" in text
