"""One step's charts over time (widgets/step_charts.py): what each chart is called and draws."""

from __future__ import annotations

from history_support import open_result
from labtui.results.store import Store
from tui_support import (
    make_app,
    open_history,
    widget_text,
)


async def test_a_command_steps_disk_counts_are_charted_as_requests_not_iops(labtui_home):
    """`show` leaves a command step's IOPS blank: its chart of the disk's merged requests is not called IOPS."""
    from dataclasses import replace

    from labtui.model.profile import Step
    from labtui.model.result import Sample, StepResult
    from labtui.widgets.live_chart import LiveChart
    from synthetic import READ, run_result

    extract = Step(name="Extract archive", kind="command", command="zpaq x a.zpaq")
    base = run_result("20240601-090000-abce", {READ: [1.0]})
    samples = tuple(Sample(t=float(t), seconds=1.0, read_ios=100, read_bytes=100 * 65536) for t in range(1, 4))
    result = replace(base, profile=replace(base.profile, name="zpaq-extract", steps=(extract,)),
                     steps=(StepResult(step=extract, wall_seconds=3.0, exit_status=0, samples=samples),))
    Store(labtui_home).save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, result.id)
        await pilot.pause(0.2)
        titles = [c.chart_title for c in app.screen.query(LiveChart)]
        assert titles[0] == "Disk requests/s" and "IOPS" not in titles, titles
        latency = " ".join(widget_text(app, "#step-latency").split())
        assert "No per-I/O latency for a command step: its latency chart is the disk's mean time per request" in latency
