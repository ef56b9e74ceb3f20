"""Numbers as people read them, and the rich tables the headless CLI prints.

Formatting lives here once so the CLI tables, exports and the TUI show the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group, RenderableType
from rich.style import StyleType
from rich.table import Table
from rich.text import Text

from labtui.analysis import bottleneck
from labtui.model.profile import Profile
from labtui.model.result import Precondition, RunResult, SteadyState, StepResult
from labtui.params import Param
from labtui.render.fitting import Either, Fitted
from labtui.render.words import Words
from labtui.units import format_duration, format_size, human_duration, human_size

if TYPE_CHECKING:
    from labtui.analysis.metrics import Metric


def fmt_iops(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def fmt_mib(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if value < 10_000 else f"{value:,.0f}"


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.2f}"
    if value >= 0.001 or value <= 0:
        return f"{value:.3f}"
    # Below a microsecond three decimals say 0.000: a latency above zero (the low end of a p99's
    # interval on a fast drive, 0.00019 - 0.032) keeps two significant figures, never reads as none.
    return f"{value:.{1 - math.floor(math.log10(value))}f}"


def fmt_pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def short_label(label: str) -> str:
    """A step's short label where a column is narrow: 'RND64K Q8T4 R' as 'RND64K R', the block size,
    pattern and direction its figures are read by."""
    words = label.split()
    return f"{words[0]} {words[-1]}" if len(words) > 2 else label


def fmt_time(moment: datetime) -> str:
    """A result's start as people compare runs: local time, to the minute."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


# Why a command step has no IOPS figure, said once wherever its row leaves the cell blank.
COMMAND_IOPS_NOTE = ("a command step has no IOPS: the disk's counters it is measured by count requests after the "
                     "kernel has merged them, of any size and from every process, so their rate is no IOPS to set "
                     "beside an I/O step's; its MiB/s is the disk's meanwhile")


def step_iops(step: StepResult) -> float | None:
    """A step's IOPS over both directions; None for a command step (COMMAND_IOPS_NOTE says why) and for
    a step that has no figures (it failed before any I/O)."""
    return step.total.iops if step.step.is_io and step.has_figures else None


def step_headline(step: StepResult) -> tuple[float | None, float | None]:
    """(IOPS, MiB/s) of a step over both directions (no IOPS for a command step; neither where the step
    has no figures)."""
    return step_iops(step), step.total.mib_s if step.has_figures else None


def profiles_table(profiles: Iterable[Profile]) -> Fitted:
    """The profiles, a row each; narrower than their names and figures need, the origin goes, then the title."""
    table = Table(box=box.SIMPLE_HEAD, title="Profiles", title_justify="left")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("title", overflow="fold")
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("file", justify="right", no_wrap=True)
    table.add_column("time", justify="right", no_wrap=True)
    table.add_column("origin", no_wrap=True)
    for p in profiles:
        # A command takes as long as it takes: its time is not known in advance.
        commands = any(not s.is_io for s in p.steps)
        time = "varies" if not p.needs_test_file else human_duration(p.planned_seconds) + ("+" if commands else "")
        table.add_row(
            p.name, Words(p.title), str(len(p.steps)), format_size(p.file_size) if p.needs_test_file else "none", time,
            p.origin,
        )
    return Fitted(table, optional=("origin", "title"))


def verdict_cell(state: SteadyState | None) -> str:
    """The steady column of a step table: "yes, 7 rounds" / "NO, 25 rounds" / "" for a timed step."""
    if state is None:
        return ""
    count = len(state.rounds)
    return f"{'yes' if state.attained else 'NO'}, {count} round{'s' if count != 1 else ''}"


def precondition_text(p: Precondition) -> str:
    """"2 sequential passes, 32 GiB written in 62.1 s (528 MiB/s, O_DIRECT; each pass 29.1 s, 33.0 s)"."""
    passes = ", ".join(f"{x:,.1f} s" for x in p.pass_seconds)
    how = ", O_DIRECT" if p.direct else ""
    return (f"{p.passes} sequential pass{'es' if p.passes != 1 else ''}, {human_size(p.bytes)} written in "
            f"{p.seconds:,.1f} s ({p.mib_s:,.0f} MiB/s{how}; each pass {passes})")


