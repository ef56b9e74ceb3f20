"""The profile file: a workload as TOML, hand-written by users, so its keys are a contract.

This module is the format's reference; what a field means is in labtui.model.profile (Profile, Step) and
labtui.params (Param), where each is defined. Built-in profiles are package data
(`labtui/profiles/*.toml`), user ones `profiles/<name>.toml` under the data root; a result file
keeps the profile it ran in these same keys (labtui.results.result_file), read back unchecked.

    schema = 1                      # optional (1 where left out); another schema is refused
    name = "quick-sanity"           # the file's stem: what `-p` takes; letters, digits, . _ -
    title, description              # text shown in lists (title: the name where left out)
    file_size = "1GiB"              # the test file; sizes 4096, 4K, 64KiB, 1M, 20G (powers of 1024)
    free_space_margin = "1GiB"      # kept free beyond the test file
    repeat = 1                      # runs of every step (MAX_REPEAT)
    aggregate = "mean"              # mean | best: a step's figure from its repetitions (AGGREGATES)
    repeat_order = "profile"        # profile | step (REPEAT_ORDERS)
    discard_first = false           # each step's first pass prepares the drive, not counted
    pause = "0s"                    # idle before every pass but the first; durations 500ms, 10s, 5m, 1h
    decimal_units = false           # also show MB/s (10^6 bytes per second)
    precondition = 0                # sequential passes over the test file first (MAX_PRECONDITION)
    [params.NAME]                   # a value given at run time, {NAME} in command steps:
                                    #   description, default (none: it must be given), type
                                    #   (text | file | directory)
    [[steps]]                       # one per step, in order; name first, then its kind's keys:
      kind = "io"                   #   io (the default): block_size, pattern (random | sequential),
                                    #   write_percent, threads, outstanding, duration, warmup,
                                    #   cooldown, cache (off | on), latency, write_through, pause,
                                    #   steady_state (a SteadyRule: "snia", "iops_slope:0.1%"),
                                    #   steady_window, steady_max_rounds, native_workers (auto |
                                    #   per-thread: how the native engine carries the threads),
                                    #   verify (every block written carries a header, every read
                                    #   is checked against it: blocks of whole 4 KiB, cache off)
      kind = "command"              #   command: command, workdir, setup, cleanup, requires,
                                    #   timeout, drop_caches, sync, cooldown, pause

Rules: a key of the other kind of step, or one nobody reads, is an error naming it with its path
(`steps[2].threads`) and the likely intended key (a typo must not silently run a different test);
a key left out takes the dataclass default, so a file and `Profile(...)` mean the same; keys added
after the first profiles (aggregate, write_through, steady_state ...) are written only where not
their default, so an older file reads back and writes out the same; text read is made printable.
Validation is the model's own (Profile.validate, Step.validate), the rules every editor and loader
uses. labtui.results.store decides where profile files are and bounds their size; this module
turns a profile into its text and back.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import fields
from typing import Any

from labtui.errors import ValidationError
from labtui.model.profile import STEP_KINDS, Profile, Step
from labtui.params import Param
from labtui.printable import printable
from labtui.results.files import dumps_toml, loads_toml
from labtui.units import foreign_digits, format_duration, format_size, parse_duration, parse_size

PROFILE_SCHEMA = 1

# Keys that mean something for one kind of step only: the other kind would silently ignore them.
IO_KEYS = ("block_size", "pattern", "write_percent", "threads", "outstanding", "duration", "warmup", "cache", "latency",
           "write_through", "steady_state", "steady_window", "steady_max_rounds", "native_workers", "verify")
COMMAND_KEYS = ("command", "workdir", "setup", "cleanup", "timeout", "drop_caches", "sync", "requires")
_PARAM_KEYS = ("description", "default", "type")
# Profile keys of the presets (how repetitions run and are reported), read by _preset_values.
PRESET_KEYS = ("aggregate", "repeat_order", "discard_first", "pause", "decimal_units")


def _unknown_key(key: object, known: Iterable[str], where: str) -> ValidationError:
    """The error for a key nobody reads, with the likely intended key (a typo must not pass)."""
    close = difflib.get_close_matches(str(key), sorted(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValidationError(f"unknown key {key!r}{hint}", where)


# --------------------------------------------------------------------------- text


def profile_to_text(profile: Profile) -> str:
    """The profile file's text, schema first."""
    return f"schema = {PROFILE_SCHEMA}\n" + dumps_toml(profile_to_table(profile))


def parse_profile_text(text: str, where: str, origin: str = "user") -> Profile:
    """Read and validate a profile file's text; ValidationError "<where>: <reason>" on any problem."""
    try:
        data = loads_toml(text)
    except ValueError as exc:  # TOMLDecodeError, too deep, or an integer of more than 4300 digits
        raise ValidationError(f"{where}: not valid TOML: {exc}") from None
    schema = data.pop("schema", PROFILE_SCHEMA)
    if schema != PROFILE_SCHEMA:
        raise ValidationError(f"{where}: profile schema {schema!r} is not one this labtui reads")
    try:
        return profile_from_table(data, origin=origin)
    except ValidationError as exc:
        raise ValidationError(f"{where}: {exc}") from None


