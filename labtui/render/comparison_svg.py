"""The comparison as a picture for a blog post or a ticket: per step a bar chart of each result's
figure with its spread, what differs in the context, what limited the steps; drawn with Rich and
saved as SVG (Rich's own export), so no plotting stack of its own.

Bars start at zero and share one scale per step, so their lengths compare honestly; a bar is the
result's figure as its profile makes it (the mean of the repetitions, or the best of them), and the
whisker under it spans the 95 % confidence interval of their mean (a single run has none, and the
picture says so).
"""

from __future__ import annotations

import io
import re

from rich import box
from rich.console import CONSOLE_SVG_FORMAT, Console, Group
from rich.table import Table
from rich.text import Text

from labtui.analysis.answer import comparison_answers, warnings_under
from labtui.analysis.causes import cpu_bound_verdicts
from labtui.analysis.comparison import Comparison, MetricRow, StepGroup
from labtui.analysis.figures import Figure
from labtui.analysis.metrics import MIB_S, Metric
from labtui.render.comparison import (
    bottleneck_lines,
    cpu_bound_claim,
    describe_result,
    fmt_change,
    fmt_value,
    group_title,
    verdict_text,
)

WIDTH = 110  # characters: wide enough for the legend, narrow enough for a blog column
BAR = 40  # cells of the longest bar
COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red")
VERDICT_STYLES = {"better": "bold green", "worse": "bold red"}
_EIGHTHS = " ▏▎▍▌▋▊▉"
# Fonts the reader's machine has: Fira Code first where it is installed (the font Rich measures its
# cells by; the text is stretched to the cells whatever the font), then the usual monospace fonts of
# Linux, macOS and Windows.
MONOSPACE = '"Fira Code", "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", "Courier New", monospace'


def _self_contained(template: str) -> str:
    """Rich's SVG template without what it fetches when opened: its @font-face rules load Fira
    Code from a CDN, so offline (a lab box, a reader on a train) the picture changed font, and a
    lab tool's file reached out to the internet. The comment's link goes too."""
    template = re.sub(r"\s*@font-face\s*\{\{.*?\}\}", "", template, flags=re.DOTALL)
    template = template.replace("font-family: Fira Code, monospace;", f"font-family: {MONOSPACE};")
    template = template.replace("font-family: arial;", "font-family: Arial, Helvetica, sans-serif;")
    return re.sub(r"<!--.*?-->", "<!-- labtui compare, drawn with Rich -->", template, count=1, flags=re.DOTALL)


SVG_FORMAT = _self_contained(CONSOLE_SVG_FORMAT)


def headline_row(group: StepGroup) -> MetricRow | None:
    """The figure a step is judged by: MiB/s for large or sequential blocks, IOPS for small random
    ones, wall time for a command."""
    step = group.step
    if not step.is_io:
        return group.row("wall_seconds")
    if step.pattern == "sequential" or step.block_size >= 64 * 1024:
        return group.row(MIB_S.key) or group.row("iops")
    return group.row("iops") or group.row(MIB_S.key)


