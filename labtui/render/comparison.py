"""Comparisons and checks as people read them: rich tables for the terminal, Markdown for posts and tickets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.style import Style, StyleType
from rich.table import Table
from rich.text import Text

from labtui.analysis.answer import (
    CANNOT_TELL,
    CHECK_NAMES,
    FAILED_ANSWER,
    FASTER,
    MIXED,
    PASSED as PASSED_ANSWER,
    SLOWER,
    Answer,
    comparison_answers,
    warnings_under,
)
from labtui.analysis.causes import cpu_bound_verdicts
from labtui.analysis.checks import DOUBT, FAIL, FAILED, INCONCLUSIVE, INFO, NOISY, PASS, PASSED, CheckLine, CheckReport
from labtui.analysis.comparison import Comparison, StepGroup
from labtui.analysis.figures import BETTER, CONTEXT, WORSE, Delta, Figure, fmt_p
from labtui.analysis.metrics import Metric, primary
from labtui.render import markdown
from labtui.render.fitting import Either, Fitted
from labtui.render.result_tables import fmt_iops, fmt_mib, fmt_ms
from labtui.render.words import Words


@dataclass(frozen=True)
class VerdictColours:
    """The colours of a comparison: plain terminal colours for the CLI, the theme's in the TUI."""

    better: StyleType = "green"
    worse: StyleType = "red"
    warning: StyleType = "yellow"

    def verdict(self, verdict: str) -> StyleType:
        return {BETTER: self.better, WORSE: self.worse}.get(verdict, "dim")


TERMINAL = VerdictColours()
ARROW = {"higher": "↑", "lower": "↓"}  # which way is better


def fmt_value(metric: Metric, value: float | None) -> str:
    if value is None:
        return "-"
    if metric.unit == "IOPS":
        return fmt_iops(value)
    if metric.unit in ("MiB/s", "MB/s"):
        return fmt_mib(value)
    if metric.unit == "ms":
        return fmt_ms(value)
    if metric.unit == "%":
        return f"{value:.1f} %"
    return f"{value:,.2f} {metric.unit}"


def metric_cell(metric: Metric) -> str:
    """A metric in a table's metric column: its name and which way is better ("IOPS ↑"); a context figure
    ("machine CPU") has no better way: it is never judged."""
    name = metric_name(metric)
    return name if metric.context else f"{name} {ARROW[metric.better]}"


def bare_unit(metric: Metric) -> str | None:
    """The unit `fmt_value` leaves out of the figures (latency's ms), which the metric's name must say."""
    return metric.unit if metric.unit == "ms" else None


def metric_name(metric: Metric) -> str:
    """A metric as a terminal table names it: 'IOPS', 'CPU', and for latency its unit in place of the
    word ('mean ms', 'p99 ms', as the result view's columns say), which keeps 80 columns enough."""
    unit = bare_unit(metric)
    return f"{metric.label.removesuffix(' latency')} {unit}" if unit else metric.label


def fmt_figure(metric: Metric, figure: Figure | None) -> str:
    """The value, with how far its 95 % interval reaches, in percent, where it is known (fmt_margin)."""
    if figure is None:
        return "-"
    margin = fmt_margin(figure)
    return fmt_value(metric, figure.value) + (f" {margin}" if margin else "")


def fmt_margin(figure: Figure | None) -> str:
    """Where the 95 % interval of the mean reaches, relative to the mean: "±x %" where it reaches as far
    each way, "+x/-y %" where it does not ("" for a single run); for a best-of figure, what it is ("best
    of 3"): an interval of the mean is not one of the best.

    A rate's or a time's interval is wider above than below (Figure.interval, the log scale): half its
    width as "±139.1 %" said the p99 of three runs could be below zero, which its interval never is."""
    if figure is None:
        return ""
    if figure.best:
        return f"({figure.aggregation})"
    interval = figure.interval()
    if interval is None or not figure.mean:
        return ""
    mean = abs(figure.mean)
    up, down = max(0.0, (interval[1] - figure.mean) / mean * 100), max(0.0, (figure.mean - interval[0]) / mean * 100)
    # Nearly as far each way (a tenth apart at most) and far from zero: one figure, the wider side's.
    if (min(up, down) >= 0.9 * max(up, down) or f"{up:.1f}" == f"{down:.1f}") and max(up, down) < 50:
        return f"±{max(up, down):.1f} %"
    return f"+{_pct(up)}/-{_pct(down, below=True)} %"


