"""One result in full: its context, every step's figures, and for the chosen step its charts over time,
latency percentiles and the exact engine command line.

Opened from History (Enter) and from the end of a run; Escape goes back.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from labtui.analysis import bottleneck
from labtui.analysis.live import directions
from labtui.model import RunResult, StepResult
from labtui.render.result_tables import context_table, fmt_iops, fmt_mib, fmt_ms, fmt_pct, latency_table, p99_text
from labtui.render.steady_state import steady_summary_lines
from labtui.tui.columns import fit_widths
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.row_table import GAP, Column, Row, RowTable
from labtui.widgets.step_charts import StepCharts
from labtui.tui.styling import status_styles, theme_style

STEP_COLUMNS = (("n", "#"), ("name", "Step"), ("label", "Workload"), ("iops", "IOPS"), ("mib_s", "MiB/s"),
                ("mean", "Mean ms"), ("p99", "p99 ms"), ("cpu", "CPU"), ("status", "Status"))
STEP_SHRINK = {"name": 10, "label": 10}


def step_cells(n: int, s: StepResult, repeat: bool) -> dict[str, str]:
    name = f"{s.name} #{s.repetition}" if repeat else s.name
    if not s.step.is_io:
        wall = f"{s.wall_seconds:.1f} s wall" if s.wall_seconds is not None else "-"
        return {"n": str(n), "name": name, "label": s.step.label(), "iops": "", "mib_s": fmt_mib(s.total.mib_s),
                "mean": wall, "p99": "", "cpu": fmt_pct(s.cpu_percent), "status": s.status}
    return {"n": str(n), "name": name, "label": s.step.label(), "iops": fmt_iops(s.total.iops),
            "mib_s": fmt_mib(s.total.mib_s), "mean": fmt_ms(s.latency.mean), "p99": p99_text(s),
            "cpu": fmt_pct(s.cpu_percent), "status": s.status}


class StepList(RowTable, inherit_bindings=False):
    """The steps of the result; up and down choose the one shown below (page keys scroll the view)."""

    help_scope = "steps"
    # With ids, so that help and the palette list them: here the cursor keys choose what is shown.
    BINDINGS = [
        Binding("up", "move(-1)", "Previous step", id="result-previous-step", show=False,
                tooltip="Show the step above: its charts, percentiles and command line"),
        Binding("down", "move(1)", "Next step", id="result-next-step", show=False,
                tooltip="Show the step below: its charts, percentiles and command line"),
    ]


class ResultScreen(Screen):
    CSS_PATH = "result.tcss"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="result-back", tooltip="Back to where you came from"),
        Binding("v", "next_chart", "Next chart", id="result-next-chart",
                tooltip="On a narrow terminal: show the next chart (IOPS, MiB/s, latency)"),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
    ]

    def __init__(self, result: RunResult, *, baseline: bool = False) -> None:
        super().__init__()
        self.result = result
        self.baseline = baseline
        self.step_index = 0
        self.limits = bottleneck.analyse(result)

    def compose(self) -> ComposeResult:
        yield ContextBar("Result")
        with VerticalScroll(id="result-body"):
            yield Static(id="result-title", markup=False)
            yield Static(id="result-warnings", markup=False)
            yield StepList(id="result-steps")
            yield Static(id="step-title", markup=False)
            yield StepCharts(id="result-charts")
            yield Static(id="step-latency", markup=False)
            yield Static(id="step-command", markup=False)
            yield Static(id="result-context", markup=False)
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_chart":
            return self.query_one(StepCharts).single
        return True

    def on_mount(self) -> None:
        r = self.result
        themed = status_styles(self.app)
        # The title colours only what went wrong; the context table below colours every status.
        title = Text.assemble((f"{r.profile.name}", "bold"), f" ({r.profile.title}) · {r.id} · ",
                              (r.status, themed.get(r.status, "") if r.status != "completed" else ""))
        if self.baseline:
            title.append(" · baseline", style=theme_style(self.app, "accent"))
        if r.error:
            title.append(f": {r.error}")
        self.query_one("#result-title", Static).update(title)
        self.query_one("#result-context", Static).update(context_table(r, themed))
        warnings = [Text(f"warning: {w}", style=theme_style(self.app, "warning")) for w in r.warnings]
        box = self.query_one("#result-warnings", Static)
        box.update(Group(*warnings))
        box.display = bool(warnings)
        self._fill_steps()
        self.query_one(StepList).focus()
        self.call_after_refresh(self._show_step)

    def on_resize(self) -> None:
        self.query_one(StepCharts).set_single(self.size.width < 100)
        self.refresh_bindings()
        self._fill_steps()
        self.call_after_refresh(self._show_step)

    def _fill_steps(self) -> None:
        table = self.query_one(StepList)
        repeat = self.result.profile.repeat > 1
        cells = [step_cells(i + 1, s, repeat) for i, s in enumerate(self.result.steps)]
        # Narrow, the workload label gives way: the chosen step's title below shows it.
        columns = [(k, label) for k, label in STEP_COLUMNS if k != "label" or self.size.width >= 100]
        widths = fit_widths(columns, cells, max(40, self.size.width - 5), STEP_SHRINK, padding=GAP + 1)
        table.set_columns([Column(k, label, widths[k], "left" if k in ("name", "label", "status") else "right",
                                  gap=GAP if k == "n" else GAP + 1) for k, label in columns])
        table.set_rows([Row(str(i), tuple(c[k] for k, _ in columns)) for i, c in enumerate(cells)],
                       keep=str(self.step_index))

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        if event.key is not None:
            self.step_index = int(event.key)
            self._show_step()

    def _show_step(self) -> None:
        if not self.result.steps:
            self.query_one("#step-title", Static).update("This result has no step: it ended before the first one.")
            return
        s = self.result.steps[self.step_index]
        title = f"Step {self.step_index + 1} of {len(self.result.steps)}: {s.name} ({s.step.label()})"
        if s.error:
            title += f" · {s.status}: {s.error}"
        self.query_one("#step-title", Static).update(title)
        charts = self.query_one(StepCharts)
        charts.display = bool(s.samples)
        if s.samples:
            charts.draw(s.samples, directions(s.step), f"{len(s.samples)} intervals")
        lat = latency_table([s], names=False)
        latency = self.query_one("#step-latency", Static)
        body = lat if lat.row_count else Text("No latency was measured for this step.")
        steady = steady_summary_lines(s)
        # A step run to steady state: its verdict, the window, each criterion and every round.
        latency.update(Group(body, Text("\n".join(steady))) if steady else body)
        command = self.query_one("#step-command", Static)
        lines = [Text.assemble(("Command line: ", "bold"), s.command_line or "not recorded")]
        limit = self.limits.step(s.name)
        if limit is not None and limit.verdict != bottleneck.UNKNOWN:
            style = theme_style(self.app, "warning") if limit.verdict != bottleneck.NOT_LINK else ""
            lines.append(Text.assemble(("Limit: ", "bold"), (limit.text, style)))
        command.update(Group(*lines))

    def action_scroll(self, pages: int) -> None:
        body = self.query_one("#result-body", VerticalScroll)
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)()

    def action_next_chart(self) -> None:
        charts = self.query_one(StepCharts)
        if charts.single:
            self.notify(f"Showing {charts.cycle()}", timeout=2)
            self.call_after_refresh(self._show_step)  # the chart shown has its size after the refresh