def steps_table(profile: Profile) -> Fitted:
    table = Table(box=box.SIMPLE_HEAD, title=f"{profile.name}: {profile.title}", title_justify="left")
    for name, justify in (
        ("#", "right"), ("step", "left"), ("block", "right"), ("pattern", "left"), ("W%", "right"),
        ("T", "right"), ("O", "right"), ("time", "right"), ("warm", "right"), ("cache", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=name != "step", overflow="fold")  # type: ignore[arg-type]
    table.caption = "W% write percent, T threads, O outstanding I/Os per thread"
    table.caption_justify = "left"  # several lines of it, each a sentence
    if profile.params:
        table.caption += "".join(f"\nparameter {{{p.name}}}: {param_text(p)}" for p in profile.params)
    for i, s in enumerate(profile.steps, 1):
        if s.kind == "command":
            # The command under the step's name, where it folds at its words: not under "cache".
            table.add_row(str(i), Words(Text.assemble(s.name, "\n", (s.command, "dim"))), "", "command", "", "", "",
                          f"<= {format_duration(s.timeout)}", "", "")
            continue
        time = format_duration(s.duration)
        if s.steady_state:
            time = f"{s.steady_max_rounds}x{time}"  # rounds of `duration`, at most this many
        table.add_row(
            str(i), Words(s.name), format_size(s.block_size), s.pattern, str(s.write_percent), str(s.threads),
            str(s.outstanding), time, format_duration(s.warmup), s.cache,
        )
    steady = sorted({(s.steady_state, s.steady_window) for s in profile.io_steps if s.steady_state})
    for rule, window in steady:
        table.caption += (f"\nsteady state {rule}: rounds of the step's time until the rule holds over the last "
                          f"{window}, at most the number shown")
    if profile.precondition:
        table.caption += (f"\npreconditioning: the test file written sequentially {profile.precondition} "
                          f"time{'s' if profile.precondition != 1 else ''} before the steps")
    table.caption += "".join(f"\n{line}" for line in repetition_lines(profile))
    # Narrower than every setting needs, the step's number and warm-up go first.
    return Fitted(table, optional=("#", "warm"))


def repetition_lines(profile: Profile) -> list[str]:
    """How a profile runs and reports its passes, where it differs from one plain pass per step: what
    makes a CrystalDiskMark preset one ("each step 3 times in a row ...; best of 3 ..."), the post's
    script's write-through and its pause before the 300 s runs."""
    lines = []
    if profile.repeat > 1 or profile.discard_first:
        order = (f"each step {profile.passes_per_step} times in a row" if profile.repeat_order == "step"
                 else f"the whole profile {profile.repeat} times over")
        lines.append(f"repetitions: {order}; each step's figure: {profile.aggregation_text()}")
    own = [(i, s.pause) for i, s in enumerate(profile.steps, 1) if s.pause is not None and s.pause != profile.pause]
    if profile.pause or own:
        said = [f"{format_duration(profile.pause)} before every pass but the first"] if profile.pause else []
        said += [f"step {i}: {format_duration(p)} before each of its passes" for i, p in own]
        lines.append("pauses: " + "; ".join(said))
    through = [str(i) for i, s in enumerate(profile.steps, 1) if s.is_io and s.write_through]
    if through:
        which = "every step" if len(through) == len(profile.io_steps) else f"step{'s' * (len(through) > 1)} " + (
            ", ".join(through))
        lines.append(f"write-through ({which}): writes wait for the media, not the drive's write cache "
                     "(DiskSpd -Sh, O_DSYNC, fio sync=dsync)")
    if profile.decimal_units:
        lines.append("figures also in MB/s (10^6 bytes per second), CrystalDiskMark's unit")
    return lines


def param_text(param: Param) -> str:
    """"file, required: the .zpaq archive to extract" — what a parameter wants."""
    need = "required" if param.required else f"default {param.default!r}"
    return f"{param.type}, {need}" + (f": {param.description}" if param.description else "")


def fmt_wall(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.2f} s" if seconds < 60 else f"{human_duration(seconds)} ({seconds:,.0f} s)"


def command_summary(s: StepResult) -> str:
    """One line for a command step: wall time, exit, what the disk did meanwhile."""
    exit_status = "" if s.exit_status is None else f", exit status {s.exit_status}"
    line = f"{s.name}: {fmt_wall(s.wall_seconds)} wall{exit_status}"
    if s.samples:
        line += (f"; disk read {human_size(s.read.bytes)}, wrote {human_size(s.write.bytes)} "
                 f"(mean {fmt_mib(s.total.mib_s)} MiB/s, peak {fmt_mib(s.peak_mib_s)} MiB/s)")
    if s.cpu_seconds is not None:
        line += f"; CPU time {s.cpu_seconds:,.1f} s"
    return line


def p99_text(s: StepResult) -> str:
    """A step's p99 latency; per direction where the step has none of its own."""
    return p99_cell(s.latency.p99, s.read_latency.p99, s.write_latency.p99)


def p99_cell(p99: float | None, read_p99: float | None, write_p99: float | None) -> str:
    """A p99 latency cell: the step's, or each direction's where it has none of its own.

    Two directions' percentiles do not combine into the step's (that needs their histograms,
    which a plain fio JSON report lacks); the step's p99 lies between them, so both are shown.
    """
    if p99 is not None or read_p99 is None or write_p99 is None:
        return fmt_ms(p99)
    return f"r {fmt_ms(read_p99)} / w {fmt_ms(write_p99)}"


def fmt_mb(value: float | None) -> str:
    """Bytes per second as MB/s (10^6), CrystalDiskMark's unit."""
    return "-" if value is None else fmt_mib(value / 1e6)


# Where the figures do not fit beside the step's name, these go first (the per-direction IOPS are in
# the statistics below; MB/s is MiB/s in other units).
STEPS_OPTIONAL = ("read / write IOPS", "MB/s")


def result_steps_table(result: RunResult) -> Fitted:
    """The per-step summary printed at the end of a run and by `labtui show`.

    With repetitions, each step's passes are listed together and followed by the step's figure
    as the profile aggregates them ("best of 3", "mean of 3"), which the caption explains; a
    profile with decimal_units adds MB/s (10^6 bytes), CrystalDiskMark's unit, beside MiB/s.
    """
    from labtui.analysis.metrics import CPU, IOPS, LATENCY_MEAN, LATENCY_P99, READ_P99, WRITE_P99, headline

    profile = result.profile
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("step", overflow="fold")
    mixed = any(s.read.ios and s.write.ios for s in result.steps if s.step.kind != "command")
    commands = any(s.step.kind == "command" for s in result.steps)
    ios = any(s.step.kind != "command" for s in result.steps)
    decimal = profile.decimal_units and ios
    names = ["IOPS", "MiB/s"] + (["MB/s"] if decimal else []) + (["read / write IOPS"] if mixed else [])
    names += (["mean ms", "p99 ms"] if ios else []) + (["wall", "peak MiB/s"] if commands else []) + ["machine CPU"]
    steady = any(s.steady_state is not None for s in result.steps)
    names += ["steady"] if steady else []
    for name in names:
        # Figures are never broken; the pair of directions only between its two.
        table.add_column(name, justify="right", no_wrap=name != "read / write IOPS")
    show_rep = profile.repeat > 1 or any(s.repetition > 1 for s in result.steps)
    groups: dict[tuple, list[StepResult]] = {}
    for s in result.steps:
        groups.setdefault((s.name, s.step.workload_key()), []).append(s)
    aggregated = False
    for members in groups.values():
        for s in members:
            iops, mib = step_headline(s)
            name = f"{s.name} #{s.repetition}" if show_rep else s.name
            if s.status != "completed":
                name += f" ({s.status})"
            if s.engine_bound:
                name += " (CPU-bound)"
            row: list[str | Text | Words | Either] = [Words(name), fmt_iops(iops) if s.step.is_io else "",
                                                      fmt_mib(mib)]
            if decimal:
                row.append(fmt_mb(s.total.bytes_per_second) if s.step.kind != "command" else "")
            if mixed:
                read, write = (fmt_iops(s.read.iops), fmt_iops(s.write.iops)) if s.has_figures else ("-", "-")
                row.append(Either(f"{read} / {write}", f"{read} /\n{write}") if s.step.kind != "command" else "")
            if ios:
                row += ["", ""] if s.step.kind == "command" else [fmt_ms(s.latency.mean), p99_text(s)]
            if commands:
                row += [fmt_wall(s.wall_seconds), fmt_mib(s.peak_mib_s)] if s.step.kind == "command" else ["", ""]
            row.append(fmt_pct(s.cpu_percent))
            if steady:
                row.append(verdict_cell(s.steady_state))
            table.add_row(*row, end_section=show_rep and s is members[-1] and len(members) == 1)
        done = [s for s in members if s.status == "completed"]
        if len(done) < 2 or not done[0].step.is_io:
            continue
        aggregated = True

        def figure(metric: Metric, done: list[StepResult] = done) -> float | None:
            values = [v for v in (metric.value(s) for s in done) if v is not None]
            return headline(metric, values, profile.aggregate) if values else None

        best = profile.aggregate == "best"
        mib = max(s.total.mib_s for s in done) if best else sum(s.total.mib_s for s in done) / len(done)
        word = "best" if best else "mean"
        row = [Words(Text(f"{done[0].name}: {word} of {len(done)}", style="bold")), fmt_iops(figure(IOPS)), fmt_mib(mib)]
        if decimal:
            row.append(fmt_mib(mib * 1024 * 1024 / 1e6))
        if mixed:
            row.append("")
        row += [fmt_ms(figure(LATENCY_MEAN)), p99_cell(figure(LATENCY_P99), figure(READ_P99), figure(WRITE_P99))]
        if commands:
            row += ["", ""]
        row.append(fmt_pct(figure(CPU)))
        if steady:
            row.append("")
        table.add_row(*row, style="bold", end_section=True)
    # An I/O step that did not finish: how far it got (its figures are of that part only), said under
    # its figures. A command step's error `show` prints under the step's own line.
    stopped = [f"{s.name}{f' #{s.repetition}' if show_rep else ''} ({s.status}): {s.error}"
               for s in result.steps if s.status != "completed" and s.error and s.step.kind != "command"]
    if stopped:
        table.caption = "\n".join(stopped)
        table.caption_justify = "left"
    if aggregated:
        table.caption = (table.caption + "\n" if table.caption else "") + (
            f"each step's figure: {profile.aggregation_text()}")
        if profile.aggregate == "best":
            table.caption += ", each figure on its own, as CrystalDiskMark reports"
        table.caption_justify = "left"
    if decimal:
        table.caption = (table.caption + "; " if table.caption else "") + "MB/s: 10^6 bytes per second, MiB/s: 2^20"
        table.caption_justify = "left"
    if commands:
        table.caption = (table.caption + "\n" if table.caption else "") + COMMAND_IOPS_NOTE
        table.caption_justify = "left"
    return Fitted(table, optional=STEPS_OPTIONAL)


LATENCY_COLUMNS = (("min", "min"), ("mean", "mean"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"),
                   ("p99", "p99"), ("p999", "p99.9"), ("p9999", "p99.99"), ("max", "max"))


# Too narrow for every percentile whole, the middle ones go first: the tail is what a person reads.
LATENCY_OPTIONAL = ("p95", "p90", "p50", "min")


def latency_table(steps: Iterable[StepResult], *, names: bool | Sequence[str] = True) -> Fitted:
    """Latency percentiles in ms, a row per step and direction that measured them; each row named by its
    step, by the name given for its step in `names` (a step's passes: "#1", "#2"), or by its direction alone."""
    steps = list(steps)
    given = [s.name for s in steps] if names is True else list(names) if names else None
    table = Table(box=box.SIMPLE_HEAD, title="Latency (ms)", title_justify="left")
    table.add_column("step" if given else "")
    for _key, label in LATENCY_COLUMNS:
        table.add_column(label, justify="right")
    notes: dict[str, None] = {}
    for i, s in enumerate(steps):
        for label, summary in (("read", s.read_latency), ("write", s.write_latency)):
            if not summary.measured:
                continue
            values = [getattr(summary, key) for key, _label in LATENCY_COLUMNS]
            # In a row that was measured a missing figure has a reason, said under the table: a bare
            # "-" there reads as a figure lost.
            missing = [label for (_key, label), v in zip(LATENCY_COLUMNS, values, strict=True) if v is None]
            if missing:
                notes[unmeasured_note(s, missing)] = None
            table.add_row(f"{given[i]} {label}" if given else label,
                          *(fmt_ms(v) if v is not None else NOT_MEASURED for v in values))
    if notes:
        table.caption = "\n".join(notes)
        table.caption_justify = "left"
    return Fitted(table, optional=LATENCY_OPTIONAL)


NOT_MEASURED = "n/a"


def unmeasured_note(s: StepResult, missing: Sequence[str]) -> str:
    """Why a measured latency row lacks `missing` ("min", "max"): "n/a: not measured: ..."."""
    what = " or ".join(missing) if len(missing) == 2 else ", ".join(missing)
    if s.status == "aborted":
        why = f"{s.name} was stopped part-way (aborted), and its engine kept no {what} of the part it measured"
    elif s.steady_state is not None:
        why = f"{s.name} reports its steady-state window, and no {what} is kept per round"
    elif s.status == "failed":
        why = f"{s.name} failed, and its engine kept no {what} of what it measured"
    else:
        why = f"{s.name}'s result holds no {what}"
    return f"{NOT_MEASURED}: not measured: {why}"


# The terminal's colours for a status; the TUI passes its theme's instead.
STATUS_STYLES: Mapping[str, StyleType] = {"completed": "green", "aborted": "yellow", "failed": "red"}
# In a listing 80 columns wide "completed", the usual status, is said in fewer letters.
NARROW_STATUS = {"completed": "done"}


def _test_file_text(result: RunResult) -> str:
    """"1 GiB, written in 2.1 s (487 MiB/s)"."""
    if not result.profile.needs_test_file:
        return "none (command steps only)"
    if not result.profile.file_size:  # an import whose report gives none (fio on a whole device): not 0 bytes
        return "unknown: the report does not say its size"
    t = result.target
    if t.device and t.path == t.device:  # a raw block device: the run used the device's first file_size bytes
        used = min(result.profile.file_size, t.size_bytes or result.profile.file_size)
        return f"none: the device itself, its first {format_size(used)}"
    text = format_size(result.profile.file_size)
    p = result.preparation
    if p is not None and p.seconds > 0:
        text += f", written in {p.seconds:,.1f} s ({fmt_mib(p.mib_s)} MiB/s{', O_DIRECT' if p.direct else ''})"
    return text


def context_table(result: RunResult, status_styles: Mapping[str, StyleType] = STATUS_STYLES) -> Fitted:
    """What was measured where: the result's facts, a line each. A value folds at its words, and a path
    longer than the line at its slashes: never cut short, it can be copied whole."""
    t = result.target
    h = result.host
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    rows: list[tuple[str, RenderableType]] = [
        ("id", result.id),
        ("status", _status_text(result, status_styles)),
        ("started", result.started.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")),
        ("duration", human_duration(result.seconds)),
        ("profile", f"{result.profile.name} ({result.profile.title})"),
        *([("description", result.profile.description)] if result.profile.description else []),
        ("engine", " ".join(x for x in (result.engine.name, result.engine.version) if x)),
        ("host", f"{h.name or 'unknown'}, {h.os or 'unknown OS'}, kernel {h.kernel or 'unknown'}"),
        ("cpu / ram", f"{h.cpu_model or 'unknown'} x{h.cpu_count or '?'}, {human_size(h.ram_bytes)}"),
        ("target", t.path),
        ("disk", f"{t.model or 'unknown model'} ({t.kind or 'unknown kind'}, {t.device or 'unknown device'})"),
        ("firmware / serial", f"{t.firmware or 'unknown'} / {t.serial or 'unknown'}"),
        ("PCIe link", t.pcie_link or "unknown"),
        ("file system", f"{t.filesystem or 'unknown'} on {t.mount_point or 'unknown'}"),
        ("test file", _test_file_text(result)),
    ]
    if result.precondition is not None:
        rows.append(("preconditioning", precondition_text(result.precondition)))
    rows += [(f"parameter {name}", value) for name, value in result.params.items()]
    if result.source == "import":
        rows.append(("imported from", result.source_file or "unknown file"))
    if result.tags:
        rows.append(("tags", ", ".join(result.tags)))
    for key, value in rows:
        table.add_row(key, Words(value) if isinstance(value, str | Text) else value)
    return Fitted(table)


def shown_warnings(result: RunResult) -> list[str]:
    """`result`'s warnings as a screen or `show` says them: the CPU-bound warnings of steps that share
    the same advice said once, where the first of them was ("steps 'A' and 'B' are CPU-bound: ...;
    <advice>"); with two steps one warning each took 8 lines at 80x24 and gave the same advice twice.
    The result file keeps each warning as the run gave it."""
    from labtui.analysis.causes import listed
    from labtui.engine import cpubound
    from labtui.model.result import step_pass

    bound: dict[str, tuple[str, str, str]] = {}  # a step's warning: (its pass's name, reason, advice)
    for s in result.steps:
        if s.engine_bound:
            cached = s.step.is_io and s.step.cache == "on"
            said = cpubound.warning(s.name, s.repetition, s.engine_bound, result.engine.name, cached)
            bound[said] = (step_pass(s.name, s.repetition), s.engine_bound,
                           cpubound.advice(s.engine_bound, result.engine.name, cached))
    groups: dict[str, list[tuple[str, str]]] = {}  # by advice: each step's (name, reason), in order
    for w in result.warnings:
        if w in bound:
            name, reason, advice = bound[w]
            groups.setdefault(advice, []).append((name, reason))
    shown: list[str] = []
    for w in result.warnings:
        if w not in bound:
            shown.append(w)
            continue
        advice = bound[w][2]
        group = groups.pop(advice, None)
        if group is None:
            continue  # said with the first step of its group
        if len(group) == 1:
            shown.append(w)
            continue
        names = [name for name, _ in group]
        reasons = list(dict.fromkeys(reason for _, reason in group))
        why = reasons[0] if len(reasons) == 1 else "; ".join(f"{name}: {reason}" for name, reason in group)
        shown.append(f"steps {listed(names)} are CPU-bound: {why}; {advice}")
    return shown


# Beside a figure of a step that was CPU-bound in a listing (History's "20k*", `labtui history`): it is
# the CPUs' (or the engine's) limit, not the disk's, as "(CPU-bound)" says it beside a step's name.
CPU_MARK = "*"


def bound_mark(engine_bound: str | None) -> str:
    """CPU_MARK where a step was CPU-bound (its `engine_bound` reason), else nothing."""
    return CPU_MARK if engine_bound else ""


def bottleneck_renderable(result: RunResult, *, every: bool = True, warning: StyleType = "yellow") -> Group | None:
    """The link and its ceiling, then where each step's limit was. With `every` false (a run's summary)
    only the steps the link, the CPU or a cache limited, and the link only if one did or it runs below
    the drive's best; None when that leaves nothing to say."""
    found = bottleneck.analyse(result)
    shown = [s for s in found.steps if every or s.verdict not in (bottleneck.NOT_LINK, bottleneck.UNKNOWN)]
    downgraded = found.link is not None and found.link.downgraded
    if not every and not shown and not downgraded:
        return None
    if found.link is None:
        lines = [Text(found.headline, style="dim")]
    else:
        lines = [Text.assemble(("link: ", "bold"), (found.headline, warning if downgraded else ""))]
    for s in shown:
        style = warning if s.verdict in (bottleneck.LINK, bottleneck.OVER, bottleneck.CPU) else ""
        # A run's summary says why a step was CPU-bound in its warning just above: here, whose limit it was.
        text = s.short if not every and s.verdict == bottleneck.CPU else s.text
        lines.append(Text.assemble(f"  {s.name}: ", (text, style)))
    return Group(*lines)


def _status_text(result: RunResult, styles: Mapping[str, StyleType]) -> Text:
    style = styles.get(result.status, "")
    text = Text(result.status, style=style)
    if result.error:
        text.append(f": {result.error}")
    return text