def _pct(value: float, below: bool = False) -> str:
    """One side of a margin, short enough for a figure's cell at 80 columns: a tenth under 10 %, whole
    above, ">999" beyond; below the mean at most ">99" (an interval above zero never reaches -100 %,
    so it never reads as zero)."""
    if below and value >= 99.5:
        return ">99"
    if value >= 999.5:
        return ">999"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


# After a claim (better, worse) of a CPU-bound step (labtui.analysis.causes.cpu_bound_verdicts): the verdict is
# kept, but a red "worse" under an answer that says the step tells nothing of the disk read as a regression of
# it. "within noise" claims nothing: unmarked. The terminal table says it in the verdict's dim brackets, "worse
# (CPU-bound, 3 vs 3, p<0.001)": beside the word it widened the verdict column (never cut), and a real
# verify-after-swap comparison no longer fitted the Compare screen at 80 columns (one record per line).
CPU_BOUND_MARK = ", CPU-bound"
CPU_BOUND = "CPU-bound"


def cpu_bound_claim(delta: Delta | None, bound: bool) -> bool:
    """Whether `delta` is a claim on a CPU-bound step's figures (`bound`): marked, and not in red or green."""
    return bound and delta is not None and delta.claim


def verdict_word(delta: Delta | None, bound: bool = False) -> str:
    """"worse", or "worse, CPU-bound" where the step's figure was the CPUs' or the engine's limit."""
    if delta is None:
        return "-"
    return delta.verdict + (CPU_BOUND_MARK if cpu_bound_claim(delta, bound) else "")


def _verdict_cell(delta: Delta | None, style: StyleType, bound: bool = False) -> RenderableType:
    """The verdict, and after it (dim, in brackets) what decided it: "noise unknown (single runs)"; a claim on a
    CPU-bound step's figures says so first there: "worse (CPU-bound, 3 vs 3, p<0.001)"."""
    marked = cpu_bound_claim(delta, bound)
    if delta is None or delta.basis in ("no difference", "context"):
        cell = Text(delta.verdict if delta else "-", style=style, no_wrap=True)
        return cell.append(f" ({CPU_BOUND})", "dim") if marked else cell
    # On one line where the width allows (at 120 columns a verdict over its basis doubled every
    # row while a quarter of the screen stood empty); where the column is narrow it wraps at its
    # words, the verdict first and whole (the column is never narrower than it), then the basis
    # ("(3 vs 3," above "p=0.058)" at 80 columns) rather than losing its p-value to an ellipsis.
    basis = ", ".join(filter(None, [CPU_BOUND if marked else "", short_basis(delta)]))
    return Text.assemble((delta.verdict, style), " ", (f"({basis})", "dim"))


def short_basis(delta: Delta) -> str:
    """What decided a verdict, short enough for a table cell: "3 vs 3, p=0.004", "single runs"."""
    if delta.verdict == CONTEXT:
        return ""
    if delta.test is None:
        return delta.basis
    return f"{delta.runs[0]} vs {delta.runs[1]}, {fmt_p(delta.test.p_value)}"


def verdict_text(delta: Delta | None, bound: bool = False) -> str:
    """The verdict with what decided it on one line: "worse · 3 vs 3 runs, Welch p=0.004" (`bound`: "worse,
    CPU-bound · ...")."""
    if delta is None or delta.basis == "no difference":
        return verdict_word(delta, bound)
    return f"{verdict_word(delta, bound)} · {delta.basis}"


