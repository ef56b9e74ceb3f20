"""`labtui history` (labtui/commands/history.py): the list of saved results, on a terminal and as JSON."""

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from cli_calls import cli, refusal, run
from conftest import labtui_cmd
from factories import broken_files, make_result, results_and_broken
from labtui.cli import main
from labtui.render.result_tables import NARROW_STATUS
from labtui.results.store import Store


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


def test_history_empty(labtui_home, capsys):
    code, out, err = cli(capsys, "history")
    assert code == 0 and "no results yet" in out and err == ""
    code, out, _ = cli(capsys, "history", "--json")
    assert json.loads(out) == {"results": [], "broken": []}


def test_history_lists_newest_first_and_filters(saved, capsys):
    older, newer = saved
    code, out, _ = cli(capsys, "history", "--json")
    data = json.loads(out)
    assert [r["id"] for r in data["results"]] == [newer.id, older.id]
    entry = data["results"][1]
    assert entry["disk_model"] == "Samsung SSD 980 PRO 1TB" and entry["profile"] == "quick-sanity"
    assert entry["steps"][0]["iops"] == pytest.approx(30_000 / 10.0)
    assert entry["steps"][0]["mib_s"] == pytest.approx(30_000 * 65536 / 10.0 / 2**20)
    _, out, _ = cli(capsys, "history", "--json", "--tag", "hp-adapter")
    assert [r["id"] for r in json.loads(out)["results"]] == [newer.id]
    _, out, _ = cli(capsys, "history", "--json", "--limit", "1")
    assert [r["id"] for r in json.loads(out)["results"]] == [newer.id]
    _, out, _ = cli(capsys, "history", "--json", "--profile", "cdm-nvme")
    assert json.loads(out)["results"] == []
    code, table, _ = cli(capsys, "history")
    assert code == 0 and older.id in table and newer.id in table and table.index(newer.id) < table.index(older.id)
    assert "aborted" in table and "3,000" in table


@pytest.mark.parametrize("columns", ["80", "120"])
def test_history_marks_the_figures_of_a_step_that_did_not_complete(labtui_home, capsys, monkeypatch, columns):
    # Its figures cover only the part that ran: beside a completed step's they would read as a like measurement.
    monkeypatch.setenv("COLUMNS", columns)
    done = make_result("20240501-103005-aaaa")
    stopped = replace(done, id="20240501-113005-bbbb", status="aborted", error="cancelled by the user",
                      steps=(done.steps[0], replace(done.steps[1], status="aborted")))
    Store().save_result(done)
    Store().save_result(stopped)
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= int(columns)
    lines = table.splitlines()
    figures = [line for line in lines if "187.5" in line]  # one line per step, newest result first
    assert len(figures) == 4, table
    first, second = figures[:2]
    assert stopped.id in first and "aborted" in first  # the result's status, its first step completed
    assert first.count("aborted") == 1 and "step aborted" not in first, table
    assert "aborted" in second, table  # the stopped step, on its own line
    assert not any("aborted" in line for line in figures[2:]), table
    # Each figure beside its step's short label (issue 39, item 15).
    read, write = ("RND64K Q8T4 R", "RND64K Q8T4 W") if columns == "120" else ("RND64K R", "RND64K W")
    assert re.search(rf"{read}\s+3,000", first) and f"{write} aborted" in second, table
    assert [bool(re.search(rf"{label}\s+3,000", line)) for label, line in zip((read, write), figures[2:])] == [True, True]


