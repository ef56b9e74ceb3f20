"""The fleet wire format: every engine event survives the trip as JSON lines; bad lines are refused, not crashed on."""

from __future__ import annotations

import json
import os
import time
import typing
from dataclasses import replace

import pytest

from factories import cut_off_host, make_result
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
from labtui.fleet.channel import Channel
from labtui.model.profile import SCHEMA, SteadyRule
from labtui.model.result import DriveFacts, DriveReading, Drop, Sample
from labtui.results.result_file import result_to_toml
from labtui.results.store import Store


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


def _channel(silence: float | None = None) -> tuple[Channel, int]:
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    os.close(out_read)
    return Channel(os.fdopen(read_end, "rb", buffering=0), out_write, silence=silence), write_end


@pytest.mark.parametrize(("sent", "why"), [
    (b'{"type": "stop", "by": "SIGHUP"}\n', "stopped by SIGHUP on the local labtui"),
    (b'{"type": "stop"}\n', "stopped by the local labtui"),
    (b"", "the link to the local labtui closed (ssh gone, or the local labtui ended)"),
    (b"Welcome to the lab\n", "the local side sent a line that is not labtui's wire format"),
])
def test_the_agent_knows_why_its_run_must_stop(sent, why):
    channel, write_end = _channel()
    os.write(write_end, b'{"type": "ping"}\n' + sent)
    os.close(write_end)
    assert channel.receive(timeout=5) is None and channel.stopped
    assert channel.why == why
    channel.close()


def test_an_agent_that_hears_nothing_says_so():
    channel, write_end = _channel(silence=0.5)
    try:
        deadline = time.monotonic() + 10
        while not channel.stopped and time.monotonic() < deadline:
            time.sleep(0.05)
        assert channel.why == "nothing heard from the local labtui for 0.5 s (the link is gone?)"
    finally:
        os.close(write_end)
        channel.close()


def test_a_host_cut_off_mid_step_keeps_the_mean_latency_of_the_intervals_that_arrived(tmp_path):
    beta = cut_off_host(tmp_path)
    cut = beta.result.steps[-1]
    assert cut.status == "aborted" and cut.total.ios == 4000
    # The mean of all 4000 timed I/Os: each interval's mean weighted by its I/Os.
    assert cut.latency.mean == pytest.approx(0.2) and cut.read_latency.mean == pytest.approx(0.2)
    # No p99 is made up from the intervals' p99s; the step says what its latency is.
    assert cut.latency.p99 is None and cut.read_latency.p99 is None
    assert "weighted by each interval's I/Os; no percentiles" in cut.error and "2.000 ms" in cut.error


@pytest.mark.parametrize("finished_first", [False, True], ids=["first step", "after a finished step"])
def test_a_host_cut_off_mid_run_ends_its_live_view_with_its_partial_result(tmp_path, finished_first):
    # The Fleet host screen draws beta.live: without a RunFinished it stayed a run in progress,
    # measuring, its clock running, though the host was long gone.
    beta = cut_off_host(tmp_path, finished_first)
    live = beta.live
    assert beta.state == "aborted" and beta.result.status == "aborted"
    assert live.finished is not None and live.result is beta.result
    assert live.finished.path is not None and str(live.finished.path) == beta.saved[-1]
    assert live.eta_seconds() == 0.0
    # The step it was measuring ends with the partial step the result keeps (its mean latency, its note).
    step = live.current
    assert step.started.index == (1 if finished_first else 0) and len(live.steps) == (2 if finished_first else 1)
    assert step.ended is not None and step.phase == "aborted"
    assert step.result is beta.result.steps[-1] and step.result.latency.mean == pytest.approx(0.2)
    assert "cut off mid-step" in step.result.error
    assert [s.status for s in beta.result.steps] == (["completed", "aborted"] if finished_first else ["aborted"])


def test_a_host_whose_check_was_stopped_between_its_passes_ends_aborted_not_completed(tmp_path):
    # Its first pass completed and the check reported itself aborted: the state said "completed"
    # (--json "status", the progress line) while its outcome said "aborted".
    from labtui.commands.fleet import _host_json
    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet

    result = make_result()
    fleet = Fleet([Host("beta", "beta")], lambda _host: {}, Store(tmp_path))
    beta = fleet.runs[0]
    summary = ("ABORTED: the check was stopped by SIGTERM before its second pass: no verdict, a check cut short "
               f"decides nothing; its runs are saved: {result.id} (completed)")
    arrived = [
        wire.event_to_wire(RunStarted(result.id, result.profile, result.target, result.engine, 2, 24.8)),
        wire.finished_message(result_to_toml(result), f"/srv/{result.id}.toml", None),
        {"type": "check_report", "report": {"passed": False, "outcome": "aborted", "summary": summary,
                                            "stopped_by": "SIGTERM", "run_status": "completed"}},
        {"type": "bye", "exit_code": 1},
    ]
    for message in arrived:  # as they came over the wire
        fleet._handle(beta, wire.loads(wire.dumps(message)))
    assert (beta.state, beta.outcome, beta.state_text()) == ("aborted", "aborted", "aborted")
    assert beta.reason == f"beta: {summary}"
    shown = _host_json(beta, None)
    assert (shown["status"], shown["outcome"]) == ("aborted", "aborted") and shown["result"]["id"] == result.id


