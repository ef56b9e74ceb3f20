"""config.toml: typed settings, a wrong value reported in one line and ignored, nothing a person wrote lost."""

from __future__ import annotations

import asyncio

from labtui.engine.registry import engine_availability
from labtui.model.profile import Profile, Step
from labtui.results.files import loads_toml
from labtui.results.store import Store
from labtui.run.runner import Runner
from labtui.settings import EngineSettings, Settings
from tui_support import make_app


def test_each_known_key_reads_as_its_type_and_the_engines_get_theirs():
    settings, problems = Settings.from_toml({
        "theme": "nord", "profile": "cdm-nvme", "profile_origin": "builtin", "target": "/mnt/lab", "engine": "fio",
        "fio_path": "/opt/fio/bin/fio", "native_backend": "aio", "overrun_seconds": 3, "native_workers": "per-thread",
    })
    assert problems == {}
    assert (settings.theme, settings.profile, settings.profile_origin, settings.target, settings.engine) == (
        "nord", "cdm-nvme", "builtin", "/mnt/lab", "fio")
    assert settings.engines == EngineSettings(fio_path="/opt/fio/bin/fio", native_backend="aio", overrun_seconds=3,
                                              native_workers="per-thread")
    assert Settings.from_toml({}) == (Settings(), {})


def test_a_wrong_type_is_one_problem_naming_the_key_and_the_default_is_used():
    settings, problems = Settings.from_toml({"target": 3, "theme": ["nord"], "overrun_seconds": "ten",
                                             "native_backend": True, "engine": "native"}, "/home/lab/config.toml")
    assert list(problems.values()) == [
        "/home/lab/config.toml: target must be an absolute path, got 3; ignored",
        "/home/lab/config.toml: theme must be a theme's name, got ['nord']; ignored",
        "/home/lab/config.toml: overrun_seconds must be a number of seconds above 0, got 'ten'; ignored",
        "/home/lab/config.toml: native_backend must be the name of a backend (auto, io_uring, aio or sync), "
        "got True; ignored",
    ]
    assert settings.target is None and settings.theme is None and settings.engine == "native"
    assert settings.engines == EngineSettings()
    assert Settings.from_toml({"target": "relative/dir"})[1] == {
        "target": "config.toml: target must be an absolute path, got 'relative/dir'; ignored"}


def test_unknown_keys_and_ignored_values_stay_in_the_file_and_a_choice_replaces_a_wrong_one(labtui_home):
    store = Store(labtui_home)
    store.settings_path().parent.mkdir(parents=True, exist_ok=True)
    store.settings_path().write_text('target = 3\nkeymap = { quit = "ctrl+q" }\nfio_path = "/opt/fio"\n')
    found = store.read_settings()
    assert list(found.problems.values()) == [f"{store.settings_path()}: target must be an absolute path, got 3; ignored"]
    assert found.engine_problems == []
    store.save_settings(found.settings.changed(theme="nord"))
    assert loads_toml(store.settings_path().read_text()) == {
        "target": 3, "keymap": {"quit": "ctrl+q"}, "fio_path": "/opt/fio", "theme": "nord"}
    store.save_settings(store.load_settings().changed(target="/mnt/lab"))
    assert loads_toml(store.settings_path().read_text()) == {
        "target": "/mnt/lab", "keymap": {"quit": "ctrl+q"}, "fio_path": "/opt/fio", "theme": "nord"}


def test_the_app_reports_an_ignored_setting_once_and_starts_from_the_defaults(labtui_home):
    store = Store(labtui_home)
    store.settings_path().parent.mkdir(parents=True, exist_ok=True)
    store.settings_path().write_text('target = 3\ntheme = "nord"\n')
    app = make_app(labtui_home)
    assert [w for w in app._startup_warnings if w[0] == "Setting ignored"] == [
        ("Setting ignored", f"{store.settings_path()}: target must be an absolute path, got 3; ignored")]
    assert app.target is None and app.theme == "nord" and app.settings.theme == "nord"


def test_a_configured_program_that_is_not_there_makes_its_engine_unavailable(tmp_path):
    missing = tmp_path / "no-fio"
    found = dict(engine_availability(EngineSettings(fio_path=str(missing))))
    assert found["fio"] == f"the setting fio_path is {str(missing)!r}, which is not an executable file"
    assert found["native"] is None


def test_a_run_names_the_engine_setting_it_ignored_and_runs_with_the_default(labtui_home, disk_dir):
    store = Store(labtui_home)
    store.settings_path().parent.mkdir(parents=True, exist_ok=True)
    store.settings_path().write_text('native_backend = 1\ntheme = 2\n')
    step = Step(name="read", block_size=65536, threads=1, outstanding=2, duration=0.3, warmup=0.0)
    profile = Profile(name="tiny", title="tiny", file_size=16 * 1024 * 1024, free_space_margin=0, steps=(step,))
    result = asyncio.run(Runner(profile, disk_dir, store).run())
    assert result.status == "completed"
    # What the run could not use is said with its result; the TUI's own theme is none of its business.
    assert [w for w in result.warnings if "config.toml" in w] == [
        f"{store.settings_path()}: native_backend must be the name of a backend (auto, io_uring, aio or sync), "
        "got 1; ignored"]


DEEP = 100_000  # far past Python's recursion limit


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
