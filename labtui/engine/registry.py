"""Every engine `labtui run -e` can run, in one place: its name and where its class is.

A new engine is a package under labtui/engine/ (start from skeleton.py) and one line in ENGINES.
Everything else labtui says of an engine (its title, its CPU-bound advice, the settings it reads,
its command line in the Workload screen's preview) the engine's class says itself; the help of
`labtui run`, the Run screen's choice, the preview and tests/unit/engine/test_base.py read this list.
The classes (and the engines' base) are imported when first asked for: listing the names, as every
`labtui` command line's help does, costs nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

from labtui.errors import LabtuiError

if TYPE_CHECKING:  # imported where an engine is asked for: `labtui --help` lists the names without them
    from labtui.engine.base import CpuAdvice, Engine
    from labtui.model.profile import Step
    from labtui.settings import EngineSettings

# name -> "module:Class", in the order people are offered them; the first is the default.
ENGINES: dict[str, str] = {
    "native": "labtui.engine.native.engine:NativeEngine",
    "fio": "labtui.engine.fio.engine:FioEngine",
    "diskspd": "labtui.engine.diskspd.engine:DiskSpdEngine",
}


def engine_names() -> list[str]:
    """The registered engines whose module this labtui has, in the order of ENGINES."""
    names = []
    for name, spec in ENGINES.items():
        module = spec.split(":")[0]
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def default_engine() -> str:
    return next(iter(ENGINES))


def engine_choices() -> str:
    """The engines as `labtui run --help` lists them: "native (default), fio or diskspd"."""
    names = engine_names()
    first, rest = f"{names[0]} (default)", names[1:]
    return f"{', '.join([first, *rest[:-1]])} or {rest[-1]}" if rest else first


def engine_class(name: str) -> type[Engine]:
    """The class registered under `name`; LabtuiError for an unknown one."""
    spec = ENGINES.get(name)
    if spec is None or name not in engine_names():
        raise LabtuiError(f"unknown engine {name!r} (choose from {', '.join(engine_names())})")
    from labtui.engine.base import Engine

    module_name, class_name = spec.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Engine)):
        raise LabtuiError(f"{spec} (the engine {name!r}) is not an Engine")
    return cls


def get_engine(name: str, settings: EngineSettings | None = None) -> Engine:
    """The engine registered under `name`, with these settings; LabtuiError for an unknown one."""
    return engine_class(name)(settings)


def engine_availability(settings: EngineSettings | None = None) -> list[tuple[str, str | None]]:
    """Each engine's name and why it cannot run here (None where it can): what this machine has."""
    found: list[tuple[str, str | None]] = []
    for name in engine_names():
        try:
            get_engine(name, settings).check_available()
            found.append((name, None))
        except LabtuiError as exc:
            found.append((name, str(exc)))
    return found


def _known(name: str) -> type[Engine] | None:
    """The class of a registered engine; None for a name a result may carry that is not one here."""
    try:
        return engine_class(name)
    except LabtuiError:
        return None


def engine_title(name: str) -> str:
    """How people read an engine's name ("DiskSpd"); a name not registered here (an imported result's) as it is."""
    cls = _known(name)
    return cls.title if cls is not None else name


def cpu_advice(name: str) -> CpuAdvice:
    """What to do about a CPU-bound step of engine `name`: the default engine's words for one not registered here."""
    from labtui.engine.base import CpuAdvice

    cls = _known(name) or _known(default_engine())
    return cls.cpu_advice if cls is not None else CpuAdvice()


def io_threads(name: str, step: Step) -> int:
    """The I/O threads each worker of engine `name` runs for `step` (1 for one not registered here)."""
    cls = _known(name)
    return cls.io_threads(step) if cls is not None else 1
