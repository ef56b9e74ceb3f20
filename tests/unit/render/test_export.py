"""Exports: the CSV reads back (csv module) into exactly the JSON's numbers; Markdown tables parse."""

import csv
import io
import json
from dataclasses import replace

import pytest

from factories import configmgr_sql_result, make_result
from labtui.model.profile import Step
from labtui.model.result import StepResult
from labtui.render import export
from labtui.render.export import CONFIGMGR_COLUMNS, configmgr_rows, render
from markdown_tables import tables
from synthetic import READ, WRITE, run_result


def sample_results():
    a = run_result("20261101-120000-aaaa", {READ: [53_859.3, 54_001.7], WRITE: [52_319.1, 52_400.9]},
                   tags=("=cmd|' /C calc'!A0", "startech"))
    cmd = Step("Extract archive", kind="command", command="zpaq x lab.zpaq", warmup=0.0)
    b = run_result("20261101-130000-bbbb", {READ: [54_293.0]}, minutes=60)
    b = replace(b, steps=b.steps + (StepResult(step=cmd, wall_seconds=600.25, exit_status=0, cpu_percent=12.5),))
    return [a, b]


def test_csv_parses_into_the_same_numbers_as_json():
    results = sample_results()
    data = json.loads(export.render(results, "json"))
    rows = list(csv.DictReader(io.StringIO(export.render(results, "csv"), newline="")))
    assert len(rows) == len(data["rows"]) == 6
    assert list(rows[0]) == data["columns"]
    numeric = 0
    for csv_row, json_row in zip(rows, data["rows"]):
        for column, value in json_row.items():
            text = csv_row[column]
            if value is None:
                assert text == ""
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                assert float(text) == value, column
                numeric += 1
    assert numeric > 100
    first = data["rows"][0]
    assert first["iops"] == first["read_ios"] / first["measured_seconds"]


def test_csv_is_spreadsheet_friendly():
    text = export.render(sample_results(), "csv")
    assert text.startswith("result_id,started_utc,status,")
    assert "\r\n" in text  # RFC 4180 line ends
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert rows[0]["started_utc"] == "2026-11-01 12:00:00"
    assert rows[0]["tags"].startswith("'=cmd")  # a cell that a spreadsheet would run as a formula is defused
    command = rows[-1]
    assert command["kind"] == "command" and command["iops"] == "" and command["wall_seconds"] == "600.25"


def test_markdown_export_is_one_valid_table():
    found = tables(export.render(sample_results(), "markdown"))
    assert len(found) == 1 and len(found[0]) == 6
    assert found[0][0]["IOPS"] == "53,859" and found[0][-1]["Wall s"] == "600.25"


def test_a_command_steps_disk_counters_give_no_iops_in_any_output():
    """A command step's ios are the disk's requests after the kernel merged them (every process's):
    show, Markdown, CSV and JSON leave its IOPS blank alike (as the TUI does) and keep the counts."""
    from rich.console import Console

    from labtui.model.result import DirectionStats
    from labtui.render.result_json import result_to_json
    from labtui.render.result_tables import COMMAND_IOPS_NOTE, result_steps_table

    a, b = sample_results()
    *io_steps, cmd = b.steps
    counted = replace(cmd, read=DirectionStats(14_750, 14_750 * 65_536, 10.0), write=DirectionStats(0, 0, 10.0))
    b = replace(b, steps=(*io_steps, counted))
    console = Console(width=200, record=True)
    console.print(result_steps_table(b))
    shown = console.export_text()
    line = next(x for x in shown.splitlines() if x.strip().startswith("Extract archive"))
    assert "1,475" not in line and "92.2" in line  # no IOPS; the disk's MiB/s
    assert " ".join(COMMAND_IOPS_NOTE.split()) in " ".join(shown.split())
    md = export.render([b], "markdown")
    assert tables(md)[0][-1]["IOPS"] == "" and COMMAND_IOPS_NOTE in md
    row = list(csv.DictReader(io.StringIO(export.render([b], "csv"), newline="")))[-1]
    assert row["iops"] == row["read_iops"] == "" and row["read_ios"] == "14750"
    step = result_to_json(b)["steps"][-1]
    assert step["total"]["iops"] is None and step["total"]["ios"] == 14_750


