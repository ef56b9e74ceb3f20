"""The top-level screens: each a mode of the app with its key, its palette title and what it is for.

A screen's module is imported only when the screen is first shown (labtui starts on the Disks
screen without loading the others).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.screen import Screen


def _disks_screen() -> Screen:
    from labtui.screens.disks import DisksScreen

    return DisksScreen()


def _workload_screen() -> Screen:
    from labtui.screens.workload import WorkloadScreen

    return WorkloadScreen()


def _run_screen() -> Screen:
    from labtui.screens.run import RunScreen

    return RunScreen()


def _history_screen() -> Screen:
    from labtui.screens.history import HistoryScreen

    return HistoryScreen()


def _fleet_screen() -> Screen:
    from labtui.screens.fleet import FleetScreen

    return FleetScreen()


@dataclass(frozen=True)
class TopScreen:
    """A top-level screen: a mode with its key, its palette title and what it is for."""

    key: str
    title: str
    purpose: str
    make: Callable[[], Screen]  # imports the screen's module only when it is first shown


# The top-level screens in footer order.
SCREENS = {
    "disks": TopScreen("d", "Disks", "Disks and volumes: choose where a run writes", _disks_screen),
    "workload": TopScreen("w", "Workload", "Profiles and their steps: choose and edit what a run does",
                          _workload_screen),
    "run": TopScreen("r", "Run", "Run the profile on the target and watch it live", _run_screen),
    "history": TopScreen("h", "History", "Every saved result: filter, open, tag, compare, export, delete",
                         _history_screen),
    # Also opened by `labtui --hosts FILE`. Its key gives way where a footer is too narrow for
    # every key (footer_secondary); the Run screen, where running here or on the hosts is the choice,
    # has room for it at 80 columns but while a run is going.
    "fleet": TopScreen("f", "Fleet", "Many hosts over ssh: run the chosen profile on every host of a hosts file, "
                       "one row per host", _fleet_screen),
}
