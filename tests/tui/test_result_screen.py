"""One result in full (screens/result.py): its context, every step's figures, charts, percentiles, command line."""

from __future__ import annotations

import pytest

from history_support import _step_rows, open_result
from labtui.results.store import Store
from labtui.screens.help import HelpScreen
from tui_support import (
    make_app,
    open_history,
    save_history,
    screen_text,
    wait_for,
    widget_text,
)


async def test_open_shows_charts_percentiles_context_and_the_command_line(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, "20240501-103005-aaaa")
        await pilot.pause(0.2)
        text = screen_text(app)
        for what in ("Step 1 of 2: Read 64K random", "p99.99", "11.0", "native: 4 threads x 8 outstanding, O_DIRECT",
                     "8.0 GT/s PCIe x4 (max 16.0 GT/s PCIe x4)", "S5GXNF0R123456", "IOPS · 3 intervals"):
            assert what in text, what
        await pilot.press("down")
        await wait_for(pilot, lambda: "Step 2 of 2: Write 64K random" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


async def test_help_on_a_result_names_the_result_screen_and_its_step_keys(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "Keys: Result" in text and "Keys: History" not in text
        assert "Previous step: Show the step above" in text and "Next step: Show the step below" in text


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_result_lists_each_step_once_as_history_does_and_enter_lists_its_passes(labtui_home, size):
    # The Result screen listed every pass (8 rows for 2 steps, the preparing pass first) while
    # History showed each step once; now both read labtui.analysis.listed_steps.
    from dataclasses import replace

    from synthetic import READ, WRITE, run_result, step_result

    result = run_result("20240601-090000-ffff", {READ: [10_000.0, 30_000.0, 20_000.0], WRITE: [4000.0, 6000.0, 5000.0]},
                        intervals={READ: [[9_000.0, 11_000.0], [29_000.0, 31_000.0], [19_000.0, 21_000.0]],
                                   WRITE: [[4000.0], [6000.0], [5000.0]]})
    prepare = (step_result(READ, 90_000.0, repetition=0), step_result(WRITE, 90_000.0, repetition=0))
    result = replace(result, profile=replace(result.profile, aggregate="best", discard_first=True),
                     steps=(*prepare, *result.steps))
    Store(labtui_home).save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, "20240601-090000-ffff")
        await pilot.pause(0.2)
        rows = _step_rows(app)
        assert len(rows) == 2, rows
        assert rows[0].split()[:4] == ["1", "Read", "64K", "random"] and "30,000" in rows[0], rows
        assert rows[1].split()[:4] == ["2", "Write", "64K", "random"] and "6,000" in rows[1], rows
        assert all("best of 3" in row for row in rows), rows
        assert "best of 3" in widget_text(app, "#step-title")
        # Enter lists the step's passes under it, the preparing one too; the cursor then picks one.
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(_step_rows(app)) == 6, what="the passes of the first step")
        rows = _step_rows(app)
        assert [row.split()[0] for row in rows[1:5]] == ["#0", "#1", "#2", "#3"], rows
        assert "90,000" in rows[1] and "10,000" in rows[2] and "30,000" in rows[3] and "20,000" in rows[4], rows
        await pilot.press("down", "down", "down")
        await wait_for(pilot, lambda: "pass 2 of 3" in widget_text(app, "#step-title"), what="the pass chosen")
        # Enter on a pass (or its step) folds the passes away again.
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(_step_rows(app)) == 2, what="the passes folded")
        assert "best of 3" in widget_text(app, "#step-title")


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_result_lists_long_step_names_whole(labtui_home, size):
    """Two names alike but for their middle, and a status of three words: folded at their words, never cut."""
    from dataclasses import replace

    from labtui.screens.result import StepList
    from synthetic import READ, WRITE, run_result

    first = replace(READ, name="RND4K Q32 70/30 steady state after the card swap")
    second = replace(WRITE, name="RND4K Q32 write steady state after the card swap")
    result = run_result("20240601-090000-eeee", {first: [20_000.0, 21_000.0], second: [5_000.0, 5_500.0]})
    aborted = replace(result.steps[-1], status="aborted")
    Store(labtui_home).save_result(replace(result, steps=(*result.steps[:-1], aborted)))
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, "20240601-090000-eeee")
        await pilot.pause(0.2)
        table = app.screen.query_one(StepList)
        keys = [column.key for column in table.columns]
        assert sum(c.width + c.gap for c in table.columns) <= size[0] - 2  # no sideways scrolling
        names = [dict(zip(keys, row.cells, strict=True))["name"] for row in table.rows]
        assert [" ".join(name.split("\n")) for name in names] == [first.name, second.name]
        statuses = [" ".join(dict(zip(keys, row.cells, strict=True))["status"].split("\n")) for row in table.rows]
        assert statuses == ["mean of 2", "1 pass; 1 aborted"]
        text = screen_text(app)
        assert "…" not in "\n".join(line for line in text.splitlines() if "RND4K" in line or "steady" in line)
        for line in (names[0] + "\n" + names[1]).split("\n"):
            assert line in text, line
        # The cursor row is drawn on every one of its lines; down goes to the next step, not its second line.
        await pilot.press("down")
        await wait_for(pilot, lambda: "Step 2 of 2: RND4K Q32 write" in widget_text(app, "#step-title"))


@pytest.mark.parametrize("seconds", [0.09, 95.0])
async def test_a_command_steps_wall_time_on_the_result_screen_is_the_one_show_prints(labtui_home, capsys, seconds):
    """The Result screen rounded a 0.09 s extraction to '0.1 s wall' where `labtui show` says 0.09 s."""
    from dataclasses import replace

    from labtui.cli import main
    from labtui.model.profile import Step
    from labtui.model.result import StepResult
    from labtui.render.result_tables import fmt_wall
    from synthetic import READ, run_result

    extract = Step(name="Extract archive", kind="command", command="zpaq x a.zpaq")
    base = run_result("20240601-090000-abcd", {READ: [1.0]})
    result = replace(base, profile=replace(base.profile, name="zpaq-extract", steps=(extract,)),
                     steps=(StepResult(step=extract, wall_seconds=seconds, exit_status=0),))
    Store(labtui_home).save_result(result)
    assert main(["show", result.id]) == 0
    assert f"{fmt_wall(seconds)} wall" in capsys.readouterr().out
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await open_result(pilot, screen, result.id)
        await pilot.pause(0.2)
        row = next(r for r in _step_rows(app) if "Extract archive" in r)
        assert f"{fmt_wall(seconds)} wall" in row, row
