"""The run-parameters dialog (screens/params.py): a profile with parameters asks for their values first."""

from __future__ import annotations

import os

from labtui.results.store import Store
from labtui.screens.params import ParamsModal
from run_support import prepare
from tui_support import (
    make_app,
    open_run,
    screen_text,
    set_text,
    wait_for,
)

PARAM_PROFILE = """schema = 1
name = "reader"
title = "Read a file with a command"
free_space_margin = "0B"

[params.source]
description = "a file to read"
type = "file"

[[steps]]
name = "cat"
kind = "command"
command = "cat {source} > /dev/null"
"""


async def test_a_profile_with_parameters_asks_for_them(labtui_home, target, tmp_path):
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(4096))
    prepare(labtui_home, target, "reader", PARAM_PROFILE)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ParamsModal))
        assert "source (a file): a file to read" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "needs source=PATH" in screen_text(app), what="the missing value")
        await set_text(pilot, "#param-source", str(tmp_path / "nope"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "no such file" in screen_text(app))
        await set_text(pilot, "#param-source", str(source))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.state == "done", timeout=30, what="the command step")
        assert "Completed: reader" in screen_text(app)
    results, _ = Store(labtui_home).load_results()
    assert results[0].params == {"source": str(source)}
