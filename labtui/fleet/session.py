"""The local side of a fleet run: one `ssh` per host, their event streams merged into one state per host.

`Fleet.run()` connects to the hosts, at most `connections` at a time (each `ssh` in a session of its
own, so a Ctrl+C reaches labtui, which stops every host in order, not the ssh clients, which would
cut the hosts off). Each host says hello (versions compared first), gets its request, passes
preflight and waits; once every host is ready or out, all start at one shared instant (or one
after another with `one_at_a_time`). Every result a host sends is
copied into the local store, tagged `host:<name>`; a host cut off mid-run gets a partial result
built from the events that arrived, saved as aborted with the reason.

A host is not trusted: every text it sends is made printable as it arrives (wire.host_message); a
line longer than wire.MAX_LINE_BYTES ends it ("line too long", with the size); it may send one
result per run it was asked for (a check: one per pass), each at most wire.MAX_RESULT_BYTES, and
what is more is refused with a line naming it; its `host:` tags are set here, from the hosts file,
whatever its result says. Why a host ended, in words, is host_reasons.py's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from labtui.engine.events import (
    Event,
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SampleTaken,
    StepFinished,
    StepStarted,
)
from labtui.errors import LabtuiError
from labtui.fleet import wire
from labtui.fleet.host_lines import LineTooLong, read_host_line
from labtui.fleet.host_reasons import refused_handshake, said, why_ended, why_no_hello
from labtui.fleet.host_run import (
    ABORTED,
    COMPLETED,
    FAILED,
    PREPARING,
    REFUSED,
    RUNNING,
    UNREACHABLE,
    WAITING,
    HostRun,
    partial_step,
)
from labtui.fleet.hosts import Host
from labtui.fleet.requests import results_allowed
from labtui.model.result import HostInfo, RunResult, StepResult, now
from labtui.printable import printable
from labtui.results.store import Store
from labtui.run.live import LiveRun

HOST_TAG = "host:"  # labtui's own tags, `host:<name>` from the hosts file
MAX_WARNINGS = 100  # a host's warnings kept per run (a flood of them is counted, not kept)
START_MARGIN = 1.0  # seconds from "everyone is ready" to the shared start: every host hears it before
HELLO_SECONDS = 60.0  # ssh's own ConnectTimeout covers the network; this covers a host that hangs after
STOP_GRACE = 10.0  # after a stop, how long a host may take to clean up and report before ssh is killed
# At most this many ssh connections are being opened at once (settings: fleet_connections). sshd's
# stock MaxStartups 10:30:100 starts dropping unauthenticated connections past 10: a lab of 32
# behind one jump host lost a quarter of its hosts when all connected at the same instant.
CONNECTIONS = 8
CONNECT_TRIES = 5  # a handshake refused (MaxStartups, a busy jump host) is tried again this many times in all
BACKOFF = (0.5, 1.0, 2.0, 4.0)  # seconds before each retry, plus up to half as much again at random

class Fleet:
    """Runs one request on many hosts; `on_change(host_run)` is called whenever a host's state moves."""

    def __init__(self, hosts: list[Host], request: Callable[[Host], dict[str, Any]], store: Store, *,
                 one_at_a_time: bool = False, ssh: str = "ssh", connections: int = CONNECTIONS,
                 on_change: Callable[[HostRun], None] | None = None,
                 on_event: Callable[[HostRun, Event], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.runs = [HostRun(h) for h in hosts]
        self.clock = clock  # what times a host's live run (the TUI's is the app's, fixed in tests and snapshots)
        self.connections = max(1, connections)
        self._request = request
        self.store = store
        self.one_at_a_time = one_at_a_time
        self.ssh = ssh
        self.on_change = on_change or (lambda _run: None)
        self.on_event = on_event or (lambda _run, _event: None)
        self.stopping: str | None = None  # why every host is being stopped (a signal's name)
        self.start_instant: float | None = None  # time.time() of the shared start
        self._procs: dict[str, asyncio.subprocess.Process] = {}
        self._ready: dict[str, asyncio.Event] = {h.name: asyncio.Event() for h in hosts}
        self._go: dict[str, asyncio.Future] = {}
        self._stop_event = asyncio.Event()

    # ------------------------------------------------------------------ the whole fleet

    async def run(self) -> list[HostRun]:
        loop = asyncio.get_running_loop()
        self._go = {r.name: loop.create_future() for r in self.runs}
        self._connecting = asyncio.Semaphore(self.connections)
        sessions = [asyncio.create_task(self._session(r), name=f"fleet-{r.name}") for r in self.runs]
        coordinator = asyncio.create_task(self._coordinate(sessions))
        try:
            await asyncio.gather(*sessions, return_exceptions=True)
        finally:
            coordinator.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await coordinator
            for proc in self._procs.values():
                _kill(proc)
        for task, host_run in zip(sessions, self.runs):
            exc = task.exception() if task.done() and not task.cancelled() else None
            if exc is not None and not host_run.ended:
                self._end(host_run, FAILED, f"internal error: {type(exc).__name__}: {exc}")
        return self.runs

    def stop(self, why: str = "stopped") -> None:
        """Stop every host: those running save their partial results as aborted; the rest never start."""
        if self.stopping is not None:
            return
        self.stopping = why
        self._stop_event.set()
        for host_run in self.runs:
            go = self._go.get(host_run.name)
            if go is not None and not go.done():
                go.set_result(None)
            proc = self._procs.get(host_run.name)
            if proc is not None:
                self._tell(proc, {"type": "stop", "by": why})
                if proc.stdin is not None:
                    with contextlib.suppress(Exception):
                        proc.stdin.close()

    async def _coordinate(self, sessions: list[asyncio.Task[None]]) -> None:
        # Everyone ready (or out) first: a shared start is one instant for all who can start.
        await asyncio.gather(*(e.wait() for e in self._ready.values()))
        ready = [r for r in self.runs if r.state == WAITING]
        if self.stopping is not None or not ready:
            return
        if not self.one_at_a_time:
            self.start_instant = time.time() + START_MARGIN
            for host_run in ready:
                self._go[host_run.name].set_result(max(0.0, self.start_instant - time.time()))
            return
        for host_run, task in zip(self.runs, sessions):
            if host_run not in ready:
                continue
            if self.stopping is not None:
                break
            self._go[host_run.name].set_result(0.0)
            await asyncio.wait({task})

    # ------------------------------------------------------------------ one host

    async def _session(self, host_run: HostRun) -> None:
        host = host_run.host
        proc, errors, message = None, None, None
        for attempt in range(CONNECT_TRIES):
            if attempt:
                host_run.retries = attempt
                host_run.stderr.clear()  # the reason, if it ends unreachable, is the last try's
                self.on_change(host_run)
                delay = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
                with contextlib.suppress(TimeoutError):  # a stop ends the wait
                    await asyncio.wait_for(self._stop_event.wait(), delay * (1 + random.random() / 2))
                if self.stopping is not None:
                    break
            host_run.queued = self._connecting.locked()
            if host_run.queued:
                self.on_change(host_run)
            async with self._connecting:
                host_run.queued = False
                self.on_change(host_run)
                if self.stopping is not None:
                    break
                try:
                    proc = await asyncio.create_subprocess_exec(
                        *host.ssh_argv("agent", ssh=self.ssh), stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
                        limit=wire.MAX_LINE_BYTES, env=host.ssh_env(),
                    )
                except OSError as exc:
                    self._end(host_run, UNREACHABLE, f"cannot start {self.ssh}: {exc.strerror or exc}")
                    self._ready[host.name].set()
                    return
                self._procs[host.name] = proc
                errors = asyncio.create_task(self._read_stderr(host_run, proc))
                message = await self._greeting(host_run, proc)
                if message is not None:
                    break
                await proc.wait()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(errors, timeout=2.0)
            if self.stopping is not None or not refused_handshake(host_run, proc.returncode):
                break
        if proc is None or errors is None:  # stopped before it could connect
            self._end(host_run, ABORTED, f"not started: {self.stopping or 'stopped'}")
            self._ready[host.name].set()
            return
        pings = asyncio.create_task(self._ping(proc))
        try:
            await self._converse(host_run, proc, message)
        finally:
            pings.cancel()
            self._ready[host.name].set()
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), timeout=STOP_GRACE if self.stopping else 30.0)
            except TimeoutError:
                _kill(proc)
                await proc.wait()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(errors, timeout=2.0)
            if not host_run.ended:
                self._cut_off(host_run, proc.returncode)

    async def _greeting(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> dict[str, Any] | None:
        """The agent's hello; None if the stream ended (or hung) without one."""
        try:
            return await asyncio.wait_for(self._hello(host_run, proc), timeout=HELLO_SECONDS)
        except TimeoutError:
            _kill(proc)
            return None

    async def _converse(self, host_run: HostRun, proc: asyncio.subprocess.Process,
                        message: dict[str, Any] | None) -> None:
        host = host_run.host
        if message is None:
            await proc.wait()
            if host_run.broke_protocol is not None:  # it answered, with a line too long
                self._end(host_run, FAILED, f"{host.name}: {host_run.broke_protocol}")
            elif self.stopping is not None and host_run.retries:
                self._end(host_run, ABORTED, f"not started: {self.stopping}")
            else:
                self._end(host_run, UNREACHABLE, why_no_hello(host_run, proc.returncode))
            return
        with contextlib.suppress(LabtuiError, wire.WireError):
            host_run.facts = wire._model(HostInfo, message.get("host", {}))
        host_run.labtui = str(message.get("labtui"))
        different = wire.mismatch(message)
        if different:
            self._end(host_run, REFUSED, f"{host.name} is refused: {different}")
            return
        if self.stopping is not None:
            return
        try:
            request = self._request(host)
        except LabtuiError as exc:
            self._end(host_run, REFUSED, f"{host.name}: {exc}")
            return
        host_run.allowed_results = results_allowed(request)
        self._tell(proc, request)
        message = await self._next(host_run, proc)
        if message is None or message["type"] != "ready":
            reason = said(message.get("reason")) if message and message["type"] == "refused" else None
            if reason is None:
                await proc.wait()
                reason = why_ended(host_run, proc.returncode, "before it was ready", self.stopping)
            self._end(host_run, REFUSED if message else FAILED, f"{host.name}: {reason}")
            await self._drain(host_run, proc)
            return
        host_run.state = WAITING
        self.on_change(host_run)
        self._ready[host.name].set()
        delay = await self._go[host.name]
        if delay is None:  # stopped before the start
            self._end(host_run, ABORTED, f"not started: {self.stopping or 'stopped'}")
            return
        self._tell(proc, {"type": "start", "delay": delay})
        await self._drain(host_run, proc)

    async def _drain(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> None:
        """Follow the host's stream to its end."""
        while True:
            message = await self._next(host_run, proc)
            if message is None:
                return
            self._handle(host_run, message)

    def _handle(self, host_run: HostRun, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in wire.EVENT_TYPES:
            try:
                event = wire.event_from_wire(message)
            except wire.WireError as exc:
                host_run.warnings.append(f"a message from the host did not read: {exc}")
                return
            self._apply(host_run, event)
            self.on_event(host_run, event)
        elif kind == "run_finished":
            self._finished(host_run, message)
        elif kind == "check_report":
            report = message.get("report")
            host_run.check_report = report if isinstance(report, dict) else None
        elif kind == "refused":
            host_run.reason = said(message.get("reason"))
        elif kind == "bye":
            code = message.get("exit_code")
            host_run.exit_code = code if isinstance(code, int) else None
            self._settle(host_run)
        self.on_change(host_run)

    def _apply(self, host_run: HostRun, event: Event) -> None:
        if isinstance(event, RunStarted):
            host_run.live = LiveRun(clock=self.clock)
        if host_run.live is not None:
            host_run.live.handle(event)
        if isinstance(event, RunStarted):
            host_run.started, host_run._run_began = event, now()
            host_run.finished_steps, host_run.step, host_run._measured = [], None, []
            host_run.state = PREPARING if event.profile.needs_test_file else RUNNING
        elif isinstance(event, PrepareProgress):
            host_run.prepare = event
        elif isinstance(event, StepStarted):
            host_run.state, host_run.step, host_run.phase, host_run._measured = RUNNING, event, None, []
        elif isinstance(event, SampleTaken):
            host_run.sample, host_run.phase = event, event.phase
            if event.phase == "measure":
                host_run._measured.append(event.sample)
                host_run.spark_iops.append(event.sample.iops)
                host_run.spark_mib.append(event.sample.mib_s)
        elif isinstance(event, StepFinished):
            host_run.finished_steps.append(event.result)
            host_run._measured = []
        elif isinstance(event, RunWarning):
            if len(host_run.warnings) < MAX_WARNINGS:
                host_run.warnings.append(said(event.message))
            else:
                host_run.warnings_left_out += 1

    def _finished(self, host_run: HostRun, message: dict[str, Any]) -> None:
        text = message.get("result")
        size = len(text.encode("utf-8", "replace")) if isinstance(text, str) else 0
        if len(host_run.results) >= host_run.allowed_results:
            host_run.extra_results += 1  # one request, one result per run: the local store is not a host's to fill
            return
        if size > wire.MAX_RESULT_BYTES:
            host_run.refused.append(f"a result of {size:,} bytes was refused (a result is at most "
                                    f"{wire.MAX_RESULT_BYTES // (1024 * 1024)} MiB; labtui's largest are about 2 MB)")
            return
        try:
            result = wire.result_from_message(message)
        except wire.WireError as exc:
            host_run.save_errors.append(str(exc))
            return
        if message.get("path"):
            host_run.remote_saved.append(said(message["path"]))
        if message.get("save_error"):
            host_run.save_errors.append(f"not saved on {host_run.name}: {said(message['save_error'])}")
        path = self._keep(host_run, result)
        if host_run.live is not None:
            host_run.live.handle(RunFinished(host_run.results[-1], path))
        host_run.started, host_run.step = None, None

    def _keep(self, host_run: HostRun, result: RunResult) -> Path | None:
        """Copy a host's result into the local store, tagged with the host's name; where it went.

        `host:` tags are labtui's own, set here from the hosts file: a host that tags its result
        `host:victimhost` must not have it filed (and compared, and checked) as another host's.
        """
        tag = f"host:{host_run.name}"
        theirs = [t for t in result.tags if t.startswith(HOST_TAG) and t != tag]
        if theirs:
            host_run.warnings.append(f"its result carried {', '.join(theirs)}: dropped (host: tags are set here, "
                                     "from the hosts file)")
        tags = (*(t for t in result.tags if not t.startswith(HOST_TAG)), tag)
        copy = result if tags == result.tags else replace(result, tags=tags)
        path = None
        try:
            copy, path = self.store.save_result(copy)
            host_run.saved.append(str(path))
        except LabtuiError as exc:
            host_run.save_errors.append(f"not saved here: {exc}")
        host_run.results.append(copy)
        return path

    def _settle(self, host_run: HostRun) -> None:
        """The agent said bye: where the host ended."""
        if host_run.ended:
            return
        result = host_run.result
        if host_run.started is not None:
            return  # a run without its end: _cut_off decides once the stream closes
        refused = host_run.refused_text()
        if refused:  # whatever else it did: a host that sends what it was not asked for has failed
            self._end(host_run, FAILED, f"{host_run.name}: {'; '.join(refused)}")
            return
        if result is None:
            if host_run.reason is not None or host_run.exit_code == 2:
                self._end(host_run, REFUSED, f"{host_run.name}: {host_run.reason or host_run.last_error()}")
            elif self.stopping:
                self._end(host_run, ABORTED, f"not started: {self.stopping}")
            else:
                self._end(host_run, FAILED, f"{host_run.name}: {host_run.last_error() or 'no result'}")
            return
        unfinished = next((r for r in host_run.results if r.status != "completed"), None)
        if unfinished is not None:
            state = ABORTED if unfinished.status == "aborted" else FAILED
            if state == ABORTED and self.stopping is not None:
                why = f"stopped by {self.stopping}; its partial result is saved as aborted, there and here"
            else:
                why = f"{unfinished.status}: {unfinished.error or 'see the result'}"
            self._end(host_run, state, f"{host_run.name}: {why}")
        elif (host_run.check_report or {}).get("outcome") == ABORTED:
            # A check stopped between its passes: every run it made is complete, and it decided
            # nothing. Aborted, as `labtui check` here reports such a check, never "completed".
            summary = (host_run.check_report or {}).get("summary") or "the check was stopped"
            self._end(host_run, ABORTED, f"{host_run.name}: {said(summary)}")
        elif host_run.save_errors:
            self._end(host_run, FAILED, f"{host_run.name}: {'; '.join(host_run.save_errors)}")
        else:
            self._end(host_run, COMPLETED, None)

    def _cut_off(self, host_run: HostRun, returncode: int | None) -> None:
        """The stream ended without the host's bye: say why, and keep what arrived as an aborted result."""
        reason = why_ended(host_run, returncode, "mid-run" if host_run.started else "", self.stopping)
        if host_run.started is not None:
            cut = self._cut_step(host_run)
            path = self._keep(host_run, self._partial(host_run, reason, cut))
            live = host_run.live
            if live is not None:  # the host's own view ends as a finished run's does: with its result
                if cut is not None and host_run.step is not None and live.current is not None \
                        and live.current.result is None:
                    live.handle(StepFinished(host_run.step.index, cut))
                live.handle(RunFinished(host_run.results[-1], path))
            host_run.started = None
        refused = host_run.refused_text()
        if refused:
            reason = f"{'; '.join(refused)}; {reason}"
        if (host_run.results or self.stopping) and host_run.broke_protocol is None and not refused:
            self._end(host_run, ABORTED, f"{host_run.name}: {reason}")
        else:
            self._end(host_run, FAILED, f"{host_run.name}: {reason}")

    @staticmethod
    def _cut_step(host_run: HostRun) -> StepResult | None:
        """The step the host was measuring when it was cut off, from its intervals that arrived."""
        if host_run.step is not None and host_run._measured:
            return partial_step(host_run.step, host_run._measured)
        return None

    def _partial(self, host_run: HostRun, reason: str, cut: StepResult | None) -> RunResult:
        started = host_run.started
        assert started is not None
        steps = [*host_run.finished_steps, *([cut] if cut is not None else [])]
        return RunResult(
            id=started.run_id, status="aborted", started=host_run._run_began or now(), ended=now(),
            host=host_run.facts or HostInfo(name=host_run.name), target=started.target, engine=started.engine,
            profile=started.profile, steps=tuple(steps), error=reason,
            warnings=(*host_run.warnings, (f"built by the local labtui from the events {host_run.name} sent before "
                                           "it was cut off; the host did not report its end")),
        )

    def _end(self, host_run: HostRun, state: str, reason: str | None) -> None:
        host_run.state, host_run.reason = state, reason
        self.on_change(host_run)

    # ------------------------------------------------------------------ the stream

    async def _hello(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> dict[str, Any] | None:
        # A login shell may greet before labtui speaks: skip what is not a message.
        while True:
            line = await self._readline(host_run, proc)
            if line is None:
                return None
            try:
                message = wire.host_message(line)
            except wire.WireError:
                continue
            if message["type"] == "hello":
                return message

    async def _next(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> dict[str, Any] | None:
        line = await self._readline(host_run, proc)
        while line is not None and not line.strip():
            line = await self._readline(host_run, proc)
        if line is None:
            return None
        try:
            return wire.host_message(line)
        except wire.WireError as exc:
            # After its hello a host speaks the wire format only: a line that does not read ends it, and says why.
            host_run.broke_protocol = f"it sent a line that does not read ({exc}): the host was stopped"
            self._tell(proc, {"type": "stop", "by": "the local labtui (a line that does not read)"})
            _kill(proc)
            return None

    async def _readline(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> bytes | None:
        """The host's next line; None at its end, or after a line too long, which ends the host (it is
        stopped, and its reason says the line's size): a result is kilobytes, and a line of hundreds of
        megabytes cost that much memory per host."""
        try:
            return await read_host_line(proc)
        except LineTooLong as exc:
            host_run.broke_protocol = (f"line too long: it sent a line of {exc.size_text()} (a message is at most "
                                       f"{wire.MAX_LINE_BYTES // (1024 * 1024)} MiB): the host was stopped")
            self._tell(proc, {"type": "stop", "by": "the local labtui (a line too long)"})
            _kill(proc)
            return None

    async def _read_stderr(self, host_run: HostRun, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None  # every pipe is open (_session)
        while True:
            try:
                line = await proc.stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            text = printable(line.decode("utf-8", "replace").rstrip())  # no escape codes from a host reach a terminal
            if text:
                host_run.stderr.append(said(text))

    async def _ping(self, proc: asyncio.subprocess.Process) -> None:
        """Tell the agent, every few seconds, that this side is still there (it stops after a silence)."""
        while self.stopping is None:
            await asyncio.sleep(wire.PING_SECONDS)
            if self.stopping is None:
                self._tell(proc, {"type": "ping"})

    def _tell(self, proc: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
        if proc.stdin is None:
            return
        with contextlib.suppress(Exception):
            proc.stdin.write(wire.dumps(message))


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
