"""Property tests: every importer, fed mutated real reports or random bytes, either returns valid
results (which survive a round trip through the result file format) or raises labtui's own error
with a message — never any other exception."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import report_fixtures
from labtui.errors import LabtuiError
from labtui.model.profile import STATUSES
from labtui.model.result import RunResult
from labtui.results.imports import decode, import_text
from labtui.results.result_file import result_from_toml, result_to_toml

SOURCES = report_fixtures()
CONTENT = {p.name: p.read_bytes() for p in SOURCES}
FIO = [p.name for p in SOURCES if p.suffix == ".json"]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(data: bytes) -> None:
    try:
        results = import_text(decode(data), "mutated.txt")
    except LabtuiError as exc:
        assert str(exc).strip(), "an error without a message"
        return
    assert results
    for result in results:
        assert isinstance(result, RunResult) and result.status in STATUSES and result.steps
        assert result_from_toml(result_to_toml(result)) == result


@SETTINGS
@given(st.binary(max_size=4000))
def test_random_bytes(data):
    check(data)


@SETTINGS
@given(st.sampled_from(sorted(CONTENT)), st.data())
def test_mutated_reports(name, data):
    content = bytearray(CONTENT[name])
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(content)))
        end = min(len(content), start + data.draw(st.integers(0, 400)))
        op = data.draw(st.sampled_from(["delete", "replace", "insert", "truncate", "duplicate", "digits"]))
        if op == "delete":
            del content[start:end]
        elif op == "replace":
            content[start:end] = data.draw(st.binary(max_size=50))
        elif op == "insert":
            content[start:start] = data.draw(st.sampled_from(
                [b"{", b"}", b"\"jobs\": [", b"<Results>", b"total:", b"|", b"N/A", b"-1", b"1e999", b"\xef\xbb\xbf",
                 b"\r\n", b"\t", b"999999999999999999999999", b"NaN", b"Results for timespan 1:\n"]))
        elif op == "truncate":
            del content[start:]
        elif op == "duplicate":
            content[start:start] = content[start:end]
        else:  # change the digits of numbers, where most parsing happens
            content[start:end] = bytes(b if not chr(b).isdigit() else data.draw(st.sampled_from(b"0123456789-."))
                                       for b in content[start:end])
    check(bytes(content))


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.lists(st.integers(0, 5), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths(value, prefix=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield prefix + (i,)
            yield from _paths(item, prefix + (i,))


def _report(name: str) -> dict:
    text = CONTENT[name].decode("utf-8")
    start = max(i for i in range(len(text)) if text.startswith("{", i) and (i == 0 or text[i - 1] == "\n"))
    return json.loads(text[start:])


REPORTS = {name: _report(name) for name in FIO}
PATHS = {name: list(_paths(report)) for name, report in REPORTS.items()}


@SETTINGS
@given(st.sampled_from(FIO), st.data())
def test_fio_values_of_the_wrong_kind(name, data):
    report = json.loads(json.dumps(REPORTS[name]))
    for _ in range(data.draw(st.integers(1, 5))):
        path = data.draw(st.sampled_from(PATHS[name]))
        target = report
        try:
            for key in path[:-1]:
                target = target[key]
            if data.draw(st.booleans()) and isinstance(target, dict):
                target.pop(path[-1], None)
            else:
                target[path[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(report, allow_nan=True, default=str)
    check(text.encode())
