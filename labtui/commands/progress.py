"""Headless run driver: live progress on stderr, signals, the summary and the exit code.

Used by `labtui run`, `check`, `baseline --more` and `run --all-volumes`. SIGINT, SIGTERM and SIGHUP
cancel the run (commands/stops.py holds them over the whole command); the runner then stops its
workers, removes the test file and saves the partial result as aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable

from rich.console import Console, Group, RenderableType
from rich.text import Text

from labtui.analysis import steady
from labtui.commands.common import closed_progress_line, stderr, stdout
from labtui.commands.live_display import LiveDisplay
from labtui.commands.stops import Stops
from labtui.engine.cpubound import interpreter_bound_now, io_threads, own_limit_now
from labtui.engine.events import (
    Event,
    Paused,
    PreconditionProgress,
    PrepareProgress,
    RunFinished,
    RunStarted,
    RunWarning,
    SteadyRound,
    StepFinished,
    StepStarted,
)
from labtui.errors import ExitCode
from labtui.machine.paths import path_text
from labtui.machine.target_choice import device_words
from labtui.model.result import SteadyState
from labtui.render.drive import step_drive_line
from labtui.render.readback import readback_renderable
from labtui.render.result_tables import (
    bottleneck_renderable,
    command_summary,
    fmt_iops,
    fmt_mib,
    fmt_ms,
    fmt_pct,
    result_steps_table,
)
from labtui.run.live import LiveRun, pass_words, prepare_text
from labtui.run.runner import Plan, Runner
from labtui.units import format_duration, format_size, human_duration, human_size


def confirm(runner: Runner, plan: Plan, *, then: str = "") -> bool:
    """Say what the run will write and ask before it does (commands.consent.go_ahead: on a terminal, or
    the answer read from stdin off one); scripts pass --yes. False: the answer was no, nothing written
    (the caller exits ExitCode.DECLINED).

    Off a terminal a raw device's data is not destroyed on --destroy-data and an answer piped in
    (`echo y | labtui run ...`): that takes --yes, refused here in one line (LabtuiError, exit 2).
    `then` follows the time the run takes: what may come after it (a check's second pass).
    """
    from labtui.commands.consent import go_ahead
    from labtui.errors import LabtuiError

    profile = runner.profile
    if not sys.stdin.isatty() and plan.raw_device and profile.writes:
        device = plan.device.path if plan.device else plan.target.path
        raise LabtuiError(f"not started, nothing written: {profile.name} would destroy the data on {device}, and "
                          "with no terminal to ask on that needs --yes as well as --destroy-data")
    disk = f"({plan.target.disk_name}, {plan.target.filesystem or '?'})"
    err = stderr()
    if plan.raw_device and plan.device is not None:
        facts = plan.device
        about = f"{facts.dev_id}, {device_words(plan.target.model, plan.target.kind, facts.size_bytes)}"
        if profile.writes:  # preconditioning writes the device too
            err.print(f"labtui will WRITE to the raw device {facts.path} ({about}): {facts.describe()}. "
                      f"Every byte {profile.name} writes there ({format_size(plan.file_size)} from the start) is "
                      f"destroyed. It runs for about {human_duration(profile.planned_seconds)}{then}.", markup=False)
        else:
            err.print(f"labtui will read the raw device {facts.path} ({about}) and write nothing to it; "
                      f"{profile.name} runs for about {human_duration(profile.planned_seconds)}{then}.", markup=False)
    elif plan.test_file:
        err.print(f"labtui will write a {format_size(profile.file_size)} test file in {path_text(plan.directory)} {disk} "
                  f"and run {profile.name} for about {human_duration(profile.planned_seconds)}{then}.")
    else:
        err.print(f"labtui will run the commands of {profile.name} in {path_text(plan.directory)} {disk}:")
    for step in profile.steps:
        if not step.is_io:
            assert runner.commands is not None  # made by the preflight that made `plan`
            err.print(f"  {step.name}: {runner.commands.command_line(step, plan.directory, 0)}", markup=False)
    return go_ahead(err)


class _Display(LiveDisplay):
    """What the person watching sees: one live line block on a terminal, plain lines otherwise.

    What it shows of the run (the step, its phase, the figures, the ETA) is the LiveRun's, the
    same fold of the event stream the TUI's Run screen draws from: both fronts agree.
    """

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(console)
        self.run = LiveRun(clock=clock, capacity=1)  # the latest sample is all a line shows
        self.raw_device = False  # a raw block device target: nothing to prepare
        self.precondition: PreconditionProgress | None = None
        self.round: SteadyRound | None = None  # the current steady-state step's last round

    def render(self) -> RenderableType:
        run = self.run
        eta = human_duration(run.eta_seconds())
        lines = []
        current = run.current
        if run.prepare is not None and current is None:
            p = run.prepare
            lines.append(Text(f"preparing test file: {prepare_text(p)} ({100 * p.fraction:.0f}%), run ETA {eta}"))
        if run.pause is not None:
            pause, began = run.pause
            left = max(0.0, pause.seconds - (run.clock() - began))
            lines.append(Text(f"pausing before step {pause.before + 1}: {human_duration(left)} left (the profile's pause)"))
            return Group(*lines)
        if self.precondition is not None and current is None:
            lines.append(Text(precondition_line(self.precondition)))
        if current is not None:
            s = current.started
            step = s.step
            elapsed = current.elapsed(run.clock())
            if not step.is_io:
                lines.append(Text(f"step {s.index + 1}/{s.total}: {step.name} [running]  {human_duration(elapsed)} "
                                  f"(time limit {human_duration(step.timeout)})"))
                if current.last is not None:
                    x = current.last.sample
                    lines.append(Text(f"  disk: read {fmt_mib(x.read_mib_s)} MiB/s, write {fmt_mib(x.write_mib_s)} MiB/s, "
                                      f"{fmt_iops(x.iops)} IOPS  CPU {fmt_pct(x.cpu_percent)}"))
                return Group(*lines)
            # A steady-state step may end at any round: its time is the longest it may take.
            most = "at most " if step.steady_state else ""
            lines.append(Text(f"step {s.index + 1}/{s.total}: {step.name}{pass_words(s.repetition)} [{current.phase}]  "
                              f"{human_duration(elapsed)} of {most}{human_duration(current.planned_seconds)}  "
                              f"run ETA {most}{eta}"))
            if self.round is not None and self.round.index == s.index:
                lines += [Text(line) for line in round_lines(self.round.state)]
            if current.last is not None:
                x = current.last.sample
                lat = x.read_lat_mean_ms if x.read_ios else x.write_lat_mean_ms
                p99 = x.read_lat_p99_ms if x.read_ios else x.write_lat_p99_ms
                engine = run.started.engine.name if run.started is not None else "native"
                lanes = io_threads(step, engine)
                own = own_limit_now(x.engine_cpu_percent, lanes)
                limit = (("page cache's" if step.cache == "on" else "engine's") if own else
                         "interpreter's or CPUs'" if interpreter_bound_now(x.engine_cpu_percent, lanes) else "CPUs'")
                lines.append(Text(f"  IOPS {fmt_iops(x.iops)} (read {fmt_iops(x.read_iops)}, write {fmt_iops(x.write_iops)})  "
                                  f"{fmt_mib(x.mib_s)} MiB/s  latency {fmt_ms(lat)} ms (p99 {fmt_ms(p99)})  "
                                  f"CPU {x.cpu_percent if x.cpu_percent is not None else '-'}%"
                                  + (f"  CPU-bound: the {limit} limit, not the disk's" if current.engine_bound else "")))
        return Group(*lines) if lines else Text("starting ...")

    def handle(self, event: Event) -> None:
        self.run.handle(event)
        if isinstance(event, RunStarted):
            steps = f"{event.steps_total} step{'s' if event.steps_total != 1 else ''}"
            if self.raw_device:
                timing = f"about {human_duration(event.planned_seconds)} on the device itself, no test file"
            elif event.profile.needs_test_file:
                timing = f"about {human_duration(event.planned_seconds)} plus preparation"
            else:
                timing = "each command takes as long as it takes"
            self.say(f"labtui: {event.profile.name} on {path_text(event.target.path)} with {event.engine.name} "
                     f"({steps}, {timing})")
        elif isinstance(event, PrepareProgress):
            if not self.live_mode and event.bytes_done in (0, event.bytes_total):
                verb = "preparing" if event.bytes_done == 0 else "prepared"
                self.say(f"{verb} the {human_size(event.bytes_total)} test file"
                         + (f" in {event.seconds:.1f} s" if event.bytes_done else ""))
        elif isinstance(event, PreconditionProgress):
            self.precondition = event
            if not self.live_mode and event.bytes_done == 0:
                self.say(f"preconditioning: {event.passes} sequential pass{'es' if event.passes != 1 else ''} "
                         f"over the test file ({human_size(event.bytes_total)} to write)")
            elif not self.live_mode and event.passes_done == event.passes:
                self.say(f"preconditioned: {human_size(event.bytes_total)} written in {event.seconds:.1f} s")
        elif isinstance(event, SteadyRound):
            self.round = event
            if not self.live_mode:
                for line in round_lines(event.state):
                    self.say(line)
        elif isinstance(event, StepStarted):
            if not self.live_mode:
                self.say(f"step {event.index + 1}/{event.total}: {event.step.name}{pass_words(event.repetition)}")
        elif isinstance(event, StepFinished):
            r = event.result
            if r.step.is_io:
                line = f"  {r.name}{pass_words(r.repetition)}: {fmt_iops(r.total.iops)} IOPS, {fmt_mib(r.total.mib_s)} MiB/s"
                if r.latency.mean is not None:
                    line += f", latency {fmt_ms(r.latency.mean)} ms (p99 {fmt_ms(r.latency.p99)})"
            else:
                line = f"  {command_summary(r)}"
            if r.steady_state is not None:
                line += f" [{r.steady_state.verdict}]"
            if r.status != "completed":
                line += f" [{r.status}: {r.error}]"
            elif r.engine_bound:
                line += " [CPU-bound]"
            self.say(line)
            drive = step_drive_line(r, spark=0)
            if drive:
                self.say(f"    drive: {drive}")
            if r.output_tail:
                self.say("  last output:\n" + "\n".join(f"    {x}" for x in r.output_tail.splitlines()))
        elif isinstance(event, Paused):
            if not self.live_mode:
                self.say(f"pausing {format_duration(event.seconds)} before step {event.before + 1} (the profile's pause)")
        elif isinstance(event, RunWarning):
            self.say(f"warning: {event.message}", "yellow")
        self.update()


def precondition_line(p: PreconditionProgress) -> str:
    """'preconditioning: pass 1 of 2, 1.2 GiB of 4 GiB (30%), 850 MiB/s, ETA 0:12'"""
    rate = p.bytes_done / p.seconds if p.seconds > 0 else 0
    current = min(p.passes, p.passes_done + 1)
    return (f"preconditioning: pass {current} of {p.passes}, {human_size(p.bytes_done)} of {human_size(p.bytes_total)} "
            f"({100 * p.fraction:.0f}%), {human_size(rate)}/s, ETA {human_duration(p.eta_seconds)}")


def round_lines(state: SteadyState) -> list[str]:
    """A steady-state round as it came: its figure, then how far each criterion is from holding."""
    unit = steady.FIGURE_UNITS[state.figure]
    figure = state.rounds[-1]
    if state.figure == "iops":
        text = f"{figure:,.0f}"
    elif state.figure == "latency":
        text = f"{figure:,.3g}"
    else:
        text = f"{figure:,.1f}"
    head = f"  round {len(state.rounds)}/{state.max_rounds}: {text} {unit}"
    if not state.criteria:
        return [f"{head} (judged once {state.window} rounds are in)"]
    judged = "" if state.judged_by == "labtui" else f" ({state.judged_by})"
    lines = [f"{head}; {'steady' if state.attained else 'not steady yet'} over rounds "
             f"{state.window_start}-{len(state.rounds)}{judged}"]
    lines += [f"    {steady.criterion_text(c, state.figure)}" for c in state.criteria]
    if state.finished and not state.attained:
        lines.append(f"    {state.verdict}: the step ends here")
    return lines


async def execute(runner: Runner, *, as_json: bool, stops: Stops, report: bool = True) -> int:
    """Run with live progress; return the exit code. Signals abort cleanly.

    `stops` holds the command's stop signals (held by its caller from its first run to its end): a
    signal that came before this run could start (between a check's passes, say) lets it never start.
    With `report` false the caller prints what it makes of `runner.result` (as `check` does).
    """
    console = stderr()
    display = _Display(console)
    display.raw_device = bool(getattr(getattr(runner, "plan", None), "raw_device", False))
    if stops.received:
        with contextlib.suppress(Exception):
            runner.close()  # the raw device it holds is free again
        display.say(f"labtui: {stops.received[0]} came before the run could start: it did not start", "yellow")
        return ExitCode.FAILED
    task = asyncio.current_task()
    before = len(stops.received)
    heard: list[str] = []

    def on_signal(name: str) -> None:
        heard.append(name)
        if len(heard) == 1 and task is not None:  # the first stops the run; the others find it stopping
            runner.stop_reason = f"stopped by {name}"
            task.cancel()

    with stops.during(on_signal, detach=display.detach):
        display.start()
        try:
            async for event in runner.events():
                # A closed stderr (`2>&1 | head -1`: the reader went) drops the progress, not the run
                # (common.stderr): its result and report still come.
                display.handle(event)
                if isinstance(event, RunFinished):
                    break
        except asyncio.CancelledError:
            pass
        finally:
            display.stop()
    return _report(runner, display, stops.received[before:], stops, as_json=as_json, report=report)


def _report(runner: Runner, display: _Display, received: list[str], stops: Stops, *, as_json: bool,
            report: bool) -> int:
    """What became of the run, its result printed (unless `report` is false), and the exit code."""
    from labtui.commands.common import print_json, result_json

    result = runner.result
    if result is None:
        display.say("labtui: the run was stopped before anything was saved")
        return ExitCode.FAILED
    save_error = getattr(runner, "save_error", None)
    kept = f"saved as {result.id}" if save_error is None else "NOT saved"
    if received and result.status == "completed":
        # The run had ended before the signal could stop it: nothing of it is partial.
        display.say(f"labtui: {received[0]} came as the run ended; its result is complete and {kept}", "yellow")
    elif received:
        display.say(f"labtui: stopped by {received[0]}; partial result {kept} (status aborted)", "yellow")
        stopped = getattr(runner, "stopped_step", None)
        if stopped:
            display.say(f"labtui: {stopped}", "yellow")
    during = len(stops.received)
    if report and as_json:
        with contextlib.suppress(OSError):
            saved = runner.saved_path
            print_json(result_json(result) | {"saved_to": str(saved) if saved else None, "save_error": save_error})
    elif report:
        with contextlib.suppress(OSError):
            out = stdout()
            readback = readback_renderable(result)
            if readback is not None:  # a verified run: did the data come back? first
                out.print(readback, highlight=False, soft_wrap=True)
            out.print(result_steps_table(result))
            if result.profile.repeat > 1:
                from labtui.analysis.comparison import summarize
                from labtui.render.comparison import statistics_table

                out.print(statistics_table(summarize(result)))
            limits = bottleneck_renderable(result, every=False)
            if limits is not None:
                out.print(limits, highlight=False)
            if save_error is None:
                out.print(f"result {result.id} ({result.status}) saved to {path_text(runner.saved_path or '')}",
                          soft_wrap=True)
            closed = closed_progress_line()
            if closed is not None:
                out.print(closed, soft_wrap=True)
    late = stops.since(during)
    if late is not None and report:
        display.say(f"labtui: {late} came after the run had ended; its result ({result.status}) is "
                    f"{kept} and was printed whole", "yellow")
    if save_error is not None:
        display.say(f"labtui: result {result.id} ({result.status}) was NOT saved: {save_error}; "
                    "its figures are only in this output", "red")
        return ExitCode.FAILED
    if result.status != "completed":
        return ExitCode.FAILED
    return ExitCode.OK
