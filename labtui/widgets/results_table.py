"""History's table of results: its columns, what each cell of a result (or a file that does not load)
says, how the columns share a narrow terminal's width, the sort keys, and the table itself.

No screen here: the History screen fills the table; `labtui history` prints the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App

from labtui.analysis.listed_steps import listed_steps
from labtui.model import verification
from labtui.render.result_tables import (
    CPU_MARK,
    NARROW_STATUS,
    bound_mark,
    fmt_iops,
    fmt_mib,
    fmt_ms,
    fmt_time,
    p99_cell,
    short_label,
)
from labtui.results.files import BrokenFile
from labtui.results.summaries import ResultSummary, StepSummary
from labtui.tui.columns import share_widths
from labtui.tui.styling import status_styles, theme_style
from labtui.widgets.row_table import GAP, Column, Row, RowTable

# (key, header, sort key). The sort keys put unknown values last whichever way the sort goes.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("mark", ""),
    ("date", "Date"),
    ("host", "Host"),
    ("disk", "Disk"),
    ("target", "Target"),
    ("profile", "Profile"),
    ("engine", "Engine"),
    ("tags", "Tags"),
    ("status", "Status"),
    # Where a verified run is listed: whether its data came back, a word (DATA_HELP; the detail says it in full).
    ("data", "Data"),
    # The figures are the first step's, said with its short label ("RND4K Q32T1 R"; every step's are
    # in the lines under the table): "102,432 / 32,899" left the reader to guess whose.
    ("step", "First step"),
    ("iops", "IOPS"),
    ("mib_s", "MiB/s"),
)
SORTABLE = tuple(key for key, _ in COLUMNS if key not in ("mark", "tags", "step", "data"))
SORT_NAMES = {"date": "date", "host": "host", "disk": "disk model", "target": "target", "profile": "profile",
              "engine": "engine", "status": "status", "iops": "IOPS (first step)", "mib_s": "MiB/s (first step)"}
SORT_KEYS: dict[str, Callable[[ResultSummary], tuple[Any, ...]]] = {
    "date": lambda s: (s.started, s.id),
    "host": lambda s: ((s.host or "").lower(), s.started),
    "disk": lambda s: (s.disk_name.lower(), s.started),
    "target": lambda s: (s.target, s.started),
    "profile": lambda s: (s.profile.lower(), s.started),
    "engine": lambda s: (s.engine, s.started),
    "status": lambda s: (s.status, s.started),
    "iops": lambda s: (_or_none(first_step(s).iops) if s.steps else -1.0, s.started),
    "mib_s": lambda s: (_or_none(first_step(s).mib_s) if s.steps else -1.0, s.started),
}
# Below this width the host and target columns give way (the detail line shows them). The engine
# stays where results ran on different engines: native, fio and DiskSpd runs of one profile are not
# the same measurement.
WIDE = 110
# What gives up width first: where and on what machine, the tags, then the disk's name, then the
# figures. Imported results are named after their file ("fio-3.43-clientserver-2clients-..."):
# long profile names give way early too.
SHRINK = ({"target": 12, "host": 8, "profile": 24, "tags": 8}, {"disk": 12, "target": 8, "host": 6, "profile": 16},
          {"disk": 10, "profile": 12, "tags": 5}, {"iops": 7, "mib_s": 7, "disk": 8}, {"profile": 8}, {"step": 8})
# The least each long column keeps while the others fit (SHRINK cuts further on a narrower terminal),
# and who gets room first where two would make as many cells whole: the disk and the profile are
# what a person tells runs apart by, then the figures.
LEAST = {"disk": 8, "target": 8, "host": 6, "profile": 8, "tags": 5, "step": 8, "iops": 7, "mib_s": 7}
ROOM_FIRST = ("disk", "profile", "iops", "mib_s", "step", "tags", "target", "host")
WEIGHT = {"disk": 3.0, "profile": 2.0, "tags": 2.0, "step": 2.0, "iops": 2.0, "mib_s": 2.0}
# Below this width dates are short too (this year's by day and time, older ones by day): room for the tags.
WIDE_DATE = 140
BROKEN_PREFIX = "broken:"


def first_step(s: ResultSummary) -> StepSummary:
    """The first step's figures as its profile makes them of its passes (a preparing one left out)."""
    return listed_steps(s)[0].figures


def _or_none(value: float | None) -> float:
    """A figure to sort by: a step with none (it failed before any I/O) sorts below every figure."""
    return -1.0 if value is None else value


