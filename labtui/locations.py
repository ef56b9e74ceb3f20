"""Where labtui keeps its files: the data and config roots and every folder and file in them, in one place.

    data root ($LABTUI_HOME, else the platform's data folder: ~/.local/share/labtui)
        results/<id>.toml     one file per run or import (labtui.results.result_file)
        profiles/<name>.toml  user profiles (labtui.results.profile_file; built-ins are package data)
        baselines.toml        one baseline per disk and profile (labtui.results.baselines)
        cache/                derived data, safe to delete (labtui.results.summaries: the results' index)
        running/<id>.json     a marker per run in progress, for the next run to clean up after a killed
                              one (labtui.run.leftovers)
    config root ($LABTUI_HOME too, else the platform's config folder: ~/.config/labtui)
        config.toml           the settings (labtui.settings)
        themes/<name>.toml    the user's colour themes (labtui.tui.theming)

The disks' locks are no store's: they are in the system's temporary folder, for every user and every
LABTUI_HOME to see (labtui.run.target_lock). Nothing here looks at the disk: it only names places.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HOME_ENV = "LABTUI_HOME"


def data_home() -> Path:
    """Root of results and user profiles: $LABTUI_HOME, else the platform's data dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("labtui", appauthor=False))


def config_home() -> Path:
    """Root of settings and user themes: $LABTUI_HOME, else the platform's config dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("labtui", appauthor=False))


@dataclass(frozen=True)
class Locations:
    """The places under one data root and one config root."""

    home: Path  # the data root
    config_dir: Path  # the config root

    @classmethod
    def at(cls, home: Path | None = None, config_dir: Path | None = None) -> Locations:
        """The roots given; else, for a data root given, the same folder for the config (a test's or a
        lab's LABTUI_HOME-like root); else the environment's and the platform's."""
        data = Path(home) if home is not None else data_home()
        config = Path(config_dir) if config_dir else (data if home is not None else config_home())
        return cls(data, config)

    @property
    def results_dir(self) -> Path:
        return self.home / "results"

    @property
    def profiles_dir(self) -> Path:
        return self.home / "profiles"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def running_dir(self) -> Path:
        return self.home / "running"

    @property
    def baselines_file(self) -> Path:
        return self.home / "baselines.toml"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def themes_dir(self) -> Path:
        return self.config_dir / "themes"
