"""Steady state and preconditioning as people read them: one-line verdicts, per-round tables.

Shared by `labtui show`, the run summary, exports and the TUI, so each says it the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from labtui.analysis.steady import FIGURE_UNITS, criterion_text
from labtui.model.result import SteadyState, StepResult, window_figure


def figure_text(value: float | None, figure: str) -> str:
    """A round's figure in its unit's usual precision: "41,234 IOPS", "812.4 MiB/s", "0.412 ms"."""
    if value is None:
        return "-"
    if figure == "iops":
        number = f"{value:,.0f}"
    elif figure == "latency":
        number = f"{value:,.3f}"
    else:
        number = f"{value:,.1f}"
    return f"{number} {FIGURE_UNITS.get(figure, '')}".rstrip()


def rule_text(state: SteadyState) -> str:
    """"SNIA PTS 2.0 on IOPS, 60 s rounds, window 5, at most 25" or "fio's iops_slope:0.1% ..." """
    tracked = {"iops": "IOPS", "mib_s": "MiB/s", "latency": "mean latency"}.get(state.figure, state.figure)
    if state.rule.startswith("snia"):
        what = f"SNIA PTS 2.0 on {tracked}"
    else:
        what = f"fio's {state.rule}"
    judged = ", judged by fio" if state.judged_by == "fio" else ""
    return (f"{what}, {state.round_seconds:g} s rounds, window {state.window}, at most {state.max_rounds}"
            f"{judged}")


def criteria_lines(state: SteadyState) -> list[str]:
    """Each criterion over the window and how far it is from holding; why there is none yet."""
    if not state.criteria:
        return [f"fewer than {state.window} rounds: nothing judged yet"]
    return [criterion_text(c, state.figure) for c in state.criteria]


def steady_summary_lines(s: StepResult) -> list[str]:
    """What `show` prints for a step run to steady state."""
    state = s.steady_state
    if state is None:
        return []
    lines = [f"{s.name}: {state.verdict} ({rule_text(state)})"]
    if state.window_start is not None:
        figures = ", ".join(figure_text(v, state.figure).rsplit(" ", 1)[0] for v in state.window_figures)
        # The window's figure measured whole, as the step's own figures are (model.window_figure): not
        # the average of the rounds' figures, which differs where rounds differ in length.
        how = "its latency weighted by I/Os" if state.figure == "latency" else (
            "its I/Os over its seconds" if state.figure == "iops" else "its bytes over its seconds")
        lines.append(f"  window: rounds {state.window_start}-{len(state.rounds)} ({figures}): "
                     f"{figure_text(window_figure(s, state.figure), state.figure)} ({how}), the step's figure")
    lines += [f"  {line}" for line in criteria_lines(state)]
    lines.append("  rounds: " + ", ".join(figure_text(v, state.figure).rsplit(" ", 1)[0] for v in state.rounds))
    return lines


def steady_steps(steps: Iterable[StepResult]) -> list[StepResult]:
    return [s for s in steps if s.steady_state is not None]



def live_lines(state: SteadyState, width: int = 120) -> list[str]:
    """The Run screen's view of a steady-state step: the rounds as they came (the window in
    brackets, the oldest dropped where the width runs out) and how far each criterion is from holding."""
    count = len(state.rounds)
    if state.attained:
        head = f"steady after {count} rounds"
    elif state.finished:
        head = f"{state.verdict}: the step ends here"
    elif state.criteria:
        head = f"not steady yet over rounds {state.window_start}-{count}"
    else:
        head = f"judged once {state.window} rounds are in"
    # Narrow, the rule gives way (the command line and the result say it): the chart keeps its rows.
    lines = [f"Steady state ({rule_text(state)}): {head}" if width >= 100 else f"Steady state: {head}"]
    start = state.window_start or (count + 1)
    cells = []
    for i, value in enumerate(state.rounds, start=1):
        text = figure_text(value, state.figure).rsplit(" ", 1)[0]
        cells.append(f"[{text}" if i == start else text)
    if cells and start <= count:
        cells[-1] += "]"
    prefix = f"rounds ({FIGURE_UNITS.get(state.figure, state.figure)}): "
    shown = cells
    while shown and len(prefix) + len(" ".join(shown)) > width and len(shown) > 1:
        shown = shown[1:]
    lines.append(prefix + ("… " if len(shown) < len(cells) else "") + " ".join(shown))
    lines += criteria_lines(state) if state.criteria else []
    return lines
