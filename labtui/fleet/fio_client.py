"""`labtui run --hosts FILE -e fio` on hosts that run `fio --server`: fio's own client/server mode.

Opt-in, for labs that already run `fio --server` on a trusted network: fio's protocol has no
authentication and lets any client run jobs, and commands, on the server. labtui never starts a
server; it runs the local `fio --client=ADDRESS,PORT` and reads what the server reports back.

What fio's client mode really does (fio 3.33, measured; docs/many-hosts.md says the same for users):
- a job file after `--client=` is read here and sent to the server; options after it go to the
  server too (`--status-interval`), options before it stay here (`--output-format`);
- the client keeps every report in memory and prints one JSON document when it ends: its
  `client_stats` hold one entry per interval report and host, the final report last, and
  `disk_util` the server's disks. Nothing of the figures streams while a step runs (not even on a
  terminal), so the live table shows each host's state and step, and the figures once a step ends.
  fio's status line ("Jobs: 1 ... [r=60.7M][r=15.2k IOPS]") is printed only with normal or terse
  output, never with JSON (not with --eta=always either), and holds rates rounded to three digits
  over fio's own display window, not counts; the interval reports come at the end in every format;
- the server's own messages ("<name> fio: ... is not a directory") arrive as they happen;
- `directory=` must exist (fio refuses the job otherwise, where `filename=/a/b` would create the
  directories), and fio names a file there "<server address>.<name>" unless `unique_filename=0`;
- SIGINT to the client stops every job on its servers, which send a final (partial) report and
  remove the file where the job has `unlink=1`; a server killed mid-step leaves the client's
  reports up to its last interval ("client: host=... disconnected", exit status 1).

The job files it sends and the lines and reports it reads back: labtui.fleet.fio_jobs. One fio
client process per host and step (a fault names its host, a dead server ends only its own
process); every step starts on every host together and the next waits for all. The test
file is kept between a host's steps and removed by the last one (`unlink=1`); after a stop or a
fault a small job removes it (see `cleanup_job`). A host's result is saved here tagged
`host:<name>`, as an SSH fleet host's is, and compared with the others (labtui.fleet.summary).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from labtui.engine.events import Event, RunStarted, RunWarning, StepFinished, StepStarted
from labtui.engine.fio import intervals, output, parse as fr
from labtui.errors import LabtuiError, ReportError
from labtui.fleet.fio_jobs import (
    JOB_NAME,
    ServerFacts,
    cleanup_job,
    client_address,
    client_entries,
    fault_reason,
    job_errors,
    job_file,
    job_options,
    probe_facts,
    probe_job,
    server_disks,
)
from labtui.fleet.host_run import ABORTED, COMPLETED, FAILED, REFUSED, RUNNING, UNREACHABLE, WAITING, HostRun
from labtui.fleet.hosts import Host
from labtui.fleet.session import Fleet
from labtui.model.profile import Profile, Step
from labtui.model.result import EngineInfo, HostInfo, RunResult, StepResult, TargetInfo, new_result_id, now
from labtui.results.store import Store

CONNECT_SECONDS = 5.0  # a server that does not accept a connection by then is unreachable
PROBE_SECONDS = 30.0  # the probe job (no I/O) must have ended by then
STOP_GRACE = 10.0  # after SIGINT, how long a client may take to collect its servers' last reports
OVERRUN = 15.0  # seconds past a step's planned end (and its file's layout) after which it is stopped
LAYOUT_BYTES_PER_SECOND = 20 * 1024 * 1024  # the slowest layout of the test file the first step allows for
SECURITY = ("fio's client/server protocol has no authentication and lets a client run commands on the server: "
            "use it only with servers your lab already runs on a trusted network")


# --------------------------------------------------------------------------- the fleet


@dataclass
class _Host:
    """A host's part of the run that the shared HostRun does not hold."""

    run: HostRun
    target: str
    facts: ServerFacts | None = None
    steps: list[StepResult] = field(default_factory=list)
    started: Any = None
    file_maybe_there: bool = False  # a step has laid out the test file and not removed it
    cleanup_failed: str | None = None
    disks: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)


