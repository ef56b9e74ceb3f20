"""The engines a test runs over: the registry's (labtui.engine.registry), never a list of names here.

A test about every engine takes `registered()`; one about engines with some property (a thread
per I/O in flight, kernel AIO events) takes `having(...)`, asked of each engine's class, so an
engine added to the registry is tested wherever it belongs. `require(engine)` skips where it
cannot run on this machine (DiskSpd on Linux), saying why.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labtui.engine.base import Engine, EngineUnavailable
from labtui.engine.registry import engine_class, engine_names, get_engine
from labtui.settings import EngineSettings


def registered() -> list[str]:
    return engine_names()


def having(predicate: Callable[[Engine], bool], settings: EngineSettings | None = None) -> list[str]:
    """The registered engines for which `predicate(engine)` holds."""
    return [name for name in engine_names() if predicate(engine_class(name)(settings))]


def require(engine: str, settings: EngineSettings | None = None) -> None:
    try:
        get_engine(engine, settings).check_available()
    except EngineUnavailable as exc:
        pytest.skip(f"the {engine} engine cannot run here: {exc}")
