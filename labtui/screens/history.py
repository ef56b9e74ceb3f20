"""The History screen: every saved result (runs and imports), filtered as you type, sorted, marked, acted on.

Its parts are widgets (`ResultsTable` with its columns, `ResultDetail` in its `DetailBox` under it); what t, b and x
change is `ResultChanges`'. The rows come from the summary index (labtui.results.summaries), so
thousands of results list at once; a result's file is read in full only when it is opened,
compared, tagged, exported or run again. Broken files are listed too, with the reason they cannot
be read. Marked results (Space) are what Compare, Export and Delete act on; with none marked they
act on the row under the cursor.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from functools import partial

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker

from labtui.errors import LabtuiError
from labtui.results import baselines
from labtui.results.files import LISTED_BROKEN, BrokenFile
from labtui.results.summaries import ResultSummary
from labtui.screens.history_changes import ResultChanges, ResultsScreen
from labtui.tui.context import Command, cursor_blinks
from labtui.tui.work import post_found, report_failure
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.detail_box import DETAIL_KEYS, DetailBox
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.line_input import LineInput
from labtui.widgets.result_detail import ResultDetail
from labtui.widgets.results_table import (
    BROKEN_PREFIX,
    CPU_MARK_HELP,
    DATA_HELP,
    SORT_KEYS,
    SORT_NAMES,
    SORTABLE,
    WIDE,
    WIDE_DATE,
    ResultsTable,
    broken_cells,
    first_step,
    summary_cells,
)
from labtui.widgets.row_table import RowTable


class HistoryScreen(ResultsScreen):
    CSS_PATH = "history.tcss"
    AUTO_FOCUS = "#results"
    BINDINGS = [
        Binding("enter", "open", "Open", id="history-open", tooltip="The result in full: charts, percentiles, context"),
        Binding("space", "mark", "Mark", id="history-mark",
                tooltip="Mark or unmark the result (Compare, Export and Delete act on the marked ones)"),
        Binding("c", "compare", "Compare", id="history-compare",
                tooltip="Compare the marked results side by side (a baseline first, then oldest first)"),
        Binding("a", "again", "Run again", id="history-again",
                tooltip="Run the result's profile again on its target with its engine (asks first)"),
        Binding("slash", "filter", "Filter", id="history-filter",
                tooltip="Type words to match: disk, profile, host, tag, date, status ..."),
        Binding("s", "sort(1)", "Sort", id="history-sort", tooltip="Sort by the next column (again: the one after)"),
        Binding("S", "sort(-1)", "Reverse", id="history-reverse", tooltip="Reverse the sort order"),
        Binding("t", "tag", "Tag", id="history-tag", tooltip="Set the result's tags"),
        Binding("b", "baseline", "Baseline", id="history-baseline",
                tooltip="Make the result the baseline of its disk and profile (again: stop using it)"),
        Binding("e", "export", "Export", id="history-export", tooltip="Write the results to a CSV, Markdown or JSON file"),
        Binding("delete,x", "delete", "Delete", id="history-delete", tooltip="Delete the result files (asks first)"),
        Binding("u", "unmark", "Unmark all", id="history-unmark", tooltip="Clear every mark"),
        Binding("f5,ctrl+r", "reload", "Reload", id="history-reload", tooltip="Read the results folder again"),
        *DETAIL_KEYS,
    ]
    FOOTER_SECONDARY = ("screen-fleet", "history-reload", "history-unmark", "history-reverse", "history-sort",
                        "history-delete", "history-baseline", "history-tag", "history-export",
                        "history-detail-down", "history-again",
                        "history-filter")

    class Loaded(Message):
        """The results folder's listing, read in a worker."""

        def __init__(self, rows: list[ResultSummary], broken: list[BrokenFile], baseline_ids: set[str],
                     problem: str | None) -> None:
            super().__init__()
            self.rows, self.broken, self.baseline_ids = rows, broken, baseline_ids
            self.problem = problem  # why the baselines could not be read, if they could not

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[ResultSummary] = []
        self.broken: list[BrokenFile] = []
        self.baseline_ids: set[str] = set()
        self.marked: set[str] = set()
        self.sort_column = "date"
        self.sort_reverse = True
        self.loaded = False
        self._by_id: dict[str, ResultSummary] = {}
        self._search: dict[str, str] = {}
        self._shown: list[str] = []
        self.changes = ResultChanges(self)

    def help_note(self) -> str | None:
        """What ? says above the keys where a figure in the list is marked CPU-bound, or a verified run has
        its Data word: what they mean."""
        notes = [CPU_MARK_HELP if any(s.steps and first_step(s).engine_bound for s in self.summaries) else "",
                 DATA_HELP if any(s.read_back is not None for s in self.summaries) else ""]
        return "\n".join(filter(None, notes)) or None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ContextBar("History")
        with Horizontal(id="history-bar"):
            yield LineInput(placeholder="/ filter: words to match (disk, profile, host, tag, date, status)",
                        id="history-filter", compact=True)
            yield Static(id="history-count", markup=False)
        yield ResultsTable(id="results")
        yield DetailBox(id="history-detail-box")  # the wheel or Shift+Down scrolls it, Enter shows it all
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#history-filter", Input).cursor_blink = cursor_blinks(self.app)
        self.query_one(ResultsTable).focus()
        self.action_reload()

    def on_screen_resume(self) -> None:
        # Back from a run or another screen: new results may exist (the index makes this cheap).
        if self.loaded:
            self.action_reload()

    # ------------------------------------------------------------------ loading

    def action_reload(self) -> None:
        self.load_results()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load_results(self) -> None:
        store = self.lab.store
        rows, broken = store.summaries(lambda done, total: self.app.call_from_thread(self._reading, done, total))
        try:
            ids = baselines.ids(store)
            problem = None
        except LabtuiError as exc:
            ids, problem = set(), str(exc)
        post_found(self, self.Loaded(rows, broken, ids, problem))

    def _reading(self, done: int, total: int) -> None:
        if not self.loaded:
            self.query_one(ResultDetail).show_reading(done, total)

    def on_history_screen_loaded(self, message: Loaded) -> None:
        if message.problem:
            self.notify(message.problem, title="Baselines not read", severity="warning", timeout=10)
        self.show(message.rows, message.broken, message.baseline_ids)

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        report_failure(self, "Could not read the results", error)

    def show(self, rows: list[ResultSummary], broken: list[BrokenFile], baseline_ids: set[str]) -> None:
        """Take a fresh listing; marks on results that still exist are kept."""
        self.summaries, self.broken, self.baseline_ids = rows, broken, baseline_ids
        self._by_id = {s.id: s for s in rows}
        self._search = {s.id: s.search_text() for s in rows}
        self._search.update({BROKEN_PREFIX + b.path.name: f"broken {b.path} {b.reason}".lower() for b in broken})
        self.marked &= set(self._by_id)
        self.loaded = True
        self._refill()

    # ------------------------------------------------------------------ the table

    def _ordered(self) -> list[str]:
        key = SORT_KEYS[self.sort_column]
        ordered = sorted(self.summaries, key=key, reverse=self.sort_reverse)
        return [s.id for s in ordered] + [BROKEN_PREFIX + b.path.name for b in self.broken if self._lists_broken()]

    def _lists_broken(self) -> bool:
        """Whether the broken files have rows: a few always; many only when the filter asks for them
        ("broken"), as `labtui history --broken` lists them: 2,000 rows of them buried the results."""
        return len(self.broken) <= LISTED_BROKEN or "broken" in self.query_one("#history-filter", Input).value.lower()

    def _matching(self, keys: list[str]) -> list[str]:
        words = self.query_one("#history-filter", Input).value.lower().split()
        if not words:
            return keys
        search = self._search
        return [k for k in keys if all(w in search[k] for w in words)]

    def _refill(self, keep: str | None = None) -> None:
        self._shown = self._matching(self._ordered())
        now = self.lab.clock()  # once for the whole table
        self.query_one(ResultsTable).show_results(
            self._shown, [self._cells(key, now) for key in self._shown], width=self.size.width,
            sort_column=self.sort_column, reverse=self.sort_reverse, marked=self.marked, keep=keep,
            narrow_cells=lambda key: summary_cells(self._by_id[key], False, False, narrow=True))
        self._show_count()
        self._show_detail()

    def _cells(self, key: str, now: datetime | None = None) -> dict[str, str]:
        if key.startswith(BROKEN_PREFIX):
            name = key.removeprefix(BROKEN_PREFIX)
            return broken_cells(next(b for b in self.broken if b.path.name == name))
        return summary_cells(self._by_id[key], key in self.marked, key in self.baseline_ids,
                             narrow=self.size.width < WIDE, now=now or self.lab.clock(),
                             short_date=self.size.width < WIDE_DATE)

    def _update_row(self, key: str) -> None:
        """Redraw one row after a mark or baseline change (no refill: the order is unchanged)."""
        self.query_one(ResultsTable).update_mark(key, self._cells(key)["mark"])

    def on_resize(self) -> None:
        if self.loaded:
            self._refill()

    def _show_count(self) -> None:
        listed = self._lists_broken()
        total = len(self.summaries) + (len(self.broken) if listed else 0)
        shown = len(self._shown)
        text = f"{shown} of {total}" if shown != total else f"{total} result{'s' if total != 1 else ''}"
        if not listed:
            text += f" · {len(self.broken):,} files not whole (/ broken lists them)"
        if self.marked:
            text += f" · {len(self.marked)} marked"
        self.query_one("#history-count", Static).update(text)

    # ------------------------------------------------------------------ detail line

    def current_key(self) -> str | None:
        return self.query_one(ResultsTable).cursor_key

    def current(self) -> ResultSummary | None:
        key = self.current_key()
        return self._by_id.get(key) if key else None

    def current_broken(self) -> BrokenFile | None:
        """The broken file under the cursor, if the cursor is on one."""
        key = self.current_key()
        if key is None or not key.startswith(BROKEN_PREFIX):
            return None
        name = key.removeprefix(BROKEN_PREFIX)
        return next((b for b in self.broken if b.path.name == name), None)

    def _refuse_broken(self, what: str) -> bool:
        """Say, on a broken file's row, that it cannot be `what` and what can be done; whether it was one."""
        broken = self.current_broken()
        if broken is not None:
            self.notify(f"{broken.path.name} cannot be read, so it cannot be {what}. x deletes it (asks first).",
                        title="A broken file", severity="warning")
        return broken is not None

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        self._show_detail()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scroll_detail":
            return self.query_one(DetailBox).overflows
        return True

    def action_scroll_detail(self, lines: int) -> None:
        self.query_one(DetailBox).page(lines)

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        self.action_open()

    def on_row_table_header_clicked(self, event: RowTable.HeaderClicked) -> None:
        if event.column in SORTABLE:
            self.sort_by(event.column, not self.sort_reverse if event.column == self.sort_column else True)

    def _show_detail(self) -> None:
        detail = self.query_one(ResultDetail)
        key = self.current_key()
        if key is None:
            detail.show_none(self.loaded, bool(self.summaries or self.broken))
        elif key.startswith(BROKEN_PREFIX):
            detail.show_broken(next(b for b in self.broken if b.path.name == key.removeprefix(BROKEN_PREFIX)))
        else:
            detail.show_result(self._by_id[key], key in self.baseline_ids)

    def on_detail_box_resized(self) -> None:
        self.refresh_bindings()  # whether the footer offers the detail's scroll keys (longer than its box)

    # ------------------------------------------------------------------ filtering and sorting

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "history-filter":
            self._refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "history-filter":
            self.query_one(ResultsTable).focus()

    def on_key(self, event: events.Key) -> None:
        filter_input = self.query_one("#history-filter", Input)
        if filter_input.has_focus and event.key in ("down", "escape"):
            event.stop()
            self.query_one(ResultsTable).focus()

    def action_filter(self) -> None:
        # At once, not by a deferred focus(): words typed right after / are the filter's (LabtuiApp.on_key).
        self.set_focus(self.query_one("#history-filter", Input))

    def action_sort(self, step: int) -> None:
        if step < 0:
            self.sort_by(self.sort_column, not self.sort_reverse)
            return
        # The next column on screen: host and target give way at 80 columns (the engine where all
        # results share one), and rows reordered by a column not shown would look shuffled.
        shown = {c.key for c in self.query_one(ResultsTable).columns}
        start = SORTABLE.index(self.sort_column)
        after = [SORTABLE[(start + i) % len(SORTABLE)] for i in range(1, len(SORTABLE) + 1)]
        column = next((c for c in after if c in shown), after[0])
        self.sort_by(column, column in ("date", "iops", "mib_s"))

    def sort_by(self, column: str, reverse: bool) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        self._refill(keep=self.current_key())
        order = "descending" if reverse else "ascending"
        self.notify(f"Sorted by {SORT_NAMES[column]}, {order}", timeout=2)

    def palette_commands(self) -> Iterator[Command]:
        for column in SORTABLE:
            yield (f"Sort by {SORT_NAMES[column]}", f"Order the results by {SORT_NAMES[column]}",
                   partial(self.sort_by, column, column in ("date", "iops", "mib_s")))

    # ------------------------------------------------------------------ marks

    def action_mark(self) -> None:
        key = self.current_key()
        if key is None:
            return
        if self._refuse_broken("marked to compare or export"):
            return
        # The cursor stays on the row marked: the person moves it (Down, Space marks the next one).
        self.marked ^= {key}
        self._update_row(key)
        self._show_count()
        self.refresh_bindings()

    def action_unmark(self) -> None:
        marked, self.marked = self.marked, set()
        self.query_one(ResultsTable).marked = self.marked
        for key in marked:
            self._update_row(key)
        self._show_count()
        self.refresh_bindings()

    def chosen(self) -> list[ResultSummary]:
        """What an action applies to: the marked results, else the one under the cursor."""
        if self.marked:
            return [s for s in self.summaries if s.id in self.marked]
        current = self.current()
        return [current] if current is not None else []

    # ------------------------------------------------------------------ actions

    def action_open(self) -> None:
        from labtui.screens.result import ResultScreen

        if self._refuse_broken("opened"):
            return
        current = self.current()
        result = self.read(current) if current is not None else None
        if result is not None:
            self.app.push_screen(ResultScreen(result, baseline=result.id in self.baseline_ids))

    def action_compare(self) -> None:
        from labtui.screens.compare import CompareScreen

        rows = [s for s in self.summaries if s.id in self.marked]
        if len(rows) < 2:
            self.notify("Mark two or more results with Space, then press c.", title="Compare", severity="warning")
            return
        # A baseline is the natural reference; otherwise the oldest, so changes read forward in time.
        rows.sort(key=lambda s: (s.id not in self.baseline_ids, s.started, s.id))
        results = self._read_all(rows)
        if results is not None:
            self.app.push_screen(CompareScreen(results))

    def action_again(self) -> None:
        if self._refuse_broken("run again"):
            return
        current = self.current()
        result = self.read(current) if current is not None else None
        if result is None:
            return
        self.lab.request_run(result)  # asks first, naming what it would write where

    def action_tag(self) -> None:
        self.changes.tag()

    def action_baseline(self) -> None:
        self.changes.baseline()

    def action_delete(self) -> None:
        self.changes.delete()

    def action_export(self) -> None:
        from labtui.screens.export import ExportModal

        if not self.marked and self._refuse_broken("exported"):
            return
        rows = self.chosen()
        if not rows:
            return
        results = self._read_all(rows)
        if results is None:
            return
        self.app.push_screen(ExportModal(results, self.lab.cwd, self.lab.clock()))
