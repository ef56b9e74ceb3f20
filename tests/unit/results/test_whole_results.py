"""A result file proves it is whole, a half-saved one is not lost, and broken ones do not drown History
(issue 37, items 13, 15 and 16).

- 36 of 400 truncated copies of a result loaded as `completed`, one with 0 steps: a result file now
  begins and ends with lines that prove it whole, and one cut short is broken, with the reason;
  files from before those lines load as they always did.
- A SIGKILL between a result's flush and its link left a complete `.ID.toml.*.tmp` that no command
  mentioned: the next command puts it in place and says so (a real SIGKILL of a real save).
- 2,000 broken files printed 1,964 "skipped" lines before History's rows: one line now, and
  `labtui history --broken` lists them.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from conftest import labtui_cmd
from factories import make_result
from labtui.errors import StoreError
from labtui.results.result_file import HEAD, result_from_toml, result_to_toml
from labtui.results.store import Store

SUPPORT = Path(__file__).resolve().parents[2] / "support"  # factories, for the killed child


def history(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("history", *args), capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LABTUI_HOME": str(home), "COLUMNS": "200"})


def test_no_truncated_copy_of_a_result_loads(tmp_path):
    store = Store(tmp_path / "home")
    _saved, path = store.save_result(make_result())
    whole = path.read_bytes()
    assert whole.startswith(HEAD.encode()) and whole.rstrip().endswith(b"# end of labtui result: 2 steps")
    cuts = random.Random(37).sample(range(len(whole)), 400)
    for cut in cuts:
        path.write_bytes(whole[:cut])
        try:
            loaded = store.read_result(path)
        except StoreError as exc:
            # Past its first line, the reason is always that it was cut short (not what of it happens to parse).
            assert cut <= len(HEAD) or "cut short after" in str(exc), (cut, exc)
        else:
            raise AssertionError(f"cut at {cut} of {len(whole)} bytes loaded as {loaded.status}, {len(loaded.steps)} steps")


def test_a_file_missing_a_step_says_so_and_one_from_before_the_lines_still_loads():
    text = result_to_toml(make_result())
    one_step = result_to_toml(replace(make_result(), steps=make_result().steps[:1]))
    body = one_step.removeprefix(HEAD + "\n").rpartition("# end of labtui result")[0]
    try:
        result_from_toml(f"{HEAD}\n{body}# end of labtui result: 2 steps\n")
    except ValueError as exc:
        assert "it holds 1 steps where its last line says 2: part of it is missing" in str(exc)
    else:
        raise AssertionError("a result missing a step loaded")
    older = text.removeprefix(HEAD + "\n").rpartition("# end of labtui result")[0]  # as labtui wrote it before
    assert result_from_toml(older) == make_result()


KILL_BEFORE_LINK = """
import os, signal, sys
sys.path.insert(0, sys.argv[2])
from factories import make_result
from labtui.results import files
from labtui.results.store import Store

def killed(tmp, path):  # right after the flush, before the link: as a SIGKILL would land
    os.kill(os.getpid(), signal.SIGKILL)

files._link_exclusive = killed
Store(sys.argv[1]).save_result(make_result("20240501-103005-dead"))
"""


def test_a_result_whose_save_was_killed_is_recovered_by_the_next_command(tmp_path):
    home = tmp_path / "home"
    killed = subprocess.run([sys.executable, "-c", KILL_BEFORE_LINK, str(home), str(SUPPORT)], capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (temp,) = (home / "results").iterdir()
    assert temp.name.startswith(".20240501-103005-dead.toml.") and temp.name.endswith(".tmp")
    # A save killed while it wrote leaves a temp file cut short: named with its path, and kept.
    half = home / "results" / ".20240501-103005-cafe.toml.x1y2z3.tmp"
    text = result_to_toml(make_result("20240501-103005-cafe")).encode()
    half.write_bytes(text[: len(text) // 2])
    out = history(home, "--json")
    assert out.returncode == 0, out.stderr
    assert [r["id"] for r in json.loads(out.stdout)["results"]] == ["20240501-103005-dead"]
    err = " ".join(out.stderr.split())
    assert (f"recovered the result 20240501-103005-dead (completed) into {home / 'results' / '20240501-103005-dead.toml'}"
            ": a labtui was killed as it saved it") in err, err
    assert f"{half} is a result a labtui was saving when it was killed, and it is not whole (cut short after" in err
    assert sorted(p.name for p in (home / "results").iterdir()) == [half.name, "20240501-103005-dead.toml"]
    assert "recovered" not in history(home).stderr, "said once"


def results_and_broken(home: Path, results: int, broken: int = 40) -> None:
    """`results` whole results in the store at `home`, and `broken` copies of one cut short at 40 lengths."""
    store = Store(home)
    for minutes in range(results):
        store.save_result(make_result(f"20240501-10300{minutes}-0001", minutes=minutes))
    text = result_to_toml(make_result()).encode()
    for number in range(broken):
        (home / "results" / f"broken-{number:02d}.toml").write_bytes(text[: 100 + number * 50])


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


async def test_history_in_the_tui_counts_many_broken_files_and_lists_them_when_asked(labtui_home):
    """The TUI's History as `labtui history`: many broken files are counted beside the results, not 40 rows
    under them; the filter "broken" lists them (each row's reason and x to delete it are as before)."""
    from tui_support import make_app, open_history, set_text, shown_ids, wait_for, widget_text

    results_and_broken(labtui_home, 2)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_history(pilot)
        assert shown_ids(screen) == ["20240501-103001-0001", "20240501-103000-0001"]
        assert widget_text(app, "#history-count") == "2 results · 40 files not whole (/ broken lists them)"
        await pilot.press("slash")
        await set_text(pilot, "#history-filter", "broken")
        await wait_for(pilot, lambda: len(shown_ids(screen)) == 40, what="the broken files listed")
        assert all(key.startswith("broken:") for key in shown_ids(screen))
