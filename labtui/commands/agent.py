"""The far end of `labtui run|check --hosts`: runs what arrives on stdin, streams its events as JSON lines.

Started by the local labtui through `ssh` (no terminal); it speaks labtui.fleet.wire: a hello
with its versions first, then the request (the profile travels in it), "ready" once preflight
passed, the run's events from "start" on, the result file's text, and "bye" with its exit code.
The result is saved in this host's store as any run is. A "stop" message, the end of stdin (the
link or the local labtui gone), or SIGINT/SIGTERM/SIGHUP stop the run the way Ctrl+C stops a
local one: workers reaped, test file removed, the partial result saved as aborted.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from labtui.errors import ExitCode

if TYPE_CHECKING:
    from labtui.commands.stops import Stops
    from labtui.fleet.channel import Channel
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult
    from labtui.run.request import CheckRequest
    from labtui.run.runner import Runner

HELP = "the far end of run/check --hosts (labtui starts it over ssh; it speaks JSON lines)"

REQUEST_SECONDS = 120.0  # a local labtui that connected and then says nothing is gone


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options: everything arrives on stdin


def run(args: argparse.Namespace) -> int:
    del args  # no options: the request arrives on stdin
    import contextlib
    import sys

    from labtui.errors import LabtuiError
    from labtui.fleet import wire
    from labtui.fleet.channel import Channel
    from labtui.machine import devices

    channel = Channel.standard()
    code: int = ExitCode.BAD_INPUT
    try:
        channel.send(wire.hello(devices.host_info()))
        request = channel.receive(timeout=REQUEST_SECONDS)
        if request is None:
            if channel.why:  # a request that does not read (NaN, a number too long): said, as a refusal
                channel.send({"type": "refused", "reason": channel.why})
                channel.send({"type": "bye", "exit_code": code})
            return ExitCode.BAD_INPUT
        kind = request.get("type")
        try:
            if kind == "run":
                code = _run(request, channel)
            elif kind == "check":
                code = _check(request, channel)
            else:
                raise LabtuiError(f"unknown request {kind!r}")
        except LabtuiError as exc:
            channel.send({"type": "refused", "reason": str(exc)})
            code = ExitCode.BAD_INPUT
        channel.send({"type": "bye", "exit_code": code})
        return code
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        channel.close()


def _run(request: dict[str, Any], channel: Channel) -> int:
    from labtui.commands.common import open_store
    from labtui.commands.stops import Stops
    from labtui.errors import LabtuiError
    from labtui.results.profile_file import parse_profile_text
    from labtui.run.request import RunRequest

    profile_text, target = request.get("profile"), request.get("target")
    if not isinstance(profile_text, str) or not isinstance(target, str):
        raise LabtuiError("a run request needs a profile and a target")
    profile = parse_profile_text(profile_text, "the profile sent", origin="fleet")
    store = open_store()
    params = _field(request, "params", dict, "a table of NAME: VALUE texts") or {}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in params.items()):
        raise LabtuiError(f"run request: params must be a table of NAME: VALUE texts, got {params!r:.60}")
    asked = RunRequest(
        profile=profile.name, target=target, engine=_field(request, "engine", str, "an engine's name") or "native",
        tags=_texts(request, "tags"), params=tuple(params.items()), interval=_interval(request.get("interval"), profile),
        keep_file=bool(_field(request, "keep_file", bool, "true or false")),
    )
    runner = asked.runner(profile, store)
    with Stops() as stops:
        _Driver(channel, stops)(runner)
    result = runner.result
    if result is None:
        return ExitCode.FAILED
    return ExitCode.OK if result.status == "completed" and runner.save_error is None else ExitCode.FAILED


def _field(request: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """`request[key]` if it is a `kind` (None where it is left out or null); else the request is
    refused in one line (as a mistyped option would be), not an internal error further in."""
    from labtui.errors import LabtuiError

    value = request.get(key)
    # bool is an int to isinstance: a count or a percentage given as true is a mistake.
    if value is None or (isinstance(value, kind) and (kind is bool or not isinstance(value, bool))):
        return value
    raise LabtuiError(f"{request.get('type')} request: {key} must be {what}, got {value!r:.60}")


def _texts(request: dict[str, Any], key: str) -> tuple[str, ...]:
    from labtui.errors import LabtuiError

    values = _field(request, key, list, "a list of texts") or []
    if not all(isinstance(v, str) for v in values):
        raise LabtuiError(f"{request.get('type')} request: {key} must be a list of texts, got {values!r:.60}")
    return tuple(values)


def _interval(value: object, profile: Profile) -> float:
    """A run request's "interval": null for the default (1 s); else seconds, checked as --interval is
    (ValidationError, which the agent reports as its refusal, not a traceback)."""
    from labtui.errors import ValidationError
    from labtui.model.profile import DEFAULT_INTERVAL
    from labtui.units import parse_duration

    if value is None:
        return DEFAULT_INTERVAL
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError(f"must be a number of seconds or null, got {value!r:.60}", "interval")
    seconds = parse_duration(value, field="interval")  # NaN, infinite, negative, zero, past a year
    problem = profile.interval_problem(seconds)
    if problem is not None:
        raise ValidationError(problem, "interval")
    return seconds


def check_request(request: dict[str, Any]) -> CheckRequest:
    """A check request as a host receives it (labtui.fleet.requests), read as `labtui check` reads its
    options and refused alike (LabtuiError, one line): the local side may run an older or newer labtui."""
    from labtui.commands import check
    from labtui.run.request import DEFAULT_CONFIRM

    def text(key: str) -> str | None:
        return _field(request, key, str, "a text")

    tolerance = _field(request, "tolerance", (int, float), "a percentage")
    confirm = _field(request, "confirm", int, "a count")
    return check.request(
        profile=text("profile"), target=text("target"), engine=text("engine"),
        tolerance=float(tolerance) if tolerance is not None else None, repeat=_field(request, "repeat", int, "a count"),
        confirm=DEFAULT_CONFIRM if confirm is None else confirm, fail_on=_texts(request, "fail_on"),
        duration=text("duration"), file_size=text("file_size"), params=_texts(request, "params"),
    )


def _check(request: dict[str, Any], channel: Channel) -> int:
    import contextlib
    import io
    import json

    from labtui.commands import check
    from labtui.commands.stops import Stops

    asked = check_request(request)
    printed = io.StringIO()
    # Held from the first pass on, as `labtui check` holds them here: a stop between passes (a signal
    # on this host, or the local side's) starts no further pass, and the check reports itself aborted.
    with Stops() as stops:
        driver = _Driver(channel, stops)
        with contextlib.redirect_stdout(printed):
            code = check.check(asked, drive=driver, stops=stops, as_json=True, yes=True)
        if driver.calls == 0:
            return code  # refused before a run (its reason went to stderr)
        with contextlib.suppress(ValueError):
            channel.send({"type": "check_report", "report": json.loads(printed.getvalue())})
        return code


class _Driver:
    """Runs one runner at a time for the agent: "ready", wait for "start", the events, the result.

    From the first run's start the stop signals are held in `stops`: during a run one stops it,
    between runs it is noted and no further run starts (before, their default ended the agent
    there, with no report). A stop the link brings is noted among them too (`stopped_by`: "SIGINT
    on the local labtui"), so a check tells a stopped one from one that decided.
    """

    def __init__(self, channel: Channel, stops: Stops) -> None:
        self.channel = channel
        self.stops = stops
        self.calls = 0
        self._noted = False

    def __call__(self, runner: Runner) -> RunResult | None:
        import asyncio

        from labtui.commands.common import room_said
        from labtui.fleet import wire
        from labtui.run.preflight import NoRoom

        try:
            plan = runner.preflight()  # a check's first pass was already said so by check (the plan is kept)
        except NoRoom as exc:  # refused as `labtui run` refuses it: the lead prints the reason as it is
            raise room_said(exc) from None
        first = self.calls == 0
        self.calls += 1
        if first:
            # Only the first pass waits: the hosts start together once; a check's later passes follow on.
            self.channel.send({
                "type": "ready", "target": wire.plain(plan.target), "directory": str(plan.directory),
                "test_file": str(plan.test_file) if plan.test_file else None,
                "planned_seconds": runner.profile.planned_seconds,
            })
            delay = self.channel.wait_for_start()
            if delay is None:
                runner.close()
                return None
            if not self.channel.sleep(delay):
                runner.close()
                return None
        elif self._stopped() or self.stops.received:
            runner.close()
            return None
        self.stops.hold()
        asyncio.run(_stream(runner, self.channel, self.stops))
        self._stopped()
        return runner.result

    def _stopped(self) -> bool:
        """Whether the link said stop; noted once among the stops."""
        if self.channel.stopped and not self._noted:
            self._noted = True
            self.stops.note((self.channel.why or "the local labtui").removeprefix("stopped by "))
        return self.channel.stopped


async def _stream(runner: Runner, channel: Channel, stops: Stops) -> None:
    import asyncio
    import contextlib
    import socket

    from labtui.engine.events import RunFinished
    from labtui.errors import StoreError
    from labtui.fleet import wire
    from labtui.results.result_file import result_to_toml
    from labtui.results.store import fitting

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None

    def stop_because(why: str) -> None:
        if runner.stop_reason is None:
            runner.stop_reason = why
        task.cancel()

    def stop() -> None:
        loop.call_soon_threadsafe(stop_because, channel.why or "stopped by the local labtui")

    def on_signal(name: str) -> None:
        stop_because(f"stopped by {name} on {socket.gethostname()}")

    channel.on_stop(stop)
    try:
        with stops.during(on_signal):
            async for event in runner.events():
                if isinstance(event, RunFinished):
                    break
                channel.send(wire.event_to_wire(event))
    except asyncio.CancelledError:
        pass
    finally:
        channel.on_stop(None)
    result = runner.result
    if result is None:
        return
    text = None
    if runner.saved_path is not None:
        with contextlib.suppress(OSError):
            text = runner.saved_path.read_text(encoding="utf-8")
    text = text or result_to_toml(result)
    if len(text.encode("utf-8")) > wire.MAX_RESULT_BYTES:
        # The local side takes no larger result: the same one with more of its series merged (the
        # step figures never come from the series), as the store does for its own bound.
        with contextlib.suppress(StoreError):
            _fitted, text = fitting(result, wire.MAX_RESULT_BYTES)
    channel.send(wire.finished_message(text, str(runner.saved_path) if runner.saved_path else None, runner.save_error))
