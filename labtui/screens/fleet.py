"""The Fleet screen: the chosen profile on every host of a hosts file, over ssh, one row per host.

The same fleet run as `labtui run --hosts FILE` (labtui.fleet.session): the hosts table
(widgets/hosts_table.py) shows each host's state, step, figures, recent MiB/s and verdict; the
highlighted host's are on one line in the detail line under it, and the panel under that says the
fastest and slowest host per step (widgets/fleet_summary.py). The layout is fixed: however many
hosts, the table scrolls between the status line and that panel, which stay on screen. Enter opens
that host's run, live, with the charts of the Run screen. The rows are redrawn on a timer at most
twice a second, whatever the number of hosts and samples. What Start runs and the words said before
it (the ready line, the question) are tui/fleet_start.py's.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker

from labtui.errors import LabtuiError
from labtui.fleet.host_run import COMPLETED, HostRun
from labtui.fleet.session import CONNECTIONS, Fleet
from labtui.tui.context import LabtuiScreen, cursor_blinks
from labtui.tui.fleet_start import fleet_start, ready_line
from labtui.tui.work import report_failure
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.fleet_summary import FleetSummary
from labtui.widgets.hosts_table import HostsTable, detail_line
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.line_input import LineInput

if TYPE_CHECKING:
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import Request
    from labtui.fleet.summary import HostsSummary
    from labtui.model.profile import Profile
    from labtui.model.result import RunResult

FRAME_SECONDS = 0.5


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
        Binding("escape", "leave_field", "Leave field", priority=True, id="fleet-leave-field",
                tooltip="Out of the hosts file field, back to the hosts (d, w, r and h then work again)"),
        # A path typed straight away, without Enter first, went to the screen keys letter by letter (the
        # w of "/home/lab/work" opened Workload, its r the Run screen ...): / or ~ starts it in the field.
        Binding("slash", "type_path('/')", "Type a path", id="fleet-type-path", show=False,
                tooltip="Start typing the path of a hosts file (/ or ~ puts the cursor in the field)"),
        Binding("tilde", "type_path('~')", "Type a path", id="fleet-type-home", show=False),
        # The summary under the hosts scrolled by the wheel only (8 steps at 80x24: 3 shown); offered only then.
        Binding("shift+down", "scroll_summary(1)", "Summary", id="fleet-summary-down",
                tooltip="Scroll the summary under the hosts down (where it is longer than its box)"),
        Binding("shift+up", "scroll_summary(-1)", "Summary up", id="fleet-summary-up", show=False,
                tooltip="Scroll the summary under the hosts up"),
    ]
    FOOTER_SECONDARY = ("fleet-order", "fleet-summary-down")

    def __init__(self) -> None:
        super().__init__()
        self.hosts: list[Host] = []
        self.fleet: Fleet | None = None
        self.one_at_a_time = False
        self._worker: Worker | None = None
        self._dirty = False
        self.summary: HostsSummary | None = None
        self._ready_line = False  # the status line says what ctrl+s will run (said again as the choice changes)
        self._opened: str | None = None  # the hosts file the table shows, as it was given

    def compose(self) -> ComposeResult:
        yield ContextBar("Fleet")
        with Horizontal(id="fleet-bar"):
            yield Static("Hosts file ", id="fleet-label")
            yield LineInput(placeholder="a TOML file of [[hosts]] entries; Enter opens it", id="fleet-file", compact=True)
        yield Static(id="fleet-status", markup=False)
        yield HostsTable(id="fleet-table")
        yield Static(id="fleet-detail", markup=False)
        yield FleetSummary(id="fleet-summary")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(HostsTable).plain_glyphs = self.lab.plain_glyphs
        self._rows([])
        self.query_one("#fleet-file", Input).cursor_blink = cursor_blinks(self.app)
        given = self.lab.hosts_file
        remembered = given if given is not None else self.lab.settings.hosts_file
        if remembered is not None:
            self.query_one("#fleet-file", Input).value = remembered
            self.open_hosts(remembered)
        else:
            self._say("Type the path of a hosts file, from / or ~ (or Enter first), then Enter (its form: the "
                      "manual, docs/many-hosts.md); ctrl+s then runs the chosen profile on every host.")
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
        self._say_ready()
        self.query_one(DataTable).focus()
        return True

    def _say_ready(self) -> None:
        """What ctrl+s will run, where: said when the hosts open, and again whenever the screen comes
        back (another profile may have been chosen on Workload meanwhile, the Run screen's Override
        fields changed) or the order changes."""
        try:
            self._say(ready_line(self.hosts, self._opened, self.lab.profile, self.lab.quick_trial,
                                 one_at_a_time=self.one_at_a_time))
        except LabtuiError as exc:
            self._say(str(exc), "$warning")
        self._ready_line = True

    def on_screen_resume(self) -> None:
        if self._ready_line and self.hosts and self.fleet is None:
            self._say_ready()

    def _remember(self, path: str) -> None:
        self.lab.remember_hosts_file(path)

    def _engine(self) -> str:
        return self.lab.settings.engine or "native"

    # ------------------------------------------------------------------ running

    @property
    def running(self) -> bool:
        if self.fleet is None or self.fleet.stopping is not None or all(r.ended for r in self.fleet.runs):
            return False
        return self._worker is None or not self._worker.is_finished  # a run that broke has hosts never ended

    def footer_secondary(self) -> tuple[str, ...]:
        # At 80 columns, during a run, "q Quit" was cut to "q Qui": then the Disks screen's key gives way.
        return (*self.FOOTER_SECONDARY, "screen-disks") if self.running else self.FOOTER_SECONDARY

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":  # a path typed but not yet opened counts: ctrl+s opens it first
            return (bool(self.hosts) or bool(self._typed_path())) and not self.running
        if action == "stop":
            return self.running
        if action == "open_host":
            return self.fleet is not None
        if action == "edit_file":
            return self.fleet is None
        if action == "type_path":
            return not self.running
        if action == "leave_field":
            return self.query_one("#fleet-file", Input).has_focus
        if action == "scroll_summary":
            return self.query_one(FleetSummary).overflows
        return True

    def action_scroll_summary(self, pages: int) -> None:
        self.query_one(FleetSummary).page(pages)

    def _typed_path(self) -> str:
        return self.query_one("#fleet-file", Input).value.strip()

    def action_leave_field(self) -> None:
        self.query_one(DataTable).focus()

    def action_start(self) -> None:
        """Start the chosen profile on every host, once the person says so: it writes to every
        reachable host's disk, so one key asks first (as History's a and the Disks screen's R do)."""
        from labtui.screens.confirm import ConfirmModal

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
            start = fleet_start(self.hosts, profile, self.lab.quick_trial, self._engine(),
                                one_at_a_time=self.one_at_a_time, unsaved=self.lab.unsaved_profile == profile.name)
        except LabtuiError as exc:
            self._say(str(exc), "$error")
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return  # nothing written anywhere; the status line says what it said
            if self.lab.run_active or self.running:  # one started meanwhile (History's a, over the question)
                self._say("A run is going: one at a time.", "$warning")
                return
            self._start(start.profile, start.request, start.ssh, overridden=bool(start.overridden))

        self.app.push_screen(ConfirmModal(start.title, start.question, yes="Run", no="Not now"), answered)

    def _start(self, profile: Profile, request: Request, ssh: str, *, overridden: bool = False) -> None:
        self.summary = None
        self.fleet = Fleet(self.hosts, request, self.lab.store, one_at_a_time=self.one_at_a_time, ssh=ssh,
                           connections=self.lab.settings.fleet_connections or CONNECTIONS, on_change=self._changed,
                           clock=lambda: self.lab.clock().timestamp())  # as the Run screen's live run
        self._fill(self.fleet.runs)
        self.lab.run_active = True
        self.lab.active_run = self  # quitting or a signal stops the hosts through abort()
        self._say(f"Running {profile.name}{', overridden on the Run screen,' if overridden else ''} on {len(self.hosts)} hosts "
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
        kept = sum(1 for r in fleet.runs if r.results)
        where = ("their results are in History, tagged host:NAME." if kept else
                 "no host sent a result: each row says why (Enter: the host's own view).")
        self._say(f"{good} of {len(fleet.runs)} hosts completed{stopped}; {where}",
                  "$success" if good == len(fleet.runs) else "$warning")
        self.query_one(FleetSummary).show(self.summary)
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
        if self.hosts and self.fleet is None:
            self._say_ready()
            return
        self._say("The hosts will run " + ("one after another (for hosts on shared storage)." if self.one_at_a_time
                                           else "together, from one shared instant."))

    def on_resize(self) -> None:
        self._rows(self._runs())

    def _rows(self, runs: list[HostRun]) -> None:
        """The table's rows for `runs`, in the layout that fits the screen's width."""
        table = self.query_one(HostsTable)
        table.running, table.summary = self.fleet is not None, self.summary
        table.show(runs, self.size.width)
        self._show_detail()

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        table = self.query_one(DataTable)
        runs = self._runs()
        if not runs or not table.row_count:
            self.query_one("#fleet-detail", Static).update("")
            return
        r = runs[min(table.cursor_row, len(runs) - 1)]
        self.query_one("#fleet-detail", Static).update(detail_line(r, self.summary if self.fleet is not None else None,
                                                                   ran=self.fleet is not None))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # Enter on a row: the table's own binding takes the key first.
        event.stop()
        self.action_open_host()

    def action_edit_file(self) -> None:
        self.set_focus(self.query_one("#fleet-file", Input))  # at once: keys typed after Enter are the field's

    def action_type_path(self, character: str) -> None:
        """The field takes the key that starts a path, in place of the path it held, and the keys
        typed after it (the field's focus, which selects its text for the next key to replace, is
        told not to: the text is already replaced)."""
        field = self.query_one("#fleet-file", Input)
        field.select_on_focus = False
        field.value = character
        field.cursor_position = len(character)
        self.set_focus(field)  # at once: the rest of the path, typed quickly, is the field's (LabtuiApp.on_key)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if event.widget.id == "fleet-file":
            # Enter into the field selects what it holds again, to be replaced by what is typed.
            self.query_one("#fleet-file", Input).select_on_focus = True

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
        table = self.query_one(HostsTable)
        table.running, table.summary = self.fleet is not None, self.summary
        table.redraw(self._runs(), self.size.width)
        self._show_detail()

    def _fill(self, runs: list[HostRun]) -> None:
        self._rows(runs)
        self.query_one(FleetSummary).show(None)

    def _say(self, text: str, style: str = "") -> None:
        self._ready_line = False
        self.query_one("#fleet-status", Static).update(Content.styled(text, style) if style else Content(text))

