"""One host's part of a fleet run as the local side knows it: its state, its current step and
figures, what it sent and what was refused, and a partial result for a host cut off mid-step.

The Fleet (session.py) keeps one per host up to date from the host's stream; the CLI's table and the
Fleet screens draw from it.
"""

from __future__ import annotations

import collections
import signal
from dataclasses import dataclass, field
from typing import Any

from labtui.engine.events import PrepareProgress, RunStarted, SampleTaken, StepStarted
from labtui.fleet.hosts import Host
from labtui.model.result import DirectionStats, HostInfo, LatencySummary, RunResult, Sample, StepResult
from labtui.run.live import LiveRun
from labtui.series import merge_samples

SPARK_POINTS = 60  # recent measured intervals kept per host for the live sparkline

# What a host is doing; the last five are where it ended.
CONNECTING, WAITING, PREPARING, RUNNING = "connecting", "waiting", "preparing", "running"
UNREACHABLE, REFUSED, COMPLETED, FAILED, ABORTED = "unreachable", "refused", "completed", "failed", "aborted"
ENDED = (UNREACHABLE, REFUSED, COMPLETED, FAILED, ABORTED)


@dataclass
class HostRun:
    """One host's part of a fleet run, kept up to date from its stream."""

    host: Host
    state: str = CONNECTING
    reason: str | None = None  # why it is unreachable, refused, failed or aborted
    facts: HostInfo | None = None  # from its hello
    labtui: str | None = None  # its labtui version
    started: RunStarted | None = None  # the current run (a check has one per pass)
    step: StepStarted | None = None
    phase: str | None = None
    sample: SampleTaken | None = None
    prepare: PrepareProgress | None = None
    finished_steps: list[StepResult] = field(default_factory=list)
    spark_iops: collections.deque = field(default_factory=lambda: collections.deque(maxlen=SPARK_POINTS))
    spark_mib: collections.deque = field(default_factory=lambda: collections.deque(maxlen=SPARK_POINTS))
    results: list[RunResult] = field(default_factory=list)  # the local copies, one per run (pass)
    saved: list[str] = field(default_factory=list)  # where the local copies went
    remote_saved: list[str] = field(default_factory=list)  # where the host saved its own
    save_errors: list[str] = field(default_factory=list)
    check_report: dict[str, Any] | None = None
    exit_code: int | None = None  # the agent's, from its bye
    warnings: list[str] = field(default_factory=list)
    stderr: collections.deque = field(default_factory=lambda: collections.deque(maxlen=40))
    live: LiveRun | None = None  # the current run as the Run screen keeps one: what the host's own view draws
    allowed_results: int = 1  # results the request asks for: one per run (a check: one per pass)
    refused: list[str] = field(default_factory=list)  # what the host sent that was refused, and why
    extra_results: int = 0  # results sent beyond allowed_results, refused
    broke_protocol: str | None = None  # why its stream was cut (a line too long): it ended there
    warnings_left_out: int = 0
    queued: bool = False  # waiting for one of the connections that may open at once (Fleet.connections)
    retries: int = 0  # refused handshakes retried (a jump host's or the host's MaxStartups)
    _run_began: Any = None  # local time the current run started (for a partial result)
    _measured: list = field(default_factory=list)  # the current step's measured samples (for a partial result)

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    @property
    def result(self) -> RunResult | None:
        """The host's last result (a check's deciding pass)."""
        return self.results[-1] if self.results else None

    @property
    def outcome(self) -> str:
        """What decides the exit code: "pass", "fail", "cannot tell" for a check, else the state."""
        if self.check_report is not None and self.state == COMPLETED:
            return str(self.check_report.get("outcome"))
        return self.state

    def refused_text(self) -> list[str]:
        """What the host sent that was refused, a phrase each."""
        said = list(self.refused)
        if self.extra_results:
            many = self.extra_results != 1
            said.append(f"it sent {self.extra_results:,} result{'s' if many else ''} more than the "
                        f"{self.allowed_results} its request asked for: refused, not kept (a host sends one result "
                        "per run; a check, one per pass)")
        return said

    def state_text(self) -> str:
        """The state in a word, with a running step's phase: "warm-up", "measuring", "completed" ..."""
        if self.state in ENDED:
            return self.outcome
        if self.state == RUNNING:
            return {"warmup": "warm-up", "measure": "measuring"}.get(self.phase or "", RUNNING)
        if self.state == CONNECTING and self.queued:
            return "queued"
        if self.state == CONNECTING and self.retries:
            return f"connecting (try {self.retries + 1})"
        return self.state

    def last_error(self) -> str | None:
        """The last thing it said on stderr that is not ssh's chatter (without labtui's 'error:' prefix)."""
        for raw in reversed(self.stderr):
            line = raw.strip()
            if line and not line.startswith("Warning: Permanently added"):
                return line.removeprefix("labtui: error: ")
        return None

    def step_text(self) -> str:
        if self.step is None:
            if self.state == PREPARING and self.prepare is not None:
                return f"test file {100 * self.prepare.fraction:.0f}%"
            return ""
        return f"{self.step.index + 1}/{self.step.total} {self.step.step.name}"

    def figures(self) -> tuple[float, float] | None:
        """IOPS and MiB/s as its row shows them: the latest interval's while it measures; once it has ended,
        its last step's, whole (the Fleet screen's table and `run --hosts`' live table alike)."""
        if self.state == RUNNING:
            x = self.sample.sample if self.sample is not None else None
            return (x.iops, x.mib_s) if x is not None else None
        if self.ended:
            last = self.last_step()
            return (last.total.iops, last.total.mib_s) if last is not None else None
        return None

    def last_step(self) -> StepResult | None:
        """The last I/O step it measured (its result's, else the steps that finished before it was cut off)."""
        steps = self.result.steps if self.result is not None else self.finished_steps
        return next((s for s in reversed(steps) if s.step.is_io and s.total.ios), None)