# --------------------------------------------------------------------------- profile


def profile_to_table(profile: Profile) -> dict[str, Any]:
    """A profile as the profile file's table (without `schema`, which profile_to_text adds)."""
    data: dict[str, Any] = {
        "name": profile.name,
        "title": profile.title,
        "description": profile.description,
        "file_size": format_size(profile.file_size),
        "free_space_margin": format_size(profile.free_space_margin),
        "repeat": profile.repeat,
    }
    # Written only where not the default, so files from before these keys read back the same.
    if profile.aggregate != "mean":
        data["aggregate"] = profile.aggregate
    if profile.repeat_order != "profile":
        data["repeat_order"] = profile.repeat_order
    if profile.discard_first:
        data["discard_first"] = True
    if profile.pause:
        data["pause"] = format_duration(profile.pause)
    if profile.decimal_units:
        data["decimal_units"] = True
    if profile.precondition:
        data["precondition"] = profile.precondition
    if profile.params:
        data["params"] = {p.name: param_to_table(p) for p in profile.params}
    data["steps"] = [step_to_table(s) for s in profile.steps]
    return data


def profile_from_table(data: Any, origin: str = "user", *, check: bool = True) -> Profile:
    """Read a profile table; `check=False` keeps foreign workloads (imports) as they were."""
    if not isinstance(data, dict):
        raise ValidationError("a profile must be a table")
    known = {"name", "title", "description", "file_size", "free_space_margin", "repeat", "precondition", "params",
             "steps", "schema", *PRESET_KEYS}
    for key in data:
        if key not in known:
            raise _unknown_key(key, known - {"schema"}, "")
    name = data.get("name")
    if name is None:
        raise ValidationError("the profile needs a name", "name")
    if not isinstance(name, str):  # `name = 5` has a name, of the wrong type: "needs a name" sent people looking
        raise ValidationError(f"must be a string, got {name!r}", "name")
    for key in ("title", "description"):
        if key in data and not isinstance(data[key], str):
            raise ValidationError(f"must be a string, got {data[key]!r}", key)
    steps_data = data.get("steps")
    if not isinstance(steps_data, list) or not steps_data:
        raise ValidationError("the profile needs at least one [[steps]] table", "steps")
    steps = tuple(step_from_table(s, f"steps[{i + 1}]", check=check) for i, s in enumerate(steps_data))
    params_data = data.get("params", {})
    if not isinstance(params_data, dict):
        raise ValidationError("parameters are tables such as [params.archive]", "params")
    params = tuple(param_from_table(name, value) for name, value in params_data.items())
    # A key left out takes the dataclass default, so a file and Profile(...) mean the same.
    profile = Profile(
        name=name,
        title=printable(data.get("title", name)),
        description=printable(data.get("description", "")),
        file_size=parse_size(data.get("file_size", Profile.file_size), field="file_size", allow_zero=not check),
        free_space_margin=parse_size(
            data.get("free_space_margin", Profile.free_space_margin), field="free_space_margin", allow_zero=True
        ),
        repeat=_int(data.get("repeat", Profile.repeat), "repeat"),
        precondition=_int(data.get("precondition", Profile.precondition), "precondition"),
        steps=steps,
        **_preset_values(data),
        params=params,
        origin=origin,
    )
    if check:
        profile.validate()
    return profile


