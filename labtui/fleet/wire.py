"""The fleet wire format: labtui's run events and the agent's conversation as JSON lines (protocol 1).

`labtui agent` (on a lab host, started through `ssh`) and `labtui run|check --hosts` (the local
side) talk one JSON object per line, UTF-8, each with a "type". Figures are exact counts, as in a
result file; a value that was not measured is null (JSON has no NaN).

Agent -> local, in order:
    {"type": "hello", "protocol": 1, "labtui": "0.1.0", "schema": 1, "host": {HostInfo}}
        first, before anything is run; the local side refuses a host whose protocol, labtui
        version or file schema (profiles and results) differ from its own, and says so
    {"type": "ready", "target": {TargetInfo}, "directory": "...", "test_file": "..." | null,
     "planned_seconds": 12.4}
        the request passed preflight (nothing written yet); the agent waits for "start"
    {"type": "refused", "reason": "..."}
        the request cannot run here (preflight, a bad profile, no baseline); the agent exits 2
    then the run's events (labtui.engine.events), one line each:
    {"type": "run_started", "run_id", "profile": {profile table}, "target": {TargetInfo},
     "engine": {EngineInfo}, "steps_total", "planned_seconds"}
    {"type": "prepare", "bytes_done", "bytes_total", "seconds"}
    {"type": "step_started", "index", "total", "step": {step table}, "repetition", "command_line"}
    {"type": "sample", "index", "phase": "warmup" | "measure", "sample": {Sample}}
    {"type": "step_finished", "index", "result": {StepResult as in a result file, "samples": [...]}}
    {"type": "precondition", "bytes_done", "bytes_total", "seconds", "passes", "passes_done"}
    {"type": "steady_round", "index", "state": {SteadyState}}
    {"type": "paused", "seconds", "before"}      the profile's pause before pass `before`
    {"type": "warning", "message"}
    {"type": "run_finished", "result": "<the result file's TOML text>", "path": "..." | null,
     "save_error": "..." | null}
        also sent after the run was stopped: the aborted result, as saved on the host
    {"type": "check_report", "report": {what `labtui check --json` prints}}     (check only)
    {"type": "bye", "exit_code": 0}
        last: the agent's exit code (0 ok, 1 failed or aborted, 2 refused, 3 check could not tell)

Local -> agent:
    {"type": "run", "profile": "<profile TOML text>", "target", "engine", "tags": [...],
     "params": {...}, "interval": 1.0 | null, "keep_file": false}
        "interval": the live sample interval asked for (seconds), null for the default (1 s); one
        given is checked as --interval is (100 ms to 1 h, at most the shortest step)
    {"type": "check", "target", "profile", "engine", "tolerance", "repeat", "confirm",
     "fail_on": [...], "duration", "file_size", "params": [...]}
    {"type": "start", "delay": 0.8}      start after this many seconds (the hosts' shared instant)
    {"type": "stop", "by": "SIGHUP"}     stop the run (its partial result is saved as aborted); "by":
                                         what stopped the local side (a signal's name, the Fleet screen)
    {"type": "ping"}                     every 5 s: the local side is there
End of file on the agent's stdin (ssh gone, the local labtui killed) stops the run too, and so
do 30 s without any message (a link cut without a reset, a local labtui frozen).

Lines that are not JSON objects before "hello" (a login shell's greeting) are skipped by the
reader; after it, one is a protocol error.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

from labtui import __version__
from labtui.engine.events import (
    DriveSampled,
    Event,
    Paused,
    PreconditionProgress,
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    SteadyRound,
    StepFinished,
    StepStarted,
)
from labtui.errors import LabtuiError
from labtui.model.profile import SCHEMA
from labtui.model.result import (
    DriveReading,
    EngineInfo,
    HostInfo,
    RunResult,
    Sample,
    SteadyState,
    StepResult,
    TargetInfo,
)
from labtui.printable import printable_fields
from labtui.results import result_file
from labtui.results.files import json_safe
from labtui.results.profile_file import profile_from_table, profile_to_table, step_from_table, step_to_table
from labtui.series import downsample, group_size

PROTOCOL = 1
PING_SECONDS = 5.0  # the local side says at least this often that it is there
SILENCE_SECONDS = 30.0  # an agent that hears nothing for this long stops its run (the link is gone)
# What a host may send. A result file is kilobytes; the largest labtui writes (the 20,000
# intervals labtui.series keeps, about 2 MB) fits twice in MAX_RESULT_BYTES, and the agent merges
# a larger one's series until it fits. A line is one message: the result's text in JSON, whose
# escaping takes at most three times its bytes (an emoji is twelve). A step's intervals travel
# bounded too (WIRE_STEP_SAMPLES: the live charts draw fewer; the result carries its own series).
MAX_RESULT_BYTES = 4 * 1024 * 1024
MAX_LINE_BYTES = 3 * MAX_RESULT_BYTES + 64 * 1024
WIRE_STEP_SAMPLES = 2_000


class WireError(ValueError):
    """A line that is not labtui's wire format (or a message of an unknown kind)."""


