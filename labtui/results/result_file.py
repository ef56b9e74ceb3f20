"""The result file: one TOML file per run or import, `results/<id>.toml` under the data root.

This module is the format's reference; what a field means is in labtui.model.result, where each dataclass
below is defined.

    # labtui result file: its last line says it is whole          (HEAD, the first line)
    schema = 1                      # then: SCHEMA; a file of another schema is refused, never guessed
    id = "20261201-110322-1087"     # the file's stem; UTC start, then 4 random hex digits
    status = "completed"            # completed | aborted | failed (STATUSES)
    started, ended                  # TOML date-times, with their zone
    tags = [...]  warnings = [...]  error = "..."           # error only when failed or aborted
    source, source_file, source_digest                      # only for a result imported from another tool
    [params]                        # the values the profile's parameters had
    [host]                          # HostInfo: name, os, kernel, cpu_model, cpu_count, ram_bytes
    [target]                        # TargetInfo: path, device, disk, model, serial, transport,
                                    #   pcie_speed/width and their maxima, pcie_port_max_speed/width
                                    #   (the slot's port), sata_speed, sata_max_speed, usb_speed, sas_speed (the link:
                                    #   labtui.analysis.bottleneck; absent in older files), filesystem, mount_point ...
    [engine]                        # EngineInfo: name, version, command_line
    [profile]                       # the profile as it ran, in the profile file's own keys
    [[profile.steps]]               #   (labtui.results.profile_file), read back without validation:
                                    #   a result keeps what ran even if today's rules refuse it
    [preparation]                   # Preparation: bytes, seconds, direct (how the test file was written)
    [precondition]                  # Precondition: passes, bytes, seconds, pass_seconds, direct (the
                                    #   profile's sequential passes before the steps; absent without)
    [[steps]]                       # StepResult, one per step and repetition, in the order they ran:
                                    #   status, repetition, backend, processes, cpu_percent, command_line ...
      [steps.step]                  #   the step as it ran
      [steps.read] [steps.write]    #   DirectionStats: ios, bytes, seconds (the measured counts)
      [steps.latency] ...           #   LatencySummary in ms: mean, min, max, p50 ... p9999
      [steps.steady_state]          #   SteadyState, for a step run to steady state: rule, figure,
                                    #   round_seconds, window, max_rounds, attained, rounds (every
                                    #   round's figure), window_start, window_figures, mean, slope,
                                    #   judged_by, and criteria = [{name, value, limit, percent,
                                    #   held}, ...] (value left out: no mean to judge by). Absent
                                    #   for a timed step (and in files from before it), whose
                                    #   counts are the whole step's, not a window's
      [steps.verify]                #   Verification, for a verified step: checksum, blocks, bytes,
                                    #   mismatched, unwritten, covered_bytes, file_bytes, engine, and
                                    #   mismatches = [{offset, kind, detail, expected, found, differ_at,
                                    #   expected_bytes, found_bytes, differing}, ...] (the first 100)
      [steps.series]                #   the interval series as columns, one array per Sample field
                                    #   (SAMPLE_FIELDS): nan where an interval lacks the figure, the
                                    #   column left out where none has it. `series` is the one key
                                    #   named otherwise than its field (StepResult.samples); the drive's
                                    #   columns (drive_temp_c, link_gts, link_width, thermal_transitions)
                                    #   hold a value only in the intervals where the drive was read
      [steps.drive_before] [steps.drive_after]   # DriveFacts: the drive before and after the step (source,
                                    #   temperature_c, warning_c, critical_c, critical_warning, percentage_used,
                                    #   media_errors, thermal_transitions, pcie_speed/width, aer_* ...);
                                    #   absent where nothing was read (and in files from before them)
      [[steps.drops]]               #   Drop: t, bytes_before, before_mib_s, after_mib_s, cause, evidence,
                                    #   recovered_t (labtui.analysis.drops); absent where nothing fell
    # end of labtui result: 3 steps                               (the last line: END)

A file is proved whole by its first and last lines, TOML comments that readers of the keys never
see (so an older labtui reads a newer file): one that starts with HEAD but does not end with END,
or whose END counts other steps than it holds, was cut short (a full disk, a labtui killed while
writing it, a truncated copy) and is refused with that reason, however well the rest parses. A file
without HEAD is from before this rule (or written by hand) and is read as before.

Rules: a field that is None is left out, and reads back as None; an unknown key or a missing
required one is an error naming it (with its path, e.g. `steps[2].read: missing 'ios'`); text read
back is made printable (a result file may come from anywhere: no escape codes reach a terminal).
Rates (IOPS, MiB/s) are never stored: they are derived from the counts when shown.
labtui.results.store decides where files go and bounds their size; this module turns a result into
its text and back.
"""

