"""The report of a fleet run over many hosts: the summary first, then one row per host and step.

`labtui compare`'s table gives each result three columns (its figure, its difference, its verdict)
and letters them A, B ... Z, R27: over a handful of hosts it ran 638 columns wide into a pipe and
fell to key=value prose at 120. From MANY_HOSTS on, the fleet report is instead, per step, a table
whose rows are the hosts (name, figure, difference from the reference, verdict, what decided it),
under a summary that says first, per step, the fastest and slowest host, how far apart and who is
far from the others; the comparison's warnings are said once each, with the hosts they apply to.
The verdicts are labtui's own (labtui.analysis.comparison), in the same words as everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from labtui.fleet.summary import HostsSummary, StepSpread
from labtui.render.comparison import TERMINAL, VerdictColours, fmt_change, fmt_figure, group_title, short_basis

MANY_HOSTS = 5  # from this many hosts on, rows per host (up to 4, labtui compare's table still fits 120 columns)


def spread_line(spread: StepSpread, reference: str, noise_known: bool) -> str:
    """One step across the hosts, in plain words: fastest, slowest, how far apart, the claims, who is far off."""
    unit = "IOPS" if spread.metric == "IOPS" else spread.unit

    def figure(value: float) -> str:
        from labtui.render.result_tables import fmt_iops

        return f"{fmt_iops(value)} {unit}" if spread.metric == "IOPS" else f"{value:.1f} {unit}"

    apart = f", {spread.spread_pct:.1f} % apart" if spread.spread_pct is not None else ""
    line = (f"{spread.step}: fastest {spread.fastest[0]} ({figure(spread.fastest[1])}), slowest {spread.slowest[0]} "
            f"({figure(spread.slowest[1])}){apart}")
    better = [h for h, v, _, _ in spread.differing if v == "better"]
    worse = [h for h, v, _, _ in spread.differing if v == "worse"]
    if better or worse:
        line += f"; beyond noise against {reference}: {_count(better, 'better')}, {_count(worse, 'worse')}"
    elif noise_known:
        line += f"; none differs from {reference} beyond noise"
    if spread.outliers:
        line += "; far from the others: " + ", ".join(f"{h} ({p:+.0f} % from the median)" for h, p in spread.outliers)
    return line


def _count(hosts: list[str], verdict: str) -> str:
    if not hosts:
        return f"none {verdict}"
    return f"{len(hosts)} {verdict} ({', '.join(hosts)})" if len(hosts) <= 3 else f"{len(hosts)} {verdict}"


def summary_renderable(summary: HostsSummary) -> Group:
    parts: list[RenderableType] = [Text(f"Across the {len(summary.hosts)} hosts that completed (each against "
                                        f"{summary.reference}, the first):", style="bold")]
    # The step's name, then what it came to, folded under itself (a hanging indent), not under the name.
    lines = Table.grid(padding=(0, 1), pad_edge=False)
    lines.add_column(no_wrap=True)
    lines.add_column(overflow="fold")
    for spread in summary.steps:
        step, _, rest = spread_line(spread, summary.reference, summary.noise_known).partition(": ")
        lines.add_row(Text(f"  {step}:"), Text(rest))
    parts.append(lines)
    if not summary.noise_known:
        parts.append(Text("  Single runs cannot tell a host's difference from noise: --repeat 3 lets labtui tell.",
                          style="dim"))
    return Group(*parts)


def rows_renderable(summary: HostsSummary, colours: VerdictColours = TERMINAL) -> Group:
    """Per step, a row per host: its figure, its difference from the reference and the verdict."""
    comparison = summary.comparison
    parts: list[RenderableType] = []
    for group in comparison.groups:
        row = group.row("iops") if group.step.is_io else group.row("wall_seconds")
        if row is None:
            continue
        arrow = "↑" if row.metric.higher_is_better else "↓"
        table = Table(box=box.SIMPLE_HEAD, title=f"{group_title(group)}: {row.metric.label} {arrow}",
                      title_justify="left", pad_edge=False)
        table.add_column("host", no_wrap=True)
        table.add_column(row.metric.label, justify="right", no_wrap=True)
        table.add_column(f"vs {summary.reference}", justify="right", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("decided by", overflow="fold")
        for host, figure, delta in zip(summary.hosts, row.figures, row.deltas):
            style = colours.verdict(delta.verdict) if delta is not None else ""
            table.add_row(Text(host), Text(fmt_figure(row.metric, figure)),
                          Text(fmt_change(delta) if delta is not None else "reference", style=style),
                          Text(delta.verdict if delta is not None else "", style=style),
                          Text(short_basis(delta) if delta is not None else "", style="dim"))
        parts.append(table)
    return Group(*parts)


# "B (20240501-100001-beef) is CPU-bound in ...": a warning about one result, named by its letter and id.
_ONE_RESULT = re.compile(r"^(?:R\d+|[A-Z]) \((\S+)\) (.*)$", re.DOTALL)
# "(A native, B fio)": a warning's list of results by letter.
_LISTED = re.compile(r"(^|[(,;] ?)(R\d+|[A-Z]) ")


def grouped_warnings(warnings: Sequence[str], letters: Sequence[str], ids: Sequence[str],
                     hosts: Sequence[str]) -> list[str]:
    """The comparison's warnings with host names for letters, each said once with the hosts it applies to."""
    host_of_id = dict(zip(ids, hosts))
    host_of_letter = dict(zip(letters, hosts))
    said: dict[str, list[str]] = {}
    for warning in warnings:
        match = _ONE_RESULT.match(warning)
        if match is not None and match.group(1) in host_of_id:
            said.setdefault(match.group(2), []).append(host_of_id[match.group(1)])
            continue

        def named(inner: re.Match[str]) -> str:
            return "(" + _LISTED.sub(lambda m: f"{m.group(1)}{host_of_letter.get(m.group(2), m.group(2))} ",
                                     inner.group(1)) + ")"

        said.setdefault(re.sub(r"\(([^()]*)\)", named, warning), [])
    lines = []
    for text, named_hosts in said.items():
        what = text.removeprefix("is ")
        if not named_hosts:
            lines.append(text)
        elif len(named_hosts) == 1:
            lines.append(f"{named_hosts[0]} {text}")
        elif len(named_hosts) == len(hosts):
            lines.append(f"every host ({len(hosts)}): {what}")
        else:
            lines.append(f"{len(named_hosts)} hosts ({', '.join(named_hosts)}): {what}")
    return lines


def grouped_bottleneck(line: str, letters: Sequence[str], hosts: Sequence[str]) -> str:
    """A step's bottleneck line ("A: CPU, not disk; B: CPU, not disk; ...") with host names for letters,
    each limit said once with the hosts it applies to (as it is, where it is not such a list)."""
    host_of_letter = dict(zip(letters, hosts))
    by_limit: dict[str, list[str]] = {}
    for item in line.split("; "):
        letter, sep, limit = item.partition(": ")
        if not sep or letter not in host_of_letter:
            return line
        by_limit.setdefault(limit, []).append(host_of_letter[letter])
    return "; ".join(f"every host ({len(named)}): {limit}" if len(named) == len(hosts) > 1
                     else f"{', '.join(named)}: {limit}" for limit, named in by_limit.items())
