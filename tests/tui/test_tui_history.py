"""History, the result view and Compare, on saved fake results: what a person sees and what each key does."""

from __future__ import annotations

import csv
import json
import os

import pytest
from textual.widgets import Input

from labtui.results import baselines
from labtui.results.store import Store
from labtui.screens.compare import CompareScreen
from labtui.screens.confirm import ConfirmModal
from labtui.screens.export import ExportModal, check_path
from labtui.screens.help import HelpScreen
from labtui.screens.history import HistoryScreen, ResultsTable
from labtui.screens.prompt import TextPrompt
from labtui.screens.result import ResultScreen
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
        store.save_result(replace(result, steps=tuple(replace(s, verify=verify) for s in result.steps)))
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_history(pilot)
        wide = size[0] >= 110
        texts = {}
        for rid in ("20240501-103000-aaaa", "20240501-113000-bbbb", "20240501-123000-cccc"):
            await move_to(pilot, screen, rid)
            texts[rid] = " ".join(widget_text(app, "#history-detail").split())
        assert "All 1 GiB read back as written" in texts["20240501-103000-aaaa"]
        assert ("2 blocks did not read back as written (torn) in 'Read 64K random', 'Write 64K random': labtui show "
                "20240501-113000-bbbb lists them") in texts["20240501-113000-bbbb"]
        assert "read back" not in texts["20240501-123000-cccc"]  # it verified nothing
        table = screen_text(app)
        assert ("completed · data ok" in table and "completed · data BAD" in table) == wide, table
        assert ("completed · data unchecked" in table) == wide, table
        assert table.count("· data") == (3 if wide else 0), table  # at 80 columns the detail line alone says it


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


async def test_at_80_columns_many_imports_with_long_names_fit_without_scrolling_sideways(labtui_home):
    # Imported results are named after their files; with a screenful of them the vertical
    # scrollbar appears too, and still no row may need scrolling sideways.
    from dataclasses import replace
    from datetime import datetime

    from factories import make_result

    store = Store(labtui_home)
    for n in range(30):
        result = make_result(f"2024{n % 12 + 1:02d}01-103005-{n:04x}")
        store.save_result(replace(result, source="import", started=datetime(2024, n % 12 + 1, 1, 10, 30).astimezone(),
                                  profile=replace(result.profile, name=f"fio-3.43-clientserver-psync-{n}")))
    this_year = make_result("20250314-080000-abcd")
    store.save_result(replace(this_year, started=datetime(2025, 3, 14, 8, 0).astimezone()))
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one(ResultsTable)
        assert table.max_scroll_y > 0
        assert table.virtual_size.width <= table.scrollable_content_region.width
        text = screen_text(app)
        # The clock says March 2025: this year's result by day and time, older ones with their year.
        assert "03-14 08:00" in text and "2024-12-01" in text and "fio-3.4" in text


