"""One result in full: its context, every step's figures, and for the chosen step its charts over time,
latency percentiles and the exact engine command line.

A step run several times (`--repeat`, cdm-nvme's passes) is one row with its figures as its
profile makes them of its passes, as History lists it (labtui.analysis.listed_steps); Enter
lists its passes under it, each with its own figures, charts and percentiles, and folds them
away again. Opened from History (Enter) and from the end of a run; Escape goes back.
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
from labtui.analysis.listed_steps import ListedStep, listed_steps
from labtui.model.result import RunResult, StepResult
from labtui.render.readback import readback_line, step_blocks
from labtui.render.result_tables import (
    context_table,
    fmt_iops,
    fmt_mib,
    fmt_ms,
    fmt_pct,
    fmt_wall,
    latency_table,
    p99_cell,
    p99_text,
    shown_warnings,
    step_headline,
)
from labtui.render.steady_state import steady_summary_lines
from labtui.render.widths import fold_widths
from labtui.render.words import fold
from labtui.results.summaries import ResultSummary
from labtui.run.live import directions
from labtui.tui.live_notes import warnings_once
from labtui.tui.styling import status_styles, theme_style
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.drive_gauge import DriveGauge
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.row_table import GAP, Column, Row, RowTable
from labtui.widgets.step_charts import StepCharts

STEP_COLUMNS = (("n", "#"), ("name", "Step"), ("label", "Workload"), ("iops", "IOPS"), ("mib_s", "MiB/s"),
                ("mean", "Mean ms"), ("p99", "p99 ms"), ("cpu", "CPU"), ("status", "Status"))
# Too narrow for them on one line, these fold at their words, never cut (two names alike but for
# their ends read "RND4K Q32…" twice); the figures stay whole. Where the room left saves no line,
# a status and a workload label are kept whole before a long name is: "mean" over "of 2" reads
# worse than a name on two lines.
STEP_FOLDING = ("status", "label", "name")


def step_cells(n: int | str, s: StepResult, name: str | None = None) -> dict[str, str]:
    name = s.name if name is None else name
    if s.engine_bound:  # its figures are the CPUs' (or the engine's) limit, as `show`'s table says
        name += " (CPU-bound)"
    if not s.step.is_io:
        wall = f"{fmt_wall(s.wall_seconds)} wall" if s.wall_seconds is not None else "-"  # as `labtui show` says it
        return {"n": str(n), "name": name, "label": s.step.label(), "iops": "", "mib_s": fmt_mib(s.total.mib_s),
                "mean": wall, "p99": "", "cpu": fmt_pct(s.cpu_percent), "status": s.status}
    iops, mib = step_headline(s)  # "-" where the step has no figures (it failed before any I/O)
    return {"n": str(n), "name": name, "label": s.step.label(), "iops": fmt_iops(iops),
            "mib_s": fmt_mib(mib), "mean": fmt_ms(s.latency.mean), "p99": p99_text(s),
            "cpu": fmt_pct(s.cpu_percent), "status": s.status}


def listed_cells(n: int, listed: ListedStep) -> dict[str, str]:
    """A step of several passes: its figures as its profile makes them, and how ("best of 3")."""
    f = listed.figures
    name = f.name + (" (CPU-bound)" if f.engine_bound else "")  # a pass was: its figure is partly the CPUs' limit
    if f.kind == "command":
        wall = f"{fmt_wall(f.wall_seconds)} wall" if f.wall_seconds is not None else "-"
        return {"n": str(n), "name": name, "label": f.label, "iops": "", "mib_s": fmt_mib(f.mib_s), "mean": wall,
                "p99": "", "cpu": fmt_pct(f.cpu_percent), "status": listed.how}
    return {"n": str(n), "name": name, "label": f.label, "iops": fmt_iops(f.iops), "mib_s": fmt_mib(f.mib_s),
            "mean": fmt_ms(f.latency_mean_ms), "p99": p99_cell(f.latency_p99_ms, f.read_p99_ms, f.write_p99_ms),
            "cpu": fmt_pct(f.cpu_percent),
            "status": listed.how}


def pass_name(s: StepResult) -> str:
    return f"  #{s.repetition}" + (" (not counted)" if s.repetition == 0 else "")


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
        Binding("enter", "toggle_passes", "Passes", id="result-passes",
                tooltip="List the step's passes under it (each with its charts and percentiles), or fold them away"),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
    ]

    def __init__(self, result: RunResult, *, baseline: bool = False) -> None:
        super().__init__()
        self.result = result
        self.baseline = baseline
        self.limits = bottleneck.analyse(result)
        self.listed = listed_steps(ResultSummary.of(result, ""))
        self.expanded: set[int] = set()  # the listed steps whose passes are listed under them
        self.row_key = "s0"  # "s<n>": the n-th listed step; "p<n>": the n-th of the result's steps, a pass

    def compose(self) -> ComposeResult:
        yield ContextBar("Result")
        with VerticalScroll(id="result-body"):
            yield Static(id="result-title", markup=False)
            yield Static(id="result-warnings", markup=False)
            yield StepList(id="result-steps")
            yield Static(id="step-title", markup=False)
            yield StepCharts(id="result-charts")
            yield Static(id="step-latency", markup=False)
            yield DriveGauge(id="step-drive")
            yield Static(id="step-command", markup=False)
            yield Static(id="result-context", markup=False)
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_chart":
            return self.query_one(StepCharts).single
        if action == "toggle_passes":
            return len(self._listed_of(self.row_key)[1].members) > 1 if self.listed else False
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
        warnings = [Text(w, style=theme_style(self.app, "warning")) for w in warnings_once(shown_warnings(r))]
        # A verified run's answer (did the data come back?) first, as the Run screen and `show` say it.
        readback = readback_line(r, theme_style(self.app, "success"), theme_style(self.app, "error", bold=True))
        if readback is not None:
            warnings.insert(0, readback)
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
        steps = self.result.steps
        keyed: list[tuple[str, dict[str, str]]] = []
        for i, listed in enumerate(self.listed):
            if len(listed.members) > 1:
                keyed.append((f"s{i}", listed_cells(i + 1, listed)))
                if i in self.expanded:
                    keyed += [(f"p{j}", step_cells("", steps[j], pass_name(steps[j]))) for j in listed.members]
            else:
                keyed.append((f"s{i}", step_cells(i + 1, steps[listed.members[0]])))
        cells = [c for _, c in keyed]
        # Narrow, the workload label gives way: the chosen step's title below shows it.
        columns = [(k, label) for k, label in STEP_COLUMNS if k != "label" or self.size.width >= 100]
        widths = fold_widths(columns, cells, max(40, self.size.width - 5), STEP_FOLDING, padding=GAP + 1)
        table.set_columns([Column(k, label, widths[k], "left" if k in ("name", "label", "status") else "right",
                                  gap=GAP if k == "n" else GAP + 1) for k, label in columns])
        rows = [Row(key, tuple("\n".join(fold(c[k], widths[k])) if k in STEP_FOLDING else c[k] for k, _ in columns))
                for key, c in keyed]
        table.set_rows(rows, keep=self.row_key)

    def _listed_of(self, key: str) -> tuple[int, ListedStep]:
        """The listed step a row belongs to (a pass's step for a pass's row)."""
        if key.startswith("p"):
            index = int(key[1:])
            return next((i, listed) for i, listed in enumerate(self.listed) if index in listed.members)
        return int(key[1:]), self.listed[int(key[1:])]

    def action_toggle_passes(self) -> None:
        i, listed = self._listed_of(self.row_key)
        if len(listed.members) < 2:
            return
        if i in self.expanded:
            self.expanded.discard(i)
            self.row_key = f"s{i}"  # a pass's row folds into its step's
        else:
            self.expanded.add(i)
        self._fill_steps()
        self._show_step()
        self.refresh_bindings()

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        if event.key is not None:
            self.row_key = event.key
            self._show_step()
            self.refresh_bindings()

    def _show_step(self) -> None:
        if not self.result.steps:
            self.query_one("#step-title", Static).update("This result has no step: it ended before the first one.")
            return
        i, listed = self._listed_of(self.row_key)
        steps = [self.result.steps[j] for j in listed.members]
        counted = [s for s in steps if s.repetition > 0] or steps
        title = f"Step {i + 1} of {len(self.listed)}: {steps[0].name} ({steps[0].step.label()})"
        if self.row_key.startswith("p"):
            s = self.result.steps[int(self.row_key[1:])]
            title += (" · the preparing pass, not counted" if s.repetition == 0 and len(counted) < len(steps)
                      else f" · pass {counted.index(s) + 1} of {len(counted)}" if s in counted else "")
            shown = [s]
        elif len(steps) > 1:
            s = counted[0]
            # Its charts are its first pass's (a chart's own title has no room to say so at 80 columns).
            charted = ", charts of pass 1" if s.samples else ""
            title += f" · {listed.how}{charted} (Enter {'folds the passes' if i in self.expanded else 'lists each pass'})"
            shown = counted
        else:
            s = steps[0]
            shown = [s]
        if s.error and len(shown) == 1:
            title += f" · {s.status}: {s.error}"
        self.query_one("#step-title", Static).update(title)
        charts = self.query_one(StepCharts)
        charts.display = bool(s.samples)
        if s.samples:
            charts.draw(s.samples, directions(s.step), f"{len(s.samples)} interval{'s' if len(s.samples) != 1 else ''}",
                        command=not s.step.is_io)
        lat = latency_table(shown, names=[p.strip() for p in map(pass_name, shown)] if len(shown) > 1 else False)
        latency = self.query_one("#step-latency", Static)
        # A command step's chart of mean latency is the disk's time per request (kernel counters), not an I/O's.
        none = ("No per-I/O latency for a command step: its latency chart is the disk's mean time per request, "
                "from the kernel's counters." if not s.step.is_io and s.samples
                else "No latency was measured for this step.")
        body = lat if lat.row_count else Text(none)
        steady = [line for p in shown for line in steady_summary_lines(p)]
        # A step run to steady state: its verdict, the window, each criterion and every round.
        latency.update(Group(body, Text("\n".join(steady))) if steady else body)
        self.query_one(DriveGauge).show_step(s)
        command = self.query_one("#step-command", Static)
        lines = [Text.assemble(("Command line: ", "bold"), s.command_line or "not recorded")]
        limit = self.limits.step(s.name)
        if limit is not None and limit.verdict != bottleneck.UNKNOWN:
            style = theme_style(self.app, "warning") if limit.verdict != bottleneck.NOT_LINK else ""
            lines.append(Text.assemble(("Limit: ", "bold"), (limit.text, style)))
        # A verified step's check and the blocks that did not read back, offset by offset (as `labtui show`).
        command.update(Group(*lines, *step_blocks(s, self.result.id)))

    def action_scroll(self, pages: int) -> None:
        body = self.query_one("#result-body", VerticalScroll)
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)()

    def action_next_chart(self) -> None:
        charts = self.query_one(StepCharts)
        if charts.single:
            self.notify(f"Showing {charts.cycle()}", timeout=2)
            self.call_after_refresh(self._show_step)  # the chart shown has its size after the refresh
