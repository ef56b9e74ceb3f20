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
