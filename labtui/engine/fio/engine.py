"""The fio engine: each step becomes fio job options; fio's JSON status stream gives live samples.

The translation (`fio_arguments`) keeps the native engine's shape:
- cache off on Linux: `ioengine=libaio`, `direct=1`, `numjobs` = threads, `iodepth` = outstanding;
  elsewhere, and with the page cache on (where libaio would block in io_submit and hold one I/O in
  flight per job), `psync` with one job per outstanding I/O — the native engine's threads backend;
- write-through steps: `sync=dsync` (O_DSYNC), each write on the media before it completes;
- `group_reporting`, so one job entry carries the step's exact counts;
- `time_based` + `runtime` = duration, `ramp_time` = warm-up (fio resets its counters after it);
- write buffers refilled with fresh random data for every I/O (nothing to compress or dedupe);
- uniform random offsets without fio's random map, a fresh random sequence each run;
- sequential steps with several jobs: one region of the file per job, as the native engine does;
- total-latency percentiles (`lat_percentiles=1`, json+ histograms), labtui's latency definition.

fio runs with `--output-format=json(+) --status-interval=1`: it prints a cumulative report every
interval and the final one at the end. Consecutive reports are differenced into samples
(parse.SampleTracker) and the final report is the step's result, with fio's own counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import math
import shlex
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil

from labtui.engine import cpubound, subproc
from labtui.engine.base import CpuAdvice, Engine, EngineFailed, EngineUnavailable, Job, ensure_cleared, stopped_collecting
from labtui.engine.cpu import CpuMeter, cpu_percent_between
from labtui.engine.events import Event, SampleTaken, SteadyRound, StepFinished
from labtui.engine.fio import intervals, output, parse as fr
from labtui.engine.fio.verify import FIO_VERIFY, VerifyTally
from labtui.engine.limits import StepNeeds
from labtui.errors import ReportError
from labtui.machine import programs
from labtui.model.profile import MIB, Step
from labtui.model.result import DirectionStats, LatencySummary, SteadyCriterion, SteadyState, StepResult, settled
from labtui.settings import EngineSettings
from labtui.units import format_duration

INSTALL_HINT = "fio is not installed: apt-get install fio (dnf install fio, brew install fio)"
OVERRUN = 15.0  # seconds past its planned end after which a step is declared hung


def _time(seconds: float) -> str:
    """A fio time value: whole seconds as a plain number, anything else in milliseconds."""
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{max(1, round(seconds * 1000))}ms"


def _filename(path: str | Path) -> str:
    # fio reads ':' in a filename as a separator between several files.
    return str(path).replace(":", "\\:")


def fio_judges(step: Step) -> bool:
    """Whether fio's own steadystate check expresses the step's rule exactly: one of fio's criteria
    on IOPS or bandwidth, over rounds of one second (fio judges one data point per second)."""
    rule = step.steady
    return rule is not None and not rule.snia and rule.figure in ("iops", "mib_s") and step.duration == 1.0


def fio_arguments(
    step: Step,
    path: str | Path,
    file_size: int,
    *,
    interval: float = 1.0,
    program: str = "fio",
    linux: bool | None = None,
) -> list[str]:
    """The exact fio command for `step` on the prepared test file `path` of `file_size` bytes."""
    linux = sys.platform.startswith("linux") if linux is None else linux
    aio = linux and step.cache == "off"
    jobs = fio_jobs(step, linux)
    depth = step.outstanding if aio else 1
    random = step.pattern == "random"
    if step.write_percent == 0:
        rw = "randread" if random else "read"
    elif step.write_percent == 100:
        rw = "randwrite" if random else "write"
    else:
        rw = "randrw" if random else "rw"
    args = [
        program,
        "--name=labtui",
        f"--filename={_filename(path)}",
        f"--ioengine={'libaio' if aio else 'psync'}",
        f"--direct={1 if step.cache == 'off' else 0}",
        f"--rw={rw}",
    ]
    if 0 < step.write_percent < 100:
        args.append(f"--rwmixread={100 - step.write_percent}")
    if step.write_through and step.writes:
        args.append("--sync=dsync")  # O_DSYNC, as the native engine opens the file
    args += [f"--bs={step.block_size}", f"--iodepth={depth}", f"--numjobs={jobs}", "--group_reporting"]
    blocks = file_size // step.block_size
    share = blocks // jobs
    if not random and jobs > 1 and share >= depth:
        # One region per job, like the native engine's workers: job i reads [i*share, (i+1)*share).
        args += [f"--size={share * step.block_size}", f"--offset_increment={share * step.block_size}"]
    else:
        args.append(f"--size={blocks * step.block_size}")
    rule = step.steady
    if rule is None:
        runtime = step.duration
    elif fio_judges(step):
        # fio collects its data from ss_ramp + 1 s after its ramp: room for max_rounds data points.
        runtime = step.warmup + 1 + rule.max_rounds
    else:
        runtime = step.duration * rule.max_rounds  # labtui stops it when the rule holds
    args += ["--time_based", f"--runtime={_time(runtime)}"]
    if step.warmup > 0:
        args.append(f"--ramp_time={_time(step.warmup)}")
    if rule is not None and fio_judges(step):
        args += [f"--steadystate={rule.name}:{rule.limit:.15g}{'%' if rule.percent else ''}",
                 f"--ss_dur={rule.window}"]
        if step.warmup > 0:
            # Without it fio's check would count from before its ramp's reset of the counters.
            args.append(f"--ss_ramp={_time(step.warmup)}")
    if random:
        args += ["--norandommap", "--randrepeat=0"]
    if step.writes and not step.verify:
        args += ["--refill_buffers", "--buffer_compress_percentage=0"]
    if step.verify:
        # fio's own header and CRC-32C every 4 KiB, as labtui's own: a step that reads 4 KiB blocks then
        # checks what one of 1 MiB wrote (with a header per block, fio failed every such read: "bad header
        # length"). A timed write never reaches fio's read-back phase (the step that reads checks), and
        # no state file is left in the working directory. The reading step goes on past a bad block
        # (continue_on_error=verify): fio's default stopped at the first, and a step whose file had four bad
        # blocks said "1 block did not read back as written".
        args += [f"--verify={FIO_VERIFY}", "--verify_interval=4096", "--verify_state_save=0"] + (
            ["--do_verify=0"] if step.writes else ["--continue_on_error=verify"])
    if step.latency:
        args.append("--lat_percentiles=1")
    args += [
        "--eta=never",
        f"--status-interval={_time(interval)}",
        f"--output-format={'json+' if step.latency else 'json'}",
    ]
    return args


def fio_jobs(step: Step, linux: bool | None = None) -> int:
    """fio's job count for `step` (numjobs): a job per thread with libaio (cache off on Linux), else
    psync's job per I/O in flight."""
    linux = sys.platform.startswith("linux") if linux is None else linux
    return step.threads if linux and step.cache == "off" else step.threads * step.outstanding