async def test_at_80_columns_each_row_says_its_engine_and_tags(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        table = screen.query_one(ResultsTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        lines = screen_text(app).splitlines()

        def row(date: str) -> str:
            return next(line for line in lines if line.strip().startswith(date))

        # The DiskSpd import and the native runs look different, and so do the tagged ones.
        assert "diskspd" in row("2024-05-05") and "native" in row("2024-05-03")
        assert "hp-a" in row("2024-05-02") and "star" in row("2024-05-01") and "star" not in row("2024-05-03")
        # The figures are the first step's, said beside its label (issue 39, item 15: "3.0k/2.4k" said not whose).
        assert "Step" in next(line for line in lines if "Date" in line)
        assert all(" RND64K R  " in row(date) for date in ("2024-05-01", "2024-05-03", "2024-05-05"))
        assert "aborted" in row("2024-05-04") and "done" in row("2024-05-03")


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


async def test_mark_two_and_compare_reads_the_deltas(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)  # nothing marked: told what to do instead
        await move_to(pilot, screen, "20240502-091500-bbbb")
        await pilot.press("space")
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("space")
        assert screen.marked == {"20240501-103005-aaaa", "20240502-091500-bbbb"}
        assert "2 marked" in screen_text(app)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        text = screen_text(app)
        assert "A  20240501-103005-aaaa" in text and "B  20240502-091500-bbbb" in text  # oldest first
        assert "-20.0 %" in text and "noise unknown" in text  # single runs: never called worse
        assert "tags" in text  # what differs: the tags are part of the legend
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.marked  # marks survive a look at the comparison


async def test_compare_from_the_palette_on_another_screen(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        screen.marked = {"20240501-103005-aaaa", "20240505-120000-eeee"}
        await pilot.press("d")
        await disks_ready(pilot)
        await palette_search(pilot, "compare marked")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare from the palette")
        assert "engines differ" in screen_text(app)  # the import ran on DiskSpd: a cross-engine warning


async def open_result(pilot, screen: HistoryScreen, key: str) -> None:
    await move_to(pilot, screen, key)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ResultScreen))


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


async def test_tag_baseline_and_delete_change_the_files(labtui_home):
    save_history(labtui_home)
    store = Store(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
        await set_text(pilot, "#prompt-input", "startech-adapter, after-swap")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert store.find_result("20240501-103005-aaaa").tags == ("startech-adapter", "after-swap")
        await pilot.press("b")
        await wait_for(pilot, lambda: "20240501-103005-aaaa" in screen.baseline_ids)
        assert baselines.ids(store) == {"20240501-103005-aaaa"}
        assert "B" in screen.query_one(ResultsTable).rows[screen.query_one(ResultsTable).cursor].cells[0]
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "A baseline among them stops being one" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert store.result_path("20240501-103005-aaaa").exists()
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: "20240501-103005-aaaa" not in shown_ids(screen))
        assert not store.result_path("20240501-103005-aaaa").exists()
        assert baselines.ids(store) == set()


async def test_a_broken_row_says_what_each_key_cannot_do_and_x_deletes_only_it_after_asking(labtui_home):
    save_history(labtui_home)
    store = Store(labtui_home)
    bad = store.results_dir / "20240506-000000-ffff.toml"
    dangling = store.results_dir / "moved-away.toml"
    dangling.symlink_to(labtui_home / "elsewhere" / "gone.toml")
    before = sorted(p.name for p in store.results_dir.iterdir())
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "broken:" + bad.name)
        assert "x deletes it (asks first)" in " ".join(screen_text(app).split())
        # Each key that acts on a result says, on a broken row, what it cannot do (it did nothing and said nothing).
        for key, what in (("enter", "opened"), ("space", "marked"), ("a", "run again"), ("t", "tagged"),
                          ("b", "a baseline"), ("e", "exported")):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
            messages = [str(n.message) for n in app._notifications]
            assert any(f"{bad.name} cannot be read, so it cannot be {what}" in m for m in messages), (key, messages)
        assert screen.marked == set() and sorted(p.name for p in store.results_dir.iterdir()) == before
        # x asks, naming the file and its reason; n keeps it.
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        text = " ".join(screen_text(app).split())
        assert "Delete the broken file?" in text and "not valid TOML" in text and "removed for good" in text
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert bad.exists()
        # Fixed meanwhile (now a result): kept, and said.
        original = bad.read_text()
        fixed = store.result_path("20240501-103005-aaaa").read_text()
        bad.write_text(fixed)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: said(app, f"{bad} now reads as the result 20240501-103005-aaaa: kept "
                                                   "(F5 lists it again)"), what="the refusal")
        assert bad.read_text() == fixed
        bad.write_text(original)
        await pilot.press("f5")
        await wait_for(pilot, lambda: "broken:" + bad.name in shown_ids(screen), what="the broken file again")
        await move_to(pilot, screen, "broken:" + bad.name)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: "broken:" + bad.name not in shown_ids(screen), what="the row gone")
        assert not bad.exists()
        # A link to nowhere: the link goes, nothing it names is touched (or made).
        await move_to(pilot, screen, "broken:" + dangling.name)
        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "Delete the broken link?" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: "broken:" + dangling.name not in shown_ids(screen))
        assert not os.path.lexists(dangling) and not (labtui_home / "elsewhere").exists()
        assert sorted(p.name for p in store.results_dir.iterdir()) == sorted(
            set(before) - {bad.name, dangling.name})


