"""The Workload screen (the profile editor) at 80x24 and 120x40, and refusing a bad field."""

from __future__ import annotations

import pytest

from tui_support import disks_ready, each_size, make_app, open_workload, set_text

pytestmark = pytest.mark.usefixtures("io_uring_pinned")


@each_size
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