def dumps(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON, NaN as null, newline-terminated."""
    return json.dumps(json_safe(message), separators=(",", ":"), allow_nan=False, default=str).encode() + b"\n"


# The widest number a message holds: a drive's 128-bit counter in bytes (2**128 x 512,000) has 45 digits.
MAX_DIGITS = 50


class _NoNumber(ValueError):
    """A number in a line that no labtui sends (dumps writes none): what it was."""


def _no_constant(name: str) -> Any:
    raise _NoNumber(f"{name} is no number labtui sends")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e400
        raise _NoNumber(f"{text[:20]} is past what a number may be")
    return number


def _bounded(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:  # 400 digits: no float holds it (OverflowError), no count is that large
        raise _NoNumber(f"a number of {len(text.lstrip('-')):,} digits is past what a count may be")
    return int(text)


def loads(line: bytes | str) -> dict[str, Any]:
    """A line back as a message (WireError if it is not a JSON object with a type, or holds a number no
    labtui sends: NaN, Infinity, 1e400, a 400-digit count, which a host's figures and times would carry
    into every sum and chart, or drop its result with an OverflowError)."""
    try:
        message = json.loads(line, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded)
    except _NoNumber as exc:
        raise WireError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise WireError(f"not a JSON line: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise WireError("not a message (a JSON object with a \"type\")")
    return message


def host_message(line: bytes | str) -> dict[str, Any]:
    """A line a host sent, as a message with every text in it made printable (labtui.printable):
    the one gate a host's words pass to reach the operator's terminal (its warnings, reasons, save
    errors, step names, paths), escape sequences shown rather than obeyed. WireError as loads."""
    return printable_fields(loads(line))


def hello(host: HostInfo) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL, "labtui": __version__, "schema": SCHEMA, "host": plain(host)}


def mismatch(message: dict[str, Any]) -> str | None:
    """Why a host's hello rules it out ("labtui 0.0.9 there, 0.1.0 here"), or None if it matches."""
    theirs = (message.get("protocol"), message.get("labtui"), message.get("schema"))
    if theirs[1] != __version__:
        return f"it runs labtui {theirs[1]}, this is labtui {__version__}: install the same version on both"
    if theirs[2] != SCHEMA:
        return f"its profile and result format is schema {theirs[2]}, this labtui's is {SCHEMA}"
    if theirs[0] != PROTOCOL:
        return f"it speaks fleet protocol {theirs[0]}, this labtui speaks {PROTOCOL}"
    return None


# --------------------------------------------------------------------------- events


def event_to_wire(event: Event) -> dict[str, Any]:
    """An engine event as a wire message."""
    if isinstance(event, RunStarted):
        return {"type": "run_started", "run_id": event.run_id, "profile": profile_to_table(event.profile),
                "target": plain(event.target), "engine": plain(event.engine), "steps_total": event.steps_total,
                "planned_seconds": event.planned_seconds}
    if isinstance(event, PrepareProgress):
        return {"type": "prepare", "bytes_done": event.bytes_done, "bytes_total": event.bytes_total,
                "seconds": event.seconds}
    if isinstance(event, PreconditionProgress):
        return {"type": "precondition", "bytes_done": event.bytes_done, "bytes_total": event.bytes_total,
                "seconds": event.seconds, "passes": event.passes, "passes_done": event.passes_done}
    if isinstance(event, SteadyRound):
        return {"type": "steady_round", "index": event.index, "state": plain(event.state)}
    if isinstance(event, StepStarted):
        return {"type": "step_started", "index": event.index, "total": event.total, "step": step_to_table(event.step),
                "repetition": event.repetition, "command_line": event.command_line}
    if isinstance(event, DriveSampled):
        return {"type": "drive", "index": event.index, "seconds": event.seconds, "reading": plain(event.reading)}
    if isinstance(event, SampleTaken):
        return {"type": "sample", "index": event.index, "phase": event.phase, "sample": plain(event.sample)}
    if isinstance(event, StepFinished):
        return {"type": "step_finished", "index": event.index, "result": step_result_to_wire(event.result)}
    if isinstance(event, Paused):
        return {"type": "paused", "seconds": event.seconds, "before": event.before}
    if isinstance(event, RunWarning):
        return {"type": "warning", "message": event.message}
    if isinstance(event, RunFinished):
        raise WireError("a run's end travels as its result file (finished_message), not as an event")
    raise WireError(f"not an engine event: {type(event).__name__}")


EVENT_TYPES = ("run_started", "prepare", "precondition", "step_started", "sample", "steady_round", "drive",
               "step_finished", "paused", "warning")


def event_from_wire(message: dict[str, Any]) -> Event:
    """A wire message back as the engine event it stands for (WireError if it is not one)."""
    kind = message.get("type")
    try:
        if kind == "run_started":
            return RunStarted(
                run_id=_str(message["run_id"]),
                profile=profile_from_table(message["profile"], origin="fleet", check=False),
                target=_model(TargetInfo, message["target"]),
                engine=_model(EngineInfo, message["engine"]),
                steps_total=_int(message["steps_total"]),
                planned_seconds=_float(message["planned_seconds"]),
            )
        if kind == "prepare":
            return PrepareProgress(_int(message["bytes_done"]), _int(message["bytes_total"]),
                                   _float(message["seconds"]))
        if kind == "precondition":
            return PreconditionProgress(_int(message["bytes_done"]), _int(message["bytes_total"]),
                                        _float(message["seconds"]), _int(message["passes"]),
                                        _int(message["passes_done"]))
        if kind == "steady_round":
            return SteadyRound(_int(message["index"]), _model(SteadyState, message["state"]))
        if kind == "step_started":
            line = message.get("command_line")
            return StepStarted(_int(message["index"]), _int(message["total"]),
                               step_from_table(message["step"], check=False), _int(message["repetition"]),
                               None if line is None else _str(line))
        if kind == "sample":
            phase = _str(message["phase"])
            if phase not in ("warmup", "measure"):
                raise WireError(f"unknown phase {phase!r}")
            return SampleTaken(_int(message["index"]), phase, _model(Sample, message["sample"]))
        if kind == "drive":
            return DriveSampled(_int(message["index"]), _float(message["seconds"]),
                                _model(DriveReading, message["reading"]))
        if kind == "step_finished":
            return StepFinished(_int(message["index"]), step_result_from_wire(message["result"]))
        if kind == "paused":
            return Paused(_float(message["seconds"]), _int(message["before"]))
        if kind == "warning":
            return RunWarning(_str(message["message"]))
    except KeyError as exc:
        raise WireError(f"a {kind} message without {exc.args[0]!r}") from None
    except (ValueError, TypeError, LabtuiError) as exc:  # LabtuiError: the model's ValidationError
        raise WireError(f"a {kind} message that does not read: {exc}") from None
    raise WireError(f"not an event message: {kind!r}")


def step_result_to_wire(result: StepResult) -> dict[str, Any]:
    """A finished step with at most WIRE_STEP_SAMPLES intervals (neighbours merged, series_merged says
    how many): a four-hour step sampled every 100 ms would be a line of 40 MB."""
    size = group_size(len(result.samples), WIRE_STEP_SAMPLES)
    if size > 1:
        result = replace(result, samples=tuple(downsample(result.samples, WIRE_STEP_SAMPLES)),
                         series_merged=size * (result.series_merged or 1))
    data = result_file.to_plain(result)
    data.pop("series", None)
    data["samples"] = [plain(s) for s in result.samples]
    return data


def step_result_from_wire(data: Any) -> StepResult:
    if not isinstance(data, dict):
        raise WireError("a step result must be an object")
    data = dict(data)
    samples = data.pop("samples", [])
    if not isinstance(samples, list):
        raise WireError("a step result's samples must be a list")
    result = _model(StepResult, data)
    return replace(result, samples=tuple(_model(Sample, s) for s in samples))


def finished_message(text: str, path: str | None, save_error: str | None) -> dict[str, Any]:
    """The run's end: its result file's text, exactly as saved on the host (full context included)."""
    return {"type": "run_finished", "result": text, "path": path, "save_error": save_error}


def result_from_message(message: dict[str, Any]) -> RunResult:
    """The RunResult a run_finished message carries (WireError if its text is not a result file)."""
    text = message.get("result")
    if not isinstance(text, str):
        raise WireError("a run_finished message without its result")
    try:
        return result_file.result_from_toml(text)
    except ValueError as exc:
        raise WireError(f"the host's result does not read: {exc}") from None


# --------------------------------------------------------------------------- plain values


def plain(value: Any) -> dict[str, Any]:
    """A model dataclass as a JSON object: the keys of a result file, unmeasured fields left out."""
    return result_file.dataclass_to_plain(value)


def _model(cls: type, data: Any) -> Any:
    try:
        return result_file.dataclass_from_plain(cls, data, cls.__name__)
    except ValueError as exc:
        raise WireError(str(exc)) from None


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise WireError(f"expected a string, got {value!r}")
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(f"expected a whole number, got {value!r}")
    return value


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireError(f"expected a number, got {value!r}")
    return float(value)