@pytest.mark.parametrize("interval, says", [
    ("1s", "interval: must be a number of seconds or null, got '1s'"),
    (-1, "interval: a duration cannot be negative: '-1'"),
    (float("nan"), "interval: nan is not a finite duration"),
    (0, "interval: a duration must be greater than zero"),
    (10**50, "interval: that number is far longer than a year"),
    (1e9, "interval: '1000000000.0' is longer than a year"),
    (7200, "interval: must be from 100ms to 1s, got '2h' (step 'Read' lasts 1s)"),
    (0.05, "interval: must be from 100ms to 1s, got '50ms'"),
])
def test_an_agent_refuses_a_run_request_with_a_bad_interval_over_its_protocol(tmp_path, labtui_home, interval, says):
    # float(request.get("interval") or 1.0) ran -1 and 7200 (after "ready") and died on "1s" with no report.
    target = tmp_path / "target"
    target.mkdir()
    assert _refusal(_request("run", target) | {"interval": interval}, target, labtui_home).startswith(says)


@pytest.mark.parametrize("changes, says", [
    ({"params": ["size=1G"]}, "run request: params must be a table of NAME: VALUE texts"),
    ({"tags": "nightly"}, "run request: tags must be a list of texts, got 'nightly'"),
    ({"keep_file": "no"}, "run request: keep_file must be true or false, got 'no'"),
    ({"type": "check", "confirm": "two"}, "check request: confirm must be a count, got 'two'"),
    ({"type": "check", "tolerance": "5"}, "check request: tolerance must be a percentage, got '5'"),
    ({"type": "check", "repeat": True}, "check request: repeat must be a count, got True"),
    ({"type": "check", "fail_on": "p99"}, "check request: fail_on must be a list of texts, got 'p99'"),
    ({"type": "check", "params": {"size": "1G"}}, "check request: params must be a list of texts"),
])
def test_an_agent_refuses_a_request_whose_fields_have_the_wrong_type(tmp_path, labtui_home, changes, says):
    # They went on into the run or the check: params as a list died in .items() with a traceback and no
    # report, a tolerance of "5" in the check's comparisons, "p99" as fail_on became ["p", "9", "9"].
    target = tmp_path / "target"
    target.mkdir()
    request = _request(changes.get("type", "run"), target) | changes
    assert _refusal(request, target, labtui_home).startswith(says)


def _request(kind: str, target) -> dict:
    """A well-formed run request (a one-step profile) or check request, as the local side sends them."""
    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import profile_to_text

    if kind == "check":
        return {"type": "check", "target": str(target), "profile": None, "engine": None, "tolerance": None,
                "repeat": None, "confirm": 0, "fail_on": [], "duration": None, "file_size": None, "params": []}
    profile = Profile("p", file_size=1024**2, steps=(Step("Read", duration=1.0, warmup=0.0),))
    return {"type": "run", "profile": profile_to_text(profile), "target": str(target), "engine": "native",
            "tags": [], "params": {}, "interval": None, "keep_file": False}


def _refusal(request, target, labtui_home) -> str:
    """What the real agent says to `request` on its stdin: refused in one line, exit 2, nothing written."""
    import subprocess

    from conftest import labtui_cmd

    done = subprocess.run(labtui_cmd("agent"), input=json.dumps(request) + "\n", capture_output=True, text=True,
                          timeout=60)
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m["type"] for m in messages] == ["hello", "refused", "bye"], done.stdout + done.stderr
    assert "\n" not in messages[1]["reason"]
    assert messages[2]["exit_code"] == 2 and done.returncode == 2 and "Traceback" not in done.stderr
    assert list(target.iterdir()) == [] and not (labtui_home / "results").exists()
    return messages[1]["reason"]


@pytest.mark.parametrize(("request_", "kept"), [
    ({"type": "run"}, 1),
    ({"type": "check", "confirm": 8}, 2),  # a check's first pass and the one that confirms it
    ({"type": "check", "confirm": 0}, 1),  # --confirm 0 decides on the first pass
])
def test_a_host_gets_one_result_per_run_it_was_asked_for_the_rest_refused_naming_it(tmp_path, request_, kept):
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import results_allowed
    from labtui.fleet.session import Fleet

    fleet = Fleet([Host("beta", "beta")], lambda _host: request_, Store(tmp_path))
    beta = fleet.runs[0]
    beta.allowed_results = results_allowed(request_)
    for number in range(5):
        text = result_to_toml(make_result(f"20240501-103005-{number:04x}"))
        fleet._handle(beta, wire.host_message(wire.dumps(wire.finished_message(text, None, None))))
    fleet._handle(beta, wire.host_message(wire.dumps({"type": "bye", "exit_code": 0})))
    assert [r.id for r in beta.results] == [f"20240501-103005-{n:04x}" for n in range(kept)]
    assert len(list((tmp_path / "results").glob("*.toml"))) == kept
    assert beta.state == "failed" and beta.reason == (
        f"beta: it sent {5 - kept} results more than the {kept} its request asked for: refused, not kept (a host sends "
        "one result per run; a check, one per pass)")


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