class FioClientFleet(Fleet):
    """Runs one profile on the hosts' fio servers through the local fio's client mode.

    It keeps the SSH fleet's surface (runs, run(), stop(), the HostRun states and events), so the
    CLI's live table, its report and the cross-host comparison serve both.
    """

    def __init__(self, hosts: list[Host], profile: Profile, targets: dict[str, str], store: Store, *, fio: str = "fio",
                 one_at_a_time: bool = False, tags: Sequence[str] = (), params: dict[str, str] | None = None,
                 interval: float = 1.0, keep_file: bool = False,
                 on_change: Callable[[HostRun], None] | None = None,
                 on_event: Callable[[HostRun, Event], None] | None = None) -> None:
        super().__init__(hosts, lambda _host: {}, store, one_at_a_time=one_at_a_time, on_change=on_change,
                         on_event=on_event)
        self.profile = profile
        self.fio = fio
        self.tags = tuple(tags)
        self.params = dict(params or {})
        self.interval = interval
        self.keep_file = keep_file
        self._hosts = [_Host(r, targets[r.name]) for r in self.runs]
        self._clients: dict[str, asyncio.subprocess.Process] = {}
        self._jobs_dir = Path(tempfile.mkdtemp(prefix="labtui-fio-client-"))
        self.run_tag = new_result_id().replace("-", "")[-12:]

    @property
    def file_name(self) -> str:
        return f"labtui-{self.run_tag}.fio.dat"

    # ------------------------------------------------------------------ the whole run

    async def run(self) -> list[HostRun]:
        try:
            await asyncio.gather(*(self._probe(h) for h in self._hosts))
            ready = [h for h in self._hosts if h.run.state == WAITING]
            if ready and self.stopping is None:
                if self.one_at_a_time:
                    for host in ready:
                        await self._steps([host])
                else:
                    self.start_instant = time.time()
                    await self._steps(ready)
            await asyncio.gather(*(self._cleanup(h) for h in self._hosts if h.file_maybe_there))
            for host in self._hosts:
                if host.started is not None:
                    self._finish(host)
                elif not host.run.ended:
                    self._end(host.run, ABORTED, f"{host.run.name}: not started: {self.stopping or 'stopped'}")
        finally:
            for proc in self._clients.values():
                _kill(proc)
            with contextlib.suppress(OSError):
                for path in self._jobs_dir.iterdir():
                    path.unlink()
                self._jobs_dir.rmdir()
        return self.runs

    def stop(self, why: str = "stopped") -> None:
        """Stop every host: SIGINT to each fio client, which stops its server's job; the partial
        reports are kept as aborted results, the test files removed."""
        if self.stopping is not None:
            return
        self.stopping = why
        for proc in list(self._clients.values()):
            _interrupt(proc)

    # ------------------------------------------------------------------ one host

    async def _probe(self, host: _Host) -> None:
        run = host.run
        assert run.host.fio_server is not None
        address, port = run.host.fio_server
        where = run.host.fio_where()
        try:
            _reader, writer = await asyncio.wait_for(asyncio.open_connection(address, port), CONNECT_SECONDS)
        except TimeoutError:
            self._end(run, UNREACHABLE, f"{run.name}: no fio server answered at {where} within {CONNECT_SECONDS:.0f} s")
            return
        except OSError as exc:
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            self._end(run, UNREACHABLE, f"{run.name}: cannot reach a fio server at {where}: {why}")
            return
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        if self.stopping is not None:
            return
        lines, returncode, _text = await self._client(host, "probe", probe_job(host.target), PROBE_SECONDS,
                                                      output="normal")
        facts = probe_facts(lines)
        if returncode is None:
            self._end(run, UNREACHABLE, f"{run.name}: the fio server at {where} did not answer fio's probe within "
                                        f"{PROBE_SECONDS:.0f} s")
            return
        errors = job_errors(lines)
        fault = fault_reason(lines, where)
        about_target = [e for e in errors if host.target in e]
        if about_target:
            # The server answered and refused the target; a disconnect that follows (its job
            # dropped, the server closes the connection) must not make it read as unreachable.
            self._end(run, REFUSED, f"{run.name}: the fio server refuses the target {host.target}: {about_target[0]}")
            return
        if fault is not None or facts is None:
            reason = fault or (errors[0] if errors else f"fio --client ended ({_exit(returncode)}) without the "
                                                         "server's probe reply")
            self._end(run, REFUSED if "protocol version" in reason else UNREACHABLE, f"{run.name}: {reason}")
            return
        host.facts = facts
        run.facts = HostInfo(name=facts.hostname, os=f"{facts.os} {facts.arch}")
        if errors:
            self._end(run, REFUSED, f"{run.name}: the fio server refuses the target {host.target}: {errors[0]}")
            return
        local = _local_fio_version(self.fio)
        if local and facts.fio != local:
            host.warnings.append(f"the fio here is {local}, the server's {facts.fio}: figures from different fio "
                                 "releases may differ")
        run.state = WAITING
        self.on_change(run)

    async def _steps(self, hosts: list[_Host]) -> None:
        passes = self.profile.passes()
        for host in hosts:
            self._begin(host, len(passes))
        for index, (_position, step, repetition) in enumerate(passes):
            alive = [h for h in hosts if h.run.state == RUNNING]
            if not alive or self.stopping is not None:
                break
            pause = self.profile.pause_before(step) if index else 0.0
            if pause > 0:
                await self._sleep(pause)
            last = index == len(passes) - 1
            await asyncio.gather(*(self._step(h, step, index, len(passes), repetition, last) for h in alive))
            if step.cooldown > 0:
                await self._sleep(step.cooldown)
        ended = [h for h in hosts if h.started is not None]
        await asyncio.gather(*(self._cleanup(h) for h in ended if h.file_maybe_there))
        for host in ended:
            self._finish(host)

    def _begin(self, host: _Host, total: int) -> None:
        run = host.run
        facts = host.facts
        assert facts is not None
        host.started = now()
        started = RunStarted(new_result_id(host.started), self.profile, self._target(host),
                             EngineInfo("fio", facts.fio), total, self.profile.planned_seconds)
        self._apply(run, started)
        self.on_event(run, started)
        run.state = RUNNING
        for message in host.warnings:
            self._event(run, RunWarning(message))
        self.on_change(run)

    async def _step(self, host: _Host, step: Step, index: int, total: int, repetition: int, last: bool) -> None:
        run = host.run
        assert host.facts is not None
        unlink = last and not self.keep_file
        options = job_options(step, host.target, self.file_name, self.profile.file_size,
                              linux=host.facts.os.lower() == "linux", unlink=unlink)
        argv = self._argv(host, "step")
        command_line = f"{shlex.join(argv)}  # {JOB_NAME}.fio: [{JOB_NAME}] {' '.join(options)}"
        self._event(run, StepStarted(index, total, step, repetition, command_line))
        host.file_maybe_there = True
        seconds = step.warmup + step.duration * 1.1 + OVERRUN
        if index == 0:
            seconds += self.profile.file_size / LAYOUT_BYTES_PER_SECOND
        lines, returncode, text = await self._client(host, "step", options, seconds, output="json+" if step.latency
                                                     else "json", interval=self.interval)
        result = self._step_result(host, step, repetition, command_line, lines, returncode, text, seconds)
        if result.status == "completed" and last:
            host.file_maybe_there = False  # removed by fio's unlink=1, or kept as --keep-file asks
        if repetition > 0 or result.status != "completed":
            host.steps.append(result)
        self._event(run, StepFinished(index, result))
        for sample in result.samples:
            run.spark_iops.append(sample.iops)
            run.spark_mib.append(sample.mib_s)
        if result.status != "completed":
            if host.file_maybe_there:
                await self._cleanup(host)  # before the result is saved: it says if the file may remain
            self._finish(host, result.error)

    def _step_result(self, host: _Host, step: Step, repetition: int, command_line: str, lines: list[str],
                     returncode: int | None, text: str, limit: float) -> StepResult:
        where = host.run.host.fio_where()
        out = output.split_output(text)
        jobs: list[dict] = []
        report: dict | None = out.reports[-1] if out.reports else None
        if report is not None and "client_stats" in report:
            with contextlib.suppress(ReportError):
                groups = client_entries(report)
                jobs = next(iter(groups.values()), []) if len(groups) == 1 else []
                if jobs:
                    first = jobs[0]
                    disks = server_disks(report, str(first.get("hostname", "")), first.get("port"))
                    host.disks = tuple(disks) or host.disks
        fault = fault_reason(lines, where)
        errors = job_errors(lines)
        if self.stopping is not None:
            why: str | None = f"stopped by {self.stopping}"
        elif returncode is None:
            why = f"fio --client did not finish within {limit:.0f} s and was stopped (a hung server or disk?)"
        elif fault is not None:
            why = f"{fault} mid-step"
        else:
            why = None
        if not jobs:
            detail = why or (errors[0] if errors else f"fio --client {_exit(returncode)} without a report of the step")
            return StepResult(step=step, status="aborted" if why else "failed", repetition=repetition,
                              command_line=command_line, error=detail)
        tracker = intervals.SampleTracker(step.warmup, latency=step.latency, min_seconds=0.25 * self.interval,
                                   sizes=(step.block_size, step.block_size))
        legacy = fr.is_legacy(report or {})
        try:
            for job in jobs:
                tracker.add(job, legacy)
            tracker.finish()
            result = fr.job_step_result(jobs[-1], step, legacy=legacy, repetition=repetition,
                                        command_line=command_line, samples=tuple(tracker.measured),
                                        latency=step.latency)
        except ReportError as exc:
            return StepResult(step=step, status="failed", repetition=repetition, command_line=command_line,
                              error=f"fio's report could not be read: {exc}")
        if why is not None:
            n = len(tracker.measured)
            return replace(result, status="aborted",
                           error=f"{why}: the figures are fio's last report before it ({n} measured interval"
                                 f"{'' if n == 1 else 's'})")
        if result.status == "completed" and returncode != 0:
            detail = "; ".join(errors[-3:]) or "no message"
            return replace(result, status="failed", error=f"fio --client {_exit(returncode)}: {detail}")
        if result.status != "completed" and errors:
            return replace(result, error=f"{result.error}: {'; '.join(errors[-3:])}")
        return result

    def _finish(self, host: _Host, error: str | None = None) -> None:
        """The host's result, saved here tagged with its name, and where it ended."""
        run = host.run
        if host.started is None:
            return
        steps = tuple(host.steps)
        failed = next((s for s in steps if s.status != "completed"), None)
        status = "completed" if failed is None else ("aborted" if failed.status == "aborted" else "failed")
        error = error or (failed.error if failed is not None else None)
        warnings = list(host.warnings)
        if host.cleanup_failed:
            warnings.append(host.cleanup_failed)
        started = run.started
        assert started is not None
        result = RunResult(id=started.run_id, status=status, started=host.started, ended=now(),
                           host=run.facts or HostInfo(name=run.name), target=self._target(host),
                           engine=EngineInfo("fio", host.facts.fio if host.facts else None,
                                             command_line=f"fio --client={client_address(run.host.fio_server)}"
                                             if run.host.fio_server else None),
                           profile=self.profile, steps=steps, tags=self.tags, error=error,
                           warnings=tuple(warnings), params=dict(self.params))
        host.started = None
        self._keep(run, result)
        run.started, run.step = None, None
        if status == "completed":
            if run.save_errors:
                self._end(run, FAILED, f"{run.name}: {'; '.join(run.save_errors)}")
            else:
                self._end(run, COMPLETED, None)
        else:
            kept = "its partial result is saved here as aborted" if status == "aborted" else "its result is saved here"
            self._end(run, ABORTED if status == "aborted" else FAILED, f"{run.name}: {error} ({kept})")

    async def _cleanup(self, host: _Host) -> None:
        """Remove a test file a stop or fault left on the server; say so where it could not be."""
        run = host.run
        lines, returncode, _text = await self._client(host, "cleanup", cleanup_job(host.target, self.file_name),
                                                      PROBE_SECONDS, output="json", cleanup=True)
        path = f"{host.target.rstrip('/')}/{self.file_name}"
        if returncode != 0 or job_errors(lines) or fault_reason(lines, run.host.fio_where()):
            reason = fault_reason(lines, run.host.fio_where()) or "; ".join(job_errors(lines)) or _exit(returncode)
            host.cleanup_failed = f"the test file {path} may remain on {run.name} ({reason})"
            run.warnings.append(host.cleanup_failed)
            self.on_change(run)
        host.file_maybe_there = False

    # ------------------------------------------------------------------ the fio client

    def _argv(self, host: _Host, what: str, output: str = "json", interval: float | None = None) -> list[str]:
        assert host.run.host.fio_server is not None
        job = str(self._jobs_dir / f"{host.run.name}-{what}.fio")
        argv = [self.fio, f"--output-format={output}", f"--client={client_address(host.run.host.fio_server)}", job]
        if interval is not None:
            argv.append(f"--status-interval={_seconds(interval)}")  # after the job file: the server's option
        return argv

    async def _client(self, host: _Host, what: str, options: list[str], seconds: float, *, output: str,
                      interval: float | None = None, cleanup: bool = False) -> tuple[list[str], int | None, str]:
        """Run one fio client against the host's server: (its lines before the JSON, exit status or
        None when it had to be stopped, its whole stdout)."""
        run = host.run
        argv = self._argv(host, what, output, interval)
        Path(argv[3]).write_text(job_file(options, f"{JOB_NAME}-{what}" if what != "step" else JOB_NAME))
        try:
            proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                        stdout=asyncio.subprocess.PIPE,
                                                        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise LabtuiError(f"cannot start {self.fio}: {exc.strerror or exc}") from None
        if not cleanup:
            self._clients[run.name] = proc
            if self.stopping is not None:
                _interrupt(proc)
        chunks: list[bytes] = []
        lines: list[str] = []
        stopped = False
        deadline = time.monotonic() + seconds

        async def read() -> None:
            assert proc.stdout is not None
            in_json = False
            while True:
                line = await proc.stdout.readline()
                if not line:
                    return
                chunks.append(line)
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                if text.strip() == "{":
                    in_json = True
                if not in_json:
                    lines.append(text)

        reader = asyncio.create_task(read())
        try:
            while not reader.done():
                remaining = deadline - time.monotonic()
                if remaining <= 0 and not stopped:
                    stopped = True
                    _interrupt(proc)
                    deadline = time.monotonic() + STOP_GRACE
                    continue
                if remaining <= 0:
                    _kill(proc)
                    break
                await asyncio.wait({reader}, timeout=min(remaining, 0.5))
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(reader, timeout=2.0)
            try:
                returncode: int | None = await asyncio.wait_for(proc.wait(), timeout=STOP_GRACE)
            except TimeoutError:
                _kill(proc)
                await proc.wait()
                returncode = None
        finally:
            if not reader.done():
                reader.cancel()
            if self._clients.get(run.name) is proc:
                del self._clients[run.name]
        return lines, None if stopped and not self.stopping else returncode, b"".join(chunks).decode("utf-8", "replace")

    # ------------------------------------------------------------------ helpers

    def _target(self, host: _Host) -> TargetInfo:
        return TargetInfo(path=host.target, disk=host.disks[0] if host.disks else None)

    def _event(self, run: HostRun, event: Event) -> None:
        self._apply(run, event)
        self.on_event(run, event)
        self.on_change(run)

    async def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.stopping is None and time.monotonic() < end:
            await asyncio.sleep(min(0.2, end - time.monotonic()))


def _seconds(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{max(1, round(value * 1000))}ms"


def _exit(returncode: int | None) -> str:
    if returncode is None:
        return "was stopped"
    if returncode < 0:
        return f"was killed by {signal.Signals(-returncode).name}"
    return f"ended with exit status {returncode}"


_VERSIONS: dict[str, str | None] = {}


def _local_fio_version(fio: str) -> str | None:
    if fio not in _VERSIONS:
        from labtui.engine import subproc

        text = (subproc.quick_output([fio, "--version"]) or "").strip()
        _VERSIONS[fio] = text.removeprefix("fio-") or None
    return _VERSIONS[fio]


def _interrupt(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)  # fio's client asks its servers to stop their jobs


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
