"""`labtui export` (labtui/commands/export.py): the results as CSV, JSON, Markdown or ConfigMgr's CSV, from the command line."""

from __future__ import annotations

import csv
import io
import subprocess
from dataclasses import replace

from conftest import labtui_cmd
from factories import configmgr_sql_result
from labtui.render.export import CONFIGMGR_COLUMNS
from labtui.results.store import Store


def test_export_configmgr_csv_from_the_command_line(labtui_home):
    store = Store(labtui_home)
    store.save_result(configmgr_sql_result("20240501-103005-beef", "/mnt/nvme"))
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv"), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 4 and {r["Disk"] for r in rows} == {"/mnt/nvme"}


def test_export_configmgr_csv_says_which_named_results_it_leaves_out(labtui_home):
    store = Store(labtui_home)
    good = configmgr_sql_result("20240501-103005-good", "/mnt/nvme")
    # Failed at its first step: nothing the script's CSV can hold.
    failed = replace(good, id="20240501-113005-fail", status="failed",
                     steps=(replace(good.steps[0], status="failed"),))
    # Stopped in its third step: the two before it are in the CSV, the rest is not.
    aborted = replace(good, id="20240501-123005-stop", status="aborted",
                      steps=(*good.steps[:2], replace(good.steps[2], status="aborted")))
    for result in (good, failed, aborted):
        store.save_result(result)
    # Two results of one disk: their rows would mix, so the result id and date go after the script's columns.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", "--with-ids", good.id, failed.id,
                                    aborted.id), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        f"labtui export: {failed.id} (failed) is left out of the ConfigMgr CSV: none of its I/O steps completed",
        f"labtui export: {aborted.id} (aborted): only its 2 completed I/O steps are in the ConfigMgr CSV",
    ]
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 4 + 2 and [r["ResultId"] for r in rows] == [good.id] * 4 + [aborted.id] * 2
    # Every one named left out: nothing to write, bad input.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", failed.id), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        f"labtui export: {failed.id} (failed) is left out of the ConfigMgr CSV: none of its I/O steps completed",
        "labtui: error: none of the named results has a completed I/O step: the ConfigMgr CSV would have no rows",
    ]
    # None named (every result): one line for all it leaves out.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", "--with-ids"), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and len(list(csv.DictReader(io.StringIO(out.stdout)))) == 4 + 2
    assert out.stderr.splitlines() == ["labtui export: 1 failed or aborted result is left out of the ConfigMgr CSV; "
                                       "1 failed or aborted result has only its completed I/O steps in the ConfigMgr "
                                       "CSV"]


def test_export_configmgr_csv_where_the_rows_of_several_results_would_mix(labtui_home, tmp_path, capsys):
    # Issue 39, item 20: two runs of one disk wrote "Read Test 01" twice, nothing to tell them apart.
    from labtui.cli import main

    store = Store(labtui_home)
    first = configmgr_sql_result("20240501-103005-aaaa", "/data")
    second = configmgr_sql_result("20240502-103005-bbbb", "/data", 60)
    other = configmgr_sql_result("20240503-103005-cccc", "/mnt/nvme", 120)
    for result in (first, second, other):
        store.save_result(result)
    # Said, with both ways out, and nothing written.
    assert main(["export", "--format", "configmgr-csv"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "labtui: error: the rows of 2 results of labbox's /data would mix: the script's columns cannot tell them "
        "apart. Add --with-ids (the result id and date after the script's columns), or --per-result DIR (one file "
        "per result, named by its id)\n")
    # Two results of two disks do not mix: the script's columns exactly.
    assert main(["export", "--format", "configmgr-csv", first.id, other.id]) == 0
    assert capsys.readouterr().out.splitlines()[0] == '"ComputerName","Test","Disk","IOPS","Mbps","Latency","CPU"'
    # --with-ids: the id and the run's start after the script's columns.
    assert main(["export", "--format", "configmgr-csv", "--with-ids"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == [*CONFIGMGR_COLUMNS, "ResultId", "Date"]
    assert [(r["ResultId"], r["Test"]) for r in rows[:5]] == [(first.id, t) for t in (
        "Read Test 01", "Read Test 02", "Write Test 01", "Write Test 02")] + [(second.id, "Read Test 01")]
    assert rows[0]["Date"] == first.started.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    # --per-result: a file per result, named by its id, with the script's columns exactly.
    folder = tmp_path / "per-result"
    folder.mkdir()
    assert main(["export", "--format", "configmgr-csv", "--per-result", str(folder)]) == 0
    assert capsys.readouterr().err == f"labtui export: 3 files written in {folder}, one per result, named by its id\n"
    assert sorted(p.name for p in folder.iterdir()) == [f"{r.id}.csv" for r in (first, second, other)]
    rows = list(csv.DictReader(io.StringIO((folder / f"{second.id}.csv").read_text())))
    assert list(rows[0]) == list(CONFIGMGR_COLUMNS) and len(rows) == 4
    # Never over a file: refused, nothing written.
    assert main(["export", "--format", "configmgr-csv", "--per-result", str(folder)]) == 2
    assert "labtui never replaces a file" in capsys.readouterr().err
    # Only the script's CSV takes them.
    assert main(["export", "--format", "csv", "--with-ids"]) == 2
    assert "--with-ids: goes with --format configmgr-csv" in capsys.readouterr().err


def test_an_empty_per_result_directory_is_refused_not_taken_for_the_current_one(labtui_home, tmp_path, capsys,
                                                                                  monkeypatch):
    from labtui.cli import main

    Store(labtui_home).save_result(configmgr_sql_result("20240501-103005-beef", "/mnt/nvme"))
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.iterdir())
    assert main(["export", "--format", "configmgr-csv", "--per-result", ""]) == 2
    assert capsys.readouterr().err == "labtui: error: --per-result: is empty: give a directory or leave the option out\n"
    assert sorted(tmp_path.iterdir()) == before  # it wrote one file per result into the current directory
