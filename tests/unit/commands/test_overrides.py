"""A run with --duration or --file-size says what ran: in its result, `show`, `compare` and History."""

from __future__ import annotations

import json
import subprocess

from conftest import labtui_cmd
from factories import make_result
from labtui.results.store import Store, builtin_profiles

QUICK = next(p for p in builtin_profiles() if p.name == "quick-sanity")
SAID = ("quick-sanity overridden on the command line: duration 300ms in every step (was 10s), test file 4MiB (was 1GiB), "
        "every step run 1 time (was 3)")


def labtui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd(*args), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_a_quick_trial_is_described_as_it_ran_in_the_result_show_and_compare(labtui_home, disk_dir, tmp_path):
    full = make_result("20240501-103005-aaaa")  # quick-sanity as its file says: 10 s steps on 1 GiB
    Store(labtui_home).save_result(full)
    target = disk_dir / tmp_path.name
    target.mkdir()
    ran = labtui("run", "-p", "quick-sanity", "-t", str(target), "--duration", "300ms", "--file-size", "4M",
                 "--repeat", "1", "--yes", "--json")
    assert ran.returncode == 0, ran.stderr
    trial_id = json.loads(ran.stdout)["id"]
    trial = Store(labtui_home).find_result(trial_id)
    assert trial.profile.name == "quick-sanity"  # still that profile: compared and baselined with its runs
    assert trial.profile.title == "Quick sanity check, overridden" and trial.profile.description == SAID
    shown = labtui("show", trial_id)
    assert shown.returncode == 0, shown.stderr
    assert "quick-sanity (Quick sanity check, overridden)" in shown.stdout and SAID in shown.stdout
    assert "10 s each on a 1 GiB file" not in shown.stdout
    # The full run still says what its file says.
    assert "10 s each on a 1 GiB file" in labtui("show", full.id).stdout
    compared = labtui("compare", full.id, trial_id)
    assert compared.returncode == 0, compared.stderr
    assert f"{trial_id}: " in compared.stdout and "quick-sanity (overridden)" in compared.stdout
    profile_row = next(line for line in compared.stdout.splitlines() if line.strip().startswith("profile "))
    assert profile_row.split()[1:] == ["quick-sanity", "quick-sanity", "(overridden)"], profile_row
    assert "durations differ: A 10s, B 300ms" in compared.stdout


async def test_history_says_a_result_was_overridden_and_how(labtui_home):
    from tui_support import make_app, move_to, open_history, screen_text, wait_for

    store = Store(labtui_home)
    store.save_result(make_result("20240501-103005-aaaa"))
    trial = make_result("20240502-103005-bbbb", minutes=60,
                        profile=QUICK.with_overrides(duration=0.3, file_size=4 * 1024**2, repeat=1))
    store.save_result(trial)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        screen = await open_history(pilot)
        await move_to(pilot, screen, trial.id)
        await wait_for(pilot, lambda: SAID in " ".join(screen_text(app).split()), what="the override in the detail")
        await move_to(pilot, screen, "20240501-103005-aaaa")
        await wait_for(pilot, lambda: "20240501-103005-aaaa · completed" in screen_text(app))
        assert "overridden" not in screen_text(app)


async def test_a_profile_saved_from_an_overridden_run_is_described_against_its_file(labtui_home):
    """Save as from a quick trial's profile: the copy's changes are listed, not "overridden on the command line"."""
    from dataclasses import replace

    from labtui.model.profile import RESULT_ORIGIN
    from labtui.screens.prompt import TextPrompt
    from tui_support import make_app, open_workload, set_text, wait_for

    trial = QUICK.with_overrides(duration=0.3, file_size=4 * 1024**2)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        app.profile = replace(trial, origin=f"{RESULT_ORIGIN}:20240502-103005-bbbb")
        await open_workload(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), what="the name prompt")
        await set_text(pilot, "#prompt-input", "trial")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.profile.name == "trial", what="the save")
    saved = Store(labtui_home).profile("trial")
    assert saved.title == "Quick sanity check, edited" and not saved.overridden
    assert saved.description == ("quick-sanity with test file 4MiB (was 1GiB), duration 300ms in every step "
                                 "(was 10s)")