def short_number(value: float) -> str:
    """3,000 -> '3.0k', 53,859 -> '54k', 187.5 -> '188': a figure for a narrow column."""
    if value >= 1e6:
        return f"{value / 1e6:.1f}M"
    if value >= 1e4:
        return f"{value / 1e3:.0f}k"
    if value >= 1e3:
        return f"{value / 1e3:.1f}k"
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def narrow_date(started: datetime, now: datetime | None = None) -> str:
    """This year's results by day and time; older ones by date with the year, so that a sorted
    column never shows December before June without saying why."""
    local = started.astimezone()
    if local.year == (now or datetime.now().astimezone()).year:
        return local.strftime("%m-%d %H:%M")
    return local.strftime("%Y-%m-%d")


def summary_cells(s: ResultSummary, marked: bool, baseline: bool, narrow: bool = False,
                  now: datetime | None = None, short_date: bool | None = None) -> dict[str, str]:
    iops, mib = (short_number, short_number) if narrow else (fmt_iops, fmt_mib)
    short_date = narrow if short_date is None else short_date
    steps = [listed.figures for listed in listed_steps(s)]  # each step once, not each of its passes
    first = steps[0] if steps else None
    mark = bound_mark(first.engine_bound) if first is not None else ""  # the CPUs' limit, not the disk's
    return {
        "mark": ("•" if marked else " ") + ("B" if baseline else ""),
        "date": narrow_date(s.started, now) if short_date else fmt_time(s.started),
        "host": s.host or "?",
        "disk": s.disk_name,
        "target": s.target,
        "profile": s.profile,
        "engine": s.engine,
        "tags": ", ".join(s.tags),
        "status": NARROW_STATUS.get(s.status, s.status) if narrow else s.status,
        "data": read_back_mark(s),
        "step": (short_label(first.label) if narrow else first.label) if first is not None else "",
        "iops": iops(first.iops) + mark if first is not None and first.kind == "io" and first.iops is not None else "-",
        "mib_s": mib(first.mib_s) + mark if first is not None and first.mib_s is not None else "-",
    }


# What History's CPU_MARK means, for ? (the line under the table says "(CPU-bound)" beside the step).
CPU_MARK_HELP = (f"A figure marked {CPU_MARK} is of a CPU-bound step: it measures the CPUs' (or the engine's) limit, "
                 "not the disk's; the line under the table says \"(CPU-bound)\" beside the step, and opening the "
                 "result (Enter) says why and what helps.")


# A verified run's Data cell: whether its data came back, in a word that fits the table at 80 columns
# as at 120 ("completed · data unchecked" beside the status widened it and pushed the figures): the
# words `labtui history` says ("data ok"), under the column's name. The detail under the table and the
# result say it in full, ? says what each word means.
DATA_OK, DATA_BAD, DATA_PART, DATA_UNCHECKED = (word.removeprefix("data ") for word in (
    verification.DATA_OK, verification.DATA_BAD, verification.DATA_PART, verification.DATA_UNCHECKED))
DATA_HELP = ("Data says whether a verified run's data came back: ok, every block of the test file read back as "
             "written; BAD, some blocks did not (open the result: it lists them); part, what was read came back, "
             "but the steps did not reach all of the file; unchecked, no block read had been written by the run's "
             "verified writes, so nothing was checked. The line under the table says it in full.")


def read_back_mark(s: ResultSummary) -> str:
    """'ok' (every block of the file came back), 'BAD' (some did not), 'part' (what was read came back,
    the steps did not reach all of the file), 'unchecked' (no block read had been written by the run's
    verified writes); '' for a run that verified nothing."""
    return "" if s.read_back is None else s.read_back.mark.removeprefix("data ")


def broken_cells(b: BrokenFile) -> dict[str, str]:
    return {"mark": " ", "date": "?", "host": "", "disk": b.reason, "target": b.path.name, "profile": "",
            "engine": "", "tags": "", "status": "broken", "data": "", "step": "", "iops": "", "mib_s": ""}


