"""The path half of the hostile corpus: every command that takes a path, fed names holding `$(...)`,
backquotes, quotes, a newline and `[/]`, and a 4,096-byte component. Nothing crashes, nothing in a
name runs, and no name is printed raw (its newline never starts a line of labtui's own).

One invocation per command gives every path it takes the hostile names at once (run: the profile
file, the target directory and a file parameter; baseline --more and check: the target; export
--per-result: its directory; profiles: a profile file; run and check --hosts); each path is then given a component of 4,096
bytes, which no file system takes: refused in one line, the name shown by its start and length.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import labtui_cmd, require_tool
from factories import make_result
from labtui.results.store import Store

# A directory name with all of them: "$(...)", backquotes, both quotes, a newline; "/[/]" ends the path.
NAME = "x$(touch RAN)`touch RAN`'\"\n["
RAW = "'\"\n["  # the name's newline as it would reach the screen raw, between the quotes and the bracket
LONG = "a" * 4096

PROFILE = """name = "p"
free_space_margin = "0"
[params.f]
type = "file"
[[steps]]
name = "cmd"
kind = "command"
command = "cat {f} > {scratch}/copy && ls {target} > /dev/null"
sync = false
"""


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """`<tmp>/x$(touch RAN)...\\n[/]`: a directory that exists, with a profile and a file in it."""
    where = tmp_path / NAME / "]"
    where.mkdir(parents=True)
    (where / "p.toml").write_text(PROFILE)
    (where / "f.txt").write_text("data")
    return where


def labtui(tmp_path: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LABTUI_HOME": str(home or tmp_path / "home"), "COLUMNS": "300"}
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


def harmless(tmp_path: Path, out: subprocess.CompletedProcess, *, codes: tuple[int, ...] = (0, 2)) -> str:
    """The output, once it is known that nothing crashed, ran or was printed raw."""
    text = out.stdout + out.stderr
    assert out.returncode in codes, text
    assert "Traceback" not in text and "internal error" not in text, text
    assert not list(tmp_path.rglob("RAN")), "a command in a name ran"
    assert RAW not in text, f"a name was printed raw: {text!r}"
    return text


def too_long(out: subprocess.CompletedProcess) -> None:
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert re.search(r"a name in it is 4\d\d\d bytes long|File name too long", out.stderr), out.stderr
    assert LONG not in out.stderr, "a name that long is shown by its start and its length"


def test_run_baseline_check_and_profiles_take_hostile_paths_as_text(tmp_path, place):
    text = harmless(tmp_path, labtui(tmp_path, "run", "-p", str(place / "p.toml"), "-t", str(place),
                                     "--param", f"f={place / 'f.txt'}", "--yes"), codes=(0,))
    assert "\\x0a[/]" in text, "the target is named, its newline shown as an escape"
    assert sorted(p.name for p in place.iterdir()) == ["f.txt", "p.toml"], "the run's own directory went"
    # The run as a baseline, added to in the hostile directory (-t), and checked there: their plans name it.
    (result_id,) = [p.stem for p in (tmp_path / "home" / "results").glob("*.toml")]
    harmless(tmp_path, labtui(tmp_path, "baseline", result_id), codes=(0,))
    text = harmless(tmp_path, labtui(tmp_path, "baseline", result_id, "--more", "1", "-t", str(place), "--yes"),
                    codes=(0,))
    assert "\\x0a[/] with" in text, text
    text = harmless(tmp_path, labtui(tmp_path, "check", "-t", str(place), "--repeat", "1", "--confirm", "0", "--yes"),
                    codes=(0, 1, 3))
    assert "\\x0a[/] with" in text, text
    harmless(tmp_path, labtui(tmp_path, "check", "--hosts", str(place / "hosts.toml"), "--yes"), codes=(2,))
    text = harmless(tmp_path, labtui(tmp_path, "profiles", str(place / "p.toml")), codes=(0,))
    assert "cat {f} > {scratch}/copy" in text
    too_long(labtui(tmp_path, "profiles", str(place / LONG / "p.toml")))
    too_long(labtui(tmp_path, "run", "-p", str(place / "p.toml"), "-t", str(place / LONG), "--param",
                    f"f={place / 'f.txt'}", "--yes"))
    too_long(labtui(tmp_path, "run", "-p", str(place / LONG / "p.toml"), "-t", str(place), "--yes"))
    refused = labtui(tmp_path, "run", "-p", str(place / "p.toml"), "-t", str(place), "--param",
                     f"f={place / LONG}", "--yes")
    assert refused.returncode == 2 and LONG not in refused.stderr and "Traceback" not in refused.stderr


def test_import_export_compare_and_history_take_hostile_paths_as_text(tmp_path, place):
    store = Store(tmp_path / "home")
    for minutes in (0, 1):
        store.save_result(make_result(f"20240501-10300{minutes}-0001", minutes=minutes))
    (place / "report.json").write_text("{not a report")
    harmless(tmp_path, labtui(tmp_path, "import", str(place / "report.json")), codes=(2,))
    (place / "csv").mkdir()
    harmless(tmp_path, labtui(tmp_path, "export", "-f", "configmgr-csv", "--per-result", str(place / "csv")),
             codes=(0,))
    assert sorted(p.name for p in (place / "csv").iterdir()) == [f"20240501-10300{m}-0001.csv" for m in (0, 1)]
    too_long(labtui(tmp_path, "export", "-f", "configmgr-csv", "--per-result", str(place / LONG)))
    too_long(labtui(tmp_path, "import", str(place / LONG)))
    svg = place / "cmp.svg"
    harmless(tmp_path, labtui(tmp_path, "compare", "20240501-103000-0001", "20240501-103001-0001", "--svg", str(svg)),
             codes=(0,))
    assert svg.read_text().startswith("<svg")
    too_long(labtui(tmp_path, "compare", "20240501-103000-0001", "20240501-103001-0001", "--svg",
                    str(place / f"{LONG}.svg")))
    # The store itself at a hostile path.
    harmless(tmp_path, labtui(tmp_path, "history", home=place / "store"), codes=(0,))
    harmless(tmp_path, labtui(tmp_path, "run", "--hosts", str(place / "hosts.toml"), "--yes"))


def test_make_archive_takes_a_hostile_path_as_text(tmp_path, place):
    require_tool("zpaq")
    out = place / "a.zpaq"
    harmless(tmp_path, labtui(tmp_path, "make-archive", "--size", "64K", "--files", "2", str(out)), codes=(0,))
    assert out.stat().st_size > 0
    too_long(labtui(tmp_path, "make-archive", "--size", "64K", str(place / f"{LONG}.zpaq")))


def test_a_hosts_file_is_named_in_one_line(place):
    """The Fleet screen's status line (and run --hosts) name a hosts file that is not there in one line."""
    from labtui.errors import LabtuiError
    from labtui.fleet.hosts import load_hosts

    with pytest.raises(LabtuiError) as refused:
        load_hosts(place / "hosts.toml")
    assert "\n" not in str(refused.value) and "\\x0a[/]/hosts.toml" in str(refused.value), refused.value


async def test_a_field_holding_a_hostile_path_draws_it_and_keeps_it(place, tmp_path):
    """A hosts file's or a directory's name in a text field: its newline and escapes are drawn as
    visible characters (they broke the Fleet screen's line), and the value stays the path."""
    from textual.app import App

    from labtui.widgets.line_input import LineInput

    value = str(place / "hosts\x1b[2J.toml")

    class One(App):
        def compose(self):
            yield LineInput(value=value)

    async with One().run_test(size=(300, 3)) as pilot:
        field = pilot.app.query_one(LineInput)
        drawn = field.render_line(0).text
        assert "\n" not in drawn and "\x1b" not in drawn and "'\"␊[/]/hosts␛[2J.toml" in drawn, repr(drawn)
        assert field.value == value
        field.cursor_position = len(value)
        await pilot.press("x")
        assert field.value == value + "x"