def _step_cells(group: StepGroup) -> list[Text]:
    """The step's name, then its workload label on the next row (once: an imported step is often
    named by its label)."""
    title = group.name + (f" #{group.occurrence}" if group.occurrence > 1 else "")
    cells = [Text(title, style="bold")]
    if group.label != group.name:
        cells.append(Text(group.label, style="dim"))
    if len(cells) > len(group.rows):  # a single row holds both lines
        cells = [Text("\n").join(cells)]
    return cells


def _figure_cell(metric: Metric, figure: Figure | None) -> Text:
    # Two lines (value, then the dim margin) keep narrow terminals readable.
    if figure is None:
        return Text("-")
    text = Text(fmt_value(metric, figure.value))
    margin = fmt_margin(figure)
    if margin:
        text.append("\n" + margin, style="dim")
    return text


def fmt_change(delta: Delta | None) -> str:
    if delta is None:
        return "-"
    if delta.relative_pct is None:
        return f"{delta.absolute:+.4g}"
    return f"{delta.relative_pct:+.1f} %"


def group_title(group: StepGroup) -> str:
    title = f"{group.name} ({group.label})"
    return title + (f" #{group.occurrence}" if group.occurrence > 1 else "")


def describe_result(comparison: Comparison, index: int) -> str:
    r = comparison.results[index]
    parts = [
        r.target.disk_name,
        r.target.filesystem or "unknown fs",
        " ".join(x for x in (r.engine.name, r.engine.version) if x),
        r.profile.shown_name,
        r.started.astimezone().strftime("%Y-%m-%d %H:%M"),
    ]
    repeat = max((s.repetition for s in r.steps), default=1)
    if repeat > 1 or r.profile.discard_first:
        parts.append(r.profile.aggregation_text(repeat))
    if r.tags:
        parts.append("tags: " + ", ".join(r.tags))
    return f"{r.id}: " + ", ".join(parts)


def bottleneck_lines(comparison: Comparison) -> list[tuple[str, str]]:
    """(step title, what limited it across the results) for each step where something did."""
    return [(group_title(g), line) for i, g in enumerate(comparison.groups)
            if (line := comparison.bottleneck(i)) is not None]


# --------------------------------------------------------------------------- terminal


def answer_renderable(answers: Sequence[Answer], colours: VerdictColours = TERMINAL) -> Text:
    """The plain answers, one line each, in bold: what a person reads first; an answer's advice (what a
    CPU-bound step's figure means, what helps) on the line under it, not bold."""
    styles = {SLOWER: colours.worse, FAILED_ANSWER: colours.worse, FASTER: colours.better, PASSED_ANSWER: colours.better,
              CANNOT_TELL: colours.warning, MIXED: colours.warning}
    text = Text()
    for n, answer in enumerate(answers):
        if n:
            text.append("\n")
        style = _style(styles.get(answer.outcome, ""))
        text.append(answer.text, style=Style.combine([Style(bold=True), style]))
        if answer.advice:
            text.append("\n" + answer.advice, style=style)
    return text


def _style(style: StyleType) -> Style:
    return Style.parse(style) if isinstance(style, str) else style


