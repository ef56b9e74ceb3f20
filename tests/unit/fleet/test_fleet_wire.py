"""The fleet wire format: every engine event survives the trip as JSON lines; bad lines are refused, not crashed on."""

from __future__ import annotations

import json
import typing
from dataclasses import replace

import pytest

from factories import make_result
from labtui import __version__
from labtui.analysis import steady
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
from labtui.fleet import wire
from labtui.model.profile import SCHEMA, SteadyRule
from labtui.model.result import DriveFacts, DriveReading, Drop, Sample
from labtui.results.result_file import result_to_toml


def _events():
    result = make_result()
    step = result.steps[0]
    state = steady.judge(SteadyRule.parse("snia"), [90.0, 100.0, 102.0, 98.0, 101.0, 99.0], 60.0)
    return [
        RunStarted(result.id, result.profile, result.target, result.engine, 2, 24.8),
        PrepareProgress(4 * 1024**2, 16 * 1024**2, 0.25),
        StepStarted(0, 2, step.step, 1, step.command_line),
        SampleTaken(0, "warmup", Sample(t=-1.0, seconds=1.0, read_ios=100, read_bytes=6_553_600)),
        SampleTaken(0, "measure", step.samples[0]),
        StepFinished(0, step),
        StepFinished(1, result.steps[1]),
        RunWarning("step 'Read 64K random' is CPU-bound"),
        # A profile that preconditions and runs a step to steady state (snia-lite on a host).
        PreconditionProgress(8 * 1024**2, 32 * 1024**2, 0.5, 2, 0),
        SteadyRound(0, steady.judge(SteadyRule.parse("snia"), [100.0, 102.0], 60.0)),
        SteadyRound(0, state),
        StepFinished(0, replace(step, steady_state=state)),
        # A profile that pauses between passes (cdm-standard's 5 s, CrystalDiskMark's interval).
        Paused(5.0, 1),
        # The drive read during a step, and a step that kept it (labtui.run.drive_watch).
        DriveSampled(0, 5.0, DriveReading("smartctl", 71.0, 82.0, "8.0 GT/s PCIe", 4, 2)),
        StepFinished(0, replace(step, drive_before=DriveFacts(source="smartctl + sysfs", temperature_c=60.0,
                                                              aer_correctable=1),
                                drops=(Drop(3.0, 4096, 400.0, 100.0, "thermal", "the drive reached 83 °C"),))),
    ]


def test_every_kind_of_engine_event_travels():
    # A new event the wire does not carry stops a host's run with a wire error the first time it
    # is sent (Paused did, for every cdm profile): each kind must be in the round trip below.
    kinds = set(typing.get_args(Event)) - {RunFinished}  # the run's end travels as its result file
    assert kinds == {type(e) for e in _events()}


@pytest.mark.parametrize("event", _events(), ids=lambda e: type(e).__name__)
def test_every_event_comes_back_as_it_left(event):
    line = wire.dumps(wire.event_to_wire(event))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = wire.event_from_wire(wire.loads(line))
    assert back == event


def test_a_run_ends_with_its_result_file_and_the_file_comes_back_whole():
    result = make_result(tags=("bios-2.1",))
    with pytest.raises(wire.WireError):
        wire.event_to_wire(RunFinished(result, None))
    message = wire.loads(wire.dumps(wire.finished_message(result_to_toml(result), "/srv/x.toml", None)))
    assert wire.result_from_message(message) == result


def test_unmeasured_figures_are_null_never_nan():
    sample = Sample(t=1.0, seconds=1.0, read_ios=5, read_lat_mean_ms=float("nan"))
    line = wire.dumps(wire.event_to_wire(SampleTaken(0, "measure", sample)))
    assert b"NaN" not in line
    assert json.loads(line)["sample"]["read_lat_mean_ms"] is None


@pytest.mark.parametrize("line", [b"hello\n", b"[1, 2]\n", b'{"no": "type"}\n', b"{" * 100_000])
def test_a_line_that_is_not_a_message_is_a_wire_error(line):
    with pytest.raises(wire.WireError):
        wire.loads(line)


