"""`labtui import`: results saved and printed; bad files refused with exit 2, one line each, and
nothing saved from them (each file imports whole or not at all; good files still import)."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import FIXTURES, labtui_cmd

XML = FIXTURES / "diskspd-xml/diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml"
TWO_CLIENTS = FIXTURES / "fio-json/fio-3.43-clientserver-2clients-randread4k-psync.json"


def run(*args):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True)


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