def comparison_renderable(comparison: Comparison, colours: VerdictColours = TERMINAL, *, answer: bool = True,
                          explain: bool = False) -> Group:
    """The whole comparison for a rich console: the plain answer, the table, what differs, warnings, notes.

    With `answer` false the caller says the answer itself (the Run summary, under its own heading);
    with `explain` the method follows: how verdicts are reached, each line's reason, the runs hints.
    """
    letters = comparison.letters
    parts: list = []
    answers = comparison_answers(comparison)  # said above the table, here or by the caller (answer=False)
    if answer:
        parts.append(answer_renderable(answers, colours))
    legend = Table(box=None, show_header=False, pad_edge=False)
    legend.add_column(style="bold", no_wrap=True)
    legend.add_column(overflow="fold")
    for i, letter in enumerate(letters):
        legend.add_row(letter, Words(describe_result(comparison, i)))
    parts.append(Fitted(legend))

    bound = cpu_bound_verdicts(comparison)
    table = Table(box=box.SIMPLE_HEAD, title_justify="left",
                  title=f"Differences against A (tolerance ±{comparison.tolerance_pct:g} %; ↑ higher is better, "
                        "↓ lower is better)")
    table.add_column("step", overflow="fold")
    table.add_column("metric", no_wrap=True)
    for i, letter in enumerate(letters):
        table.add_column(letter, justify="right", no_wrap=True)  # a figure over its margin, both whole
        if i:
            table.add_column(f"{letter} vs A", justify="right", no_wrap=True)
            words = [d.verdict for g in comparison.groups for row in g.rows if (d := row.deltas[i]) is not None]
            table.add_column("verdict", min_width=max(map(len, words), default=len("verdict")))  # never cut: the answer
    for g, group in enumerate(comparison.groups):
        step_cells = _step_cells(group)
        for n, row in enumerate(group.rows):
            cells: list = [step_cells[n] if n < len(step_cells) else "", metric_cell(row.metric)]
            for i, figure in enumerate(row.figures):
                cells.append(_figure_cell(row.metric, figure))
                if i:
                    delta = row.deltas[i]
                    # A CPU-bound step's verdict is dim: the answer above says it tells nothing of the disk.
                    style = ("dim" if cpu_bound_claim(delta, (g, i) in bound) else colours.verdict(delta.verdict)
                             if delta else "")
                    cells.append(Text(fmt_change(delta), style=style))
                    cells.append(_verdict_cell(delta, style, (g, i) in bound))
            table.add_row(*cells, end_section=n == len(group.rows) - 1)
    parts.append(Fitted(table))

    differences = comparison.differences
    if differences and len(letters) > 1:
        # A target path or a serial is folded at its slashes and hyphens, never cut short: a
        # person copies it to look for the difference.
        ctx = Table(box=box.SIMPLE_HEAD, title="What differs", title_justify="left")
        ctx.add_column("", no_wrap=True)
        for letter in letters:
            ctx.add_column(letter, overflow="fold")
        for difference in differences:
            ctx.add_row(difference.label, *map(Words, difference.values))
        parts.append(Fitted(ctx))
    elif len(letters) > 1:
        parts.append(Text("context: the same " + ", ".join(r.label for r in comparison.context), style="dim"))
    for title, line in bottleneck_lines(comparison):
        parts.append(Text.assemble(("bottleneck: ", "bold"), f"{title}: {line}"))
    for warning in warnings_under(comparison, answers):
        parts.append(Text(f"warning: {warning}", style=colours.warning))
    notes = [f"{group_title(g)}: {note}" for g in comparison.groups for note in g.notes]
    for note in notes:
        parts.append(Text(f"note: {note}", style="dim"))
    if explain:
        parts.append(comparison_explanation(comparison))
    return Group(*parts)


def noise_used(group: StepGroup, letters: Sequence[str]) -> str:
    """Each result's noise of a step's primary figure as the tests used it, and its own where pooling moved
    it: "A 1.7 % (pooled over 2 steps; its own runs 1.2 %), B 6.6 %"."""
    row = group.row(primary(group.step).key)
    if row is None:
        return ""
    said = []
    for letter, figure in zip(letters, row.figures, strict=True):
        if figure is None or figure.noise is None:
            continue
        noise = figure.noise
        text = f"{letter} {noise.relative_sd * 100:.1f} %"
        if noise.pooled_steps > 1 and round(noise.relative_sd * 1000) != round(noise.own_relative_sd * 1000):
            text += f" (pooled over {noise.pooled_steps} steps; its own runs {noise.own_relative_sd * 100:.1f} %)"
        said.append(text)
    return ", ".join(said)