class ResultsTable(RowTable):
    help_scope = "results table"

    def update_mark(self, key: str, mark: str) -> None:
        """Redraw the row `key` with its `mark` cell (a mark or a baseline changed; the order has not)."""
        index = self.row_index(key)
        if index is None:
            return
        old = self.rows[index]
        texts = list(old.cells)
        keys = [c.key for c in self.columns]
        if "mark" in keys:
            texts[keys.index("mark")] = mark
        self.rows[index] = replace(old, cells=tuple(texts))
        self.refresh_row(key)

    def show_results(self, keys: list[str], cells: list[dict[str, str]], *, width: int, sort_column: str,
                     reverse: bool, marked: set[str], keep: str | None,
                     narrow_cells: Callable[[str], dict[str, str]]) -> None:
        """The rows `keys` with their `cells`, in the columns that tell them apart at `width`, sharing
        it; `narrow_cells(key)` says a result's figures as a narrow terminal does, where they must."""
        table = self
        wide = width >= WIDE
        # A column is there where it tells the rows apart: tags where any result has them and, at
        # 80 columns, the engine where the results ran on more than one (the detail line says it).
        tagged = any(c["tags"] for c in cells)
        verified = any(c["data"] for c in cells)  # the Data column, where a verified run is listed
        engines = len({c["engine"] for c in cells if c["engine"]}) > 1
        columns = [(k, "Step" if k == "step" and not wide else label) for k, label in COLUMNS
                   if (wide or k not in ("host", "target")) and (tagged or k != "tags") and (verified or k != "data")
                   and (wide or engines or k != "engine")]
        arrow = " ↓" if reverse else " ↑"
        columns = [(k, label + arrow if k == sort_column else label) for k, label in columns]
        # The table's width (the screen's: it has no border) less its vertical scrollbar (there as
        # soon as the rows outnumber the lines), and the figures' extra gap: a row never needs
        # scrolling sideways.
        figures = ("iops", "mib_s")
        available = width - table.styles.scrollbar_size_vertical - len(figures)
        # The first step's label is what its figures are read by: whole, before the other columns' room.
        least = dict(LEAST, step=max((len(c["step"]) for c in cells), default=LEAST["step"]))
        widths = share_widths(columns, cells, max(40, available), least, SHRINK, ROOM_FIRST, padding=GAP,
                              weight=WEIGHT)
        if wide and any(len(c[k]) > widths[k] for c in cells for k in figures if k in widths):
            # A figure cut short says nothing ("1,125.…" of "1,125.0 / 1,812.5"): the column's figures
            # are then said as at 80 columns ("1.1k/1.8k"), every row alike, and the room shared again.
            for key, c in zip(keys, cells, strict=True):
                if not key.startswith(BROKEN_PREFIX):
                    c.update({k: v for k, v in narrow_cells(key).items() if k in figures})
            widths = share_widths(columns, cells, max(40, available), least, SHRINK, ROOM_FIRST, padding=GAP,
                                  weight=WEIGHT)
        table.sorted_column = sort_column
        table.set_columns([Column(k, label, widths[k], "right" if k in figures else "left",
                                  GAP + 1 if k in figures else GAP) for k, label in columns])
        styles = row_styles(self.app)
        rows = []
        for key, row_cells in zip(keys, cells):
            texts = tuple(Text(row_cells[k], style=styles.get(row_cells[k], "")) if k in ("status", "data")
                          else row_cells[k] for k, _ in columns)
            rows.append(Row(key, texts, styles["muted"] if key.startswith(BROKEN_PREFIX) else None))
        table.marked = marked
        table.set_rows(rows, keep=keep)


def row_styles(app: App) -> dict[str, Style]:
    """A row's status cell by its status, a broken file's row ("muted"), and a verified run's mark, in the
    theme's colours."""
    themed = status_styles(app)
    return {
        "aborted": themed["aborted"],
        "failed": themed["failed"],  # a completed result is the usual case: left plain
        "broken": theme_style(app, "error", bold=True),
        "muted": theme_style(app, "foreground", dim=True),
        DATA_OK: theme_style(app, "success"),
        DATA_BAD: theme_style(app, "error", bold=True),
        DATA_PART: theme_style(app, "warning"),
        DATA_UNCHECKED: theme_style(app, "warning"),
    }


def step_line(step: StepSummary, how: str = "") -> str:
    """'Read 64K random: 53,859 IOPS · 3,366.2 MiB/s · 0.590 ms (p99 1.20)', with `how` its passes
    make it ('Read 64K random (best of 3): ...')."""
    name = f"{step.name} ({how})" if how else step.name
    if step.engine_bound:  # as the Result screen's table says it: the figures are not the disk's limit
        name += " (CPU-bound)"
    if step.kind != "io":
        wall = f"{step.wall_seconds:.1f} s" if step.wall_seconds is not None else "-"
        return f"{name}: {wall} wall · {fmt_mib(step.mib_s)} MiB/s disk"
    text = f"{name}: {fmt_iops(step.iops)} IOPS · {fmt_mib(step.mib_s)} MiB/s"
    if step.latency_mean_ms is not None:
        text += f" · {fmt_ms(step.latency_mean_ms)} ms (p99 {p99_cell(step.latency_p99_ms, step.read_p99_ms, step.write_p99_ms)})"
    if step.status != "completed":
        text += f" · {step.status}"
    return text
