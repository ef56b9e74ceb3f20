"""Steady state judged on a series of rounds: SNIA PTS 2.0's rule and fio's single criteria.

Pure arithmetic on the rounds' figures (no I/O, no UI): each engine measures its rounds its own
way and hands their figures here, so what is judged, and how, is the same for all of them.

SNIA PTS 2.0 (Solid State Storage Performance Test Specification, "steady state"): over the
measurement window, the last 5 rounds, (1) the tracked figure's range, max - min, is no more
than 20 % of the window's mean, and (2) the best-fit (least-squares) line's excursion over the
window, |slope| x (rounds - 1), is within 10 % of the mean. Both must hold.

fio's criteria (its steadystate.c): "deviation" holds when the largest |figure - mean| is below
the limit, "slope" when the least-squares slope per round is (fio's rounds are its one-second
samples); a limit with "%" is in % of the window's mean. SNIA's bounds are inclusive ("no more
than"), fio's strict ("falls below").
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from labtui.model.profile import MIB, SNIA_EXCURSION_PERCENT, SNIA_RANGE_PERCENT, SteadyRule
from labtui.model.result import SteadyCriterion, SteadyState

# A fio limit without "%" is in fio's own unit: IOPS, bytes/s, and for latency milliseconds.
_ABSOLUTE_SCALE = {"iops": 1.0, "mib_s": float(MIB), "latency": 1.0}
FIGURE_UNITS = {"iops": "IOPS", "mib_s": "MiB/s", "latency": "ms"}


def best_fit(values: Sequence[float]) -> tuple[float, float]:
    """The least-squares line through (0, v0), (1, v1), ...: (slope per round, intercept)."""
    n = len(values)
    if n < 2:
        raise ValueError("a line needs at least two points")
    x_mean = (n - 1) / 2
    y_mean = fmean(values)
    sxx = sum((x - x_mean) ** 2 for x in range(n))
    sxy = sum((x - x_mean) * (y - y_mean) for x, y in enumerate(values))
    slope = sxy / sxx
    return slope, y_mean - slope * x_mean


def judge(rule: SteadyRule, figures: Sequence[float], round_seconds: float) -> SteadyState:
    """The rule judged on the rounds so far (the window is the last `rule.window` of them)."""
    rounds = tuple(float(f) for f in figures)
    base = SteadyState(rule=rule.text, figure=rule.figure, round_seconds=round_seconds, window=rule.window,
                       max_rounds=rule.max_rounds, attained=False, rounds=rounds)
    if len(rounds) < rule.window:
        return base  # too few rounds: nothing to judge yet
    window = rounds[-rule.window:]
    judged = judge_window(rule, window)
    return SteadyState(
        rule=base.rule, figure=base.figure, round_seconds=round_seconds, window=rule.window,
        max_rounds=rule.max_rounds, attained=judged.attained, rounds=rounds,
        window_start=len(rounds) - rule.window + 1, window_figures=window, mean=judged.mean,
        slope=judged.slope, criteria=judged.criteria,
    )


def judge_window(rule: SteadyRule, window: Sequence[float]) -> SteadyState:
    """The rule's criteria over exactly these figures (a window of at least two)."""
    values = tuple(float(v) for v in window)
    mean = fmean(values)
    slope, _ = best_fit(values)
    criteria: tuple[SteadyCriterion, ...]
    if rule.snia:
        criteria = (
            _criterion("range", max(values) - min(values), mean, SNIA_RANGE_PERCENT, True, inclusive=True),
            _criterion("excursion", abs(slope) * (len(values) - 1), mean, SNIA_EXCURSION_PERCENT, True,
                       inclusive=True),
        )
    else:
        scale = 1.0 if rule.percent else _ABSOLUTE_SCALE[rule.figure]
        if rule.test == "deviation":
            amount = max(abs(v - mean) for v in values) * scale
        else:
            amount = abs(slope) * scale
        criteria = (_criterion(rule.test, amount, mean * scale, rule.limit, rule.percent, inclusive=False),)
    return SteadyState(
        rule=rule.text, figure=rule.figure, round_seconds=0.0, window=len(values), max_rounds=rule.max_rounds,
        attained=all(c.held for c in criteria), rounds=values, window_start=1, window_figures=values,
        mean=mean, slope=slope, criteria=criteria,
    )


def _criterion(name: str, amount: float, mean: float, limit: float, percent: bool, *, inclusive: bool) -> SteadyCriterion:
    if percent:
        if mean <= 0:
            # No I/O (or no latency) in the window: nothing is steady about it.
            return SteadyCriterion(name, None, limit, percent, False)
        value = 100.0 * amount / mean
    else:
        value = amount
    held = value <= limit if inclusive else value < limit
    return SteadyCriterion(name, value, limit, percent, held)


def criterion_text(c: SteadyCriterion, figure: str) -> str:
    """"range 12.3 % of the mean (limit 20 %): holds", "slope 0.8 % (limit < 0.1 %): 0.7 points to go"."""
    unit = " %" if c.percent else f" {FIGURE_UNITS.get(figure, '')}".rstrip()
    if figure == "mib_s" and not c.percent:
        unit = " bytes/s"  # fio's unit for an absolute bandwidth limit
    what = {"range": "range", "excursion": "best-fit excursion", "deviation": "largest deviation",
            "slope": "slope"}.get(c.name, c.name)
    of = " of the rounds' mean" if c.percent else ""  # SNIA's and fio's: the rounds' average, not the window's figure
    if c.value is None:
        return f"{what}: no mean to judge by (nothing measured)"
    bound = "at most" if c.name in ("range", "excursion") else "below"
    state = "holds" if c.held else f"{c.value - c.limit:.3g}{unit} over"
    return f"{what} {c.value:.3g}{unit}{of} ({bound} {c.limit:.15g}{unit}): {state}"