def exit_words(returncode: int | None) -> str:
    """How a host's ssh (or the labtui there) ended, in words."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    if returncode > 128 and returncode - 128 in signal.Signals._value2member_map_:
        return f"exit status {returncode}: killed by {signal.Signals(returncode - 128).name}"
    return f"exit status {returncode}"


def partial_step(started: StepStarted, samples: list[Sample]) -> StepResult:
    """A step cut off mid-way, from the measured intervals that arrived: exact counts and mean latency.

    The intervals' mean latencies, weighted by their I/Os, are the mean of every I/O they timed; their
    p99s do not combine into the step's (that needs the histogram, which stayed on the host), so the
    step has no percentiles, and its error says what its figures are.
    """
    whole = merge_samples(samples)
    read = DirectionStats(whole.read_ios, whole.read_bytes, whole.seconds)
    write = DirectionStats(whole.write_ios, whole.write_bytes, whole.seconds)
    timed = [(m, n) for m, n in ((whole.read_lat_mean_ms, whole.read_ios), (whole.write_lat_mean_ms, whole.write_ios))
             if m is not None and n]
    mean = sum(m * n for m, n in timed) / sum(n for _, n in timed) if timed else None
    p99s = [p for s in samples for p in (s.read_lat_p99_ms, s.write_lat_p99_ms) if p is not None]
    error = f"cut off mid-step: the figures are the {len(samples)} measured intervals that arrived"
    if mean is not None:
        error += ("; latency: their mean, weighted by each interval's I/Os; no percentiles (the intervals' "
                  "p99s do not combine into the step's")
        error += f"; the highest interval p99 was {max(p99s):.3f} ms)" if p99s else ")"
    return StepResult(step=started.step, status="aborted", read=read, write=write,
                      latency=LatencySummary(mean=mean), read_latency=LatencySummary(mean=whole.read_lat_mean_ms),
                      write_latency=LatencySummary(mean=whole.write_lat_mean_ms), repetition=started.repetition,
                      command_line=started.command_line, samples=tuple(samples), error=error)
