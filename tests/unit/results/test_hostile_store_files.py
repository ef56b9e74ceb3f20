"""Files in labtui's data directory that are deep, huge or odd: a clear one-line error naming the
file, or (for derived data) a silent rebuild; never an internal error, never minutes of work."""

from __future__ import annotations

import json
import re
import subprocess
import time

from conftest import labtui_cmd
from factories import make_result
from labtui.results.store import Store
from labtui.settings import Settings
from tui_support import make_app, save_history

DEEP = 100_000  # far past Python's recursion limit


def run(*args, timeout=60):
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, timeout=timeout)


def one_line_error(out) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "internal error" not in out.stderr and "Traceback" not in out.stderr
    return out.stderr


def test_a_deeply_nested_summary_index_is_rebuilt(labtui_home):
    saved = save_history(labtui_home, broken=False)
    cache = Store(labtui_home).cache_dir / "summaries.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("[" * DEEP + "]" * DEEP)
    out = run("history", "--json")
    assert out.returncode == 0, out.stderr
    assert sorted(r["id"] for r in json.loads(out.stdout)["results"]) == sorted(r.id for r in saved)
    assert json.loads(cache.read_text())["entries"]  # written anew from the result files
    shown = run("show", saved[0].id)
    assert shown.returncode == 0 and saved[0].id in shown.stdout


def test_a_damaged_entry_in_the_index_is_read_again_from_its_file(labtui_home):
    saved = save_history(labtui_home, broken=False)
    run("history")
    cache = Store(labtui_home).cache_dir / "summaries.json"
    data = json.loads(cache.read_text())
    for entry in data["entries"].values():
        entry["summary"]["steps"] = [[[[["not a step"]]]]]
    cache.write_text(json.dumps(data))
    out = run("history", "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["results"]) == len(saved)


async def test_the_tui_lists_history_over_a_deeply_nested_index(labtui_home):
    from labtui.screens.history import HistoryScreen
    from tui_support import disks_ready, wait_for

    save_history(labtui_home, broken=False)
    cache = Store(labtui_home).cache_dir / "summaries.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("{\"entries\": " + "[" * DEEP + "]" * DEEP + "}")
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.loaded)
        assert len(app.screen.query_one("#results").rows) == 5


def test_a_deeply_nested_profile_is_a_clear_error(labtui_home, tmp_path):
    deep = Store(labtui_home).profiles_dir / "deep.toml"
    deep.parent.mkdir(parents=True)
    deep.write_text('name = "deep"\nx = ' + "[" * DEEP + "]" * DEEP + "\n")
    message = one_line_error(run("run", "-p", str(deep), "-t", str(tmp_path), "--yes"))
    assert f"{deep}: not valid TOML: nested too deeply to read" in message
    listed = run("profiles")
    assert listed.returncode == 0 and "quick-sanity" in listed.stdout
    assert f"skipped {deep}: not valid TOML: nested too deeply" in listed.stderr.replace("\n", "")


def test_deeply_nested_settings_and_themes_do_not_stop_the_tui(labtui_home):
    store = Store(labtui_home)
    store.settings_path().parent.mkdir(parents=True, exist_ok=True)
    store.settings_path().write_text("theme = " + "[" * DEEP + "]" * DEEP + "\n")
    themes = store.config_dir / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "deep.toml").write_text("x = " + "[" * DEEP + "]" * DEEP + "\n")
    app = make_app(labtui_home)
    titles = [title for title, _ in app._startup_warnings]
    assert "Settings not read" in titles and "Theme file skipped" in titles
    assert store.load_settings() == Settings()


def test_a_huge_profile_is_refused_at_once(labtui_home, tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "w") as handle:
        handle.write('name = "big"\n')
        handle.write("# padding\n" * 5_000_000)  # 50 MB
    started = time.monotonic()
    message = one_line_error(run("run", "-p", str(big), "-t", str(tmp_path), "--yes"))
    assert time.monotonic() - started < 30  # not the minutes tomllib would take (no timing claim beyond that)
    assert f"{big}: 50,000,013 bytes is too large for a profile file (at most 1,048,576)" in message


def test_show_with_an_id_no_file_can_have_is_a_clear_error(labtui_home):
    save_history(labtui_home, broken=False)
    message = one_line_error(run("show", "a" * 5000))
    assert "no result with id 'aaaaaaaaaaaaaaaaaaaaaaaa'… (5000 characters; an id is at most 250" in message
    assert len(message) < 200


def test_a_result_with_counts_no_run_can_have_is_listed_as_broken(labtui_home):
    """A damaged or hand-edited file with a negative count is reported and skipped, never shown as '-5.0 IOPS'."""
    store = Store(labtui_home)
    result = make_result()
    _, path = store.save_result(result)
    text = path.read_text()
    assert "ios = " in text
    broken = path.with_name("damaged.toml")
    broken.write_text(re.sub(r"\bios = \d+", "ios = -5", text, count=1).replace(result.id, "20990101-000000-beef"))
    good, bad = store.load_results()
    assert [r.id for r in good] == [result.id]
    (item,) = bad
    assert item.path == broken and "ios = -5: a measured count cannot be negative" in item.reason
    assert broken.read_text().count("ios = -5") == 1, "the file is left as it is"


def test_a_link_to_nowhere_among_the_results_is_listed_as_broken(labtui_home, tmp_path):
    store = Store(labtui_home)
    store.save_result(make_result())
    link = store.results_dir / "moved-away.toml"
    link.symlink_to(tmp_path / "elsewhere.toml")
    rows, broken = store.summaries()
    assert len(rows) == 1
    (item,) = broken
    assert item.path == link and item.reason == f"a link to {tmp_path / 'elsewhere.toml'}, cannot read: No such file or directory"
    assert link.is_symlink(), "left as it is"
