"""One host's run in a fleet, live: its state and step, the Run screen's charts and figures.

Opened from the Fleet screen (Enter on a host). It draws the host's `LiveRun`, which the fleet
session keeps from the events the host streams, twice a second while something is new; it
holds no run of its own, so closing it (Escape) changes nothing on the host.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from labtui.fleet.host_run import ENDED, HostRun
from labtui.run.live import prepare_text
from labtui.units import human_duration
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.live_figures import NARROW, figures_for, show
from labtui.widgets.step_charts import StepCharts

FRAME_SECONDS = 0.5


class FleetHostScreen(Screen):
    CSS_PATH = "fleet_host.tcss"
    AUTO_FOCUS = ""
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="fleet-host-back", tooltip="Back to every host"),
        Binding("v", "next_chart", "Next chart", id="fleet-host-next-chart",
                tooltip="On a narrow terminal: show the next chart (IOPS, MiB/s, latency)"),
    ]

    def __init__(self, host_run: HostRun) -> None:
        super().__init__()
        self.host_run = host_run
        self._drawn = -1

    def compose(self) -> ComposeResult:
        yield ContextBar(f"Fleet › {self.host_run.name}")
        with Vertical(id="fleet-host-live"):
            yield Static(id="fleet-host-status", markup=False)
            yield StepCharts(id="fleet-host-charts")
            with Horizontal(id="fleet-host-numbers"):
                yield Static(id="fleet-host-figures", markup=False)
                yield Static(id="fleet-host-info", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.set_interval(FRAME_SECONDS, self._frame)
        self.call_after_refresh(self._frame)

    def on_resize(self) -> None:
        self.query_one(StepCharts).set_single(self.size.width < NARROW)
        self._drawn = -1

    def action_next_chart(self) -> None:
        self.notify(f"Chart: {self.query_one(StepCharts).cycle()}")
        self._drawn = -1

    def _frame(self) -> None:
        r = self.host_run
        live = r.live
        self._show_status()
        version = live.version if live is not None else 0
        if version == self._drawn:
            return
        self._drawn = version
        charts = self.query_one(StepCharts)
        step = live.current if live is not None else None
        show(self.query_one("#fleet-host-figures", Static), figures_for(step.figures(), self.size.width) if step else Content(""))
        lines = []
        if step is not None and step.result is not None and step.result.error:
            # A host cut off mid-step: its partial step says what its figures are (as the Run screen does).
            lines.append(Content.styled(f"step {step.result.status}: {step.result.error}", "$error"))
        lines += [Content.styled(f"warning: {w}", "$warning") for w in (live.warnings[-3:] if live else [])]
        if step is not None and step.started.command_line:
            lines.append(Content.assemble(("Command line on the host: ", "bold"), step.started.command_line))
        show(self.query_one("#fleet-host-info", Static), Content("\n").join(lines))
        if step is None:
            charts.display = False
            return
        charts.display = True
        points = charts.points
        if not points:
            self._drawn = -1  # not laid out yet: draw on the next frame
            return
        charts.draw_points(step.chart_points(points), step.directions(), "warm-up" if step.chart_phase == "warmup" else "")

    def _show_status(self) -> None:
        r = self.host_run
        live = r.live
        where = f"{r.host.where()}" + (f", labtui {r.labtui}" if r.labtui else "")
        head = Content.assemble((r.name, "bold"), f" ({where}) · ")
        if r.state in ENDED:
            from labtui.run.preflight import room_in_tui_words  # the agent says it in the command line's words

            reason = f": {room_in_tui_words(r.reason.removeprefix(r.name + ': '))}" if r.reason else ""
            style = "$success" if r.outcome in ("completed", "pass") else "$warning"
            text = Content.assemble(head, (f"{r.outcome}{reason}", style))
        elif live is None or live.current is None:
            what = prepare_text(live.prepare) if live is not None and live.prepare is not None else r.state
            text = Content.assemble(head, what)
        else:
            step = live.current
            s = step.step
            text = Content.assemble(
                head, (f"Step {step.started.index + 1} of {step.started.total}", "bold"),
                f" · {s.name} ({s.label()}) · ", (step.phase, "$accent"),
                f" · run {human_duration(live.elapsed())}")
        show(self.query_one("#fleet-host-status", Static), text)
