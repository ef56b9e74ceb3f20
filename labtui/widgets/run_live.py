"""A run as it goes, on the Run screen: its status line, the test file's preparation, the step's charts,
figures and notes, its steady-state rounds, the engine's command line, and "Stop the run?".

It draws the `LiveRun` the screen folds the runner's events into, twice a second at most
(`want_frame`), only while its screen is the one on show, and repaints a widget only where what
it shows changed (laid out again only where a widget's size may have: `show`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import ProgressBar, Static
from textual.worker import Worker

from labtui.engine.cpubound import advice_for, interpreter_bound_now, io_threads, own_limit_now, whose_limit
from labtui.engine.events import PreconditionProgress, PrepareProgress, SampleTaken
from labtui.render.steady_state import live_lines
from labtui.run.live import LiveRun, LiveStep, pass_words, precondition_text, prepare_text
from labtui.tui.live_notes import Note, fit, said_once
from labtui.tui.work import worker_error
from labtui.units import human_duration
from labtui.widgets.drive_gauge import DriveGauge
from labtui.widgets.live_chart import LiveChart
from labtui.widgets.live_figures import NARROW, figures_for, show
from labtui.widgets.step_charts import StepCharts

if TYPE_CHECKING:
    from textual.timer import Timer

    from labtui.run.runner import Runner

FRAME_SECONDS = 0.5  # charts and figures: at most 2 Hz (samples come at 1 Hz by default)
# The notes' lines: beside the figures (as many as a read-only step's figures, and one; a mixed step's
# figures have more), and above them on a narrow terminal, where each line is taken from the charts.
NOTE_LINES = 8
NOTE_LINES_NARROW = 2


class LiveView(Vertical):
    """The live part of the Run screen: it consumes a runner's events (`watch`); the screen says when the
    run is `going` (running or stopping)."""

    class Progress(Message):
        """New samples or preparation progress: a burst collapses to the newest (the state is in LiveRun)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, LiveView.Progress)

    class Changed(Message):
        """A step started or finished, or a warning came: the step's frame is redrawn now (and the screen's
        top line says the step)."""

    class Ended(Message):
        """The run's events have ended: it completed, was cancelled or failed (the runner has its result, if any)."""

    class Failed(Message):
        """Reading the run's events raised `error` (after Ended: the runner's result, if one was saved, is shown)."""

        def __init__(self, error: BaseException) -> None:
            super().__init__()
            self.error = error

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.live: LiveRun | None = None
        self.going = False  # the run's events arrive: frames are drawn
        self.stopping = False  # cancelled: the status says it is stopping
        self.asking = False  # whether "Stop the run?" is on screen
        self.notes_in_full: str | None = None  # the notes under the figures, each in full (for ?)
        self.drawn_version = -1  # the LiveRun's version last drawn
        self._last_frame = 0.0  # time.monotonic() of the last frame drawn
        self._frame_timer: Timer | None = None  # a frame waiting for FRAME_SECONDS to pass since the last
        self.worker: Worker | None = None  # the one consuming the run's events

    def compose(self) -> ComposeResult:
        yield Static(id="run-status", markup=False)
        with Horizontal(id="run-prepare"):
            yield ProgressBar(total=100, show_eta=False, id="prepare-bar")
            yield Static(id="prepare-text", markup=False)
        yield StepCharts(id="run-charts")
        yield DriveGauge(id="run-drive")
        with Horizontal(id="run-numbers"):
            yield Static(id="run-figures", markup=False)
            yield Static(id="run-info", markup=False)
        yield Static(id="run-steady", markup=False)
        yield Static(id="run-command", markup=False)
        yield Static(id="run-question", markup=False)

    @property
    def visible_now(self) -> bool:
        """Whether the screen is the one on show (nothing is drawn while another is)."""
        return self.screen.is_current

    def watch_run(self, runner: Runner, live: LiveRun) -> None:
        """Fold `runner`'s events into `live` and draw it, from its start; Ended when they end."""
        self.live = live
        self.drawn_version = -1
        self.show_all()
        self.worker = self._consume(runner, live)

    @work(exclusive=True, group="run", exit_on_error=False)
    async def _consume(self, runner: Runner, live: LiveRun) -> None:
        """The runner's events into the live state; the run's end, however it ends (done, cancelled, failed), as Ended."""
        try:
            async for event in runner.events():
                live.handle(event)
                if isinstance(event, (SampleTaken, PrepareProgress, PreconditionProgress)):
                    self.post_message(self.Progress())
                else:
                    self.post_message(self.Changed())
        finally:
            self.post_message(self.Ended())

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        error = worker_error(event)
        if error is not None:
            self.post_message(self.Failed(error))

    def on_live_view_progress(self, message: Progress) -> None:
        message.stop()
        self.want_frame()

    def on_live_view_changed(self, message: Changed) -> None:
        # Hidden (History on show, a modal on top): nothing is drawn; the screen's resume draws what came.
        if self.visible_now:
            self.show_all()

    def on_live_chart_resized(self, message: LiveChart.Resized) -> None:
        message.stop()
        if self.going:
            self.redraw()  # the whole series, at the chart's new size

    def redraw(self) -> None:
        """Draw everything again at the next frame (the screen was hidden, or resized)."""
        self.drawn_version = -1
        self.want_frame()

    def want_frame(self) -> None:
        """Something new arrived: draw it now, or when the last frame is FRAME_SECONDS old.

        Samples come once a second by default, so each is drawn as it arrives; faster ones (or
        the test file's preparation, reported per few MiB) wait for the next frame, and a burst
        is drawn once. Nothing is drawn while another screen is on show.
        """
        if self._frame_timer is not None or not self.visible_now:
            return
        wait = self._last_frame + FRAME_SECONDS - time.monotonic()
        if wait <= 0:
            self._frame()
        else:
            self._frame_timer = self.set_timer(wait, self._frame)

    def _frame(self) -> None:
        self._frame_timer = None
        live = self.live
        if not self.going or live is None or not self.visible_now:
            return
        self._last_frame = time.monotonic()
        self.show_status()
        if live.version != self.drawn_version:
            self.drawn_version = live.version
            self.show_prepare()
            self.show_numbers()
            self.draw_charts()

    def show_all(self) -> None:
        if self.live is None:
            return
        self.drawn_version = self.live.version
        self.show_status()
        self.show_prepare()
        self.show_numbers()
        self.draw_charts()

    def clock_tick(self) -> None:
        """The run's clock and ETA move on even when no sample comes (a command step, a slow start);
        while samples come, each frame has moved them on already."""
        if time.monotonic() - self._last_frame < 1.0:
            return
        if self.going and self.live is not None and self.visible_now:
            self.show_status()

    def show_status(self) -> None:
        live = self.live
        assert live is not None
        status = self.query_one("#run-status", Static)
        step = live.current
        eta = live.eta_seconds()
        clock = f"run {human_duration(live.elapsed())} · ETA {human_duration(eta) if eta is not None else 'unknown'}"
        if self.stopping:
            show(status, Content.styled("Stopping: the workers are being stopped, the test file removed …", "$warning"))
            return
        if live.pause is not None:
            pause, began = live.pause
            left = max(0.0, pause.seconds - (live.clock() - began))
            total = live.started.steps_total if live.started is not None else "?"
            show(status, Content.assemble((f"Pause before step {pause.before + 1} of {total}", "bold"),
                                          f" · {human_duration(left)} left, nothing measured (the profile's pause)",
                                          f" · {clock}"))
            return
        if step is None:
            what = "writing the test file (incompressible data)" if live.prepare else "starting"
            if live.precondition is not None:
                what = "preconditioning: writing the test file sequentially, pass after pass"
            show(status, Content.assemble((what, "bold"), f" · {clock}"))
            return
        s = step.step
        label = f" ({s.label()})" if self.screen.size.width >= NARROW else ""
        bound = (" · ", ("CPU-bound", "bold $warning")) if step.engine_bound else ()
        head = Content.assemble(
            (f"Step {step.started.index + 1} of {step.started.total}", "bold"),
            f" · {s.name}{label}" + pass_words(step.started.repetition),
            " · ", (step_phase_words(step, live.clock()), "$accent"), *bound,
        )
        # Where it all does not fit on one line the clock goes whole on the next, not broken in two
        # ("… · CPU-bound · run" above "0:11 · ETA 0:30").
        width = status.content_region.width or self.screen.size.width
        joint = " · " if head.cell_length + 3 + len(clock) <= width else "\n"
        show(status, Content.assemble(head, joint, clock))

    def show_prepare(self) -> None:
        live = self.live
        box = self.query_one("#run-prepare")
        preconditioning = live is not None and live.preconditioning
        preparing = live is not None and (live.preparing or preconditioning)
        if box.display != preparing:
            box.display = preparing
        if live is not None and preconditioning and live.precondition is not None:
            c = live.precondition
            self.query_one("#prepare-bar", ProgressBar).update(total=max(1, c.bytes_total), progress=c.bytes_done)
            show(self.query_one("#prepare-text", Static), Content(precondition_text(c)))
        elif live is not None and preparing and live.prepare is not None:
            p = live.prepare
            self.query_one("#prepare-bar", ProgressBar).update(total=max(1, p.bytes_total), progress=p.bytes_done)
            show(self.query_one("#prepare-text", Static), Content(prepare_text(p)))

    def show_numbers(self) -> None:
        live = self.live
        assert live is not None
        step = live.current
        table = figures_for(step.figures(), self.screen.size.width) if step is not None else Content("")
        show(self.query_one("#run-figures", Static), table)
        gauge = self.query_one(DriveGauge)
        if step is None:
            gauge.show_live(())
        else:
            gauge.show_live([r for _, r in step.drive], step.result.drops if step.result is not None else ())
        command = self.query_one("#run-command", Static)
        if step is not None and step.started.command_line:
            show(command, Content.assemble(("Command line: ", "bold"), step.started.command_line))
        else:
            show(command, Content(""))
        lines = table.split("\n")
        self.show_notes(live, step, max((line.cell_length for line in lines), default=0), len(lines))
        steady = self.query_one("#run-steady", Static)
        state = step.steady if step is not None else None
        if steady.display != (state is not None):
            steady.display = state is not None
        if state is not None:
            parts = live_lines(state, max(40, self.screen.size.width - 4))
            style = "$success" if state.attained else "$warning" if state.finished else ""
            show(steady, Content("\n").join([Content.styled(parts[0], f"bold {style}".strip()),
                                              *(Content(p) for p in parts[1:])]))

    def show_notes(self, live: LiveRun, step: LiveStep | None, figures_width: int, figures_lines: int) -> None:
        """The CPU-bound note (while the step runs; once it ends, the run's warning with its verdict says
        it), the step's error and the run's warnings: each said once, fitted to their panel (beside the
        figures, or under them on a narrow terminal); ? says them in full."""
        notes: list[Note] = []
        bound = cpu_bound_note(live, step) if step is not None and step.result is None else None
        if bound is not None:
            busy, advice = bound
            limit = whose_limit(advice) or "this figure is not the disk's limit"
            notes.append(Note(f"CPU-bound: {busy}; {advice}", f"CPU-bound: {limit} (? says why and what helps)"))
        if step is not None and step.result is not None and step.result.error:
            notes.append(Note(f"step {step.result.status}: {step.result.error}", style="$error"))
        notes += [Note(f"warning: {warning}") for warning in live.warnings]
        notes = said_once(notes)
        self.notes_in_full = "\n".join(n.full for n in notes) or None
        info = self.query_one("#run-info", Static)
        narrow = self.screen.size.width < NARROW
        room = self.content_region.width or self.screen.size.width - 2
        # Beside the figures, their table's width and its margin (3) are taken from the screen's.
        # Beside a mixed step's figures (11 lines) they have as many lines at no cost to the charts.
        width, lines = (room, NOTE_LINES_NARROW) if narrow else (room - figures_width - 3,
                                                                 max(NOTE_LINES, figures_lines))
        fitted = fit(notes, max(20, width), lines, whole=not narrow)
        numbers = self.query_one("#run-numbers")
        if (numbers.children[0] is info) != narrow:
            # Narrow, above the figures: a mixed step's figures fill an 80x24 screen to its last line,
            # and the notes under them were not on it at all.
            numbers.move_child(info, before=0) if narrow else numbers.move_child(info, after=-1)
        show(info, Content("\n").join(Content.styled(n.full, n.style) for n in fitted))
        if info.display != bool(fitted):
            info.display = bool(fitted)  # under the figures (narrow), an empty line taken from the charts

    def draw_charts(self) -> None:
        if not self.visible_now:
            # A step's end or a warning arrives while another screen is on show: the tick draws
            # what is new once this screen is shown again.
            self.drawn_version = -1
            return
        live = self.live
        charts = self.query_one(StepCharts)
        if live is None or live.current is None:
            charts.display = False
            return
        if not charts.display:
            # Shown again: draw once it has its size (a chart of width 0 draws nothing).
            charts.display = True
            self.screen.call_after_refresh(self.draw_charts)  # as the screen lays the charts out
            return
        step = live.current
        points = charts.points
        if not points:
            return
        note = "warm-up" if step.chart_phase == "warmup" else ""
        charts.draw_points(step.chart_points(points), step.directions(), note, command=not step.step.is_io)

    def next_chart(self) -> str:
        """On a narrow terminal: show the next chart; its name."""
        shown = self.query_one(StepCharts).cycle()
        self.screen.call_after_refresh(self.draw_charts)  # the chart shown has its size after the refresh
        return shown

    def ask_stop(self) -> None:
        """Ask, in a line in the command line's place, whether to stop the run (the screen takes y and n)."""
        self.asking = True
        question = self.query_one("#run-question", Static)
        text = Content.assemble(("Stop the run? ", "bold"), ("y", "bold"), " stops it (the steps finished so far are "
                                "kept, marked aborted; the test file is removed), ", ("n", "bold"), " keeps it running.")
        show(question, text)
        command = self.query_one("#run-command")
        # As high as the command line it covers (if it fits there), so the charts keep their size.
        needed = len(text.wrap(max(1, command.size.width - 2)))
        question.styles.height = max(needed, command.outer_size.height)
        question.display = True
        command.display = False

    def close_question(self) -> None:
        if self.asking:
            self.asking = False
            self.query_one("#run-question").display = False
            self.query_one("#run-command").display = True