async def test_an_aborted_result_cannot_be_a_baseline_and_says_why(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240504-080000-dddd")
        await pilot.press("b")
        await pilot.pause(0.2)
        assert screen.baseline_ids == set()
        assert any("only a completed result" in n.message for n in app._notifications)


@pytest.mark.parametrize("fmt", ["csv", "json", "configmgr-csv"])
async def test_export_the_marked_results(labtui_home, tmp_path, fmt):
    save_history(labtui_home)
    out = tmp_path / f"out.{fmt}"
    app = make_app(labtui_home, cwd=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        # The ConfigMgr CSV's rows are completed I/O steps: an aborted result marked too is said.
        marked = ("20240501-103005-aaaa", "20240503-140000-cccc") + (("20240504-080000-dddd",)
                                                                     if fmt == "configmgr-csv" else ())
        for key in marked:
            await move_to(pilot, screen, key)
            await pilot.press("space")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal))
        if fmt == "json":
            await pilot.press("space", "space")  # CSV -> Markdown -> JSON
        elif fmt == "configmgr-csv":
            await pilot.press("space", "space", "space")  # ... -> the post's script's CSV
            # aaaa and dddd ran on one disk: the script's columns cannot tell their rows apart (issue 39, item 20).
            note = await wait_for(pilot, lambda: widget_text(app, "#export-mixed"), what="the rows' note")
            assert note.startswith("The rows of 2 results of labbox's /mnt/nvme would mix")
            assert app.screen.query_one("#export-rows").value == "files"
            assert widget_text(app, "#export-error") == ""  # a directory, there: one file per result
            await pilot.press("tab", "space")  # Rows: the result id and date in two more columns
        await set_text(pilot, "#export-path", str(tmp_path / "missing-dir" / "x.csv"))
        assert widget_text(app, "#export-error") == (f"{tmp_path / 'missing-dir'} does not exist: create it first, "
                                                     "or choose a directory that exists")
        await set_text(pilot, "#export-path", str(out))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        written = f"3 results written to {out}" if fmt == "configmgr-csv" else f"2 results written to {out}"
        assert said(app, written if fmt != "configmgr-csv" else
                    f"{written}. 1 failed or aborted result has only its completed I/O steps in the ConfigMgr "
                    "CSV.")
    if fmt == "configmgr-csv":
        rows = list(csv.DictReader(out.read_text().splitlines()))
        assert list(rows[0]) == ["ComputerName", "Test", "Disk", "IOPS", "Mbps", "Latency", "CPU", "ResultId", "Date"]
        assert len(rows) == 5 and [r["Test"] for r in rows[:4]] == ["Read Test 01", "Write Test 01"] * 2
        assert [r["ResultId"] for r in rows] == ["20240501-103005-aaaa"] * 2 + ["20240503-140000-cccc"] * 2 + [
            "20240504-080000-dddd"]
        return
    if fmt == "csv":
        rows = list(csv.DictReader(out.read_text().splitlines()))
    else:
        rows = json.loads(out.read_text())["rows"]
    assert sorted({r["result_id"] for r in rows}) == ["20240501-103005-aaaa", "20240503-140000-cccc"]
    assert len(rows) == 4


async def test_export_goes_to_the_current_directory_and_says_where(labtui_home, tmp_path):
    save_history(labtui_home)
    app = make_app(labtui_home, cwd=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal))
        offered = tmp_path / "labtui-export-20250314-092653.csv"  # the app's clock, to the second
        assert app.screen.query_one("#export-path", Input).value == str(offered)
        # The script's CSV is offered a name of its own: a CSV and it, written in one minute, no longer collide.
        await pilot.press("space", "space", "space")
        await wait_for(pilot, lambda: app.screen.query_one("#export-path", Input).value
                       == str(tmp_path / "labtui-configmgr-20250314-092653.csv"), what="the ConfigMgr CSV's name")
        await pilot.press("space")
        await wait_for(pilot, lambda: app.screen.query_one("#export-path", Input).value == str(offered),
                       what="back to the CSV's name")
        await pilot.press("enter", "enter")  # format -> file name -> written
        await wait_for(pilot, lambda: app.screen is screen, what="the export")
        assert offered.is_file() and said(app, f"1 result written to {offered}")
        # A name alone is a file in the current directory too.
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal))
        await set_text(pilot, "#export-path", "lab7.csv")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="the second export")
        assert (tmp_path / "lab7.csv").is_file() and said(app, f"1 result written to {tmp_path / 'lab7.csv'}")


def test_export_says_a_directory_that_is_missing_does_not_exist_and_a_file_is_not_a_directory(tmp_path):
    missing = tmp_path / "nope"
    assert check_path("nope/deeper/x.csv", tmp_path) == (
        None, f"{missing / 'deeper'} does not exist: create it first, or choose a directory that exists")
    (tmp_path / "file").write_text("")
    assert check_path("file/x.csv", tmp_path) == (None, f"{tmp_path / 'file'} is not a directory")
    assert check_path("file/deeper/x.csv", tmp_path) == (None, f"{tmp_path / 'file'} is not a directory")


def said(app, message: str) -> bool:
    """Whether a notification says `message` (read while it shows: an expired one is forgotten)."""
    return message in [str(n.message) for n in app._notifications]


async def test_the_palette_finds_history_by_its_name(labtui_home):
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "history")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded)
        assert screen_text(app).count("quick-sanity") >= 5


async def test_a_fresh_history_says_how_to_make_a_result(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        assert "No results yet" in screen_text(app)


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


def _step_rows(app) -> list[str]:
    lines = screen_text(app).splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "Step"])
    rows = []
    for line in lines[header + 1:]:
        if not line.strip():
            break
        rows.append(line.strip())
    return rows


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