from __future__ import annotations

import math
import re
import types
import typing
from dataclasses import MISSING, fields, is_dataclass
from datetime import datetime
from typing import Any

from labtui.model.profile import RESULT_ORIGIN, SCHEMA, STATUSES, Profile, Step
from labtui.model.result import SAMPLE_FIELDS, DirectionStats, RunResult, Sample, StepResult, celsius
from labtui.model.verification import Verification
from labtui.printable import printable
from labtui.results.files import dumps_toml, loads_toml
from labtui.results.profile_file import profile_from_table, profile_to_table, step_from_table, step_to_table


def to_plain(value: Any) -> Any:
    """Turn a result dataclass tree into TOML-ready values; None fields are left out."""
    if isinstance(value, (Profile, Step)):
        return profile_to_table(value) if isinstance(value, Profile) else step_to_table(value)
    if isinstance(value, StepResult):
        # No drop: no key (files read and written back by an older labtui stay the same).
        data = dataclass_to_plain(value, skip=("samples",) + (() if value.drops else ("drops",)))
        if value.samples:
            data["series"] = _samples_to_columns(value.samples)
        return data
    if is_dataclass(value):
        return dataclass_to_plain(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def dataclass_to_plain(value: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in fields(value):
        if f.name in skip:
            continue
        item = getattr(value, f.name)
        if item is None or (isinstance(item, dict) and not item):
            continue
        data[f.name] = to_plain(item)
    return data


def _samples_to_columns(samples: tuple[Sample, ...]) -> dict[str, list]:
    # Columns keep a 300-sample series to a few lines; None (not measured) is stored as nan.
    columns: dict[str, list] = {}
    for name in SAMPLE_FIELDS:
        values = [getattr(s, name) for s in samples]
        if all(v is None for v in values):
            continue
        columns[name] = [math.nan if v is None else v for v in values]
    return columns


def _columns_to_samples(columns: Any) -> tuple[Sample, ...]:
    if not isinstance(columns, dict):
        raise ValueError("series must be a table of columns")
    unknown = set(columns) - set(SAMPLE_FIELDS)
    if unknown:
        raise ValueError(f"unknown series column {sorted(unknown)[0]!r}")
    lengths = {len(v) for v in columns.values() if isinstance(v, list)}
    if len(lengths) > 1 or any(not isinstance(v, list) for v in columns.values()):
        raise ValueError("series columns differ in length")
    count = lengths.pop() if lengths else 0
    hints = typing.get_type_hints(Sample)
    samples = []
    for i in range(count):
        values = {}
        for name, column in columns.items():
            value = column[i]
            if isinstance(value, float) and math.isnan(value):
                value = None
            values[name] = _from_plain(hints[name], value, f"series.{name}")
            if name == "drive_temp_c":  # as DriveFacts keeps it: nothing a drive cannot have (inf, 65262)
                values[name] = celsius(values[name])
        samples.append(Sample(**values))
    return tuple(samples)


def _from_plain(hint: Any, value: Any, where: str) -> Any:
    """Check `value` against the annotation `hint` and build dataclasses; ValueError on mismatch."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        if options[0] is float and isinstance(value, float) and not math.isfinite(value):
            return None  # nan or inf where a figure may be missing: not measured (show crashed on p99 = nan)
        return _from_plain(options[0], value, where)
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected a table")
        key_hint, item_hint = typing.get_args(hint)
        return {_from_plain(key_hint, k, where): _from_plain(item_hint, v, f"{where}.{k}") for k, v in value.items()}
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list")
        item = typing.get_args(hint)[0]
        return tuple(_from_plain(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if hint is Profile:
        return profile_from_table(value, origin=RESULT_ORIGIN, check=False)
    if hint is Step:
        return step_from_table(value, check=False)
    if isinstance(hint, type) and is_dataclass(hint):
        return dataclass_from_plain(hint, value, where)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}: expected a number, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is no measured number")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}: expected a whole number, got {value!r}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{where}: expected a string, got {value!r}")
        return printable(value)  # a result file may come from anywhere: no escape codes reach a terminal
    if hint is datetime:
        if not isinstance(value, datetime):
            raise ValueError(f"{where}: expected a date-time, got {value!r}")
        return value
    raise ValueError(f"{where}: cannot read a {hint!r}")


def dataclass_from_plain(cls: type, data: Any, where: str) -> Any:
    at = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise ValueError(f"{at}expected a table")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if cls is StepResult and key == "series":
            values["samples"] = _columns_to_samples(value)
            continue
        if key not in names:
            raise ValueError(f"{at}unknown key {key!r}")
        values[key] = _from_plain(hints[key], value, f"{where}.{key}" if where else key)
    required = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING]
    missing = [name for name in required if name not in values]
    if missing:
        raise ValueError(f"{at}missing {', '.join(repr(m) for m in missing)}")
    if cls is DirectionStats:
        # Counts no run can have (a hand-edited or damaged file): shown, they read "-5.0 IOPS" as a figure.
        for name in ("ios", "bytes", "seconds"):
            value = values.get(name, 0)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{at}{name} = {value!r}: a measured count cannot be negative")
    built = cls(**values)
    if cls is Verification and (why := built.impossible()) is not None:
        raise ValueError(f"{at}{why}")  # else a damaged file's verified step read "data ok"
    return built


HEAD = "# labtui result file: its last line says it is whole"
END = "# end of labtui result: {steps} steps"
_END_RE = re.compile(r"# end of labtui result: (\d+) steps")


def result_to_toml(result: RunResult) -> str:
    data = to_plain(result)
    # Schema first, so a person opening the file sees what format it is.
    ordered = {"schema": data.pop("schema")} | data
    return f"{HEAD}\n{dumps_toml(ordered)}{END.format(steps=len(result.steps))}\n"


def _steps_said(text: str) -> int | None:
    """How many steps a file's END line says it holds; None for a file from before HEAD and END.
    ValueError for a file that starts with HEAD and does not end with END: it was cut short."""
    if not text.startswith(HEAD):
        return None
    last = text.rstrip().rpartition("\n")[2].strip()
    said = _END_RE.fullmatch(last)
    if said is None:
        size = len(text.encode("utf-8"))
        raise ValueError(f"cut short after {size:,} bytes: its last line is not labtui's end-of-result line "
                         "(a full disk, a labtui killed while writing it, or a truncated copy)")
    return int(said.group(1))


def result_from_toml(text: str) -> RunResult:
    """Parse a result file's text; ValueError/TOMLDecodeError with a reason if it is not one (or not whole)."""
    steps = _steps_said(text)
    data = loads_toml(text)
    schema = data.get("schema")
    if schema is None:
        raise ValueError("no schema number: not a labtui result file")
    if schema != SCHEMA:
        raise ValueError(f"schema {schema!r} is not one this labtui reads (it reads {SCHEMA})")
    result = dataclass_from_plain(RunResult, data, "")
    if result.status not in STATUSES:
        raise ValueError(f"status {result.status!r} is not one of {', '.join(STATUSES)}")
    if steps is not None and steps != len(result.steps):
        raise ValueError(f"it holds {len(result.steps)} steps where its last line says {steps}: part of it is missing")
    return result