async def test_a_line_too_long_is_read_through_and_said_with_its_size_before_any_hello(tmp_path):
    # A greeting of 13 MiB (past wire.MAX_LINE_BYTES): the host fails, its reason says the line's
    # size; it was "no labtui agent answered". A real process behind the pipe, as ssh is.
    import sys

    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet

    script = tmp_path / "ssh"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write('x' * {wire.MAX_LINE_BYTES + 1_000_000} + "
                      "'\\n')\nsys.stdout.flush()\nsys.stdin.read()\n")
    script.chmod(0o755)
    fleet = Fleet([Host("beta", "beta")], lambda _host: {"type": "run"}, Store(tmp_path), ssh=str(script))
    (beta,) = await fleet.run()
    assert beta.state == "failed" and beta.reason == (
        f"beta: line too long: it sent a line of {wire.MAX_LINE_BYTES + 1_000_001:,} bytes (a message is at most 12 MiB)"
        ": the host was stopped")


def test_a_check_request_goes_to_a_host_as_the_agent_has_always_read_it_and_comes_back_the_same():
    """What `labtui check --hosts` sends each host: the fields and texts the agent reads (typed as the person
    typed them), and read there into a request equal to the one parsed here."""
    from labtui.cli import build_parser
    from labtui.commands import agent, check
    from labtui.errors import LabtuiError
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import check_request
    from labtui.run.request import CheckRequest, Overrides, RunRequest

    asked = check.parse(build_parser().parse_args([
        "check", "-p", "cdm-nvme", "-e", "fio", "--tolerance", "20", "--repeat", "4", "--confirm", "0",
        "--fail-on", "P99,cpu", "--duration", "1.5m", "--file-size", "16M", "--param", "archive=/a b",
        "--hosts", "lab.toml", "--one-at-a-time"]))
    hosts = [Host("h1", ssh="h1", target="/srv/h1"), Host("h2", ssh="h2")]
    with pytest.raises(LabtuiError, match="no target for h2"):
        check_request(hosts, asked)  # no -t, and h2 has no target of its own
    asked = replace(asked, run=replace(asked.run, target="/data"))
    message = check_request(hosts, asked)(hosts[1])
    assert message == {"type": "check", "target": "/data", "profile": "cdm-nvme", "engine": "fio", "tolerance": 20.0,
                       "repeat": 4, "confirm": 0, "fail_on": ["p99", "cpu"], "duration": "1.5m", "file_size": "16M",
                       "params": ["archive=/a b"]}
    assert json.loads(json.dumps(message)) == message
    there = agent.check_request(json.loads(json.dumps(message)))
    assert there == replace(asked, run=replace(asked.run, hosts=None, one_at_a_time=False))
    # Made elsewhere than the command line (no texts as typed): the values travel as texts the agent reads.
    typed = CheckRequest(run=RunRequest(target="/t", overrides=Overrides(0.25, 3 * 2**20, None)), confirm=2)
    message = check_request(hosts, typed)(hosts[0])
    assert (message["duration"], message["file_size"], message["repeat"]) == ("0.25s", "3145728", None)
    assert agent.check_request(message) == typed


def test_a_run_request_goes_to_each_host_as_the_agent_reads_it_with_the_profile_as_overridden_here():
    from labtui.cli import build_parser
    from labtui.commands import run as run_command
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import run_request
    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import parse_profile_text

    asked = run_command.parse(build_parser().parse_args([
        "run", "-p", "p", "--hosts", "lab.toml", "-e", "fio", "--tag", "nightly", "--param", "n=1",
        "--interval", "500ms", "--keep-file", "--duration", "2s"]))
    profile = asked.overrides.apply(Profile("p", file_size=1024**2, steps=(Step("Read", duration=10.0, warmup=0.0),)))
    hosts = [Host("h1", ssh="h1", target="/srv/h1"), Host("h2", ssh="h2", target="/srv/h2")]
    send = run_request(hosts, asked, profile)
    message = send(hosts[1])
    assert {k: v for k, v in message.items() if k != "profile"} == {
        "type": "run", "target": "/srv/h2", "engine": "fio", "tags": ["nightly"], "params": {"n": "1"},
        "interval": 0.5, "keep_file": True}
    assert parse_profile_text(message["profile"], "sent", origin="fleet").steps[0].duration == 2.0
    assert send(hosts[0])["target"] == "/srv/h1" and json.loads(json.dumps(message)) == message
