"""A result with no figure says so (issue 39 item 13): an import of a fio job that failed before any I/O showed
"0.0 IOPS" wherever it was listed. Everywhere it is "-" beside "failed" (null in JSON, empty in CSV)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest

from conftest import FIXTURES
from labtui.cli import main
from labtui.model.result import DirectionStats
from labtui.results.store import Store

FAILED = FIXTURES / "fio-json/fio-3.33-error22-write1m-stderr-prefix.json"


def cli(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


@pytest.fixture
def failed_import(labtui_home, capsys) -> str:
    said = cli(capsys, "import", str(FAILED))
    assert ", failed, 1m: - (failed: no figures) -> " in said and "0.0" not in said
    return said.rsplit("-> ", 1)[1].strip()


def test_a_failed_import_shows_a_dash_and_failed_everywhere(failed_import, capsys, labtui_home):
    rid = failed_import
    listed = cli(capsys, "history")
    row = next(line for line in listed.splitlines() if rid in line)
    # The step column says the step's label and that it failed (issue 39, item 15); IOPS and MiB/s "-".
    assert "SEQ1M Q64T1 W failed" in row and "0.0" not in row and row.split()[-2:] == ["-", "-"], row
    (entry,) = json.loads(cli(capsys, "history", "--json"))["results"]
    assert (entry["steps"][0]["iops"], entry["steps"][0]["mib_s"], entry["steps"][0]["status"]) == (None, None, "failed")
    shown = cli(capsys, "show", rid)
    step_row = next(line for line in shown.splitlines() if "1m (failed)" in line)
    assert "0.0" not in step_row and step_row.split()[2:4] == ["-", "-"], step_row
    step = json.loads(cli(capsys, "show", rid, "--json"))["steps"][0]
    assert step["total"]["iops"] is None and step["total"]["mib_s"] is None and step["total"]["ios"] == 0
    (row,) = csv.DictReader(io.StringIO(cli(capsys, "export", rid, "--format", "csv")))
    assert (row["iops"], row["mib_s"], row["step_status"]) == ("", "", "failed")
    markdown = cli(capsys, "export", rid, "--format", "markdown")
    assert "| 0.0 |" not in markdown and "| - | - |" in markdown
    # A step that failed after some I/O keeps what it measured: those are figures.
    step = Store(labtui_home).find_result(rid).steps[0]
    assert not step.has_figures
    assert replace(step, write=DirectionStats(10, 10 << 20, 0.5)).has_figures


async def test_history_in_the_tui_shows_a_dash(failed_import, labtui_home):
    from labtui.screens.history import HistoryScreen
    from tui_support import make_app, screen_text, wait_for

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and failed_import[:8] in screen_text(app))
        row = next(line for line in screen_text(app).splitlines() if "failed" in line and "fio-3.33" in line)
        assert "0.0" not in row, row