async def test_figures_too_wide_for_their_column_are_shown_short_never_cut(labtui_home):
    """At 120 columns beside imports with long hosts, targets and profile names, two-step figures such as
    '1,125.0 / 1,812.5' MiB/s were cut to '1,125.…' (the write figure gone). The table now says the first
    step's figures, beside its label, whole; a column too narrow for them says them as at 80 columns."""
    from dataclasses import replace

    from synthetic import HOST, READ, TARGET, WRITE, run_result

    store = Store(labtui_home)
    for i in range(3):  # local runs of quick-sanity: 64 KiB steps of 18,000 and 29,000 IOPS
        store.save_result(run_result(f"20240601-09000{i}-aaa{i}", {READ: [18_000.0 + i], WRITE: [29_000.0 + i]},
                                     minutes=i, tags=("first",)))
    for i in range(3):  # imports named after their files, from hosts and paths of other machines
        store.save_result(run_result(f"20240501-09000{i}-bbb{i}", {READ: [2_161_519.0 + i]}, minutes=i,
                                     profile_name=f"fio-3.43-clientserver-{i}clients-randread4k-psync",
                                     host=replace(HOST, name=f"127.0.0.1:1880{i}"),
                                     target=replace(TARGET, path=f"/home/azureuser/fio-tests/run-{i}/testfile")))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await pilot.pause()
        table = screen.query_one(ResultsTable)
        keys = [c.key for c in table.columns]
        figures = [dict(zip(keys, row.cells, strict=True))[k] for row in table.rows for k in ("iops", "mib_s")]
        widths = {c.key: c.width for c in table.columns}
        assert all(len(str(cell)) <= widths[k] for row in table.rows
                   for k, cell in zip(keys, row.cells, strict=True) if k in ("iops", "mib_s")), (widths, figures)
        text = screen_text(app)
        row = next(line for line in text.splitlines() if "12:00" in line or "first" in line)
        assert "RND64K Q8T4 R" in row and "1,125.1" in row and "…" not in row.split("first")[-1], row


async def test_s_sorts_by_the_next_column_on_screen_not_one_left_out_at_80_columns(labtui_home):
    """At 80 columns host and target give way; `s` went date -> host, reordering the rows by nothing shown."""
    save_history(labtui_home)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        await pilot.pause()
        shown = [c.key for c in screen.query_one(ResultsTable).columns]
        assert "host" not in shown and "target" not in shown, shown
        from labtui.screens.history import SORTABLE

        seen = []
        for _ in range(len([c for c in shown if c in SORTABLE])):
            await pilot.press("s")
            await pilot.pause()
            seen.append(screen.sort_column)
        assert all(column in shown for column in seen), (seen, shown)
        assert seen[0] == "disk" and seen[-1] == "date", seen  # round the columns shown, back to the date
        screen.sort_by("host", False)  # from the palette: a column not on screen
        await pilot.press("s")
        assert screen.sort_column == "disk"  # the next one after it that is


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


async def test_compare_says_where_the_bottleneck_is_as_compare_prints_it(labtui_home):
    """The seed post's two adapters: both meet the PCIe 3.0 x4 link, which the Compare screen says in words."""
    from synthetic import seed_pair

    a, b = seed_pair()
    store = Store(labtui_home)
    for result in (a, b):
        store.save_result(result)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_history(pilot)
        screen.marked = {a.id, b.id}
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        text = " ".join(screen_text(app).split())
        assert ("both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive, which "
                "supports 16 GT/s") in text, text


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


async def test_export_of_results_whose_script_rows_would_mix_writes_a_file_per_result(labtui_home, tmp_path):
    # Issue 39, item 20: one file per result, named by its id, each with the script's columns exactly.
    save_history(labtui_home)
    app = make_app(labtui_home, cwd=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        for key in ("20240501-103005-aaaa", "20240502-091500-bbbb"):
            await move_to(pilot, screen, key)
            await pilot.press("space")
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal))
        await pilot.press("space", "space", "space")
        await wait_for(pilot, lambda: app.screen.query_one("#export-path", Input).value == str(tmp_path),
                       what="the directory the files go in")
        (tmp_path / "20240502-091500-bbbb.csv").write_text("mine")
        await set_text(pilot, "#export-path", f"{tmp_path}/")
        assert widget_text(app, "#export-error").startswith(f"{tmp_path / '20240502-091500-bbbb.csv'} exists")
        (tmp_path / "20240502-091500-bbbb.csv").unlink()
        await set_text(pilot, "#export-path", str(tmp_path))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="the export")
        assert said(app, f"2 files written in {tmp_path}, one per result, named by its id")
    for rid in ("20240501-103005-aaaa", "20240502-091500-bbbb"):
        rows = list(csv.DictReader((tmp_path / f"{rid}.csv").read_text().splitlines()))
        assert list(rows[0]) == ["ComputerName", "Test", "Disk", "IOPS", "Mbps", "Latency", "CPU"] and len(rows) == 2


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
