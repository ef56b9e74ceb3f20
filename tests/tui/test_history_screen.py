"""The History screen (screens/history.py) on saved fake results: listing, filtering, sorting, marking, its help."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from history_support import _step_rows, open_result
from labtui.results.store import Store
from labtui.screens.help import HelpScreen
from labtui.screens.history import HistoryScreen, ResultsTable
from tui_support import (
    disks_ready,
    make_app,
    move_to,
    open_history,
    palette_search,
    save_history,
    screen_text,
    set_text,
    shown_ids,
    wait_for,
    widget_text,
)


async def test_every_result_is_listed_newest_first_with_broken_files_and_their_reason(labtui_home):
    results = save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        ids = shown_ids(screen)
        assert ids[:5] == [r.id for r in reversed(results)]
        assert ids[5] == "broken:20240506-000000-ffff.toml"
        text = screen_text(app)
        for what in ("CT500MX500SSD1", "Samsung SSD 980 PRO 1TB", "aborted", "diskspd", "win-lab7", "broken", "First step",
                     "RND64K Q8T4 R  3,000  187.5", "RND64K Q8T4 R  2,400  150.0", "6 results"):
            assert what in text, what
        await move_to(pilot, screen, ids[5])
        flat = " ".join(screen_text(app).split())  # the file's path (a temporary one, of any length) wraps the line
        assert "Cannot be read: " in flat and "not valid TOML" in flat
        await move_to(pilot, screen, "20240505-120000-eeee")
        assert "imported from lab7-diskspd.xml" in screen_text(app)


@pytest.mark.parametrize("size", [(120, 35), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_verified_runs_answer_is_in_the_detail_and_marked_in_the_list_where_there_is_room(labtui_home, size):
    # The detail pane said a verified run's figures but not whether its data came back; opening it did.
    from dataclasses import replace

    from factories import make_result
    from labtui.model.verification import TORN, BlockMismatch, Verification

    gib = 1024**3
    whole = Verification("xxh3-64", blocks=16384, bytes=gib, covered_bytes=gib, file_bytes=gib)
    lost = replace(whole, mismatched=2, mismatches=(BlockMismatch(65536, TORN, "torn", "", ""),))
    # A verified read whose blocks no verified write of the run had written: nothing checked, not "part".
    unchecked = replace(whole, covered_bytes=0, unwritten=16384)
    store = Store(labtui_home)
    for rid, minutes, verify in (("20240501-103000-aaaa", 0, whole), ("20240501-113000-bbbb", 60, lost),
                                 ("20240501-123000-cccc", 120, None), ("20240501-133000-dddd", 180, unchecked)):
        result = make_result(rid, minutes=minutes)
        if verify is lost:  # failed, with its step's error, as the runner saves it
            result = replace(result, status="failed", error=lost.problem())
        store.save_result(replace(result, steps=tuple(replace(s, verify=verify) for s in result.steps)))
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(pilot)
        wide = size[0] >= 110
        texts = {}
        for rid in ("20240501-103000-aaaa", "20240501-113000-bbbb", "20240501-123000-cccc"):
            await move_to(pilot, screen, rid)
            texts[rid] = " ".join(widget_text(app, "#history-detail").split())
        # Said once: the step lines said it again under the result's own line.
        assert texts["20240501-103000-aaaa"].count("read back as written") == 1, texts["20240501-103000-aaaa"]
        assert texts["20240501-113000-bbbb"].count("did not read back") == 1, texts["20240501-113000-bbbb"]
        assert "All 1 GiB read back as written" in texts["20240501-103000-aaaa"]
        assert ("2 blocks did not read back as written (torn) in 'Read 64K random', 'Write 64K random': labtui show "
                "20240501-113000-bbbb lists them") in texts["20240501-113000-bbbb"]
        assert "read back" not in texts["20240501-123000-cccc"]  # it verified nothing
        # A word in a Data column of its own, at 120 columns as at 80: "completed · data unchecked" beside the
        # status widened it by 17 cells at 120 and pushed the figures; at 80 there was no mark at all.
        table = screen_text(app)
        lines = [line.split() for line in table.splitlines()]
        head = next(line for line in lines if "Data" in line)
        assert head[head.index("Data") - 1] == "Status", head
        status = "completed" if wide else "done"
        figures = ["RND64K", "Q8T4", "R", "3,000", "187.5"] if wide else ["RND64K", "R", "3.0k", "188"]
        shown = [line[line.index(word) + 1:] for line in lines for word in (status, "failed")
                 if word in line and line[-1] == figures[-1]]
        assert shown == [["unchecked", *figures], figures, ["BAD", *figures], ["ok", *figures]], shown
        assert "· data" not in table
        await pilot.press("question_mark")
        await pilot.pause()
        assert "Data says whether a verified run's data came back: ok, every block" in " ".join(screen_text(app).split())


async def test_a_cpu_bound_steps_figures_are_marked_in_the_list_and_the_detail_and_help_says_why(labtui_home):
    # The list showed "20k" IOPS for a step the run marked CPU-bound, and the detail pane its figures
    # with no mark: a figure that is the CPUs' limit, passed off as the disk's.
    from dataclasses import replace

    from factories import make_result

    reason = "a worker process was on a CPU or waiting for one 97 % of the time (60 % waiting: other work held it back)"
    store = Store(labtui_home)
    bound = make_result("20240501-103000-aaaa")
    store.save_result(replace(bound, steps=tuple(replace(s, engine_bound=reason) for s in bound.steps)))
    store.save_result(make_result("20240501-113000-bbbb", minutes=60))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240501-103000-aaaa")
        detail = widget_text(app, "#history-detail")
        assert "RND64K R  3.0k*   188*" in screen_text(app), screen_text(app)
        assert "Read 64K random (CPU-bound): 3,000 IOPS" in " ".join(detail.split()), detail
        await move_to(pilot, screen, "20240501-113000-bbbb")
        assert "CPU-bound" not in widget_text(app, "#history-detail")
        assert screen_text(app).count("*") == 2, screen_text(app)  # the marked run's IOPS and MiB/s, no other
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert "A figure marked * is of a CPU-bound step" in " ".join(widget_text(app, "#help-note").split())
        await pilot.press("escape")
        await open_result(pilot, screen, "20240501-103000-aaaa")
        rows = _step_rows(app)  # the Result screen's table marks them as `show`'s does
        assert rows[0].startswith("1  Read 64K random   3,000") and rows[1] == "(CPU-bound)", rows  # folded at 80
        assert " ".join(rows).count("(CPU-bound)") == 2, rows


async def test_filtering_as_you_type_and_sorting_by_any_column(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await pilot.press("slash")
        assert screen.query_one("#history-filter", Input).has_focus
        await pilot.press(*"hp-ad")
        await wait_for(pilot, lambda: shown_ids(screen) == ["20240502-091500-bbbb"], what="the filter")
        assert "1 of 6" in screen_text(app)
        await set_text(pilot, "#history-filter", "samsung completed")
        await wait_for(pilot, lambda: len(shown_ids(screen)) == 3, what="two words, both matched")
        await set_text(pilot, "#history-filter", "nothing-like-this")
        await wait_for(pilot, lambda: shown_ids(screen) == [])
        assert "No result matches the filter" in screen_text(app)
        await set_text(pilot, "#history-filter", "")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(shown_ids(screen)) == 6 and screen.query_one(ResultsTable).has_focus)
        await pilot.press("s")  # date -> host
        assert screen.sort_column == "host"
        hosts = [screen._by_id[k].host for k in shown_ids(screen)[:5]]
        assert hosts == sorted(hosts)
        screen.sort_by("iops", True)
        await pilot.pause()
        assert shown_ids(screen)[-2] == "20240502-091500-bbbb"  # the slowest, then the broken file
        await pilot.press("S")
        assert shown_ids(screen)[0] == "20240502-091500-bbbb"
        await palette_search(pilot, "sort by profile")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.sort_column == "profile", what="sorting from the palette")


async def test_space_marks_the_row_under_the_cursor(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await pilot.press("space", "down", "space")
        first, second = shown_ids(screen)[:2]
        assert screen.marked == {first, second}
        assert screen.current_key() == second  # where the person put it
        await pilot.press("space")
        assert screen.marked == {first}


async def test_the_palette_finds_history_by_its_name(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "history")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded)
        assert screen_text(app).count("quick-sanity") >= 5


async def test_help_lists_the_keys_of_history_and_of_run(labtui_home):
    from labtui.screens.help import HelpScreen

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_history(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        text = screen_text(app)
        for what in ("Mark", "Compare", "Run again", "Filter", "Sort", "Tag", "Baseline", "Export", "Delete"):
            assert what in text, what
        await pilot.press("escape")
        await pilot.press("r")
        await pilot.pause(0.3)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        assert "Start" in screen_text(app) and "Baseline" not in screen_text(app)


async def test_help_stays_in_the_footer_when_the_keys_do_not_fit(labtui_home):
    # History has more keys than 80 columns hold: "? Help" (which lists them all) comes first
    # then; where everything fits it keeps its place among the app's keys at the end.
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert footer.split()[:2] == ["?", "Help"], footer
        await pilot.resize_terminal(250, 30)
        await wait_for(pilot, lambda: screen_text(app).splitlines()[-1].split()[:2] == ["⏎", "Open"],
                       what="the footer in its own order")
        footer = screen_text(app).splitlines()[-1]
        assert "? Help  q Quit" in footer, footer


async def test_a_repeated_run_lists_each_step_once_as_its_profile_makes_the_figure(labtui_home):
    # cdm-style: three passes of each step after a preparing one, the best of them counted. History
    # showed every pass (6 figures for 2 steps, the preparing pass first, and sorted by it).
    from dataclasses import replace

    from synthetic import READ, WRITE, run_result, step_result

    result = run_result("20240601-090000-ffff", {READ: [10_000.0, 30_000.0, 20_000.0], WRITE: [4000.0, 6000.0, 5000.0]})
    prepare = (step_result(READ, 90_000.0, repetition=0), step_result(WRITE, 90_000.0, repetition=0))
    result = replace(result, profile=replace(result.profile, aggregate="best", discard_first=True),
                     steps=(*prepare, *result.steps))
    Store(labtui_home).save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_history(pilot)
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines()[1:] if "quick-sanity" in line)
        # The first step's figure, beside its label; the others under the table.
        assert "RND64K Q8T4 R  30,000" in row and "90,000" not in row and "10,000" not in row, row
        detail = widget_text(app, "#history-detail")
        assert "Read 64K random (best of 3): 30,000 IOPS" in detail, detail
        assert "Write 64K random (best of 3): 6,000 IOPS" in detail, detail
        assert "more steps" not in detail  # two steps, not eight passes


async def test_history_in_the_tui_counts_many_broken_files_and_lists_them_when_asked(labtui_home):
    """The TUI's History as `labtui history`: many broken files are counted beside the results, not 40 rows
    under them; the filter "broken" lists them (each row's reason and x to delete it are as before)."""
    from factories import results_and_broken

    results_and_broken(labtui_home, 2)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        assert shown_ids(screen) == ["20240501-103001-0001", "20240501-103000-0001"]
        assert widget_text(app, "#history-count") == "2 results · 40 files not whole (/ broken lists them)"
        await pilot.press("slash")
        await set_text(pilot, "#history-filter", "broken")
        await wait_for(pilot, lambda: len(shown_ids(screen)) == 40, what="the broken files listed")
        assert all(key.startswith("broken:") for key in shown_ids(screen))


DEEP = 100_000  # far past Python's recursion limit


async def test_the_tui_lists_history_over_a_deeply_nested_index(labtui_home):
    from labtui.screens.history import HistoryScreen
    from tui_support import disks_ready, wait_for

    save_history(labtui_home, broken=False)
    cache = Store(labtui_home).cache_dir / "summaries.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("{\"entries\": " + "[" * DEEP + "]" * DEEP + "}")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded)
        assert len(app.screen.query_one("#results").rows) == 5


