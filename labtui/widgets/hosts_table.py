"""The Fleet screen's hosts table: one row per host, laid out for the width it has, redrawn in place.

Each row shows the host's state, its step, the IOPS and MiB/s of its latest interval (a host that
has ended keeps those of its last step, whole), a sparkline of its recent MiB/s and, at the end, its
verdict against the first host that completed (labtui.fleet.summary); at 80 columns the step and the
verdict share a column. A host's name, its step and its verdict fold over lines at their words
(render/words.fold), the row as tall as its tallest cell; why a host failed (an ssh error, a refusal)
is one line, cut with "…": whole in the detail line under the table and on the host's own view
(Enter), where an ssh error ran to eight lines at 80 columns. The table scrolls inside the
screen's fixed layout; Home and End go to the first and last host (DataTable's own scrolled the
table sideways, cutting the first letter of every host name).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

from labtui.fleet.host_run import COMPLETED, HostRun
from labtui.printable import plain_words
from labtui.render.result_tables import fmt_iops, fmt_mib
from labtui.render.sparkline import BARS, PLAIN_BARS, sparkline
from labtui.render.words import fold, one_line

if TYPE_CHECKING:
    from labtui.fleet.summary import HostsSummary

SPARK_WIDTH = 16
WIDE_VERDICT_MIN = 24  # below it, the narrow layout: "noise unknown (single runs)" whole where the width allows
FLEX_MIN = 9  # "reference", "completed": below it (and its heading), the table scrolls sideways
HOST_MAX = 20  # a longer name folds over lines in its row
HOST_MIN = 8  # where the last column would be narrower than its heading, host names fold down to this
# (key, heading, width): the cells change with every sample, so the widths are fixed, not measured;
# the last column takes what the others leave (show).
Columns = tuple[tuple[str, str, int], ...]
WIDE_COLUMNS: Columns = (("host", "Host", 12), ("state", "State", 11), ("step", "Step", 26), ("iops", "IOPS", 8),
                         ("mib", "MiB/s", 8), ("recent", "Recent MiB/s", SPARK_WIDTH), ("verdict", "Verdict", 48))
# Where the wide layout leaves the verdict too little (80 columns), a step and a verdict share one
# column: a host shows its step while it runs and its verdict once it has ended.
NARROW_COLUMNS: Columns = (("host", "Host", 12), ("state", "State", 11), ("iops", "IOPS", 8), ("mib", "MiB/s", 8),
                           ("recent", "Recent", SPARK_WIDTH // 2), ("verdict", "Step / verdict", 30))
NOISE_UNKNOWN = "noise unknown (single runs)"  # a completed host's verdict where no host ran a step twice
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
        Binding("home", "scroll_top", "First host", show=False),
        Binding("end", "scroll_bottom", "Last host", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, id=id)
        self.layout_columns = WIDE_COLUMNS
        self.summary: HostsSummary | None = None
        self.running = False  # the rows are a fleet run's (a state), not the hosts file's (a "-")
        self.plain_glyphs = False

    def on_resize(self, event: events.Resize) -> None:
        # The summary under the table grows as the hosts end, after End may have put the cursor on the last
        # row: the row under the cursor stays in view (the last host was left just below the table).
        self.call_after_refresh(self._cursor_in_view)

    def _cursor_in_view(self) -> None:
        self.move_cursor(row=self.cursor_row, scroll=True)  # the row under the cursor then, not at the resize

    def show(self, runs: list[HostRun], width: int) -> None:
        """The rows for `runs`, in the layout that fits `width` (the screen's)."""
        row = self.cursor_row
        host = min(HOST_MAX, max([4] + [len(r.name) for r in runs]))
        columns = NARROW_COLUMNS if self._room(WIDE_COLUMNS, host, width) < WIDE_VERDICT_MIN else WIDE_COLUMNS
        # The last column's heading whole ("Step / verdict" at 80 columns): long host names fold first.
        flex_min = max(FLEX_MIN, len(columns[-1][1]))
        host = max(min(host, HOST_MIN), min(host, host + self._room(columns, host, width) - flex_min))
        if columns is not self.layout_columns or not self.columns:
            self.layout_columns = columns
            self.clear(columns=True)
            for key, label, column_width in columns:
                self.add_column(label, key=key, width=column_width)
        else:
            self.clear()
        self.columns[ColumnKey("host")].width = host
        # The last column takes the width the others leave (its text folds there): at a fixed width
        # the table ran past the edge and scrolled sideways, a lone scrollbar thumb under the rows
        # and the verdict cut off at 120 columns.
        flex = self.columns[ColumnKey(columns[-1][0])]
        flex.width = max(flex_min, self._room(columns, host, width))
        flex.label = Text(columns[-1][1])
        for host_run in runs:
            cells = self.cells(host_run)
            self.add_row(*cells.values(), key=host_run.name, height=_height(cells))
        if runs:
            self.move_cursor(row=min(row, len(runs) - 1))

    def _room(self, columns: Columns, host: int, width: int) -> int:
        """The width `columns` leave their last column in `width` with a host column `host` wide."""
        padding = 2 * self.cell_padding
        others = host + sum(w for _, _, w in columns[1:-1]) + padding * len(columns)
        # The table's margins, and room for a vertical scrollbar once there are more hosts than rows.
        return width - 2 - 2 - others

    def redraw(self, runs: list[HostRun], width: int) -> None:
        """The rows' cells brought up to date (laid out again where a row's height changes)."""
        changed = {r.name: self.cells(r) for r in runs if r.name in self.rows}
        if any(_height(cells) != self.rows[RowKey(name)].height for name, cells in changed.items()):
            # A row's height is fixed once added: a cell that now folds over more (or fewer) lines
            # lays the rows out again.
            self.show(runs, width)
            return
        for name, cells in changed.items():
            for key, value in cells.items():
                self.update_cell(name, key, value)

    def cells(self, r: HostRun) -> dict[str, Content]:
        """The host's row, by column key, in the columns of the current layout."""
        widths = {key.value: column.width for key, column in self.columns.items()}
        figures = r.figures()
        state = r.state_text() if self.running else "-"
        last = r.last_step() if r.ended else None
        step = r.step_text() or (last.name if last is not None else "")
        verdict = verdict_text(r, self.summary)
        if self.layout_columns is NARROW_COLUMNS:
            verdict = verdict if r.ended else step
        if verdict == NOISE_UNKNOWN and len(verdict) > widths["verdict"]:
            # Folded, it made every row of a lab two lines (5 of 32 hosts on screen at 80x24); why the noise is
            # unknown is the summary's line under the table, and the detail line's.
            verdict = "noise unknown"
        failed = r.ended and r.state != COMPLETED
        glyphs = PLAIN_BARS if self.plain_glyphs else BARS
        # Content, not str: a DataTable reads a str as markup, and "[measure]" or a reason would vanish.
        cells = {
            "host": _folded(r.name, widths["host"]),
            "state": Content.styled(state, STATE_STYLES.get(state, "")),
            "step": _folded(step, widths.get("step", 0)),
            "iops": Content(fmt_iops(figures[0]) if figures else ""),
            "mib": Content(fmt_mib(figures[1]) if figures else ""),
            "recent": Content.styled(sparkline(r.spark_mib, widths["recent"], glyphs), "$accent"),
            "verdict": Content(one_line(failure_words(r), widths["verdict"])) if failed
            else _folded(verdict, widths["verdict"]),
        }
        return {key: cells[key] for key, _, _ in self.layout_columns}


def verdict_text(r: HostRun, summary: HostsSummary | None) -> str:
    """What became of the host, in a phrase: its reason, or its verdict against the reference."""
    if not r.ended:
        return ""
    if r.state != COMPLETED:
        from labtui.run.preflight import room_in_tui_words  # a host's agent says it in the command line's words

        return room_in_tui_words((r.reason or "").removeprefix(f"{r.name}: "))
    if summary is None or r.name not in summary.hosts:
        return "done"
    if r.name == summary.reference:
        return "reference"
    claims = [f"{verdict} in {s.step} ({pct:+.1f} %)" if pct is not None else f"{verdict} in {s.step}"
              for s in summary.steps for host, verdict, pct, _ in s.differing if host == r.name]
    if claims:
        return "; ".join(claims)
    return "within noise" if summary.noise_known else NOISE_UNKNOWN


def detail_line(r: HostRun, summary: HostsSummary | None, *, ran: bool) -> Content:
    """The line under the table for the highlighted host, whole where its row cuts: where it is, its target,
    its labtui and, once the hosts have `ran`, what became of it."""
    parts = [r.host.where(), f"target {r.host.target or '-'}"]
    if r.labtui:
        parts.append(f"labtui {r.labtui}")
    verdict = verdict_text(r, summary) if ran else ""
    if verdict:
        parts.append(verdict)
    return Content.assemble((r.name, "bold"), ": ", " · ".join(parts))


def failure_words(r: HostRun) -> str:
    """Why the host failed, as its row says it on one line: its reason without what its row and the
    detail line already say (the host's ssh destination: "ssh lab@10.0.0.5 failed: ssh: connect to
    host 10.0.0.5 port 22: Connection refused" is "Connection refused"), no escape sequences."""
    words = plain_words(verdict_text(r, None))
    for said in (f"ssh {plain_words(r.host.where())} failed: ", "ssh: ", f"{plain_words(r.host.ssh)}: "):
        words = words.removeprefix(said)
    return _CONNECT.sub("", words) or plain_words(verdict_text(r, None))


_CONNECT = re.compile(r"^connect to host \S+ port \d+: ")


def _folded(text: str, width: int) -> Content:
    return Content("\n".join(fold(text, width)))


def _height(cells: dict[str, Content]) -> int:
    """The lines a host's row takes: its tallest cell's."""
    return max(cell.plain.count("\n") + 1 for cell in cells.values())
