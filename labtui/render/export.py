"""Results as flat rows for spreadsheets, scripts and posts: one row per step with its context.

CSV is written for spreadsheets: a header row, comma separators, RFC 4180 quoting, plain
numbers (no thousands separators, no units: the units are in the column names), UTC times a
spreadsheet reads as dates, and text that would start a formula (=, +, -, @) prefixed with an
apostrophe. Floats keep every digit, so the CSV and the JSON hold the same numbers.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC
from typing import TYPE_CHECKING, Any

from labtui.model.result import RunResult, StepResult
from labtui.render import markdown
from labtui.render.export_formats import FORMATS
from labtui.results.files import json_safe

if TYPE_CHECKING:
    from labtui.analysis.metrics import Metric

Getter = Callable[[RunResult, StepResult], Any]


def _io(get: Callable[[StepResult], Any]) -> Getter:
    # I/O figures mean nothing for a command step: leave the cell empty rather than print zeros.
    return lambda r, s: get(s) if s.step.is_io else None


def _counted(get: Callable[[StepResult], Any]) -> Getter:
    # A command step has counts only where the disk's counters were sampled over its wall time.
    return lambda r, s: get(s) if s.step.is_io or s.total.seconds > 0 else None


def _rate(get: Callable[[StepResult], Any]) -> Callable[[StepResult], Any]:
    return lambda s: get(s) if s.has_figures else None


def _steady(get: Callable[[Any], Any]) -> Getter:
    return lambda r, s: get(s.steady_state) if s.steady_state is not None else None


def _latency(name: str) -> Getter:
    return _io(lambda s: getattr(s.latency, name))


COLUMNS: tuple[tuple[str, Getter], ...] = (
    ("result_id", lambda r, s: r.id),
    ("started_utc", lambda r, s: r.started.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")),
    ("status", lambda r, s: r.status),
    ("source", lambda r, s: r.source),
    ("host", lambda r, s: r.host.name),
    # The disk as every screen and line names it: its model, else its device ("loop0", "vda (virtual)").
    ("disk", lambda r, s: r.target.disk_name),
    ("disk_model", lambda r, s: r.target.model),
    ("disk_kind", lambda r, s: r.target.kind),
    ("disk_serial", lambda r, s: r.target.serial),
    ("firmware", lambda r, s: r.target.firmware),
    ("transport", lambda r, s: r.target.transport),
    ("pcie_link", lambda r, s: r.target.pcie_link),
    ("filesystem", lambda r, s: r.target.filesystem),
    ("target", lambda r, s: r.target.path),
    ("engine", lambda r, s: r.engine.name),
    ("engine_version", lambda r, s: r.engine.version),
    ("profile", lambda r, s: r.profile.name),
    # Empty where there is no test file (command steps only) or its size is unknown (an import stores 0).
    ("file_size_bytes", lambda r, s: r.profile.file_size if r.profile.needs_test_file and r.profile.file_size else None),
    ("tags", lambda r, s: ";".join(r.tags)),
    ("step", lambda r, s: s.name),
    ("label", lambda r, s: s.step.label()),
    ("repetition", lambda r, s: s.repetition),
    # How the profile makes a step's figure of these rows ("best of 3 (max throughput, ...)").
    ("aggregate", lambda r, s: r.profile.aggregation_text(_repetitions(r))),
    ("step_status", lambda r, s: s.status),
    ("kind", lambda r, s: s.step.kind),
    ("block_size_bytes", _io(lambda s: s.step.block_size)),
    ("pattern", _io(lambda s: s.step.pattern)),
    ("write_percent", _io(lambda s: s.step.write_percent)),
    ("threads", _io(lambda s: s.step.threads)),
    ("outstanding", _io(lambda s: s.step.outstanding)),
    ("cache", _io(lambda s: s.step.cache)),
    ("write_through", _io(lambda s: s.step.write_through)),
    ("duration_seconds", _io(lambda s: s.step.duration)),
    # For a command step the counts are the target disk's kernel counters over its wall time
    # (every I/O on that disk, not only the command's), so they are exported too; their rate is no
    # IOPS (result_tables.COMMAND_IOPS_NOTE), so those cells are empty.
    ("measured_seconds", _counted(lambda s: s.total.seconds)),
    ("read_ios", _counted(lambda s: s.read.ios)),
    ("read_bytes", _counted(lambda s: s.read.bytes)),
    ("write_ios", _counted(lambda s: s.write.ios)),
    ("write_bytes", _counted(lambda s: s.write.bytes)),
    # The rates of a step that failed before any I/O are empty, not 0.0 (StepResult.has_figures).
    ("iops", _io(_rate(lambda s: s.total.iops))),
    ("mib_s", _counted(_rate(lambda s: s.total.mib_s))),
    ("mb_s", _counted(_rate(lambda s: s.total.bytes_per_second / 1e6))),
    ("read_iops", _io(_rate(lambda s: s.read.iops))),
    ("read_mib_s", _counted(_rate(lambda s: s.read.mib_s))),
    ("write_iops", _io(_rate(lambda s: s.write.iops))),
    ("write_mib_s", _counted(_rate(lambda s: s.write.mib_s))),
    ("peak_mib_s", lambda r, s: s.peak_mib_s),
    ("latency_mean_ms", _latency("mean")),
    ("latency_min_ms", _latency("min")),
    ("latency_p50_ms", _latency("p50")),
    ("latency_p90_ms", _latency("p90")),
    ("latency_p95_ms", _latency("p95")),
    ("latency_p99_ms", _latency("p99")),
    ("latency_p999_ms", _latency("p999")),
    ("latency_p9999_ms", _latency("p9999")),
    ("latency_max_ms", _latency("max")),
    ("cpu_percent", lambda r, s: s.cpu_percent),
    ("cpu_seconds", lambda r, s: s.cpu_seconds),
    ("wall_seconds", lambda r, s: s.wall_seconds),
    ("exit_status", lambda r, s: s.exit_status),
    ("params", lambda r, s: ";".join(f"{k}={v}" for k, v in sorted(r.params.items())) or None),
    ("error", lambda r, s: s.error),
    # Preconditioning and steady state (empty where the run had none): the rule, whether it held,
    # after how many rounds, the window's mean, each criterion's value, every round's figure.
    ("precondition_passes", lambda r, s: r.precondition.passes if r.precondition is not None else None),
    ("precondition_seconds", lambda r, s: r.precondition.seconds if r.precondition is not None else None),
    ("steady_rule", _steady(lambda st: st.rule)),
    ("steady_figure", _steady(lambda st: st.figure)),
    ("steady_attained", _steady(lambda st: st.attained)),
    ("steady_rounds", _steady(lambda st: len(st.rounds))),
    ("steady_round_seconds", _steady(lambda st: st.round_seconds)),
    ("steady_window_start", _steady(lambda st: st.window_start)),
    ("steady_window_mean", _steady(lambda st: st.mean)),
    ("steady_criteria", _steady(lambda st: ";".join(
        f"{c.name}={c.value!r}{'%' if c.percent else ''}<{'=' if c.name in ('range', 'excursion') else ''}"
        f"{c.limit!r}:{'held' if c.held else 'not held'}" for c in st.criteria) or None)),
    ("steady_round_figures", _steady(lambda st: ";".join(repr(v) for v in st.rounds) or None)),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)


def _repetitions(result: RunResult) -> int:
    return max((s.repetition for s in result.steps), default=1)

def rows(results: Iterable[RunResult]) -> list[dict[str, Any]]:
    """One dict per step (and repetition) of every result, keyed by COLUMN_NAMES."""
    out = []
    for result in results:
        for step in result.steps:
            out.append({name: json_safe(get(result, step)) for name, get in COLUMNS})
    return out


def to_json(results: Sequence[RunResult]) -> dict[str, Any]:
    return {"columns": list(COLUMN_NAMES), "rows": rows(results)}


def to_csv(results: Sequence[RunResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)  # excel dialect: commas, \r\n, quotes where needed
    writer.writerow(COLUMN_NAMES)
    for row in rows(results):
        writer.writerow([_csv_cell(row[name]) for name in COLUMN_NAMES])
    return buffer.getvalue()


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as exactly this float
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + text  # a spreadsheet would run it as a formula
    return text


def to_markdown(results: Sequence[RunResult]) -> str:
    from labtui.render.result_tables import COMMAND_IOPS_NOTE, fmt_iops, fmt_mib, fmt_ms, fmt_pct

    headers = ["Result", "Date (UTC)", "Disk", "File system", "Engine", "Profile", "Step", "Rep",
               "IOPS", "MiB/s", "Mean ms", "p99 ms", "CPU", "Wall s"]
    align = [markdown.LEFT] * 8 + [markdown.RIGHT] * 6
    found = rows(results)
    steady = any(row["steady_rule"] for row in found)
    if steady:
        headers.append("Steady state")
        align.append(markdown.LEFT)
    table = []
    for row in found:
        table.append([
            row["result_id"], row["started_utc"], row["disk"], row["filesystem"] or "unknown",
            " ".join(x for x in (row["engine"], row["engine_version"]) if x), row["profile"],
            f"{row['step']} ({row['label']})", row["repetition"],
            fmt_iops(row["iops"]) if row["kind"] != "command" else "", fmt_mib(row["mib_s"]), fmt_ms(row["latency_mean_ms"]),
            fmt_ms(row["latency_p99_ms"]), fmt_pct(row["cpu_percent"]),
            f"{row['wall_seconds']:.2f}" if row["wall_seconds"] is not None else "-",
        ])
        if steady:
            rounds = row["steady_rounds"]
            table[-1].append("" if not row["steady_rule"] else
                             f"{'steady' if row['steady_attained'] else 'not steady'} after {rounds} rounds "
                             f"({row['steady_rule']})")
    notes = [f"- IOPS: {COMMAND_IOPS_NOTE}"] if any(row["kind"] == "command" for row in found) else []
    for result in results:
        n = _repetitions(result)
        if n > 1 or result.profile.discard_first:
            notes.append(f"- {result.id} ({result.profile.name}): a row per repetition; the profile's figure of "
                         f"them is the {result.profile.aggregation_text(n)}")
    return markdown.table(headers, table, align) + ("\n" + "\n".join(notes) + "\n" if notes else "")


# The columns of Test-ConfigMgrWorkload.ps1's CSV (the seed post's script), in its order.
CONFIGMGR_COLUMNS = ("ComputerName", "Test", "Disk", "IOPS", "Mbps", "Latency", "CPU")
# What --with-ids adds after them, where the rows of several results of one disk would mix.
ID_COLUMNS = ("ResultId", "Date")


def configmgr_rows(results: Iterable[RunResult], *, with_ids: bool = False) -> list[dict[str, str]]:
    """One row per I/O step of every result, as the post's script writes them from DiskSpd's text.

    Test is the script's name for it ("Read Test 01", "Write Test 02": numbered per direction in
    each result), Disk the volume (its mount point, as the script's drive letter), IOPS and Mbps
    DiskSpd's "I/O per s" and "MiB/s" (so Mbps is MiB/s, 2^20 bytes), Latency the mean in ms and
    CPU the machine's average use, formatted as DiskSpd prints them. A step run several times
    gives its figure as the profile aggregates it (best or mean of the completed repetitions).
    `with_ids` adds the result's id and its start (local time) after the script's columns.
    """
    from labtui.analysis.metrics import CPU, IOPS, LATENCY_MEAN, MIB_S, headline

    out = []
    for result in results:
        disk = result.target.mount_point or result.target.path
        counts: dict[str, int] = {}
        groups: dict[tuple, list[StepResult]] = {}
        for s in result.steps:
            if s.step.is_io and s.status == "completed":
                groups.setdefault((s.name, s.step.workload_key()), []).append(s)
        for members in groups.values():
            step = members[0].step
            kind = {0: "Read", 100: "Write"}.get(step.write_percent, "Mixed")
            counts[kind] = counts.get(kind, 0) + 1

            def figure(metric: Metric, members: list[StepResult] = members,
                       aggregate: str = result.profile.aggregate) -> float | None:
                values = [v for v in (metric.value(m) for m in members) if v is not None and math.isfinite(v)]
                return headline(metric, values, aggregate) if values else None

            latency, cpu = figure(LATENCY_MEAN), figure(CPU)
            out.append({
                "ComputerName": result.host.name or "",
                "Test": f"{kind} Test {counts[kind]:02d}",
                "Disk": disk,
                "IOPS": f"{figure(IOPS):.2f}",
                "Mbps": f"{figure(MIB_S):.2f}",
                "Latency": f"{latency:.3f}" if latency is not None else "",
                "CPU": f"{cpu:.2f}%" if cpu is not None else "",
                **({"ResultId": result.id, "Date": result.started.astimezone().strftime("%Y-%m-%d %H:%M:%S")}
                   if with_ids else {}),
            })
    return out


def configmgr_mixed(results: Iterable[RunResult]) -> list[tuple[str, str, list[RunResult]]]:
    """Where the script's columns cannot tell results apart: (computer, disk, the results) for each
    computer and disk that two or more of `results` have rows for ("Read Test 01" twice, no more)."""
    groups: dict[tuple[str, str], list[RunResult]] = {}
    for result in results:
        rows = configmgr_rows([result])
        if rows:
            groups.setdefault((rows[0]["ComputerName"], rows[0]["Disk"]), []).append(result)
    return [(computer, disk, found) for (computer, disk), found in groups.items() if len(found) > 1]


def mixed_text(mixed: list[tuple[str, str, list[RunResult]]]) -> str:
    """'the rows of 3 results of lab-07's /data would mix', for each computer and disk."""
    return "; ".join(f"the rows of {len(found)} results of {computer or 'an unnamed host'}'s {disk} would mix"
                     for computer, disk, found in mixed)


def configmgr_omissions(results: Iterable[RunResult]) -> list[tuple[RunResult, str, bool]]:
    """What the ConfigMgr CSV leaves out of `results` (it has rows for completed I/O steps only):
    (the result, a line saying so, whether the whole result is left out), in their order."""
    out = []
    for result in results:
        rows = len(configmgr_rows([result]))
        status = "" if result.status == "completed" else f" ({result.status})"
        if rows == 0:
            why = ("none of its I/O steps completed" if any(s.step.is_io for s in result.steps)
                   or any(s.is_io for s in result.profile.steps) else "it has no I/O step")
            out.append((result, f"{result.id}{status} is left out of the ConfigMgr CSV: {why}", True))
        elif result.status != "completed":
            out.append((result, f"{result.id}{status}: only its {rows} completed I/O step{'s' if rows != 1 else ''} "
                                "are in the ConfigMgr CSV", False))
    return out


def configmgr_summary(results: Iterable[RunResult]) -> str | None:
    """One line on what the ConfigMgr CSV leaves out of `results` where they were not named one by
    one (all results, or those marked in History), or None where it leaves nothing out."""
    left_out = partly = no_io = 0
    for result, _line, whole in configmgr_omissions(results):
        if not whole:
            partly += 1
        elif result.status == "completed":
            no_io += 1
        else:
            left_out += 1
    if not (left_out or partly or no_io):
        return None

    def count(n: int, what: str) -> str:
        return f"{n} {what}{'s' if n != 1 else ''}"

    parts = []
    if left_out:
        parts.append(f"{count(left_out, 'failed or aborted result')} {'is' if left_out == 1 else 'are'} left out "
                     "of the ConfigMgr CSV")
    if no_io:
        parts.append(f"{count(no_io, 'result')} with no I/O step {'is' if no_io == 1 else 'are'} left out "
                     "of the ConfigMgr CSV")
    if partly:
        parts.append(f"{count(partly, 'failed or aborted result')} {'has only its' if partly == 1 else 'have only their'}"
                     " completed I/O steps in the ConfigMgr CSV")
    return "; ".join(parts)


def to_configmgr_csv(results: Sequence[RunResult], *, with_ids: bool = False) -> str:
    """The script's CSV: PowerShell's Export-Csv -NoTypeInformation quotes every field, CRLF lines."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CONFIGMGR_COLUMNS + (ID_COLUMNS if with_ids else ()), quoting=csv.QUOTE_ALL)
    writer.writeheader()
    for row in configmgr_rows(results, with_ids=with_ids):
        writer.writerow({k: _formula_safe(v) for k, v in row.items()})
    return buffer.getvalue()


def _formula_safe(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


# The writer of each format of labtui.render.export_formats (the names, labels and file endings).
WRITERS: dict[str, Callable[[Sequence[RunResult]], str]] = {
    "csv": to_csv,
    "markdown": to_markdown,
    "json": lambda results: json.dumps(to_json(results), indent=2, allow_nan=False) + "\n",
    "configmgr-csv": to_configmgr_csv,
}
assert WRITERS.keys() == FORMATS.keys(), "every export format has a writer, and only those"


def render(results: Sequence[RunResult], fmt: str) -> str:
    write = WRITERS.get(fmt)
    if write is None:
        raise ValueError(f"unknown export format {fmt!r}")
    return write(results)
