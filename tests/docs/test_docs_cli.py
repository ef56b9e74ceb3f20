"""The command line page names every top-level key each command's --json prints (a key added without a word in
docs/cli.md fails here), and every exit code labtui has."""

from __future__ import annotations

import json
import re

import pytest

from conftest import FIXTURES
from labtui.cli import main
from labtui.errors import ExitCode
from labtui.results.store import Store
from manual import section
from synthetic import READ, WRITE, run_result

RESULT_KEYS_PARAGRAPH = "**A result** in JSON"


def _row(command: str) -> str:
    """The --json table's row for `command` (its first cell, as the page writes it)."""
    table = section("cli.md", "--json")
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 2 and cells[0] == command:
            return cells[1]
    raise AssertionError(f"docs/cli.md's --json table has no row {command!r}")


def _result_paragraph() -> str:
    return section("cli.md", "--json").split(RESULT_KEYS_PARAGRAPH, 1)[1]


def _missing(keys, text: str) -> list[str]:
    return [k for k in keys if f"`{k}`" not in text]


@pytest.fixture
def store(labtui_home):
    store = Store(labtui_home)
    for rid, iops in (("20261101-120000-aaaa", 1000), ("20261101-130000-bbbb", 1100)):
        store.save_result(run_result(rid, {READ: [iops, iops * 1.01, iops * 0.99], WRITE: [iops, iops, iops]}))
    return store


def _json(capsys, *args: str):
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("row", "args"), [
    ("`disks`", ["disks", "--json"]),
    ("`profiles`", ["profiles", "--json"]),
    ("`profiles NAME`", ["profiles", "quick-sanity", "--json"]),
    ("`history`", ["history", "--json"]),
    ("`compare`", ["compare", "20261101-12", "20261101-13", "--json"]),
    ("`baseline`", ["baseline", "--json"]),
    ("`export --format json`", ["export", "--format", "json"]),
])
def test_the_page_names_every_top_level_key(store, capsys, row, args):
    data = _json(capsys, *args)
    assert not _missing(data, _row(row)), f"{row}: say what these --json keys are in docs/cli.md"


def test_the_page_names_a_results_keys(store, capsys):
    data = _json(capsys, "show", "20261101-12", "--json")
    text = _result_paragraph()
    assert not _missing(data, text)
    step = data["steps"][0]
    assert not _missing([k for k in step if k not in ("name", "label", "kind", "repetition", "status", "workload",
                                                      "cpu_seconds", "engine_cpu_percent", "samples",
                                                      "steady_state")], text)


def test_the_page_names_an_imports_keys(labtui_home, capsys):
    fixture = next((FIXTURES / "fio-json").glob("*.json"))
    data = _json(capsys, "import", "--json", str(fixture))
    assert not _missing(data, _row("`import`"))


def test_every_exit_code_is_in_the_table():
    table = section("cli.md", "Exit codes")
    shown = {int(code) for code in re.findall(r"^\|\s*(\d+)\s*\|", table, re.M)}
    assert shown == {int(code) for code in ExitCode}