def comparison_explanation(comparison: Comparison) -> Group:
    """The method behind a comparison's verdicts (--explain, the screens' key): how verdicts are
    reached, what decided each line, and how many runs would tell where single runs cannot."""
    parts: list = [Text("How the verdicts were reached", style="bold"), Text(comparison.method)]
    for hint in comparison.hints:
        parts.append(Text(f"noise unknown: single runs cannot tell a difference from noise; {hint}", style="dim"))
    for group in comparison.groups:
        noise = noise_used(group, comparison.letters)
        if noise:
            parts.append(Text(f"{group_title(group)}: the run-to-run noise its tests used: {noise}", style="dim"))
        for row in group.rows:
            for letter, delta in zip(comparison.letters[1:], row.deltas[1:], strict=True):
                if delta is not None:
                    who = f" {letter}" if len(comparison.letters) > 2 else ""
                    # A runs hint is said once above, not after every line it applies to.
                    reason = delta.reason.removesuffix(f"; {delta.hint}") if delta.hint else delta.reason
                    parts.append(Text(f"{group_title(group)}, {row.metric.label}{who}: {reason}", style="dim"))
    return Group(*parts)


def statistics_table(comparison: Comparison) -> Fitted:
    """One result's figures: mean, standard deviation and confidence interval, run-to-run noise, steadiness."""
    table = Table(box=box.SIMPLE_HEAD, title_justify="left", caption_justify="left",
                  title=f"Statistics ({comparison.confidence:.0%} confidence intervals)")
    best = any(f is not None and f.best for g in comparison.groups for r in g.rows for f in r.figures[:1])
    columns = [("step", "left"), ("metric", "left"), ("n", "right")] + ([("best", "right")] if best else [])
    columns += [("mean", "right"), ("sd", "right"), ("CI", "right"), ("noise", "right"), ("steadiness", "right")]
    for name, justify in columns:
        # The figures are never broken; the interval breaks only between its two ends.
        table.add_column(name, justify=justify, no_wrap=name not in ("step", "metric", "CI"))  # type: ignore[arg-type]
    for group in comparison.groups:
        for n, row in enumerate(group.rows):
            figure = row.figures[0]
            if figure is None:
                continue
            ci = figure.interval(comparison.confidence)
            low, high = (fmt_value(row.metric, ci[0]), fmt_value(row.metric, ci[1])) if ci else ("", "")
            table.add_row(
                Words(group_title(group)) if n == 0 else "",
                metric_name(row.metric),
                str(figure.n),
                *([fmt_value(row.metric, figure.value) if figure.best else "-"] if best else []),
                fmt_value(row.metric, figure.mean),
                fmt_value(row.metric, figure.stdev) if figure.stdev is not None else "-",
                Either(f"{low} – {high}", f"{low} –\n{high}") if ci else "one run",
                f"{figure.noise.own_relative_sd * 100:.1f} %" if figure.noise else "-",
                f"±{figure.steadiness * 100:.1f} %" if figure.steadiness is not None else "-",
                end_section=n == len(group.rows) - 1,
            )
    table.caption = (
        ("best: the step's figure, the best of its repetitions (max throughput, min latency); mean, sd, CI "
         "and noise are of all the repetitions, which are what any verdict tests. " if best else "")
        + "noise: how much the figure varied from run to run (the relative standard deviation of this step's own "
        "repetitions, as its sd says; a comparison's tests pool it with the result's other steps, which compare "
        "--explain shows); only repetitions measure it (--repeat N). steadiness: how much one "
        "run's interval samples vary (coefficient of variation, the median over runs): how steady the run "
        "was, never evidence that two results differ."
    )
    return Fitted(table, optional=("steadiness",))


OUTCOME_STYLE = {PASS: "green", FAIL: "bold red", INFO: "dim", DOUBT: "yellow", NOISY: "yellow"}


