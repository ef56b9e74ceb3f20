"""The app shell: screens as modes, the command palette, help, quitting, themes remembered; no single letter starts a run."""

from __future__ import annotations

import string

from textual import events
from textual.widgets import Input

from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.disks import DisksScreen
from labtui.screens.fleet import FleetScreen
from labtui.screens.help import HelpScreen
from labtui.screens.run_driver import RunDriver
from labtui.settings import Settings
from tui_support import disks_ready, make_app, open_run, open_workload, save_history, screen_text, short_profile, wait_for


async def test_starts_on_disks_and_switches_with_single_keys(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        text = screen_text(app)
        assert "Samsung SSD 980 PRO 1TB" in text and "nvme0n1p2" in text
        assert "w Workload" in text and "d Disks" not in text  # the current screen's key is left out
        await open_workload(pilot)
        assert "quick-sanity" in screen_text(app)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))


async def test_help_lists_the_keys_of_the_current_screen(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "Refresh" in text and "Choose: Make the highlighted volume the target" in text and "Quit" in text
        assert "Save" not in text
        await pilot.press("escape")
        await open_workload(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "Save" in text and "Duplicate" in text and "Refresh" not in text


async def test_q_quits_at_once_when_nothing_is_going(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")


async def test_q_asks_first_while_a_run_is_going(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        app.run_active = True
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "A run is going" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, DisksScreen))
        assert app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")


async def test_theme_is_remembered_across_starts(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        assert app.theme == "labtui-dark"
        app.theme = "labtui-high-contrast"
        await pilot.pause()
    assert Store(labtui_home).load_settings().theme == "labtui-high-contrast"
    again = make_app(labtui_home)
    async with again.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        assert again.theme == "labtui-high-contrast"


async def test_all_shipped_themes_apply(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        for name in ("labtui-light", "labtui-high-contrast", "textual-dark", "labtui-dark"):
            app.theme = name
            await pilot.pause()
            assert app.theme_variables["labtui-read"]  # labtui's variables exist in every theme


def _user_theme_chosen(home, file_name: str, text: str, name: str):
    """An app whose config dir holds the theme file `text` and whose settings choose `name`."""
    themes = home / "themes"
    themes.mkdir()
    (themes / file_name).write_text(text)
    Store(home).save_settings(Settings(theme=name))
    return make_app(home)


async def test_broken_theme_file_is_reported_and_the_default_used(labtui_home):
    themes = labtui_home / "themes"
    app = _user_theme_chosen(labtui_home, "mine.toml", 'name = "mine"\nprimary = "not-a-colour"\n', "mine")
    async with app.run_test(size=(100, 30)) as pilot:
        await disks_ready(pilot)
        assert app.theme == "labtui-dark"
        messages = " ".join(str(n.message) for n in app._notifications)
        assert "mine.toml" in messages and "not-a-colour" in messages
        assert "'mine' is not available" in messages
    # The broken file and the setting are left alone for the person to fix.
    assert (themes / "mine.toml").read_text().startswith('name = "mine"')


async def test_user_theme_from_the_config_dir_is_used(labtui_home):
    text = 'name = "lab"\nprimary = "#aa5500"\n[variables]\nlabtui-read = "#00aaff"\n'
    app = _user_theme_chosen(labtui_home, "lab.toml", text, "lab")
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        assert app.theme == "lab"
        assert app.theme_variables["labtui-read"] == "#00aaff"


async def test_a_broken_settings_file_is_reported_and_never_overwritten(labtui_home):
    settings = labtui_home / "config.toml"
    settings.write_text('theme = "labtui-light\n')  # unterminated string
    app = make_app(labtui_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await disks_ready(pilot)
        app.theme = "labtui-high-contrast"
        await pilot.pause()
        assert any("config.toml" in str(n.message) for n in app._notifications)
    assert settings.read_text() == 'theme = "labtui-light\n'


async def test_switching_screens_rebuilds_no_footer_whose_keys_stay_the_same(labtui_home, monkeypatch):
    from labtui.screens.history import HistoryScreen
    from labtui.widgets.keys_footer import KeysFooter

    built = []
    real_compose = KeysFooter.compose
    monkeypatch.setattr(KeysFooter, "compose", lambda self: built.append(type(self.screen).__name__) or real_compose(self))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await disks_ready(pilot)
        # History, not Run: the Run screen's cursor is in its tags field, where d is typed.
        for key in "hdhd":  # each screen shown once: its footer built
            await pilot.press(key)
            await pilot.pause(0.2)
        built.clear()
        for key in "hdhd":
            await pilot.press(key)
            await wait_for(pilot, lambda key=key: isinstance(app.screen, HistoryScreen if key == "h" else DisksScreen))
            await pilot.pause(0.2)
            # The footer on show leaves out its own screen's key.
            footer = screen_text(app).splitlines()[-1]
            assert ("d Disks" in footer) == (key == "h") and ("h History" in footer) == (key == "d"), footer
        assert built == []


# No plain letter starts a run that writes, on any screen, wherever the cursor is (issue 39, items 1-2).
#
# Every single-character key a screen (or its focused widget) binds is pressed on its screen, with
# a result in History under the cursor and a volume marked on Disks, and every letter on the Run
# screen with nothing focused: none of them reaches a run's checks. A key that leads to a run asks
# first (History's a, the Disks screen's R), and that question is left unanswered here.
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


async def test_keys_typed_right_after_tab_go_to_the_field_tab_moved_to(labtui_home):
    # Over ssh a typist's keys arrive in one read: Textual's Tab (the screen's, after the field had
    # its turn) moved the focus only after the next keys had gone to the field being left.
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_run(pilot)
        assert app.focused is screen.query_one("#setup-tags", Input)
        for key, char in (("shift+tab", None), ("5", "5"), ("shift+tab", None), ("2", "2"), ("s", "s"),
                          ("tab", None), ("tab", None), ("x", "x")):
            app.post_message(events.Key(key, char))  # all at once, as one read from the terminal
        await wait_for(pilot, lambda: screen.query_one("#setup-tags", Input).value == "x")
        assert screen.query_one("#trial-repeat", Input).value == "5"
        assert screen.query_one("#trial-file-size", Input).value == "2s"


def test_a_key_between_a_modes_screens_is_no_traceback(labtui_home):
    # r and a tag in one read: a key reached the app in the instant the Run mode had no screen yet, and asking
    # what had the focus raised ScreenStackError (a traceback, and labtui gone).
    app = make_app(labtui_home)
    assert not app.screen_stack
    key = events.Key("s", "s")
    app.on_key(key)
    assert key._stop_propagation