def step_phase_words(step: LiveStep, now: float) -> str:
    """Where a step is: its warm-up, a steady-state round, its measuring, or a command step's time."""
    s = step.step
    phase = step.phase
    if not s.is_io:
        return f"{phase} {human_duration(step.elapsed(now))} (time limit {human_duration(s.timeout)})"
    if phase == "warmup":
        # A warm-up sample's t counts down to the start of measuring (it is negative).
        done = s.warmup + step.last.sample.t if step.last is not None else 0.0
        return f"warm-up {human_duration(max(0.0, done))} of {human_duration(s.warmup)}"
    measured = step.last.sample.t if step.last is not None else 0.0
    if phase == "measure" and s.steady_state:
        rounds = len(step.steady.rounds) if step.steady is not None else 0
        into = max(0.0, measured - rounds * s.duration)
        return (f"round {min(rounds + 1, s.steady_max_rounds)} of at most {s.steady_max_rounds}, "
                f"{human_duration(into)} of {human_duration(s.duration)}")
    if phase == "measure":
        return f"measuring {human_duration(measured)} of {human_duration(s.duration)}"
    return phase


def cpu_bound_note(live: LiveRun, step: LiveStep) -> tuple[str, str] | None:
    """While a step is CPU-bound: what is busy, in figures, and what helps (the engine's advice); None while it is not."""
    if not step.engine_bound:
        return None
    cpu = step.last.sample.engine_cpu_percent if step.last is not None else None
    engine = live.started.engine.name if live.started is not None else "native"
    lanes = io_threads(step.step, engine)
    own_limit = own_limit_now(cpu, lanes)
    interpreter = not own_limit and interpreter_bound_now(cpu, lanes)
    if own_limit:
        busy = f"the engine's busiest worker uses {cpu:.0f} % of a CPU" + (
            f" ({cpu / lanes:.0f} % for each of its {lanes} I/O threads)" if lanes > 1 and cpu else "")
    elif interpreter:
        # A sample carries no wait figures: the step's verdict tells turns from waiting.
        busy = (f"the {lanes} I/O threads of the engine's busiest worker use {cpu:.0f} % of a CPU together "
                "(or wait for one)")
    elif cpu is None:  # no figure of the engine's own: only the machine's
        busy = "the machine has no idle CPU"
    else:
        # The engine's advice says they waited for a CPU, and why: said here too, it was said twice.
        busy = (f"the {lanes} I/O threads of the engine's busiest worker are on a CPU only {cpu / lanes:.0f} % of "
                "the time each" if lanes > 1 else f"the engine's busiest worker is on a CPU only {cpu:.0f} % of the time")
    cache_on = step.step.is_io and step.step.cache == "on"
    return busy, advice_for(own_limit, engine, cache_on, interpreter)