async def test_a_repeated_steps_figure_in_history_and_its_result_is_the_one_history_prints(labtui_home):
    # The same --repeat 2 result as tests/unit/analysis/test_listed_steps.py reads through every command:
    # its passes' mean (44,000 of 56,000 and 32,000), said as such, on both screens.
    from synthetic import READ, run_result

    Store(labtui_home).save_result(run_result("20240601-090000-ffff", {READ: [56_000.0, 32_000.0]}))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines()[1:] if "quick-sanity" in line)
        assert "44,000" in row and "56,000" not in row and "32,000" not in row, row
        assert "Read 64K random (mean of 2): 44,000 IOPS" in widget_text(app, "#history-detail")
        await open_result(pilot, screen, "20240601-090000-ffff")
        await pilot.pause(0.2)
        rows = _step_rows(app)
        assert len(rows) == 1 and "44,000" in rows[0] and "2,750.0" in rows[0] and "mean of 2" in rows[0], rows


async def test_a_long_results_detail_grows_so_its_last_step_shows_at_60_columns(labtui_home):
    # The detail was at most 7 lines high: at 60 columns a four-step result (eleven lines) lost its last
    # steps. It grows up to half the screen now, and scrolls past that.
    from dataclasses import replace

    from factories import make_result

    result = make_result("20240501-103005-aaaa")
    Store(labtui_home).save_result(replace(result, steps=result.steps * 2))
    app = make_app(labtui_home)
    async with app.run_test(size=(60, 24)) as pilot:
        await open_history(pilot)
        await wait_for(pilot, lambda: "tags" in widget_text(app, "#history-detail"), what="the detail")
        await pilot.pause()
        shown = screen_text(app)
        assert shown.count("Write 64K random: 3,000 IOPS") == 2 and shown.count("(p99 2.50)") == 4, shown


async def test_words_typed_right_after_slash_go_into_the_filter(labtui_home):
    # / moved focus by a deferred focus(): the words typed after it met the table (s sorted, t tagged).
    from textual import events

    save_history(labtui_home, broken=False)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        for key, character in (("slash", "/"), ("s", "s"), ("a", "a"), ("t", "t"), ("a", "a")):
            app.post_message(events.Key(key, character))  # as the terminal's driver posts them, none waited for
        field = screen.query_one("#history-filter", Input)
        await wait_for(pilot, lambda: field.value == "sata", what="sata in the filter")
        await wait_for(pilot, lambda: shown_ids(screen) == ["20240503-140000-cccc"], what="the SATA result alone")