def check_basis(line: CheckLine, explain: bool = False) -> str:
    """What decided a check line, short enough for its table cell (Holm's adjusted p-value only with `explain`)."""
    delta = line.delta
    if delta is None:
        return "missing"
    if not line.gating:
        return short_basis(delta) if delta.basis != "no difference" else ""
    if line.test is None:
        return "single runs" if delta.runs == (1, 1) else "no test"
    runs = f"{delta.runs[0]} vs {delta.runs[1]}"
    if line.outcome == NOISY and line.noise_pct is not None:
        return f"{runs}, noise {line.noise_pct:.0f} %"
    if line.bounded and line.bound_pct is not None:
        bound = line.bound_pct
        return f"{runs}, 95 %: ≤{bound:.0f} % worse" if bound > 0 else f"{runs}, 95 %: ≥{-bound:.0f} % better"
    if line.p_adjusted is not None and line.p_worse is not None:
        if not explain:
            return f"{runs}, {fmt_p(line.p_worse)}"
        holm = fmt_p(line.p_adjusted).removeprefix("p").removeprefix("=")
        return f"{runs}, {fmt_p(line.p_worse)}, Holm {holm}"
    return short_basis(delta)


def check_renderable(report: CheckReport, title: str | None = None, *, verdict: bool = True,
                     explain: bool = False, answer: Answer | None = None) -> Group:
    """A check pass's table, what differs, its legend and (unless `verdict` is false: a pass that
    decides nothing on its own) its verdict line; with `explain`, how it was decided, line by line.
    `answer`: the check's answer printed above it, whose advice line its warnings do not repeat."""
    table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left")
    for name, justify in (("step", "left"), ("metric", "left"), ("baseline", "right"), ("now", "right"),
                          ("change", "right"), ("result", "left"), ("decided by", "left")):
        # The figures and the outcome are never broken; names and what decided it fold at words.
        table.add_column(name, justify=justify, no_wrap=name in ("baseline", "now", "change", "result"),  # type: ignore[arg-type]
                         overflow="fold" if name == "step" else "ellipsis")
    lines = report.lines
    # A regression (FAIL, PASS?) of a CPU-bound step keeps its outcome (it decides the check), marked as the
    # answer says it; a line that claims none (PASS, NOISY, INFO) is not.
    bound = {group for group, _ in cpu_bound_verdicts(report.comparison)}
    index = {id(g): n for n, g in enumerate(report.comparison.groups)}
    n = 0
    for i, line in enumerate(lines):
        if i == 0 or lines[i - 1].group is not line.group:
            n, step_cells = 0, _step_cells(line.group)
        last = i == len(lines) - 1 or lines[i + 1].group is not line.group
        table.add_row(
            step_cells[n] if n < len(step_cells) else "",
            metric_cell(line.metric),
            _figure_cell(line.metric, line.baseline),
            _figure_cell(line.metric, line.current),
            fmt_change(line.delta),
            Text.assemble((line.outcome, OUTCOME_STYLE[line.outcome]),
                          (CPU_BOUND_MARK if line.outcome in (FAIL, DOUBT) and index[id(line.group)] in bound
                           else "", "dim")),
            Text(check_basis(line, explain), style="dim"),
            end_section=last,
        )
        n += 1
    parts: list = [Text(f"warning: {w}", style="yellow")
                   for w in warnings_under(report.comparison, [answer] if answer else [], CHECK_NAMES)]
    parts.append(Fitted(table))
    for row in report.comparison.differences:
        parts.append(Text(f"context differs: {row.label}: baseline {row.values[0]}, now {row.values[1]}", style="dim"))
    for group in report.comparison.groups:
        for note in group.notes:
            parts.append(Text(f"note: {group_title(group)}: {note}", style="dim"))
    legend = [f"{PASS} no regression beyond the tolerance", f"{FAIL} regressed beyond it and beyond the noise"]
    if report.doubtful:
        legend.append(f"{DOUBT} worse, but not clearly beyond the noise")
    if report.noisy:
        legend.append(f"{NOISY} too noisy to see a regression of the tolerance")
    if any(not line.gating for line in report.lines):
        legend.append(f"{INFO} reported, never failing (--fail-on latency,p99,cpu makes them count)")
    parts.append(Text("; ".join(legend), style="dim"))
    if verdict:
        style = {PASSED: "bold green", FAILED: "bold red", INCONCLUSIVE: "bold yellow"}[report.outcome]
        parts.append(Text(report.summary(method=explain), style=style))
    if explain:
        parts.append(check_explanation(report))
    return Group(*parts)