def _preset_values(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in ("aggregate", "repeat_order"):
        if key in data:
            if not isinstance(data[key], str):
                raise ValidationError(f"must be a string, got {data[key]!r}", key)
            values[key] = data[key]
    for key in ("discard_first", "decimal_units"):
        if key in data:
            if not isinstance(data[key], bool):
                raise ValidationError(f"must be true or false, got {data[key]!r}", key)
            values[key] = data[key]
    if "pause" in data:
        values["pause"] = parse_duration(data["pause"], field="pause", allow_zero=True)
    return values


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(f"must be a whole number, got {value!r}", where)
    if isinstance(value, str) and foreign_digits(value):  # float() reads "４" as 4; nothing else labtui reads does
        raise ValidationError(f"must be a whole number in digits 0-9, got {value!r}", where)
    try:
        number = float(value)
    except ValueError:
        raise ValidationError(f"must be a whole number, got {value!r}", where) from None
    if not math.isfinite(number) or number != int(number):
        raise ValidationError(f"must be a whole number, got {value!r}", where)
    return int(number)


# --------------------------------------------------------------------------- steps


def step_to_table(step: Step) -> dict[str, Any]:
    """A step as its [[steps]] table: the keys of its kind only, the newer ones only where set."""
    data: dict[str, Any] = {"name": step.name}
    if step.kind == "command":
        data["kind"] = "command"
        data["command"] = step.command
        if step.workdir:
            data["workdir"] = step.workdir
        if step.setup:
            data["setup"] = step.setup
        if step.cleanup:
            data["cleanup"] = step.cleanup
        if step.requires:
            data["requires"] = list(step.requires)
        data["timeout"] = format_duration(step.timeout)
        data["drop_caches"] = step.drop_caches
        data["sync"] = step.sync
        data["cooldown"] = format_duration(step.cooldown)
        if step.pause is not None:
            data["pause"] = format_duration(step.pause)
        return data
    data.update(
        block_size=format_size(step.block_size),
        pattern=step.pattern,
        write_percent=step.write_percent,
        threads=step.threads,
        outstanding=step.outstanding,
        duration=format_duration(step.duration),
        warmup=format_duration(step.warmup),
        cooldown=format_duration(step.cooldown),
        cache=step.cache,
        latency=step.latency,
    )
    # Written only where set, so profiles and results from before these keys read back the same.
    if step.write_through:
        data["write_through"] = True
    if step.pause is not None:
        data["pause"] = format_duration(step.pause)
    if step.steady_state:
        data.update(steady_state=step.steady_state, steady_window=step.steady_window,
                    steady_max_rounds=step.steady_max_rounds)
    if step.native_workers:
        data["native_workers"] = step.native_workers
    if step.verify:
        data["verify"] = True
    return data


def step_from_table(data: Any, where: str = "step", *, check: bool = True) -> Step:
    """Read a [[steps]] table; `check=False` keeps what ran (a result's, a fleet event's) unvalidated."""
    if not isinstance(data, dict):
        raise ValidationError("a step must be a table of settings", where)
    known = {f.name for f in fields(Step)}
    for key in data:
        if key not in known:
            raise _unknown_key(key, known, where)
    kind = data.get("kind", "io")
    if kind not in STEP_KINDS:
        raise ValidationError(f"kind must be one of {', '.join(STEP_KINDS)}, got {kind!r}", f"{where}.kind")
    foreign = IO_KEYS if kind == "command" else COMMAND_KEYS
    for key in foreign:
        if key in data:
            raise ValidationError(f"{key!r} does not apply to a step of kind {kind!r}", f"{where}.{key}")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise ValidationError(f"must be a string, got {name!r}", f"{where}.name")
    if name is None or not name.strip():
        raise ValidationError("every step needs a non-empty name", f"{where}.name")
    values: dict[str, Any] = {"name": printable(name.strip()), "kind": kind}
    for key in ("block_size",):
        if key in data:
            values[key] = parse_size(data[key], field=f"{where}.{key}", allow_zero=not check)
    for key in ("duration", "timeout"):
        if key in data:
            values[key] = parse_duration(data[key], field=f"{where}.{key}", allow_zero=not check)
    for key in ("warmup", "cooldown", "pause"):
        if key in data:
            values[key] = parse_duration(data[key], field=f"{where}.{key}", allow_zero=True)
    for key in ("write_percent", "threads", "outstanding", "steady_window", "steady_max_rounds"):
        if key in data:
            values[key] = _int(data[key], f"{where}.{key}")
    for key in ("latency", "drop_caches", "sync", "write_through", "verify"):
        if key in data:
            if not isinstance(data[key], bool):
                raise ValidationError(f"must be true or false, got {data[key]!r}", f"{where}.{key}")
            values[key] = data[key]
    for key in ("pattern", "cache", "command", "workdir", "setup", "cleanup", "steady_state", "native_workers"):
        if key in data:
            if not isinstance(data[key], str):
                raise ValidationError(f"must be a string, got {data[key]!r}", f"{where}.{key}")
            values[key] = data[key]
    if "requires" in data:
        programs = data["requires"]
        if not isinstance(programs, list) or not all(isinstance(p, str) for p in programs):
            raise ValidationError(f"must be a list of program names, got {programs!r}", f"{where}.requires")
        values["requires"] = tuple(programs)
    step = Step(**values)
    if check:
        step.validate(where)
    return step



# --------------------------------------------------------------------------- parameters


def param_to_table(param: Param) -> dict[str, Any]:
    """A parameter as its [params.NAME] table."""
    data: dict[str, Any] = {"description": param.description}
    if param.default is not None:
        data["default"] = param.default
    if param.type != "text":
        data["type"] = param.type
    return data


def param_from_table(name: object, data: Any, where: str = "params") -> Param:
    """Read and validate the [params.NAME] table `data`."""
    at = f"{where}.{name}"
    if not isinstance(data, dict):
        raise ValidationError(
            "a parameter is a table such as [params.archive] with description = \"...\"", at
        )
    for key in data:
        if key not in _PARAM_KEYS:
            close = difflib.get_close_matches(str(key), _PARAM_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValidationError(f"unknown key {key!r}{hint}", at)
    for key in _PARAM_KEYS:
        if key in data and not isinstance(data[key], str):
            raise ValidationError(f"must be a string, got {data[key]!r}", f"{at}.{key}")
    param = Param(name=str(name), description=data.get("description", ""), default=data.get("default"),
                  type=data.get("type", "text"))
    param.validate(where)
    return param
