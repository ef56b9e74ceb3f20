"""`labtui import`: results saved and printed; bad files refused with exit 2, one line each, and
nothing saved from them (each file imports whole or not at all; good files still import)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from cli_calls import run
from conftest import FIXTURES, labtui_cmd
from labtui.results.store import Store

XML = FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml"
TWO_CLIENTS = FIXTURES / "fio-json/fio-3.43-clientserver-2clients-randread4k-psync.json"


def saved(home):
    return sorted((home / "results").glob("*.toml")) if (home / "results").exists() else []


def test_import_json_prints_every_result_and_saves_them(labtui_home):
    out = run("import", "--json", "--tag", "lab-a", str(XML), str(TWO_CLIENTS))
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    assert [r["engine"]["name"] for r in results] == ["diskspd", "fio", "fio", "fio"]
    assert all(r["source"] == "import" and r["tags"] == ["lab-a"] and r["steps"] for r in results)
    assert results[0]["source_file"] == XML.name and results[0]["engine"]["version"] == "2.0.21a"
    assert len(saved(labtui_home)) == 4
    shown = run("show", "--json", results[0]["id"])
    assert json.loads(shown.stdout)["steps"][0]["total"]["ios"] == 37162 + 15753
    listed = json.loads(run("history", "--json").stdout)["results"]
    assert {r["source"] for r in listed} == {"import"} and len(listed) == 4


def test_import_text_output_names_file_and_result(labtui_home):
    out = run("import", str(XML))
    assert out.returncode == 0 and XML.name in out.stdout and "diskspd 2.0.21a" in out.stdout


def _bad_files(tmp_path):
    truncated = tmp_path / "truncated.json"
    truncated.write_bytes(TWO_CLIENTS.read_bytes()[:4000])
    cut_xml = tmp_path / "cut.xml"
    cut_xml.write_bytes(XML.read_bytes()[:50_000])
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "random.json"
    binary.write_bytes(bytes(range(256)) * 12)
    other = tmp_path / "package.json"
    other.write_text(json.dumps({"name": "left-pad", "version": "1.3.0"}))
    folder = tmp_path / "a-folder"
    folder.mkdir()
    return {
        "truncated": (truncated, "cut short"),
        "cut_xml": (cut_xml, "cut short"),
        "empty": (empty, "empty"),
        "binary": (binary, "binary"),
        "other": (other, "not fio's"),
        "folder": (folder, "directory"),
        "missing": (tmp_path / "nope.xml", "no such file"),
    }


@pytest.mark.parametrize("kind", ["truncated", "cut_xml", "empty", "binary", "other", "folder", "missing"])
def test_bad_input_is_one_line_exit_2_and_nothing_saved(labtui_home, tmp_path, kind):
    path, reason = _bad_files(tmp_path)[kind]
    out = run("import", str(path))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and str(path) in out.stderr and reason in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert saved(labtui_home) == []


def test_each_file_is_all_or_nothing(labtui_home, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    out = run("import", "--json", str(bad), str(TWO_CLIENTS))
    assert out.returncode == 2 and str(bad) in out.stderr and out.stderr.count("\n") == 1
    assert len(json.loads(out.stdout)["results"]) == 3
    assert len(saved(labtui_home)) == 3


FIO_MIXED = FIXTURES / "fio-json/fio-3.36-randrw128k-qd1-psync-default.json"


def test_the_same_file_imported_twice_is_one_result_and_says_so(labtui_home, tmp_path):
    first = run("import", str(XML))
    assert first.returncode == 0, first.stderr
    result_id = first.stdout.split("-> ")[-1].strip()
    # Again, under another name, and twice on one command line: nothing new.
    copy = tmp_path / "renamed.xml"
    copy.write_bytes(XML.read_bytes())
    again = run("import", "--tag", "late", str(XML), str(copy))
    assert again.returncode == 0, again.stderr
    assert again.stdout.count(f"already imported as {result_id}; nothing changed") == 2
    assert "tags are left as they are" in again.stdout
    as_json = json.loads(run("import", "--json", str(copy)).stdout)
    assert as_json == {"results": [], "already_imported": [{"file": str(copy), "ids": [result_id]}]}
    results, _ = Store(labtui_home).load_results()
    assert [r.id for r in results] == [result_id] and results[0].tags == ()
    assert results[0].source_digest.startswith("sha256:")


def test_one_file_given_twice_imports_once(labtui_home):
    out = run("import", str(FIO_MIXED), str(FIO_MIXED))
    assert out.returncode == 0 and out.stdout.count(" -> ") == 1 and "already imported" in out.stdout
    assert len(Store(labtui_home).load_results()[0]) == 1


@pytest.mark.parametrize("special", ["fifo", "socket", "/dev/zero", "/dev/urandom", "link to /dev/zero"])
def test_only_regular_files_are_read(tmp_path, special):
    if special == "fifo":
        path = tmp_path / "report.json"
        os.mkfifo(path)  # no writer: reading it would wait forever
        expected = "a FIFO"
    elif special == "socket":
        path = tmp_path / "report.json"
        listening = socket.socket(socket.AF_UNIX)
        listening.bind(str(path))  # cannot be opened at all: "No such device or address" said nothing
        listening.close()
        expected = "a socket"
    elif special.startswith("link"):
        path = tmp_path / "report.json"
        path.symlink_to("/dev/zero")
        expected = "a character device"
    else:
        path = Path(special)
        expected = "a character device"
    out = subprocess.run(labtui_cmd("import", str(path)), capture_output=True, text=True, timeout=20)
    assert out.returncode == 2 and f"{path}: is {expected}, not a report file" in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_escape_codes_in_a_report_are_shown_never_obeyed(labtui_home, tmp_path):
    data = json.loads(FIO_MIXED.read_text())
    data["jobs"][0]["jobname"] = "evil\x1b[2J\x1b]8;;http://x\x07name"
    data["jobs"][0]["job options"]["name"] = "evil\x1b[2J\x1b]8;;http://x\x07name"
    report = tmp_path / "evil\x1b[31m.json"
    report.write_text(json.dumps(data))
    out = run("import", str(report))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "evil\\x1b[2J\\x1b]8;;http://x\\x07name" in out.stdout and "evil\\x1b[31m.json" in out.stdout
    (result,) = Store(labtui_home).load_results()[0]
    shown = run("show", result.id)
    assert "\x1b" not in shown.stdout and "evil\\x1b[2J" in shown.stdout
    listed = run("history")
    assert "\x1b" not in listed.stdout


def test_a_drives_smartctl_output_is_refused_as_what_it_is(tmp_path, labtui_home):
    """The fixtures hold smartctl -j outputs beside the reports: importing one says what it is, in one line."""
    for fixture in sorted((FIXTURES / "smartctl-json").glob("*.json")):
        out = subprocess.run(labtui_cmd("import", str(fixture)), capture_output=True, text=True)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert "smartctl's output (a drive's health), not a benchmark report" in out.stderr, out.stderr
    assert not (labtui_home / "results").exists() or not list((labtui_home / "results").iterdir())


@pytest.mark.parametrize("names", [[""], [str(XML), " "]])
def test_an_empty_file_name_is_refused_naming_it_and_nothing_is_imported(labtui_home, capsys, names):
    # "" was read as "." ("is a directory (name the report files in it)"), " " as a file named " ".
    from labtui.cli import main

    assert main(["import", *names]) == 2
    err = capsys.readouterr().err
    assert err == "labtui: error: FILE: is empty: give a DiskSpd or fio output file; nothing was imported\n"
    assert saved(labtui_home) == []
