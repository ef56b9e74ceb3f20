"""The Fleet screen's panel under the hosts: per step, the fastest and slowest host, how far apart, and
the hosts far from the others; it keeps its place at the foot of the screen however many hosts run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import Static

from labtui.widgets.paged_box import PagedBox

if TYPE_CHECKING:
    from labtui.fleet.summary import HostsSummary, StepSpread


class FleetSummary(PagedBox):
    """The panel, at most a share of the screen (fleet.tcss): longer (the 8 steps of cdm-nvme, a narrow
    terminal), it scrolls, by the wheel and by the screen's Shift+Down/Up, which it offers only then."""

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id=f"{self.id}-text" if self.id else None)

    @property
    def text(self) -> str:
        """What the panel says, whole (the screen may show only part of it)."""
        return str(self.query_one(Static).render())

    def show(self, summary: HostsSummary | None) -> None:
        self.query_one(Static).update(summary_text(summary))
        self.scroll_home(animate=False)
        self.call_after_refresh(self.screen.refresh_bindings)  # once laid out: whether it is longer than its box

    def on_resize(self) -> None:
        self.screen.refresh_bindings()


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