@pytest.mark.parametrize("columns", ["80", "120"])
def test_history_tells_engines_and_tags_apart_at_any_width(labtui_home, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    store = Store()
    runs = {"fio": "20240501-103005-aaaa", "native": "20240501-113005-bbbb", "diskspd": "20240501-123005-cccc"}
    for minutes, (engine, result_id) in enumerate(runs.items()):
        result = make_result(result_id, minutes=minutes * 60, tags=("slot-2",) if engine == "fio" else ())
        store.save_result(replace(result, engine=replace(result.engine, name=engine)))
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= int(columns)
    # Each result's rows: from its id to the next one's (newest first).
    newest_first = sorted(runs.items(), key=lambda item: item[1], reverse=True)
    starts = [table.index(result_id) for _engine, result_id in newest_first] + [len(table)]
    blocks = {engine: table[starts[i]:starts[i + 1]] for i, (engine, _id) in enumerate(newest_first)}
    for engine, block in blocks.items():
        assert engine in block, (engine, block)
    assert "slot-2" in blocks["fio"] and "slot-2" not in blocks["native"] + blocks["diskspd"]
    assert all("3,000" in block and "187.5" in block for block in blocks.values())  # the figures are never cut


def test_history_reports_broken_files_and_keeps_the_good(saved, labtui_home, capsys):
    paths = broken_files(labtui_home / "results")
    code, out, _ = cli(capsys, "history", "--json")
    assert code == 0
    data = json.loads(out)
    assert sorted(r["id"] for r in data["results"]) == sorted(r.id for r in saved)
    assert sorted(b["path"] for b in data["broken"]) == sorted(str(p) for p in paths.values())
    assert all(b["reason"] for b in data["broken"])
    code, table, err = cli(capsys, "history")
    assert code == 0 and all(r.id in table for r in saved)
    # Many of them: one line counting them, and the command that lists each.
    assert " ".join(err.split()) == (f"skipped {len(paths)} files in {labtui_home / 'results'} that are not whole "
                                     "labtui results: labtui history --broken lists each and why")
    code, listed, err = cli(capsys, "history", "--broken")
    assert code == 0 and err == ""
    flat = " ".join(listed.split())  # rich may wrap a long path
    for path in paths.values():
        assert f"{path}: " in flat


def test_labtui_home_is_honoured_end_to_end(tmp_path):
    homes = [tmp_path / "a", tmp_path / "b"]
    result, _ = Store(homes[0]).save_result(make_result())

    def run(home, *args):
        env = {"LABTUI_HOME": str(home), "PATH": "/usr/bin:/bin"}
        return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env)

    seen = run(homes[0], "history", "--json")
    assert seen.returncode == 0 and [r["id"] for r in json.loads(seen.stdout)["results"]] == [result.id]
    unseen = run(homes[1], "show", result.id)
    assert unseen.returncode == 2 and unseen.stderr.count("\n") == 1 and str(homes[1]) in unseen.stderr
    shown = run(homes[0], "show", result.id, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == result.id


def test_a_narrow_terminal_never_cuts_ids_profiles_or_statuses(saved, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= 80
    for result in saved:
        row = next(line for line in table.splitlines() if result.id in line)
        assert result.profile.name in row and NARROW_STATUS.get(result.status, result.status) in row  # "done"
    _, out, _ = cli(capsys, "history", "--profile", "cdm-nvme")
    # What was asked, and the profiles there are: "none of the 2 results match" left a typo unseen.
    assert " ".join(out.split()) == "none of the 2 results match --profile cdm-nvme (their profiles: " + ", ".join(
        sorted({r.profile.name for r in saved})) + ")", out
    _, out, _ = cli(capsys, "history", "--tag", "nightly")
    assert " ".join(out.split()) == "none of the 2 results match --tag nightly", out


@pytest.mark.parametrize("columns", ["80", "120"])
def test_a_long_imported_name_folds_and_never_squeezes_ids_or_figures(saved, capsys, monkeypatch, columns):
    # Imports are named after their file: such a name takes more lines, not the whole table.
    older, _ = saved
    long_name = "fio-3.43-clientserver-2clients-randread4k-psync"
    imported = replace(make_result("20240502-090000-cccc", minutes=90), source="import",
                       profile=replace(older.profile, name=long_name))
    Store().save_result(imported)
    monkeypatch.setenv("COLUMNS", columns)
    code, table, _ = cli(capsys, "history")
    lines = table.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= int(columns)
    assert "…" not in table
    for result in (*saved, imported):
        row = next(line for line in lines if result.id in line)
        status = NARROW_STATUS.get(result.status, result.status) if columns == "80" else result.status
        assert status in row and "3,000" in row and "187.5" in row
    assert all(piece in table for piece in re.findall(r"[^-]+-?", long_name))  # broken after its hyphens


def test_history_shows_a_repeated_step_once_as_its_profile_makes_it_and_json_keeps_every_pass(labtui_home, capsys):
    from synthetic import READ, run_result, step_result

    result = run_result("20240601-090000-ffff", {READ: [1000.0, 3000.0, 2000.0]})
    result = replace(result, profile=replace(result.profile, aggregate="best", discard_first=True),
                     steps=(step_result(READ, 9000.0, repetition=0), *result.steps))
    Store().save_result(result)
    code, table, _ = cli(capsys, "history")
    assert code == 0 and "3,000" in table
    assert "9,000" not in table and "1,000" not in table and "2,000" not in table  # one figure: the best
    _, out, _ = cli(capsys, "history", "--json")
    assert [s["repetition"] for s in json.loads(out)["results"][0]["steps"]] == [0, 1, 2, 3]


@pytest.mark.parametrize("columns", ["80", "120", None])
def test_history_wraps_tags_and_names_between_words_never_inside_one(labtui_home, capsys, monkeypatch, columns):
    # Rich folded a cell wherever its column ended: 'startech-adapte' over 'r' at 120 columns,
    # 'slot-2,after-car' over 'd-swap' at 80. A word is cut only where it is longer than its column,
    # and then after one of its hyphens.
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)  # into a pipe: lines of their natural width
    tags = ("startech-adapter", "slot-2,after-card-swap", "firmware 2.1.0 upgraded in place")
    Store().save_result(make_result("20240501-103005-aaaa", tags=tags))
    Store().save_result(make_result("20240501-113005-bbbb", minutes=60))
    code, table, _ = cli(capsys, "history")
    assert code == 0
    if columns:
        assert max(len(line) for line in table.splitlines()) <= int(columns)
    words = {w for text in (*tags, "Samsung SSD 980 PRO 1TB") for w in re.findall(r"[^\s,-]+-?", text)}
    for word in words:  # each piece up to a hyphen, a comma or a space is whole on a line
        assert re.search(rf"(^|[\s,-]){re.escape(word)}", table, re.M), (word, table)


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_history_limit_below_one_is_refused_not_everything(labtui_home, limit):
    message = refusal(run("history", "--limit", limit))
    assert message == f"labtui: error: --limit: must be 1 or more, got {limit} (leave it out to list every result)"


def test_history_json_gives_the_tables_figure_of_a_repeated_step_under_its_own_key(labtui_home, capsys, monkeypatch):
    """A --repeat 2 run: the table's IOPS is the passes' mean; --json's 'steps' are each pass (56,387 read as
    the table's 44,197), 'figures' the table's, and a line under the table says which it shows."""
    from synthetic import READ, run_result

    monkeypatch.setenv("COLUMNS", "200")
    Store().save_result(run_result("20240601-090000-ffff", {READ: [56_000.0, 32_000.0]}))
    code, table, _ = cli(capsys, "history")
    assert code == 0 and "44,000" in table and "56,000" not in table
    assert "mean of its passes" in " ".join(table.split())
    _, out, _ = cli(capsys, "history", "--json")
    entry = json.loads(out)["results"][0]
    assert [(s["repetition"], s["iops"]) for s in entry["steps"]] == [(1, 56_000.0), (2, 32_000.0)]
    assert [(s["iops"], s["passes"], s["how"]) for s in entry["figures"]] == [(44_000.0, 2, "mean of 2")]


def test_history_says_nothing_of_passes_where_every_step_ran_once(saved, capsys):
    code, table, _ = cli(capsys, "history")
    assert code == 0 and "passes" not in table