def bar(value: float, scale: float, cells: int = BAR) -> str:
    """A horizontal bar `value / scale` of `cells` long, to an eighth of a cell."""
    eighths = round(max(0.0, value) / scale * cells * 8) if scale > 0 else 0
    text = "█" * (eighths // 8)
    if eighths % 8:
        text += _EIGHTHS[eighths % 8]
    return text


def whisker(low: float, high: float, scale: float, cells: int = BAR) -> str:
    """The interval low..high on the bar's scale: ├──┤, or ┼ where it is narrower than a cell."""
    if scale <= 0:
        return ""
    start = max(0, min(cells, round(low / scale * cells)))
    end = max(0, min(cells, round(high / scale * cells)))
    if end <= start:
        return " " * start + "┼"
    return " " * start + "├" + "─" * (end - start - 1) + "┤"


def _unit(metric: Metric) -> str:
    return {"IOPS": "IOPS", "MiB/s": "MiB/s", "s": "s wall"}.get(metric.unit, metric.unit)


def _spread_text(figure: Figure) -> str:
    interval = figure.interval()
    if interval is None:
        return "single run: spread unknown"
    of = f"{figure.aggregation}; the mean's " if figure.best else ""
    return f"{of}95 % CI {interval[0]:,.1f} – {interval[1]:,.1f} ({figure.n} runs)"


def step_chart(comparison: Comparison, group: StepGroup, row: MetricRow,
               bound: frozenset[int] = frozenset()) -> Table:
    """One step: a bar per result with its figure, its spread and its difference against A (`bound`: the
    results whose verdict here is of a CPU-bound figure: "worse, CPU-bound", dim)."""
    metric = row.metric
    extents = []
    for figure in row.figures:
        if figure is not None:
            interval = figure.interval()
            extents.append(max(figure.value, interval[1] if interval else figure.value))
    scale = max(extents, default=0.0)
    better = "higher" if metric.higher_is_better else "lower"
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1), expand=True,
                  title=Text.assemble((group_title(group), "bold"), f" · {metric.label} ({better} is better)"),
                  title_justify="left")
    table.add_column(min_width=1, no_wrap=True)
    table.add_column(width=BAR + 1, no_wrap=True)
    table.add_column(justify="right", no_wrap=True, min_width=14)
    table.add_column(overflow="fold", ratio=1)
    for i, (letter, figure) in enumerate(zip(comparison.letters, row.figures)):
        colour = COLOURS[i % len(COLOURS)]
        if figure is None:
            table.add_row(Text(letter, style=f"bold {colour}"), Text("no such step", style="dim"), "", "")
            continue
        delta = row.deltas[i]
        if delta is None:
            said = Text("the reference", style="dim")
        else:
            # A CPU-bound step's verdict is dim: the answer above says it tells nothing of the disk.
            change, word = (("dim", "dim") if cpu_bound_claim(delta, i in bound) else
                            (VERDICT_STYLES.get(delta.verdict, ""), VERDICT_STYLES.get(delta.verdict, "dim")))
            said = Text.assemble((fmt_change(delta), change), "  ", (verdict_text(delta, i in bound), word))
        table.add_row(Text(letter, style=f"bold {colour}"), Text(bar(figure.value, scale), style=colour),
                      Text(f"{fmt_value(metric, figure.value)} {_unit(metric)}", style="bold"), said)
        interval = figure.interval()
        spread = whisker(*interval, scale) if interval else ""
        table.add_row("", Text(spread, style=colour), "", Text(_spread_text(figure), style="dim"))
    return table


def comparison_picture(comparison: Comparison) -> Group:
    """Everything the SVG shows, as one Rich renderable."""
    letters = comparison.letters
    parts: list = [Text("labtui comparison", style="bold underline")]
    # The answer first, as under every comparison: a picture in a post is read top down too.
    answers = comparison_answers(comparison)
    parts += [Text(line, style="bold" if n == 0 else "") for a in answers
              for n, line in enumerate(a.lines)] + [Text("")]
    legend = Table(box=None, show_header=False, pad_edge=False)
    legend.add_column(no_wrap=True)
    legend.add_column()
    for i, letter in enumerate(letters):
        legend.add_row(Text(letter, style=f"bold {COLOURS[i % len(COLOURS)]}"), describe_result(comparison, i))
    parts += [legend, Text("")]
    bound = cpu_bound_verdicts(comparison)
    for g, group in enumerate(comparison.groups):
        row = headline_row(group)
        if row is None or all(f is None for f in row.figures):
            continue
        parts += [step_chart(comparison, group, row, frozenset(i for h, i in bound if h == g)), Text("")]
    differences = comparison.differences
    if differences and len(letters) > 1:
        context = Table(title=Text("What differs", style="bold"), title_justify="left", box=box.SIMPLE_HEAD,
                        pad_edge=False)
        context.add_column("")
        for i, letter in enumerate(letters):
            context.add_column(Text(letter, style=f"bold {COLOURS[i % len(COLOURS)]}"))
        for c in differences:
            context.add_row(c.label, *c.values)
        parts.append(context)
    elif len(letters) > 1:
        parts.append(Text("The same " + ", ".join(c.label for c in comparison.context) + ".", style="dim"))
    for title, line in bottleneck_lines(comparison):
        parts.append(Text.assemble(("bottleneck: ", "bold"), f"{title}: {line}"))
    for warning in warnings_under(comparison, answers):  # the answer's advice line not said again
        parts.append(Text(f"warning: {warning}", style="yellow"))
    parts.append(Text(
        "Bars: each result's figure (the mean of its repetitions, or the best where its profile reports the best, "
        "as CrystalDiskMark does), from zero on one scale per step; whiskers: the 95 % confidence interval of the "
        f"mean. Verdicts against A, tolerance ±{comparison.tolerance_pct:g} %: "
        "only repetitions can show a difference to be real (labtui compare explains each).", style="dim"))
    return Group(*parts)


def comparison_svg(comparison: Comparison, title: str = "labtui compare", width: int = WIDTH) -> str:
    """The comparison picture as an SVG document."""
    console = Console(record=True, width=width, file=io.StringIO(), color_system="truecolor",
                      force_terminal=True, legacy_windows=False, emoji=False, highlight=False, markup=False)
    console.print(comparison_picture(comparison))
    return console.export_svg(title=title, code_format=SVG_FORMAT)
