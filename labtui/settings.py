"""labtui's settings (config.toml in the config folder): each key, its type and default; read once, checked.

The file is one flat TOML table, so any older file still reads:

    theme            the colour theme's name (the TUI remembers the last one chosen)
    profile          the profile chosen last, and profile_origin, "builtin" or "user"
    target           the directory (or raw block device) runs wrote to last: an absolute path
    engine           the engine chosen last on the Run screen
    hosts_file       the hosts file the Fleet screen opened last
    fio_path         fio's executable, where it is not on the PATH
    diskspd_path     DiskSpd's executable, likewise
    native_backend   the native engine's I/O loop: auto (the default), io_uring, aio or sync
    native_workers   how the native engine carries a step's threads: auto (the default: at most one
                     process per CPU, each driving several threads' I/Os) or per-thread (one process
                     per thread, DiskSpd's shape); a step's own native_workers wins
    overrun_seconds  how long a native step may run past its planned end before it is called hung
    fleet_connections  how many hosts of a fleet run (--hosts, the Fleet screen) open their ssh
                     connection at once (default 8: sshd's stock MaxStartups drops some past 10)

A value of the wrong type is a problem (one line naming the key) and is ignored: its default is
used, and the value stays in the file as it was. Keys this version does not know are kept too,
so an older labtui never deletes what a newer one wrote. Which values are valid beyond their
type (a theme that exists, an engine that can run here) is for the part that uses them to say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class EngineSettings:
    """What the engines read: where the external programs are, and how the native engine runs.
    None is "not set": the engine's own default applies."""

    fio_path: str | None = None
    diskspd_path: str | None = None
    native_backend: str | None = None
    native_workers: str | None = None
    overrun_seconds: float | None = None
    # Not for config.toml: how tests inject the machine and look inside the native engine.
    missing_backends: Mapping[str, str] | None = None  # backend -> why it is missing, instead of probing
    cpus: int | None = None  # the CPUs the native engine may use, instead of asking the machine
    trace_offsets: int = 0  # each worker records this many of its offsets
    # Called with the native engine's StepObservation after each step: what it did beyond its result.
    observe: Callable[[Any], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Settings:
    """config.toml, read: what the TUI remembers and what the engines use (None: not set)."""

    theme: str | None = None
    profile: str | None = None
    profile_origin: str | None = None
    target: str | None = None
    engine: str | None = None
    hosts_file: str | None = None
    fleet_connections: int | None = None
    engines: EngineSettings = EngineSettings()
    # Keys this version does not know, and values of the wrong type, as they are in the file.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_toml(cls, data: Mapping[str, Any], where: str = "config.toml") -> tuple[Settings, dict[str, str]]:
        """The settings in `data`, and the problem with each key whose value was ignored ("config.toml: target
        must be ..."). Never raises."""
        problems: dict[str, str] = {}
        extra: dict[str, Any] = {}
        chosen: dict[str, Any] = {}
        engine: dict[str, Any] = {}
        for key, value in data.items():
            wanted = _KEYS.get(key)
            if wanted is None:
                extra[key] = value
                continue
            kind, check, meaning = wanted
            if isinstance(value, kind) and not isinstance(value, bool) and check(value):
                (engine if key in ENGINE_KEYS else chosen)[key] = value
            else:
                problems[key] = f"{where}: {key} must be {meaning}, got {value!r}; ignored"
                extra[key] = value
        return cls(**chosen, engines=EngineSettings(**engine), extra=extra), problems

    def to_toml(self) -> dict[str, Any]:
        """The flat table config.toml holds: what is set, beside what this version left alone."""
        data = dict(self.extra)
        for key in _KEYS:
            value = getattr(self.engines if key in ENGINE_KEYS else self, key)
            if value is not None:
                data[key] = value
        return data

    def changed(self, **changes: Any) -> Settings:
        """These settings with the TUI's choices in `changes` (theme, profile, ...); a choice made replaces
        a value of the wrong type the file had for it."""
        extra = {k: v for k, v in self.extra.items() if k not in changes}
        return replace(self, **changes, extra=extra)


@dataclass(frozen=True)
class SettingsFile:
    """config.toml as read: its settings, the problems with its values, and why it does not parse, if it does not."""

    settings: Settings
    problems: dict[str, str]  # key -> why its value was ignored
    broken: str | None  # labtui then writes nothing to it until it is fixed or removed

    @property
    def engine_problems(self) -> list[str]:
        """The problems with what the engines read (a run says them; the rest are the TUI's)."""
        return [problem for key, problem in self.problems.items() if key in ENGINE_KEYS]


_NUMBER = (int, float)


def _text(value: str) -> bool:
    return bool(value.strip())


def _absolute(value: str) -> bool:
    return value.startswith("/")


def _positive(value: float) -> bool:
    return value > 0


# key -> (type, further check, what it must be, as the problem says it)
_KEYS: dict[str, tuple[Any, Any, str]] = {
    "theme": (str, _text, "a theme's name"),
    "profile": (str, _text, "a profile's name"),
    "profile_origin": (str, _text, '"builtin" or "user"'),
    "target": (str, _absolute, "an absolute path"),
    "engine": (str, _text, "an engine's name"),
    "hosts_file": (str, _text, "the path of a hosts file"),
    "fleet_connections": (int, _positive, "a whole number of connections above 0"),
    "fio_path": (str, _text, "the path of fio's executable"),
    "diskspd_path": (str, _text, "the path of DiskSpd's executable"),
    "native_backend": (str, _text, "the name of a backend (auto, io_uring, aio or sync)"),
    "native_workers": (str, _text, "auto or per-thread"),
    "overrun_seconds": (_NUMBER, _positive, "a number of seconds above 0"),
}
ENGINE_KEYS = {f.name for f in fields(EngineSettings)} & set(_KEYS)
