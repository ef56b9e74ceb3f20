"""The Export dialog (screens/export.py): the format, the file name, where the file went; never replacing a file."""

from __future__ import annotations

import csv
import json

import pytest
from textual.widgets import Input

from history_support import said
from labtui.screens.export import ExportModal, check_path
from tui_support import (
    make_app,
    move_to,
    open_history,
    save_history,
    set_text,
    wait_for,
    widget_text,
)


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
        await set_text(pilot, "#export-path", "")
        assert widget_text(app, "#export-error") == "Type the file to write"  # a sentence, as every dialog's
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
        hint = " ".join(widget_text(app, "#export-hint").split())  # it follows the field: a directory, not a file
        assert hint.startswith(f"A relative directory is in the current one, {tmp_path}.") and \
            "Enter on the directory writes the files" in hint, hint
        assert "Enter on the file name" not in hint and "A name alone" not in hint
        (tmp_path / "20240502-091500-bbbb.csv").write_text("mine")
        await set_text(pilot, "#export-path", f"{tmp_path}/")
        assert widget_text(app, "#export-error").startswith(f"{tmp_path / '20240502-091500-bbbb.csv'} exists")
        (tmp_path / "20240502-091500-bbbb.csv").unlink()
        await set_text(pilot, "#export-path", str(tmp_path))
        app.screen.query_one("#export-rows").focus()
        await pilot.press("space")  # id and date columns: one file again, and the hint says so
        await wait_for(pilot, lambda: "A name alone" in widget_text(app, "#export-hint"), what="the file's hint")
        assert "Enter on the file name writes it" in " ".join(widget_text(app, "#export-hint").split())
        await pilot.press("space")
        await wait_for(pilot, lambda: app.screen.query_one("#export-path", Input).value == str(tmp_path),
                       what="the directory again")
        app.screen.query_one("#export-path").focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="the export")
        assert said(app, f"2 files written in {tmp_path}, one per result, named by its id")
    for rid in ("20240501-103005-aaaa", "20240502-091500-bbbb"):
        rows = list(csv.DictReader((tmp_path / f"{rid}.csv").read_text().splitlines()))
        assert list(rows[0]) == ["ComputerName", "Test", "Disk", "IOPS", "Mbps", "Latency", "CPU"] and len(rows) == 2


async def test_a_formats_first_letter_picks_it(labtui_home, tmp_path):
    # "j" for JSON did nothing on the Format choice: only Space and the arrows moved it.
    save_history(labtui_home)
    app = make_app(labtui_home, cwd=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_history(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportModal), what="the export dialog")
        fmt = app.screen.query_one("#export-format")
        for key, value in (("j", "json"), ("m", "markdown"), ("c", "configmgr-csv"), ("c", "csv")):
            await pilot.press(key)
            await wait_for(pilot, lambda value=value: fmt.value == value, what=value)
        assert app.screen.query_one("#export-path", Input).value.endswith(".csv")
