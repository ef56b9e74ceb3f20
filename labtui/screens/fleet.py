"""The Fleet screen: the chosen profile on every host of a hosts file, over ssh, one row per host.

The same fleet run as `labtui run --hosts FILE` (labtui.fleet.session): each host's row shows
its state, step, IOPS and MiB/s of its latest interval, a sparkline of its recent MiB/s and, at
the end, its verdict against the first host that completed (labtui.fleet.summary); at 80
columns the step and the verdict share a column. Nothing is cut: a host's name, its step and its
verdict fold over lines at their words (render/words.fold), the row as tall as its tallest cell (the
highlighted host's are on one line in the detail line under the table). Enter opens
that host's run, live, with the charts of the Run screen. The rows are redrawn on a timer at
most twice a second, whatever the number of hosts and samples.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey, RowKey
from textual.worker import Worker

from labtui.errors import LabtuiError
from labtui.fleet.host_run import COMPLETED, HostRun
from labtui.fleet.session import CONNECTIONS, Fleet
from labtui.render.result_tables import fmt_iops, fmt_mib
from labtui.render.sparkline import BARS, PLAIN_BARS, sparkline
from labtui.render.words import fold
from labtui.tui.context import LabtuiScreen, cursor_blinks
from labtui.tui.work import report_failure
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.line_input import LineInput

if TYPE_CHECKING:
    from labtui.fleet.hosts import Host
    from labtui.fleet.summary import HostsSummary
    from labtui.model.result import RunResult

FRAME_SECONDS = 0.5
SPARK_WIDTH = 16
WIDE_VERDICT_MIN = 24  # below it, the narrow layout: "noise unknown (single runs)" whole where the width allows
FLEX_MIN = 9  # "reference", "completed": below it (and its heading), the table scrolls sideways
HOST_MAX = 20  # a longer name folds over lines in its row
HOST_MIN = 8  # where the last column would be narrower than its heading, host names fold down to this
# (key, heading, width): the cells change with every sample, so the widths are fixed, not measured;
# the last column takes what the others leave (_rows).
Columns = tuple[tuple[str, str, int], ...]
WIDE_COLUMNS: Columns = (("host", "Host", 12), ("state", "State", 11), ("step", "Step", 26), ("iops", "IOPS", 8),
                         ("mib", "MiB/s", 8), ("recent", "Recent MiB/s", SPARK_WIDTH), ("verdict", "Verdict", 48))
# Where the wide layout leaves the verdict too little (80 columns), a step and a verdict share one
# column: a host shows its step while it runs and its verdict once it has ended.
NARROW_COLUMNS: Columns = (("host", "Host", 12), ("state", "State", 11), ("iops", "IOPS", 8), ("mib", "MiB/s", 8),
                           ("recent", "Recent", SPARK_WIDTH // 2), ("verdict", "Step / verdict", 30))
STATE_STYLES = {"completed": "$success", "pass": "$success", "failed": "$error", "fail": "$error",
                "unreachable": "$error", "refused": "$error", "aborted": "$warning", "cannot tell": "$warning"}


class HostsTable(DataTable):
    """The hosts, one row each. Enter is the host's run once the hosts have run; before, it puts the
    cursor in the hosts file field (the table's own Enter did nothing on an empty table)."""

    help_scope = "hosts table"

    BINDINGS = [
        Binding("enter", "screen.open_host", "Host's run", id="fleet-open",
                tooltip="The host's run, live: its charts and figures"),
        Binding("enter", "screen.edit_file", "Hosts file", id="fleet-edit-file",
                tooltip="Type the path of a hosts file (a TOML file listing the hosts), then Enter opens it"),
    ]


class FleetScreen(LabtuiScreen[None]):
    CSS_PATH = "fleet.tcss"
    # The hosts table, not the hosts file field: in the field d or ? were typed, not obeyed. Enter
    # puts the cursor in the field where no run has hosts to open (action_open_host).
    AUTO_FOCUS = "#fleet-table"
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="fleet-start", priority=True,
                tooltip="Run the chosen profile on every host of the hosts file"),
        Binding("ctrl+x", "stop", "Stop all", id="fleet-stop", priority=True,
                tooltip="Stop every host (asks first); their partial results are kept as aborted, there and here"),
        Binding("ctrl+o", "toggle_order", "Together / one by one", id="fleet-order", priority=True,
                tooltip="Start the hosts at one shared instant, or one after another (hosts on shared storage)"),
        # In the field, letters are typed: this is the way back to the hosts and the other screens' keys.
        Binding("escape", "leave_field", "Leave field", id="fleet-leave-field",
                tooltip="Out of the hosts file field, back to the hosts (d, w, r and h then work again)"),
    ]
    FOOTER_SECONDARY = ("fleet-order",)

    def __init__(self) -> None:
        super().__init__()
        self.hosts: list[Host] = []
        self.fleet: Fleet | None = None
        self.one_at_a_time = False
        self._worker: Worker | None = None
        self._dirty = False
        self.summary: HostsSummary | None = None
        self._columns = WIDE_COLUMNS
        self._opened: str | None = None  # the hosts file the table shows, as it was given

    def compose(self) -> ComposeResult:
        yield ContextBar("Fleet")
        with Horizontal(id="fleet-bar"):
            yield Static("Hosts file ", id="fleet-label")
            yield LineInput(placeholder="a TOML file of [[hosts]] entries; Enter opens it", id="fleet-file", compact=True)
        yield Static(id="fleet-status", markup=False)
        yield HostsTable(id="fleet-table", cursor_type="row", zebra_stripes=False)
        yield Static(id="fleet-detail", markup=False)
        yield Static(id="fleet-summary", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self._rows([])
        self.query_one("#fleet-file", Input).cursor_blink = cursor_blinks(self.app)
        given = self.lab.hosts_file
        remembered = given if given is not None else self.lab.settings.hosts_file
        if remembered is not None:
            self.query_one("#fleet-file", Input).value = remembered
            self.open_hosts(remembered)
        else:
            self._say("Enter, then type the path of a hosts file (its form: the manual, docs/many-hosts.md) and Enter "
                      "again; ctrl+s then runs the chosen profile on every host.")
        self.set_interval(FRAME_SECONDS, self._frame)

    # ------------------------------------------------------------------ the hosts file

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "fleet-file":
            self.open_hosts(event.value)

    def open_hosts(self, path: str) -> bool:
        from labtui.fleet.hosts import load_hosts

        if self.running:
            self._say("A fleet run is going: stop it (ctrl+x) before opening another hosts file.", "$warning")
            return False
        try:
            hosts = load_hosts(path.strip()) if path.strip() else []
        except LabtuiError as exc:
            self._say(str(exc), "$error")
            return False
        if not hosts:
            self._say("Give a hosts file (a TOML file of [[hosts]] entries).", "$warning")
            return False
        self.hosts = hosts
        self._opened = path.strip()
        self.fleet = None
        self.summary = None
        self._remember(str(Path(path.strip()).expanduser()))
        self._fill([HostRun(h) for h in hosts])
        self._say(f"{len(hosts)} host{'s' if len(hosts) != 1 else ''} in {path.strip()}: ctrl+s runs "
                  f"{self._profile_name()} on {'each in turn' if self.one_at_a_time else 'all of them together'} "
                  f"(ctrl+o: {'together' if self.one_at_a_time else 'one after another'}).")
        self.query_one(DataTable).focus()
        return True

    def _remember(self, path: str) -> None:
        self.lab.remember_hosts_file(path)

    def _engine(self) -> str:
        return self.lab.settings.engine or "native"

    def _profile_name(self) -> str:
        profile = self.lab.profile
        return profile.name if profile is not None else "the chosen profile"

    # ------------------------------------------------------------------ running

    @property
    def running(self) -> bool:
        if self.fleet is None or self.fleet.stopping is not None or all(r.ended for r in self.fleet.runs):
            return False
        return self._worker is None or not self._worker.is_finished  # a run that broke has hosts never ended

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":  # a path typed but not yet opened counts: ctrl+s opens it first
            return (bool(self.hosts) or bool(self._typed_path())) and not self.running
        if action == "stop":
            return self.running
        if action == "open_host":
            return self.fleet is not None
        if action == "edit_file":
            return self.fleet is None
        if action == "leave_field":
            return self.query_one("#fleet-file", Input).has_focus
        return True

    def _typed_path(self) -> str:
        return self.query_one("#fleet-file", Input).value.strip()

    def action_leave_field(self) -> None:
        self.query_one(DataTable).focus()

    def action_start(self) -> None:
        from labtui.fleet.requests import run_request, ssh_program

        typed = self._typed_path()
        # Ctrl+S straight after typing a path (no Enter) means that file's hosts, not the last ones.
        if typed and typed != self._opened and not self.open_hosts(typed):
            return
        profile = self.lab.profile
        if profile is None:
            self._say("Choose a profile first (Workload screen, w).", "$warning")
            return
        if self.lab.run_active:
            self._say("A run is going on the Run screen: one at a time.", "$warning")
            return
        try:
            if profile.params:
                raise LabtuiError(f"{profile.name} takes parameters ({', '.join(p.name for p in profile.params)}): "
                                  "run it with `labtui run --hosts FILE --param NAME=VALUE`")
            request = run_request(self.hosts, profile, engine=self._engine())
            ssh = ssh_program()
        except LabtuiError as exc:
            self._say(str(exc), "$error")
            return
        self.summary = None
        self.fleet = Fleet(self.hosts, request, self.lab.store, one_at_a_time=self.one_at_a_time, ssh=ssh,
                           connections=self.lab.settings.fleet_connections or CONNECTIONS, on_change=self._changed)
        self._fill(self.fleet.runs)
        self.lab.run_active = True
        self.lab.active_run = self  # quitting or a signal stops the hosts through abort()
        self._say(f"Running {profile.name} on {len(self.hosts)} hosts "
                  f"{'one after another' if self.one_at_a_time else 'together'} …")
        self._worker = self.drive(self.fleet)
        self.refresh_bindings()

    @work(exclusive=True, group="fleet", exit_on_error=False)
    async def drive(self, fleet: Fleet) -> None:
        from labtui.analysis.comparison import DEFAULT_TOLERANCE_PCT
        from labtui.fleet.summary import summarize_hosts

        try:
            await fleet.run()
        finally:
            self.lab.run_active = False
            if self.lab.active_run is self:
                self.lab.active_run = None
        if fleet is self.fleet:
            self.summary = summarize_hosts([(r.name, r.result) for r in fleet.runs if r.result is not None],
                                           DEFAULT_TOLERANCE_PCT)
            self._done(fleet)

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        # The hosts' sessions end (and clean up) inside Fleet.run, whatever raised: what each
        # host reached stays in its row, and the status line says the run broke, not how it ended.
        self._dirty = True
        self._frame()
        self._say(report_failure(self, "The fleet run failed", error), "$error")
        self.refresh_bindings()

    def _done(self, fleet: Fleet) -> None:
        self._dirty = True
        self._frame()
        good = sum(1 for r in fleet.runs if r.outcome == COMPLETED)
        stopped = f" (stopped: {fleet.stopping})" if fleet.stopping else ""
        self._say(f"{good} of {len(fleet.runs)} hosts completed{stopped}; their results are in History, "
                  "tagged host:NAME.", "$success" if good == len(fleet.runs) else "$warning")
        self.query_one("#fleet-summary", Static).update(self._summary_text())
        self.refresh_bindings()

    def action_stop(self) -> None:
        from labtui.screens.confirm import ConfirmModal

        if not self.running:
            return

        def answered(yes: bool | None) -> None:
            if yes and self.fleet is not None:
                self.fleet.stop("the Fleet screen")
                self._say("Stopping every host: each removes its test file and saves its partial result …",
                          "$warning")
                self.refresh_bindings()

        self.app.push_screen(ConfirmModal("Stop every host?", "Each host stops its run, removes its test file and "
                                          "keeps what it measured as an aborted result, there and here.",
                                          yes="Stop all", no="Keep running", danger=True), answered)

    async def abort(self, by: str) -> None:
        """Stop every host without asking (the app is quitting or got a signal) and wait for their reports."""
        fleet, worker = self.fleet, self._worker
        if fleet is None:
            return
        fleet.stop(by)
        if worker is not None:
            with contextlib.suppress(Exception):
                await worker.wait()

    @property
    def outcome(self) -> RunResult | None:
        """A result the stop left aborted (the app's exit message names it), if any."""
        runs = self.fleet.runs if self.fleet is not None else []
        return next((r.result for r in runs if r.result is not None and r.result.status == "aborted"), None)

    def action_toggle_order(self) -> None:
        if self.running:
            self._say("The order is fixed once the hosts have started.", "$warning")
            return
        self.one_at_a_time = not self.one_at_a_time
        self._say("The hosts will run " + ("one after another (for hosts on shared storage)." if self.one_at_a_time
                                           else "together, from one shared instant."))

    def on_resize(self) -> None:
        self._rows(self._runs())

    def _rows(self, runs: list[HostRun]) -> None:
        """The table's rows for `runs`, in the layout that fits the screen's width."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        host = min(HOST_MAX, max([4] + [len(r.name) for r in runs]))
        columns = NARROW_COLUMNS if self._room(WIDE_COLUMNS, host) < WIDE_VERDICT_MIN else WIDE_COLUMNS
        # The last column's heading whole ("Step / verdict" at 80 columns): long host names fold first.
        flex_min = max(FLEX_MIN, len(columns[-1][1]))
        host = max(min(host, HOST_MIN), min(host, host + self._room(columns, host) - flex_min))
        if columns is not self._columns or not table.columns:
            self._columns = columns
            table.clear(columns=True)
            for key, label, width in columns:
                table.add_column(label, key=key, width=width)
        else:
            table.clear()
        table.columns[ColumnKey("host")].width = host
        # The last column takes the width the others leave (its text folds there): at a fixed width
        # the table ran past the edge and scrolled sideways, a lone scrollbar thumb under the rows
        # and the verdict cut off at 120 columns.
        flex = table.columns[ColumnKey(columns[-1][0])]
        flex.width = max(flex_min, self._room(columns, host))
        flex.label = Text(columns[-1][1])
        for host_run in runs:
            cells = self._cells(host_run)
            table.add_row(*cells.values(), key=host_run.name, height=_height(cells))
        if runs:
            table.move_cursor(row=min(row, len(runs) - 1))
        self._show_detail()

    def _room(self, columns: Columns, host: int) -> int:
        """The width `columns` leave their last column on this screen with a host column `host` wide."""
        padding = 2 * self.query_one(DataTable).cell_padding
        others = host + sum(width for _, _, width in columns[1:-1]) + padding * len(columns)
        # The table's margins, and room for a vertical scrollbar once there are more hosts than rows.
        return self.size.width - 2 - 2 - others

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        table = self.query_one(DataTable)
        runs = self._runs()
        if not runs or not table.row_count:
            self.query_one("#fleet-detail", Static).update("")
            return
        r = runs[min(table.cursor_row, len(runs) - 1)]
        parts = [r.host.where(), f"target {r.host.target or '-'}"]
        if r.labtui:
            parts.append(f"labtui {r.labtui}")
        verdict = self._verdict(r) if self.fleet is not None else ""
        if verdict:
            parts.append(verdict)
        self.query_one("#fleet-detail", Static).update(Content.assemble((r.name, "bold"), ": ", " · ".join(parts)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # Enter on a row: the table's own binding takes the key first.
        event.stop()
        self.action_open_host()

    def action_edit_file(self) -> None:
        self.query_one("#fleet-file", Input).focus()

    def action_open_host(self) -> None:
        from labtui.screens.fleet_host import FleetHostScreen

        host_run = self._selected()
        if host_run is not None:
            self.app.push_screen(FleetHostScreen(host_run))

    def _selected(self) -> HostRun | None:
        if self.fleet is None:
            return None
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return self.fleet.runs[min(table.cursor_row, len(self.fleet.runs) - 1)]

    # ------------------------------------------------------------------ drawing

    def _changed(self, _host_run: HostRun) -> None:
        self._dirty = True

    def _runs(self) -> list[HostRun]:
        return self.fleet.runs if self.fleet is not None else [HostRun(h) for h in self.hosts]

    def _frame(self) -> None:
        if not self._dirty or self.fleet is None or not self.is_current:
            return
        self._dirty = False
        self._redraw()

    def _redraw(self) -> None:
        table = self.query_one(DataTable)
        runs = self._runs()
        changed = {r.name: self._cells(r) for r in runs if r.name in table.rows}
        if any(_height(cells) != table.rows[RowKey(name)].height for name, cells in changed.items()):
            # A row's height is fixed once added: a cell that now folds over more (or fewer) lines
            # lays the rows out again.
            self._rows(runs)
            return
        for name, cells in changed.items():
            for key, value in cells.items():
                table.update_cell(name, key, value)
        self._show_detail()

    def _fill(self, runs: list[HostRun]) -> None:
        self._rows(runs)
        self.query_one("#fleet-summary", Static).update("")

    def _cells(self, r: HostRun) -> dict[str, Content]:
        """The host's row, by column key, in the columns of the current layout."""
        table = self.query_one(DataTable)
        widths = {key.value: column.width for key, column in table.columns.items()}
        live = r.sample.sample if r.sample is not None and r.state == "running" else None
        state = r.state_text() if self.fleet is not None and r in self.fleet.runs else "-"
        step = r.step_text()
        verdict = self._verdict(r)
        if self._columns is NARROW_COLUMNS:
            verdict = verdict if r.ended else step
        glyphs = PLAIN_BARS if self.lab.plain_glyphs else BARS
        # Content, not str: a DataTable reads a str as markup, and "[measure]" or a reason would vanish.
        cells = {
            "host": _folded(r.name, widths["host"]),
            "state": Content.styled(state, STATE_STYLES.get(state, "")),
            "step": _folded(step, widths.get("step", 0)),
            "iops": Content(fmt_iops(live.iops) if live else ""),
            "mib": Content(fmt_mib(live.mib_s) if live else ""),
            "recent": Content.styled(sparkline(r.spark_mib, widths["recent"], glyphs), "$accent"),
            "verdict": _folded(verdict, widths["verdict"]),
        }
        return {key: cells[key] for key, _, _ in self._columns}

    def _verdict(self, r: HostRun) -> str:
        if not r.ended:
            return ""
        if r.state != COMPLETED:
            return (r.reason or "").removeprefix(f"{r.name}: ")
        summary = self.summary
        if summary is None or r.name not in summary.hosts:
            return "done"
        if r.name == summary.reference:
            return "reference"
        claims = [f"{verdict} in {s.step} ({pct:+.1f} %)" if pct is not None else f"{verdict} in {s.step}"
                  for s in summary.steps for host, verdict, pct, _ in s.differing if host == r.name]
        if claims:
            return "; ".join(claims)
        return "within noise" if summary.noise_known else "noise unknown (single runs)"

    def _summary_text(self) -> str:
        summary = self.summary
        if summary is None:
            return ""
        lines = [f"Across the hosts (each against {summary.reference}):"]
        for s in summary.steps:
            apart = f" ({s.spread_pct:.1f} % apart)" if s.spread_pct is not None else ""
            lines.append(f"  {s.step}: fastest {s.fastest[0]}, slowest {s.slowest[0]}{apart}")
        if not summary.noise_known:
            lines.append("Single runs cannot tell a difference from noise: repeat the runs to let labtui tell.")
        return "\n".join(lines)

    def _say(self, text: str, style: str = "") -> None:
        self.query_one("#fleet-status", Static).update(Content.styled(text, style) if style else Content(text))


def _folded(text: str, width: int) -> Content:
    return Content("\n".join(fold(text, width)))


def _height(cells: dict[str, Content]) -> int:
    """The lines a host's row takes: its tallest cell's."""
    return max(cell.plain.count("\n") + 1 for cell in cells.values())
