"""The line under History's table (widgets/result_detail.py): the chosen result, or why there is no row."""

from __future__ import annotations

import pytest

from tui_support import (
    make_app,
    open_history,
    save_history,
    screen_text,
    wait_for,
)


async def test_a_fresh_history_says_how_to_make_a_result(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        assert "No results yet" in screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_toast_leaves_the_detail_of_the_chosen_result_readable(labtui_home, size):
    """A toast (a baseline set, an export written) sat on the detail lines it was about."""
    from textual.widgets._toast import Toast

    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await open_history(pilot)
        for _ in range(3):  # as many as a few quick keys raise, stacked
            app.notify("20240502-091500-bbbb is the baseline of quick-sanity on Samsung SSD 980 PRO 1TB. "
                       "`labtui check` compares re-runs with it.", title="Baseline set", timeout=30)
        await wait_for(pilot, lambda: len(app.screen.query(Toast)) == 3, what="the toasts")
        await pilot.pause()
        detail = screen.query_one("#history-detail").region
        assert detail.height > 0
        for toast in app.screen.query(Toast):
            assert not toast.region.overlaps(detail), (toast.region, detail)


async def test_a_wrapped_step_line_keeps_under_its_own_step_at_every_width(labtui_home):
    """At 80 columns a step's line wrapped to the left edge: "(p99 7.11)" at column 1, read as a line of its own."""
    from dataclasses import replace

    from factories import make_result
    from labtui.results.store import Store

    result = make_result("20240501-103000-aaaa")
    steps = tuple(replace(s, step=replace(s.step, name=f"{s.step.name} at queue depth 8, four threads, direct"))
                  for s in result.steps)
    Store(labtui_home).save_result(replace(result, steps=steps))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)

        def step_rows() -> list[str]:
            region = screen.query_one("#history-detail").content_region
            rows = screen_text(app).splitlines()[region.y:region.bottom]
            first = next(i for i, row in enumerate(rows) if "Read 64K random" in row)
            return [row[region.x:region.right].rstrip() for row in rows[first:]]

        for width in (80, 64, 120):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            rows = step_rows()
            starts = [i for i, row in enumerate(rows) if row.startswith(("  Read", "  Write"))]
            assert starts == ([0, 1] if width == 120 else [0, 2]), rows  # wrapped below 120, each step its line there
            for row in rows:
                assert row.startswith("  ") and (row.startswith("    ") or row[2:].startswith(("Read", "Write"))), rows
            assert "(p99 2.50)" in " ".join(" ".join(rows).split()), rows