class FioEngine(Engine):
    name = "fio"
    title = "fio"
    cpu_advice = CpuAdvice(
        own="this figure is the engine's limit, not the disk's: try more threads (fio jobs)",
        crowded=("this figure is the CPUs' limit, not the disk's: fio's jobs waited for a CPU (other work, or more "
                 "jobs than CPUs); try a quieter machine or fewer jobs"),
    )
    settings_keys = ("fio_path",)
    preview_order = 1

    def __init__(self, settings: EngineSettings | None = None) -> None:
        super().__init__(settings)
        self._version: str | None = None
        # fio's whole stdout for each step run, in order: its own numbers, to check ours against.
        self.raw_outputs: list[str] = []
        # Per run (its id), how many bytes from the test file's start its verified writes are known to have written.
        self._wrote: dict[str, int] = {}

    @property
    def program(self) -> str:
        configured = self.settings.fio_path
        return str(configured) if configured else "fio"

    def needs(self, step: Step) -> StepNeeds:
        # As fio_arguments translates it: libaio (an AIO event per I/O in flight) with cache off on
        # Linux, else psync with a job per I/O in flight.
        if sys.platform.startswith("linux") and step.cache == "off":
            return StepNeeds(threads=step.threads, aio_events=step.threads * step.outstanding)
        why = "fio's psync: a job per I/O in flight" + (" with the page cache on" if step.cache == "on" else "")
        return StepNeeds(threads=step.threads * step.outstanding, why_threads=why)

    def check_available(self) -> None:
        self.executable()

    def executable(self) -> str:
        """The fio to start (labtui.machine.programs: found on PATH or as configured, refused as root where
        another user could change it); EngineUnavailable saying why not."""
        configured = self.settings.fio_path
        try:
            found = programs.find(str(configured) if configured else "fio")
        except programs.ProgramRefused as exc:
            raise EngineUnavailable(f"the setting fio_path is {configured!r}: {exc.reason}" if configured
                                    else str(exc)) from None
        if found is None:
            raise EngineUnavailable(f"the setting fio_path is {configured!r}, which is not an executable file"
                                    if configured else INSTALL_HINT)
        return found

    def version(self) -> str | None:
        if self._version is None:
            try:
                program = self.executable()
            except EngineUnavailable:
                return None  # not run: none there, or refused (check_available says so where it matters)
            text = (subproc.quick_output([program, "--version"]) or "").strip()
            self._version = text.removeprefix("fio-") if text.startswith("fio-") else (text or None)
        return self._version

    def command_line(self, step: Step, path: str | Path, file_size: int) -> str:
        return shlex.join(fio_arguments(step, path, file_size, program=self.program))

    async def run_step(self, step: Step, job: Job) -> AsyncIterator[Event]:
        self.partial_result = None
        argv = fio_arguments(step, job.engine_path, job.file_size, interval=job.interval, program=self.executable())
        # The command line kept names the test file; fio opens it through the run directory's descriptor.
        command_line = shlex.join(fio_arguments(step, job.path, job.file_size, interval=job.interval,
                                                program=self.program))
        ensure_cleared(job, step.writes)
        try:
            proc = await subproc.spawn(argv)
        except OSError as exc:
            raise EngineUnavailable(f"cannot start fio ({exc.strerror or exc}): {INSTALL_HINT}") from exc
        errors: list[str] = []
        # A verified read's messages are tallied as they come: a file the write step did not reach makes millions.
        tally = VerifyTally(job.file_size, self._wrote.get(job.run_id or "", 0)) if step.verify and step.reads else None
        err_task = asyncio.ensure_future(subproc.read_all(proc.stderr, errors,
                                                          taken=tally.feed if tally is not None else None))
        raw: list[str] = []
        stream = output.ReportStream()
        sizes = (step.block_size, step.block_size)  # every I/O of a labtui step is one block size
        tracker = intervals.SampleTracker(step.warmup, latency=step.latency, min_seconds=0.25 * job.interval, sizes=sizes)
        meter = CpuMeter()
        if step.warmup <= 0:
            meter.start()
        last_cpu = psutil.cpu_times()
        reports: list[dict] = []
        rounds = _Rounds(step, job) if step.steady is not None else None
        stopped = False  # labtui stopped fio: the rule held (its exit status then says nothing)
        planned = step.planned_seconds
        if step.steady is not None and fio_judges(step):
            planned = step.warmup * 2 + 1 + step.steady.max_rounds
        deadline = time.monotonic() + step.warmup + planned * 1.1 + OVERRUN
        ended = False
        try:
            assert proc.stdout is not None
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EngineFailed(
                        f"fio did not finish within {math.ceil(step.warmup + step.duration + OVERRUN)} s and was "
                        "stopped (a hung disk?)"
                    )
                try:
                    chunk = await asyncio.wait_for(proc.stdout.read(65536), timeout=remaining)
                except TimeoutError:
                    continue
                text = chunk.decode("utf-8", "replace") if chunk else ""
                raw.append(text)
                new = stream.feed(text) if chunk else stream.finish()
                for report in new:
                    reports.append(report)
                    cpu = psutil.cpu_times()
                    was_warmup = tracker.phase == "warmup"
                    taken = tracker.add(_only_job(report), fr.is_legacy(report),
                                        cpu_percent=cpu_percent_between(last_cpu, cpu))
                    if was_warmup and tracker.phase == "measure":
                        meter.start(last_cpu)  # the measured phase began within this interval
                    last_cpu = cpu
                    if taken is not None:
                        yield SampleTaken(job.index, taken[0], taken[1])
                    if rounds is not None and taken is not None and taken[0] == "measure":
                        state = rounds.add(fr.job_counters(_only_job(report), fr.is_legacy(report), sizes=sizes))
                        if state is not None:
                            yield SteadyRound(job.index, state)
                            if state.finished and not stopped and not rounds.by_fio:
                                stopped = True
                                with contextlib.suppress(ProcessLookupError):
                                    proc.send_signal(signal.SIGINT)  # fio ends its jobs and prints the final report
                if not chunk:
                    ended = True  # fio's final report is in: the window is measured whole
                    break
            returncode = await proc.wait()
            await err_task
        except asyncio.CancelledError:
            # Nothing can be yielded any more: what was measured goes to the runner this way.
            self.partial_result = _partial_result(step, job, reports, tracker, meter, command_line, ended)
            raise
        finally:
            try:
                await subproc.stop(proc)
            except asyncio.CancelledError:
                if self.partial_result is None:
                    self.partial_result = _partial_result(step, job, reports, tracker, meter, command_line, ended)
                raise
            finally:
                err_task.cancel()
        tracker.finish()
        self.raw_outputs.append("".join(raw))
        stderr = output.split_output("".join(errors)).messages + tuple(stream.messages)
        result = self._result(step, job, reports, tracker, meter, command_line, 0 if stopped else returncode, stderr,
                              tally)
        if rounds is not None and result.status == "completed":
            result = rounds.result(result, _only_job(reports[-1]), fr.is_legacy(reports[-1]))
        yield StepFinished(job.index, result)

    def _result(self, step: Step, job: Job, reports: list[dict[str, Any]], tracker: intervals.SampleTracker, meter: CpuMeter,
                command_line: str, returncode: int, stderr: tuple[str, ...], tally: VerifyTally | None = None) -> StepResult:
        detail = "; ".join(stderr[-3:])
        if not reports:
            raise EngineFailed(f"fio {subproc.exit_text(returncode)} without a report" + (f": {detail}" if detail else ""))
        final = reports[-1]
        try:
            result = fr.job_step_result(
                _only_job(final), step, legacy=fr.is_legacy(final), repetition=job.repetition,
                command_line=command_line, samples=tuple(tracker.measured), cpu_percent=meter.stop(),
                latency=step.latency,
            )
        except ReportError as exc:
            raise EngineFailed(f"fio's report could not be read: {exc}") from exc
        if cpubound.too_short(result.total.seconds):
            # The machine's use was read from just before the window to fio's exit: of a window this
            # short it tells nothing (it read "no idle CPU (100 % busy)" for a 1 ms step).
            result = replace(result, cpu_percent=None)
        elif result.status == "completed" and result.cpu_seconds is not None:
            # group_reporting sums the jobs: each is taken at the mean (fio's jobs share the work evenly).
            # A job per I/O in flight with psync: dividing by the threads alone made one job of the
            # four in `1 x 4, cache on` use "171 % of a CPU", and the step CPU-bound.
            seconds = result.total.seconds
            jobs = fio_jobs(step)
            each = cpubound.WorkerLoad(result.cpu_seconds / jobs)
            engine_cpu, bound = cpubound.verdict([each] * jobs, seconds, result.cpu_percent)
            result = replace(result, engine_cpu_percent=engine_cpu, engine_bound=bound)
        if step.writes and not step.verify and job.run_id:
            self._wrote.pop(job.run_id, None)  # its data, without fio's headers, may now be where they were
        if step.verify and step.writes and job.run_id and step.pattern == "sequential" and fio_jobs(step) == 1:
            # One job writing in order from the file's start: its first bytes carry fio's headers (a random
            # write's, or several jobs', blocks are not known: a block without a header there is not blamed).
            self._wrote[job.run_id] = max(self._wrote.get(job.run_id, 0), min(result.write.bytes, job.file_size))
        if tally is not None:
            checked = tally.verification(result.read.ios, step.block_size, job.file_size)
            result = replace(result, verify=checked)
            if checked.failed:
                first = checked.mismatches[0].detail.removeprefix("fio: ")
                return replace(result, status="failed", error=f"{checked.problem()} (fio: {first})")
            if checked.unwritten and result.status == "failed" and (result.error or "").startswith(
                    f"fio reported error {errno.EILSEQ} "):
                # fio's error for the verify failures it went on past: blocks no verified write of the run wrote.
                result = replace(result, status="completed", error=None)
        if result.status == "completed" and returncode != 0:
            result = replace(result, status="failed", error=f"fio {subproc.exit_text(returncode)}: {detail or 'no message'}")
        elif result.status != "completed" and detail:
            result = replace(result, error=f"{result.error}: {detail}")
        return result


