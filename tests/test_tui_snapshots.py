"""SVG snapshots of each screen at 80x24 and 120x40: fake devices, fixed clock, no cursor blink.

Review a changed snapshot before accepting it (`pytest --snapshot-update`, then look at the SVG).
"""

from __future__ import annotations

import pytest

from tui_support import disks_ready, make_app, open_workload, set_text

SIZES = [(80, 24), (120, 40)]


@pytest.fixture(autouse=True)
def io_uring_works(monkeypatch):
    """The native command line names the I/O loop: pin it to io_uring, whatever this machine has."""
    from labtui.engine.native import uring

    monkeypatch.setattr(uring, "_probed", None)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_disks(snap_compare, labtui_home, size):
    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=disks_ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_workload(snap_compare, labtui_home, size, monkeypatch):
    # The native line says how many processes carry the step's 4 threads: one per CPU, on a machine of 2.
    from labtui.engine.native import plan

    monkeypatch.setattr(plan, "usable_cpus", lambda: 2)

    async def ready(pilot):
        await disks_ready(pilot)
        await open_workload(pilot)

    assert snap_compare(make_app(labtui_home), terminal_size=size, run_before=ready)


def test_workload_refusing_zero_threads(snap_compare, labtui_home):
    async def zero_threads(pilot):
        await disks_ready(pilot)
        await open_workload(pilot)
        await set_text(pilot, "#s-threads", "0")

    assert snap_compare(make_app(labtui_home), terminal_size=(120, 40), run_before=zero_threads)


def test_help_on_disks(snap_compare, labtui_home):
    async def help_open(pilot):
        await disks_ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.2)

    assert snap_compare(make_app(labtui_home), terminal_size=(80, 24), run_before=help_open)
