"""The box under History's list (widgets/detail_box.py): the detail scrolls by keys where it is longer than
its box, and notifications sit above it."""

from __future__ import annotations

import pytest

from labtui.results.store import Store
from labtui.widgets.detail_box import DetailBox
from tui_support import make_app, open_history, screen_text, wait_for, widget_text


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_detail_longer_than_its_box_scrolls_by_keys_and_a_toast_leaves_it_readable(labtui_home, size):
    # The detail under the list scrolled only by the mouse wheel where it was longer than its box; and
    # the notifications' margin assumed a detail of 7 lines, where it is now up to half the screen.
    from dataclasses import replace

    from textual.widgets._toast import Toast

    from factories import make_result

    result = make_result("20240501-103005-aaaa")
    # Four steps and tags that take lines of their own: longer than half the screen at 80x24 and 120x35.
    tags = tuple(f"slot-{n}-riser-{'x' * 20}-{n}" for n in range(40 if size[0] > 80 else 12))
    Store(labtui_home).save_result(replace(result, steps=result.steps * 2, tags=tags))
    Store(labtui_home).save_result(make_result("20240502-103005-bbbb"))
    app = make_app(labtui_home)
    async with app.run_test(size=size, notifications=True) as pilot:
        screen = await open_history(pilot)
        box = screen.query_one(DetailBox)
        # The short result first (newest): its detail fits, nothing to scroll, no key offered.
        await wait_for(pilot, lambda: "tags" in widget_text(app, "#history-detail"), what="the detail")
        await pilot.pause()
        assert box.max_scroll_y == 0 and "Detail" not in screen_text(app).splitlines()[-1]
        await pilot.press("down")
        await wait_for(pilot, lambda: box.max_scroll_y > 0, what="the long detail laid out")
        await pilot.pause()
        # ? lists the keys (the footer too, where there is room: it gives way before Run again and Filter).
        assert {("shift+↓", "Detail"), ("shift+↑", "Detail up")} <= {(k.keys, k.description)
                                                                     for k in app.key_help(screen)}
        await pilot.press("shift+down")
        await wait_for(pilot, lambda: box.scroll_y > 0, what="the detail scrolled down")
        assert screen.current_key() == "20240501-103005-aaaa"  # the list's cursor stayed
        await pilot.press("shift+up")
        await wait_for(pilot, lambda: box.scroll_y == 0, what="the detail back at its top")
        # A notification sits above the detail, not over it.
        screen.notify("Tags set", title="20240501-103005-aaaa")
        toast = await wait_for(pilot, lambda: next((t for t in app.screen.query(Toast) if t.region.height), None),
                               what="a toast on screen")
        assert toast.region.bottom <= box.region.y, (toast.region, box.region)