def test_file_size_is_empty_where_there_is_no_test_file_or_its_size_is_unknown():
    """An import of a whole device stores a file size of 0 and a command-only profile has no test file:
    a 0 or the default 1 GiB in the column would read as a measured fact."""
    a, b = sample_results()
    cmd = b.steps[-1]
    commands_only = replace(b, id="20261101-140000-cccc", profile=replace(b.profile, steps=(cmd.step,)),
                            steps=(cmd,))
    imported = replace(a, id="20261101-150000-dddd", profile=replace(a.profile, file_size=0))
    rows = list(csv.DictReader(io.StringIO(export.render([a, commands_only, imported], "csv"), newline="")))
    sizes = {r["result_id"]: r["file_size_bytes"] for r in rows}
    assert sizes == {a.id: str(a.profile.file_size), commands_only.id: "", imported.id: ""}


def test_every_export_names_a_disk_with_no_model_by_its_device_as_every_screen_does():
    # The Markdown export said "unknown" for a loop device or a virtual disk, which History, show and
    # compare call "loop0" and "vda (virtual)"; the CSV and JSON had only the (empty) model.
    from synthetic import TARGET

    loop = replace(run_result("20261101-120000-aaaa", {READ: [50_000]}),
                   target=replace(TARGET, model=None, device="/dev/loop0", disk="loop0", kind="virtual"))
    vda = replace(run_result("20261101-130000-bbbb", {READ: [50_000]}),
                  target=replace(TARGET, model=None, device="/dev/vda1", disk="vda", kind="virtual"))
    named = run_result("20261101-140000-cccc", {READ: [50_000]})
    results = [loop, vda, named]
    names = ["loop0", "vda (virtual)", "WD_BLACK SN850X 4000GB"]
    assert [r.target.disk_name for r in results] == names  # what the screens and `labtui history` say
    assert [row["Disk"] for row in tables(export.render(results, "markdown"))[0]] == names
    csv_rows = list(csv.DictReader(io.StringIO(export.render(results, "csv"))))
    assert [row["disk"] for row in csv_rows] == names
    assert [row["disk_model"] for row in csv_rows] == ["", "", "WD_BLACK SN850X 4000GB"]  # the model stays the model
    assert [row["disk"] for row in json.loads(export.render(results, "json"))["rows"]] == names


def test_configmgr_csv_has_the_scripts_columns_and_parses_back(tmp_path):
    results = [configmgr_sql_result("a", "/"), configmgr_sql_result("b", "/data", minutes=20)]
    text = render(results, "configmgr-csv")
    assert text.splitlines()[0] == '"ComputerName","Test","Disk","IOPS","Mbps","Latency","CPU"'
    assert text.endswith("\r\n")  # Export-Csv's line ends
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(CONFIGMGR_COLUMNS)
    assert [(r["Disk"], r["Test"]) for r in rows] == [
        (disk, test) for disk in ("/", "/data")
        for test in ("Read Test 01", "Read Test 02", "Write Test 01", "Write Test 02")]
    first = rows[0]
    step = results[0].steps[0]
    assert first["ComputerName"] == "labbox"
    assert float(first["IOPS"]) == pytest.approx(step.total.iops, abs=0.005)
    assert float(first["Mbps"]) == pytest.approx(step.total.mib_s, abs=0.005)  # DiskSpd's MiB/s
    assert float(first["Latency"]) == pytest.approx(step.latency.mean, abs=0.0005)
    assert first["CPU"] == "12.50%"


def test_configmgr_csv_gives_a_repeated_step_its_profiles_figure():
    base = make_result("rep")
    read, write = base.steps
    ios = [30_000, 33_000]
    steps = tuple(replace(read, repetition=i + 1, read=replace(read.read, ios=n, bytes=n * 65536))
                  for i, n in enumerate(ios))
    best = replace(base, profile=replace(base.profile, repeat=2, aggregate="best"), steps=steps)
    mean = replace(best, profile=replace(best.profile, aggregate="mean"))
    assert [r["IOPS"] for r in configmgr_rows([best])] == ["3300.00"]
    assert [r["IOPS"] for r in configmgr_rows([mean])] == ["3150.00"]
