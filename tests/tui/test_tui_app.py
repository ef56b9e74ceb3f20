"""The app shell: screens as modes, the command palette, help, quitting, themes remembered."""

from __future__ import annotations

from labtui.results.store import Store
from labtui.screens.confirm import ConfirmModal
from labtui.screens.disks import DisksScreen
from labtui.screens.help import HelpScreen
from labtui.screens.workload import WorkloadScreen
from labtui.settings import Settings
from tui_support import disks_ready, make_app, open_workload, palette_search, palette_type, screen_text, wait_for


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


async def test_palette_reaches_the_workload_screen_by_name(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "workload")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen), what="the workload screen")
        await pilot.pause(0.2)
        assert "quick-sanity" in screen_text(app)


async def test_palette_on_disks_finds_profiles_by_what_the_commands_are_for(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        await palette_search(pilot, "profile")
        text = screen_text(app)
        # The Workload screen (its purpose names profiles), and every profile by name.
        assert "Workload" in text and "Open profile cdm-nvme" in text
        await palette_type(pilot, " cdm-nvme")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkloadScreen) and app.profile.name == "cdm-nvme",
                       what="cdm-nvme in the editor")


async def test_palette_offers_the_current_screens_actions(labtui_home):
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await disks_ready(pilot)
        calls = []
        app.device_source = lambda: calls.append(1) or app.screen.scan
        await palette_search(pilot, "refresh")
        await pilot.press("enter")
        await wait_for(pilot, lambda: calls, what="a rescan from the palette")


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