def check_explanation(report: CheckReport) -> Group:
    """The method behind a check pass (--explain): the paragraph, and what decided each line."""
    parts: list = [Text("How the check decides", style="bold"), Text(report.method)]
    for line in report.lines:
        parts.append(Text(f"{group_title(line.group)}, {line.metric.label}: {line.outcome}: {line.reason}",
                          style="dim"))
    return Group(*parts)


# --------------------------------------------------------------------------- Markdown


def comparison_markdown(comparison: Comparison) -> str:
    """The comparison as Markdown: a results table, a legend, what differs, warnings, method."""
    letters = comparison.letters
    headers = ["Step", "Metric"]
    align = [markdown.LEFT, markdown.LEFT]
    for i, letter in enumerate(letters):
        headers.append(letter)
        align.append(markdown.RIGHT)
        if i:
            headers += [f"{letter} vs A", "Verdict"]
            align += [markdown.RIGHT, markdown.LEFT]
    rows = []
    bound = cpu_bound_verdicts(comparison)
    for g, group in enumerate(comparison.groups):
        for n, row in enumerate(group.rows):
            said = ", ".join(filter(None, [bare_unit(row.metric), "the whole machine, never judged" if row.metric.context
                                           else f"{row.metric.better} is better"]))
            cells = [group_title(group) if n == 0 else "", f"{row.metric.label} ({said})"]
            for i, figure in enumerate(row.figures):
                cells.append(fmt_figure(row.metric, figure))
                if i:
                    delta = row.deltas[i]
                    cells.append(fmt_change(delta))
                    cells.append(verdict_text(delta, (g, i) in bound))
            rows.append(cells)
    answered = comparison_answers(comparison)
    answers = "\n".join(f"**{markdown.cell(a.text)}**  " + (f"\n{markdown.cell(a.advice)}  " if a.advice else "")
                        for a in answered)
    out = [answers.removesuffix("  ") + "\n",
           f"**Comparison** (differences against A, tolerance ±{comparison.tolerance_pct:g} %)\n",
           markdown.table(headers, rows, align)]
    out.append("\n".join(f"- **{letter}**: {markdown.cell(describe_result(comparison, i))}"
                         for i, letter in enumerate(letters)) + "\n")
    differences = comparison.differences
    if differences and len(letters) > 1:
        out.append("**What differs**\n")
        out.append(markdown.table(["", *letters], [[row.label, *row.values] for row in differences]))
    for warning in warnings_under(comparison, answered):
        out.append(f"> **Warning:** {markdown.cell(warning)}\n")
    limits = bottleneck_lines(comparison)
    if limits:
        out.append("\n".join(f"- **Bottleneck**, {markdown.cell(title)}: {markdown.cell(line)}"
                              for title, line in limits) + "\n")
    notes = [f"{group_title(g)}: {note}" for g in comparison.groups for note in g.notes]
    notes += [f"noise unknown: single runs cannot tell a difference from noise; {hint}" for hint in comparison.hints]
    if notes:
        out.append("\n".join(f"- {markdown.cell(n)}" for n in notes) + "\n")
    out.append(f"*{markdown.cell(comparison.method)}*\n")
    return "\n".join(out)