@pytest.mark.parametrize("number, said", [
    ("NaN", "NaN is no number labtui sends"), ("-Infinity", "-Infinity is no number labtui sends"),
    ("1e400", "1e400 is past what a number may be"),
    ("1" + "0" * 400, "a number of 401 digits is past what a count may be"),
], ids=["nan", "-inf", "1e400", "400-digits"])
def test_a_number_no_labtui_sends_is_a_wire_error(number, said):
    """dumps writes none of these (allow_nan=False; counts are whole numbers): a host's `"seconds": NaN` went into
    the live figures, and a 400-digit count dropped its result with an OverflowError. The widest labtui sends,
    a drive's 128-bit counter in bytes, still reads."""
    sample = '{"type": "sample", "index": 0, "phase": "measure", "sample": {"t": 1.0, "seconds": %s, "read_ios": 5}}'
    with pytest.raises(wire.WireError, match=said):
        wire.host_message(sample % number)
    widest = (2**128 - 1) * 512_000
    assert wire.loads(wire.dumps({"type": "drive", "written": widest, "t": 1e300}))["written"] == widest


@pytest.mark.parametrize("message", [
    {"type": "sample", "index": 0, "phase": "measure", "sample": {"t": "soon", "seconds": 1.0}},
    {"type": "sample", "index": 0, "phase": "sideways", "sample": {"t": 1.0, "seconds": 1.0}},
    {"type": "step_started", "index": 0, "total": 1, "step": {"name": "x", "colour": "red"}, "repetition": 1},
    {"type": "step_finished", "index": 0, "result": {"status": "completed"}},
    {"type": "prepare", "bytes_done": True, "bytes_total": 1, "seconds": 0},
    {"type": "run_started"},
    {"type": "mystery"},
])
def test_a_message_that_does_not_read_is_a_wire_error_not_a_crash(message):
    with pytest.raises(wire.WireError):
        wire.event_from_wire(message)


def test_strings_from_a_host_reach_no_terminal_as_escape_codes():
    message = wire.event_to_wire(RunWarning("fine"))
    sample = {"type": "step_started", "index": 0, "total": 1, "repetition": 1, "command_line": "x",
              "step": {"name": "evil \x1b]0;pwned\x07", "block_size": "4KiB"}}
    assert wire.event_from_wire(message) == RunWarning("fine")
    assert "\x1b" not in wire.event_from_wire(sample).step.name


def test_hello_says_what_the_versions_are_and_a_mismatch_names_the_difference():
    from labtui.model.result import HostInfo

    hello = wire.loads(wire.dumps(wire.hello(HostInfo(name="bench-01", kernel="6.1.0"))))
    assert (hello["protocol"], hello["labtui"], hello["schema"]) == (wire.PROTOCOL, __version__, SCHEMA)
    assert hello["host"] == {"name": "bench-01", "kernel": "6.1.0"}
    assert wire.mismatch(hello) is None
    assert wire.mismatch(hello | {"labtui": "0.0.9"}) == (
        f"it runs labtui 0.0.9, this is labtui {__version__}: install the same version on both")
    assert "schema 2" in wire.mismatch(hello | {"schema": 2})
    assert "protocol 7" in wire.mismatch(hello | {"protocol": 7})


def test_the_agent_sends_a_step_s_intervals_bounded_and_its_result_under_the_cap():
    # A four-hour step at 100 ms made a line of 40 MB (past any sane cap on the local side); the
    # counts and figures travel as they are, the intervals merged (series_merged says how many).
    step = make_result().steps[0]
    many = tuple(replace(step.samples[0], t=0.1 * (i + 1), seconds=0.1) for i in range(144_000))
    sent = wire.step_result_from_wire(json.loads(wire.dumps(wire.step_result_to_wire(replace(step, samples=many)))))
    assert len(sent.samples) <= wire.WIRE_STEP_SAMPLES and sent.series_merged == 72
    assert sum(s.read_ios for s in sent.samples) == sum(s.read_ios for s in many) and sent.read == step.read
    assert len(wire.dumps(wire.step_result_to_wire(replace(step, samples=many)))) < wire.MAX_LINE_BYTES // 10


def test_a_result_larger_than_a_host_may_send_is_fitted_by_merging_its_series():
    # What the agent does with a saved file over wire.MAX_RESULT_BYTES (here a smaller cap, as cheap).
    from labtui.results.store import fitting

    result = make_result()
    steps = tuple(replace(s, samples=tuple(replace(s.samples[0], t=i + 1.0) for i in range(5_000))) for s in result.steps)
    big = replace(result, steps=steps)
    fitted, text = fitting(big, 200_000)
    assert len(text.encode()) <= 200_000 < len(result_to_toml(big).encode())
    assert all(s.series_merged for s in fitted.steps) and [s.read for s in fitted.steps] == [s.read for s in steps]
