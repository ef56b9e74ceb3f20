"""The top-level screens (screens/top.py): one key each, a screen built on demand, its module loaded only then."""

from __future__ import annotations

import subprocess
import sys

from labtui.screens.disks import DisksScreen
from labtui.screens.fleet import FleetScreen
from labtui.screens.history import HistoryScreen
from labtui.screens.run import RunScreen
from labtui.screens.top import SCREENS
from labtui.screens.workload import WorkloadScreen


def test_each_top_screen_has_a_key_of_its_own_and_builds_its_screen():
    built = {mode: type(top.make()) for mode, top in SCREENS.items()}
    assert built == {"disks": DisksScreen, "workload": WorkloadScreen, "run": RunScreen,
                     "history": HistoryScreen, "fleet": FleetScreen}
    keys = [top.key for top in SCREENS.values()]
    assert keys == ["d", "w", "r", "h", "f"] and len(set(keys)) == len(keys)
    assert all(top.title and top.purpose and top.purpose[0].isupper() for top in SCREENS.values())
    assert [top.title for top in SCREENS.values()] == ["Disks", "Workload", "Run", "History", "Fleet"]
    assert SCREENS["disks"].make() is not SCREENS["disks"].make()  # a new screen each time it is asked for


def test_the_screens_modules_are_loaded_only_when_a_screen_is_made():
    code = ("import sys\n"
            "from labtui.screens.top import SCREENS\n"
            "names = ['disks', 'workload', 'run', 'history', 'fleet']\n"
            "print(sorted(n for n in names if f'labtui.screens.{n}' in sys.modules))\n"
            "SCREENS['history'].make()\n"
            "print(sorted(n for n in names if f'labtui.screens.{n}' in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.splitlines() == ["[]", "['history']"], out
