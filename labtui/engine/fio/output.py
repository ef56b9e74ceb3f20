"""fio's stdout: the JSON reports in it and the lines of other text around them, whole or as they arrive.

What it looks like in the wild (see tests/fixtures/SOURCES.md): text before the JSON (fio's own
error lines, "fio: terminating on signal 2"), several concatenated reports in a `--status-interval`
stream with the final one last, and duplicate keys (a repeated `filename`: the first value is kept,
every value remembered).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


class JsonObject(dict):
    """A JSON object that remembers every value of a repeated key; the first one is its value."""

    def __init__(self) -> None:
        super().__init__()
        self.repeated: dict[str, list[Any]] = {}


def _object_pairs(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject()
    for key, value in pairs:
        if key in obj:
            obj.repeated.setdefault(key, [obj[key]]).append(value)
        else:
            obj[key] = value
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_object_pairs)
_LINE_START_BRACE = re.compile(r"^[ \t]*\{", re.M)


@dataclass(frozen=True)
class FioOutput:
    reports: tuple[dict, ...]  # every complete fio report, in order (the final one last)
    messages: tuple[str, ...]  # the non-JSON lines around them (fio's errors and notices)
    first_error: str | None = None  # why the first JSON-looking part did not parse, if one did not
    tail_error: str | None = None  # why a JSON-looking part after the last complete report did not parse


def is_report(obj: Any) -> bool:
    return isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj)


def split_output(text: str) -> FioOutput:
    """The fio reports in `text` and the lines of other text around them."""
    reports: list[dict] = []
    messages: list[str] = []
    first_error: str | None = None
    starts = [m.end() - 1 for m in _LINE_START_BRACE.finditer(text)]
    if not starts and "{" in text:
        starts = [text.index("{")]
    pos = 0
    errors: list[tuple[int, str]] = []  # (where the part began, why it did not parse)
    last_report_end = 0
    for start in starts:
        if start < pos:
            continue
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            errors.append((start, f"invalid JSON at line {line}: {exc.msg}"))
            continue
        except RecursionError:
            errors.append((start, "JSON nested too deeply"))
            continue
        messages.extend(_lines(text[pos:start]))
        if is_report(obj):
            reports.append(obj)
            last_report_end = end
        else:
            messages.append(text[start:end][:200])
        pos = end
    messages.extend(_lines(text[pos:]))
    first_error = errors[0][1] if errors else None
    tail_error = next((why for at, why in errors if at >= last_report_end), None) if reports else None
    return FioOutput(tuple(reports), tuple(messages), first_error, tail_error)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class ReportStream:
    """Splits fio's stdout into reports as it arrives; fio closes each with "}" on its own line."""

    def __init__(self) -> None:
        self._buffer = ""
        self.messages: list[str] = []

    def feed(self, chunk: str) -> list[dict]:
        self._buffer += chunk
        reports: list[dict] = []
        while True:
            end = self._buffer.find("\n}\n")
            if end < 0:
                break
            segment, self._buffer = self._buffer[: end + 3], self._buffer[end + 3 :]
            reports.extend(self._split(segment))
        return reports

    def finish(self) -> list[dict]:
        segment, self._buffer = self._buffer, ""
        return self._split(segment)

    def _split(self, segment: str) -> list[dict]:
        out = split_output(segment)
        self.messages.extend(out.messages)
        return list(out.reports)
