"""Where labtui keeps its files is said in one place (labtui.locations), and every part finds its files there."""

from __future__ import annotations

from labtui.locations import Locations, config_home, data_home
from labtui.model.profile import Profile, Step
from labtui.results import baselines
from labtui.results.store import Store
from labtui.run.runner import Runner


def test_the_store_the_baselines_and_a_run_keep_their_files_where_locations_says(tmp_path):
    store = Store(tmp_path / "lab")
    places = Locations(tmp_path / "lab", tmp_path / "lab")  # a data root given is the config root too
    assert store.locations == places
    assert (store.results_dir, store.profiles_dir, store.cache_dir, store.running_dir, store.settings_path()) == (
        places.results_dir, places.profiles_dir, places.cache_dir, places.running_dir, places.settings_file)
    assert baselines.path(store) == places.baselines_file == tmp_path / "lab" / "baselines.toml"
    assert Runner(Profile(name="p", steps=(Step(name="s"),)), tmp_path, store)._running_dir() == tmp_path / "lab" / "running"
    assert places.themes_dir == tmp_path / "lab" / "themes"


def test_the_roots_come_from_labtui_home_else_the_platforms_folders(tmp_path, monkeypatch):
    monkeypatch.delenv("LABTUI_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert Locations.at() == Locations(tmp_path / "data" / "labtui", tmp_path / "config" / "labtui")
    assert Locations.at(config_dir=tmp_path / "elsewhere").config_dir == tmp_path / "elsewhere"
    monkeypatch.setenv("LABTUI_HOME", str(tmp_path / "lab"))
    assert data_home() == config_home() == tmp_path / "lab"
    assert Store().settings_path() == tmp_path / "lab" / "config.toml"