def _partial_result(step: Step, job: Job, reports: list[dict[str, Any]], tracker: intervals.SampleTracker, meter: CpuMeter,
                    command_line: str, ended: bool = False) -> StepResult | None:
    """What a step cancelled mid-measure had measured, as an aborted step (None: nothing yet).

    fio's last status report before the cancel is cumulative over the measured phase (its counters
    reset when ramp_time ends): its counts, times and latency are exact up to that instant.
    """
    if tracker.phase != "measure" or not reports:
        return None
    try:
        result = fr.job_step_result(
            _only_job(reports[-1]), step, legacy=fr.is_legacy(reports[-1]), repetition=job.repetition,
            command_line=command_line, samples=tuple(tracker.measured), cpu_percent=meter.stop(),
            latency=step.latency,
        )
    except (ReportError, EngineFailed):
        return None
    seconds = result.total.seconds
    if seconds <= 0 or result.total.ios <= 0:
        return None
    planned = step.duration * (step.steady.max_rounds if step.steady is not None else 1)
    if ended or seconds >= planned - 0.005:  # cancelled as fio ended its window and printed its final report
        source = "fio's final report" if ended else "fio's last status report, at the window's end"
        return replace(result, status="aborted", error=stopped_collecting(seconds, source))
    return replace(result, status="aborted", error=(
        f"stopped {seconds:.1f} s into its {format_duration(planned)} measure: the figures are of the "
        "part measured (fio's last status report)"))


