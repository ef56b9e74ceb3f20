"""No plain letter starts a run that writes, on any screen, wherever the cursor is (issue 39, items 1-2).

Every single-character key a screen (or its focused widget) binds is pressed on its screen, with
a result in History under the cursor and a volume marked on Disks, and every letter on the Run
screen with nothing focused: none of them reaches a run's checks. A key that leads to a run asks
first (History's a, the Disks screen's R), and that question is left unanswered here.
"""

from __future__ import annotations

import string

from labtui.results.store import Store
from labtui.screens.fleet import FleetScreen
from labtui.screens.run_driver import RunDriver
from labtui.settings import Settings
from tui_support import disks_ready, make_app, save_history, short_profile, wait_for

# The app's own letters go to another screen or quit: what they do is the same everywhere.
APP_LETTERS = set("dwrhfq")


async def _back_to(pilot, screen) -> None:
    """Close whatever the key opened (a question, a prompt, a pushed screen) until `screen` is on show."""
    for _ in range(4):
        if pilot.app.screen is screen:
            return
        await pilot.press("escape")
        await pilot.pause(0.05)
    assert pilot.app.screen is screen, f"could not get back to {screen} from {pilot.app.screen}"


def _letters_bound(screen) -> list[str]:
    return sorted({key for key, active in screen.active_bindings.items()
                   if len(key) == 1 and key.isprintable() and active.node is not screen.app and active.enabled})


async def test_no_single_letter_on_any_screen_starts_a_run(labtui_home, tmp_path, monkeypatch):
    target = tmp_path / "target"
    target.mkdir()
    save_history(labtui_home)
    store = Store(labtui_home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / "tiny.toml").write_text(short_profile("tiny"))
    store.save_settings(Settings(profile="tiny", profile_origin="user", target=str(target)))
    started: list[str] = []
    monkeypatch.setattr(RunDriver, "_preflight", lambda self, *a, **k: started.append("run"))
    monkeypatch.setattr(FleetScreen, "action_start", lambda self: started.append("fleet"))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        pressed: dict[str, list[str]] = {}
        for mode in ("disks", "workload", "history", "fleet", "run"):
            await app.switch_mode(mode)
            await wait_for(pilot, lambda mode=mode: app.current_mode == mode, what=mode)
            await pilot.pause(0.3)
            screen = app.screen
            if mode == "run":
                await wait_for(pilot, lambda screen=screen: screen.engines, what="the engine check")
                screen.set_focus(None)  # out of the tags field: letters are the screen's keys
            for key in _letters_bound(screen):
                if mode == "disks" and not screen.marked:
                    screen.action_mark()  # R is offered only with a volume marked
                await pilot.press(key)
                await pilot.pause(0.1)
                pressed.setdefault(mode, []).append(key)
                await _back_to(pilot, screen)
                assert started == [], f"{key!r} on {mode} started a run"
        # On the Run screen, every letter but the app's with nothing focused; on Start and on the
        # engine choice (which bind no letter of their own), s and the screen's letters again.
        run = app.screen
        letters = [c for c in string.ascii_letters if c not in APP_LETTERS]
        for focus, keys in ((None, letters), ("#setup-start", ["s", "S", *pressed.get("run", [])]),
                            ("#setup-engine", ["s", "S", *pressed.get("run", [])])):
            run.set_focus(run.query_one(focus) if focus else None)
            await pilot.press(*keys)
            await pilot.pause(0.1)
            assert app.screen is run and started == [], f"a letter on the Run screen (focus {focus}) started a run"
        # The keys pressed above include those that lead to a run, which ask first.
        assert "a" in pressed["history"] and "R" in pressed["disks"], pressed
        assert run.state == "idle" and run.runner is None and not app.run_active
        # What does start it: Enter on Start, Enter in the tags, the chords; Escape leaves the tags.
        for focus, keys in (("#setup-start", ["enter"]), ("#setup-tags", ["enter"]), (None, ["ctrl+s"]),
                            (None, ["f5"])):
            run.set_focus(run.query_one(focus) if focus else None)
            await pilot.press(*keys)
            await wait_for(pilot, lambda: started, what=f"{keys} starting the run")
            started.clear()
        # Escape leaves an override field too (it did nothing there: 'd' then typed into the duration).
        run.query_one("#trial-duration").focus()
        await pilot.press("escape", "d")
        await wait_for(pilot, lambda: app.current_mode == "disks", what="d, out of the duration field")
        assert run.query_one("#trial-duration").value == ""
        await pilot.press("r")
        await wait_for(pilot, lambda: app.screen is run, what="r, back to the Run screen")
        run.query_one("#setup-tags").focus()
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: app.current_mode == "history", what="h, out of the tags field")
