"""The Fleet screen's panel under the hosts: per step, the fastest and slowest host, how far apart, and
the hosts far from the others; it keeps its place at the foot of the screen however many hosts run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from labtui.fleet.summary import HostsSummary, StepSpread


class FleetSummary(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(markup=False, id=id)

    def show(self, summary: HostsSummary | None) -> None:
        self.update(summary_text(summary))


def summary_text(summary: HostsSummary | None) -> str:
    if summary is None:
        return ""
    lines = [f"Across the {len(summary.hosts)} hosts that completed (each against {summary.reference}):"]
    for s in summary.steps:
        apart = f", {s.spread_pct:.1f} % apart" if s.spread_pct is not None else ""
        line = (f"  {s.step}: fastest {s.fastest[0]} ({_figure(s, s.fastest[1])}), slowest {s.slowest[0]} "
                f"({_figure(s, s.slowest[1])}){apart}")
        if s.outliers:
            line += f"; far from the others: {', '.join(h for h, _ in s.outliers)}"
        lines.append(line)
    if not summary.noise_known:
        lines.append("Single runs cannot tell a difference from noise: repeat the runs.")  # one line at 80 columns
    return "\n".join(lines)


def _figure(spread: StepSpread, value: float) -> str:
    from labtui.render.result_tables import fmt_iops

    return f"{fmt_iops(value)} IOPS" if spread.metric == "IOPS" else f"{value:.1f} {spread.unit}"
