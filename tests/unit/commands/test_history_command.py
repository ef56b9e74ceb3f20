"""`labtui history` (labtui/commands/history.py): the list of saved results, on a terminal and as JSON."""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import labtui_cmd
from factories import results_and_broken
from labtui.cli import main


@pytest.mark.parametrize("option", ["--profile", "--tag"])
def test_an_empty_filter_is_refused_not_taken_for_every_result(labtui_home, capsys, option):
    assert main(["history", option, " "]) == 2
    out, err = capsys.readouterr()
    wanted = "a tag" if option == "--tag" else "a profile's name"
    assert out == "" and err == f"labtui: error: {option}: is empty: give {wanted} or leave the option out\n"


@pytest.mark.parametrize("columns", [120, 80])
def test_a_verified_runs_line_says_whether_its_data_read_back_in_the_history_screens_words(
        labtui_home, capsys, monkeypatch, columns):
    # `labtui history` listed a verified run as any other: whether its data came back, History's
    # "data ok" / "data BAD", was only in the screen and in `labtui show`.
    import json
    from dataclasses import replace

    from factories import make_result
    from labtui.model.verification import TORN, BlockMismatch, Verification
    from labtui.results.store import Store

    gib = 1024**3
    whole = Verification("xxh3-64", blocks=16384, bytes=gib, covered_bytes=gib, file_bytes=gib)
    lost = replace(whole, mismatched=2, mismatches=(BlockMismatch(65536, TORN, "torn", "", ""),))
    unchecked = replace(whole, covered_bytes=0, unwritten=16384)  # no block read had been written by the run
    store = Store(labtui_home)
    for rid, minutes, verify in (("20240501-103000-aaaa", 0, whole), ("20240501-113000-bbbb", 60, lost),
                                 ("20240501-123000-cccc", 120, None), ("20240501-133000-dddd", 180, unchecked)):
        result = make_result(rid, minutes=minutes)
        store.save_result(replace(result, steps=tuple(replace(s, verify=verify) for s in result.steps)))
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    rows = {}  # each result's lines, from its id to the next one's
    for line in out.splitlines():
        if line.startswith(" 2024"):
            rows[line.split()[0]] = []
        if rows:
            rows[list(rows)[-1]].append(line)
    status = out.splitlines()[1].index("status")
    said = {rid: [line[status:].split("  ")[0] for line in lines[:2]] for rid, lines in rows.items()}
    done = "completed" if columns >= 110 else "done"
    assert said == {"20240501-133000-dddd": [done, "data unchecked"], "20240501-123000-cccc": [done, ""],
                    "20240501-113000-bbbb": [done, "data BAD"], "20240501-103000-aaaa": [done, "data ok"]}, out
    assert main(["history", "--json"]) == 0
    listed = {r["id"]: r["read_back"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert listed["20240501-123000-cccc"] is None  # it verified nothing
    assert listed["20240501-103000-aaaa"] == {"mark": "data ok", "answer": "All 1 GiB read back as written",
                                              "failed": False, "whole": True}
    assert listed["20240501-113000-bbbb"]["mark"] == "data BAD" and listed["20240501-113000-bbbb"]["failed"]
    assert listed["20240501-113000-bbbb"]["answer"].startswith("2 blocks did not read back as written (torn)")
    assert listed["20240501-133000-dddd"]["mark"] == "data unchecked"


def history(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("history", *args), capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LABTUI_HOME": str(home), "COLUMNS": "200"})


def test_many_broken_files_are_one_line_and_history_broken_lists_them(tmp_path):
    home = tmp_path / "home"
    results_and_broken(home, 3)
    out = history(home)
    assert out.returncode == 0 and out.stdout.count("20240501-1030") == 3, out.stdout
    assert out.stderr.strip() == (f"skipped 40 files in {home / 'results'} that are not whole labtui results: "
                                  "labtui history --broken lists each and why"), out.stderr
    listed = history(home, "--broken")
    assert listed.returncode == 0 and listed.stderr == ""
    lines = listed.stdout.splitlines()
    assert len(lines) == 40 and lines[0].startswith(f"{home / 'results' / 'broken-00.toml'}: "), lines[:2]
    assert all("cut short" in line or "not valid TOML" in line for line in lines), lines