def _only_job(report: dict) -> dict:
    try:
        jobs = fr.report_jobs(report)
    except ReportError as exc:
        raise EngineFailed(f"fio's report could not be read: {exc}") from exc
    return jobs[0]


class _Rounds:
    """A steady-state step's rounds from fio's cumulative reports, and its window's figures.

    Each measured report closes an interval; a round ends with the first report at or past its
    length (within a quarter interval). The reports' counters where rounds end are kept: the
    window is their difference, exact.
    """

    def __init__(self, step: Step, job: Job) -> None:
        rule = step.steady
        assert rule is not None
        self.step, self.rule = step, rule
        self.judge = job.steady_judge()
        self.by_fio = fio_judges(step)
        self.slack = 0.25 * job.interval
        self.bounds = [intervals.empty_counters()]  # fio resets every counter when its ramp ends
        self.figures: list[float] = []
        self.state: SteadyState | None = None
        # fio's check collects from ss_ramp + 1 s after the job began, its ramp (= ss_ramp) included:
        # the first measured second is not one of its data points.
        self.skip = 1.0 if self.by_fio else 0.0

    def add(self, counters: fr.Counters) -> SteadyState | None:
        """The state after this report, if it ends a round (None otherwise)."""
        start = self.bounds[-1].runtime_ms / 1000.0
        if counters.runtime_ms / 1000.0 - start < self.step.duration - self.slack:
            return None
        if self.by_fio and counters.runtime_ms / 1000.0 < self.skip + self.step.duration - self.slack:
            self.bounds[-1] = counters  # before fio's first data point: not a round
            return None
        before = self.bounds[-1]
        self.bounds.append(counters)
        ios = counters.read_ios + counters.write_ios - before.read_ios - before.write_ios
        nbytes = counters.read_bytes + counters.write_bytes - before.read_bytes - before.write_bytes
        latency = intervals.span_latency_both(before, counters).mean
        figure = self.rule.figure_of(ios, nbytes, (counters.runtime_ms - before.runtime_ms) / 1000.0, latency)
        self.figures.append(figure if figure is not None else 0.0)
        state = self.judge(self.rule, self.figures, self.step.duration)
        if self.by_fio:
            # fio decides when to stop; the rounds are labtui's own view of the same seconds.
            state = replace(state, attained=False, criteria=(), window_start=None, window_figures=(), mean=None,
                            slope=None, judged_by="fio")
        self.state = state
        return state

    def result(self, result: StepResult, job: dict, legacy: bool) -> StepResult:
        state = self.state or self.judge(self.rule, self.figures, self.step.duration)
        if self.by_fio:
            state = self._fios_verdict(state, job)
        rounds = len(self.bounds) - 1
        if rounds < 1:
            return replace(result, steady_state=state)
        before, after = self.bounds[max(0, rounds - self.rule.window)], self.bounds[-1]
        seconds = (after.runtime_ms - before.runtime_ms) / 1000.0
        read = DirectionStats(after.read_ios - before.read_ios, after.read_bytes - before.read_bytes, seconds)
        write = DirectionStats(after.write_ios - before.write_ios, after.write_bytes - before.write_bytes, seconds)
        latency = LatencySummary()
        read_latency = write_latency = LatencySummary()
        if self.step.latency:
            latency = intervals.span_latency_both(before, after)
            read_latency = intervals.span_latency(before.read_latency, after.read_latency)
            write_latency = intervals.span_latency(before.write_latency, after.write_latency)
        return settled(replace(result, read=read, write=write, latency=latency, read_latency=read_latency,
                               write_latency=write_latency, steady_state=state))

    def _fios_verdict(self, state: SteadyState, job: dict) -> SteadyState:
        """fio's own verdict from its report's `steadystate` object, in labtui's units."""
        fio = fr.job_steadystate(job)
        if fio is None:
            raise EngineFailed("fio was asked to judge steady state but its report has no steadystate object")
        scale = 1.0 if self.rule.figure == "iops" else 1.0 / MIB  # fio's bandwidth is bytes/s
        window = fio.iops if self.rule.figure == "iops" else fio.bw
        mean = fio.iops_mean if self.rule.figure == "iops" else fio.bw_mean
        rounds = state.rounds[: self.rule.max_rounds]
        return replace(
            state,
            rounds=rounds,
            attained=fio.attained,
            window_start=max(1, len(rounds) - fio.duration + 1) if rounds else None,
            window_figures=tuple(v * scale for v in window),
            mean=mean * scale if mean is not None else None,
            slope=fio.slope * scale if fio.slope is not None else None,
            criteria=(SteadyCriterion(self.rule.test, abs(fio.criterion), self.rule.limit, self.rule.percent,
                                      fio.attained),),
            judged_by="fio",
        )
