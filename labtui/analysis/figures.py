"""One result's figure of one metric with its run-to-run noise, and a figure judged against another.

Verdicts: only run-to-run noise (repetitions) can show a difference to be real. A difference is
"better" or "worse" when it is larger than the tolerance and significant (two-sided, 95 %) by a
t-test of the log figures: Welch's across repetitions on both sides, a prediction t-test for one
run against repetitions. Significant but smaller than the tolerance is "within tolerance"; not
significant is "within noise"; single runs on both sides are "noise unknown": the difference is
shown and never called. Interval samples only describe how steady each run was.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, median
from typing import Any

from labtui.analysis.metrics import Metric, headline, interval_series
from labtui.analysis.stats import (
    ALPHA,
    CONFIDENCE,
    Noise,
    Spread,
    TestResult,
    log_values,
    noise_of,
    prediction,
    runs_needed,
    spread_of_repetitions,
    stdev,
    steadiness,
    t_critical,
    welch_of,
)
from labtui.model.result import StepResult

BETTER, WORSE = "better", "worse"  # the only claims
NOISE = "within noise"  # the run-to-run noise could explain the difference
SMALL = "within tolerance"  # real by the noise, but smaller than the tolerance
UNKNOWN = "noise unknown"  # single runs: nothing tells the difference from noise
CONTEXT = "context"  # the whole machine's figure: shown, never judged
VERDICTS = (BETTER, WORSE, NOISE, SMALL, UNKNOWN, CONTEXT)
CLAIMS = (BETTER, WORSE)
HINT_CHANGE = 0.10  # the sample-size hint: runs that would tell a change this large


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@dataclass(frozen=True)
class Figure:
    """One result's value of one metric for one step, made of its repetitions, and its noise.

    `value` is the headline figure as the result's profile aggregates it: the mean of the
    repetitions, or (aggregate = "best", CrystalDiskMark's way) the best of them. The statistics
    (spread, interval, noise, every test) are of the repetitions themselves and their mean:
    a best-of figure is not a sample mean, and is never tested as one.
    """

    value: float
    values: tuple[float, ...]  # one per completed repetition, in order
    spread: Spread | None  # of the repetitions (None for a single run): the confidence interval shown
    logs: tuple[float, ...] | None = None  # the values' logarithms (None if any is zero)
    noise: Noise | None = None  # run-to-run noise of the logs, pooled across the result's steps
    steadiness: float | None = None  # how much the run's interval samples vary (CV; the median over runs)
    aggregate: str = "mean"  # how `value` is made of `values` (Profile.aggregate)
    percent: bool = False  # a share of 0-100 % (the machine's CPU), not a rate or a time (0 and up)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return fmean(self.values)

    @property
    def best(self) -> bool:
        """The headline is a best-of figure (not the mean) of several repetitions."""
        return self.aggregate == "best" and self.n > 1

    @property
    def aggregation(self) -> str:
        """How the headline was made, short: "best of 3", "mean of 3", "single run"."""
        if self.n <= 1:
            return "single run"
        return f"{'best' if self.aggregate == 'best' else 'mean'} of {self.n}"

    @property
    def stdev(self) -> float | None:
        """Standard deviation across repetitions (None for a single run)."""
        return self.spread.stdev if self.spread is not None else None

    def interval(self, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
        """The confidence interval of the figure (of a best-of figure's repetitions too), or None for a single run.

        Computed where the quantity lives, so it never leaves what is possible: a rate or a time on the
        log scale (the t interval of the log figures, mapped back: above zero, wider above than below,
        as the runs of a disk scatter; the tests are of the log figures too), a share of 0-100 % on
        the logit scale (a proportion's interval). Where that scale has no value for a figure (a run
        of zero IOPS, a CPU at exactly 0 or 100 %) the plain t interval is cut at the bounds, which
        keeps its coverage (the true value is never in the part cut off).
        """
        if self.spread is None:
            return None
        t = t_critical(self.spread.df, confidence)
        if self.percent:
            shares = [v / 100.0 for v in self.values]
            if all(0.0 < v < 1.0 for v in shares):
                logits = [math.log(v / (1.0 - v)) for v in shares]
                middle, half = fmean(logits), t * stdev(logits) / math.sqrt(len(logits))
                return 100.0 * _expit(middle - half), 100.0 * _expit(middle + half)
            low, high = self.spread.interval(self.mean, confidence)
            return max(0.0, low), min(100.0, high)
        if self.logs is not None:
            middle, half = fmean(self.logs), t * stdev(self.logs) / math.sqrt(len(self.logs))
            return math.exp(middle - half), math.exp(middle + half)
        low, high = self.spread.interval(self.mean, confidence)
        return max(0.0, low), high

    def to_json(self, confidence: float = CONFIDENCE) -> dict[str, Any]:
        ci = self.interval(confidence)
        return {
            "value": self.value,
            "aggregate": self.aggregate if self.n > 1 else "single",
            "aggregation": self.aggregation,
            "mean": self.mean,
            "n": self.n,
            "values": list(self.values),
            "stdev": self.stdev,
            "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None,
            "spread": self.spread.describe() if self.spread else None,
            "noise_pct": self.noise.relative_sd * 100 if self.noise else None,  # as the tests use it (pooled)
            "own_noise_pct": self.noise.own_relative_sd * 100 if self.noise else None,  # its own runs alone
            "noise": self.noise.describe() if self.noise else None,
            "steadiness_pct": self.steadiness * 100 if self.steadiness is not None else None,
        }


@dataclass(frozen=True)
class Delta:
    """A figure against the reference's: the difference, the verdict, and what decided it."""

    absolute: float
    relative_pct: float | None  # None when the reference is zero
    verdict: str  # one of VERDICTS; only BETTER and WORSE are claims
    beyond_tolerance: bool
    test: TestResult | None  # None where no run-to-run noise is known
    basis: str  # what decided it, short: "3 vs 3 runs, Welch p=0.004", "single runs"
    reason: str  # one sentence: the difference, the verdict and why
    hint: str | None = None  # how many runs would tell, where the noise is unknown
    runs: tuple[int, int] = (1, 1)  # reference's and other's
    known: KnownNoise | None = None  # the noise earlier runs showed, where single runs cannot measure it

    @property
    def claim(self) -> bool:
        return self.verdict in CLAIMS

    def to_json(self) -> dict[str, Any]:
        return {
            "absolute": self.absolute,
            "relative_pct": self.relative_pct,
            "verdict": self.verdict,
            "claim": self.claim,
            "beyond_tolerance": self.beyond_tolerance,
            "decided_by": self.basis,
            "test": self.test.method if self.test else None,
            "p_value": self.test.p_value if self.test else None,
            "runs": list(self.runs),
            "reason": self.reason,
            "hint": self.hint,
        }


def fmt_p(p: float) -> str:
    """A p-value as a table shows it."""
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.3f}" if p < 0.1 else f"p={p:.2f}"


def judge(metric: Metric, reference: Figure, other: Figure, tolerance_pct: float, alpha: float = ALPHA,
          hint: str | None = None, known: KnownNoise | None = None) -> Delta:
    """Compare `other` with `reference` for `metric`: a verdict, and what decided it.

    `hint` says how many runs would tell where single runs cannot; `known` is the noise earlier runs
    showed, which it rests on (None: nothing known, the hint says to repeat the runs)."""
    absolute = other.value - reference.value
    relative = absolute / reference.value * 100.0 if reference.value else (0.0 if absolute == 0 else None)
    beyond = abs(relative) > tolerance_pct if relative is not None else absolute != 0
    change = f"{relative:+.1f} %" if relative is not None else f"{absolute:+.4g} {metric.unit}"
    if reference.best or other.best:
        # The t-test is of the repetitions' means: so is the size the tolerance is held against.
        # The best-of difference is shown; what is claimed rests on the means.
        on_means = other.mean - reference.mean
        mean_rel = on_means / reference.mean * 100.0 if reference.mean else None
        beyond = abs(mean_rel) > tolerance_pct if mean_rel is not None else on_means != 0
        means = f"{mean_rel:+.1f} %" if mean_rel is not None else f"{on_means:+.4g} {metric.unit}"
        change = f"{change} ({reference.aggregation} vs {other.aggregation}; the means {means})"
    runs = (reference.n, other.n)
    if metric.context:
        return Delta(absolute, relative, CONTEXT, False, None, "context",
                     f"{change}: the whole machine's, with whatever else it ran: context, never a verdict", runs=runs)
    test = test_of(reference, other)
    if absolute == 0:
        return Delta(absolute, relative, NOISE, False, test, "no difference", "no difference", runs=runs)
    if test is None:
        if reference.logs is None or other.logs is None:
            basis = "zero figures: no relative test"
            reason = f"{change}: a figure of zero has no relative noise to test it against"
        else:
            basis = "single runs"
            reason = f"{change}: single runs cannot tell it from noise" + (f"; {hint}" if hint else "")
        return Delta(absolute, relative, UNKNOWN, beyond, None, basis, reason, hint, runs, known)
    basis = f"{runs[0]} vs {runs[1]} runs, {test.method} {fmt_p(test.p_value)}"
    if not test.significant(alpha):
        return Delta(absolute, relative, NOISE, beyond, test, basis,
                     f"{change} is within the run-to-run noise ({basis})", runs=runs)
    if not beyond:
        return Delta(absolute, relative, SMALL, False, test, basis,
                     f"{change} is real by the noise ({basis}) but within the ±{tolerance_pct:g} % tolerance",
                     runs=runs)
    improved = (absolute > 0) == metric.higher_is_better
    return Delta(absolute, relative, BETTER if improved else WORSE, True, test, basis,
                 f"{change} is beyond the ±{tolerance_pct:g} % tolerance and the run-to-run noise ({basis})",
                 runs=runs)


def test_of(reference: Figure, other: Figure) -> TestResult | None:
    """The t-test of the two figures' log means, where run-to-run noise is known on either side."""
    a, b = reference, other
    if a.logs is None or b.logs is None:
        return None
    if a.noise is not None and b.noise is not None:
        return welch_of(a.logs, a.noise, b.logs, b.noise)
    if a.noise is not None and b.n == 1:
        return prediction(b.logs[0], a.logs, a.noise, single_is_b=True)
    if b.noise is not None and a.n == 1:
        return prediction(a.logs[0], b.logs, b.noise, single_is_b=False)
    return None


test_of.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, whatever the name suggests


@dataclass(frozen=True)
class KnownNoise:
    """How much a figure varied in earlier runs (labtui.analysis.known_noise): a hint, never a verdict."""

    relative_sd: float  # run-to-run standard deviation, as a fraction of the figure
    runs: int  # the earlier runs it rests on
    source: str  # where it comes from, as a phrase: "in 12 earlier runs of quick-sanity on this disk"

    def runs_needed(self, change: float = HINT_CHANGE) -> int | None:
        """Runs per side that would tell a `change` (0.10: 10 %) with this noise; None: more than 100."""
        return runs_needed(self.relative_sd, change)

    def hint(self, change: float = HINT_CHANGE) -> str:
        return hint_from(self.relative_sd, self.source, change)


def hint_from(relative_sd: float, source: str, change: float = HINT_CHANGE) -> str:
    """The sample-size hint for a figure whose noise is known from elsewhere (earlier runs)."""
    n = runs_needed(relative_sd, change)
    runs = f"about {n} runs each" if n is not None else "more than 100 runs each"
    return f"{runs} would tell a {change * 100:.0f} % change (noise {relative_sd * 100:.1f} % {source})"



def figure_of(metric: Metric, members: Sequence[StepResult], aggregate: str = "mean") -> Figure | None:
    done = [m for m in members if m.status == "completed"]
    pairs = [(v, m) for v, m in ((metric.value(m), m) for m in done) if v is not None and math.isfinite(v)]
    if not pairs:
        return None
    values = [v for v, _ in pairs]
    logs = log_values(values)
    cvs = [c for c in (steadiness(interval_series(metric, m)) for _, m in pairs) if c is not None]
    return Figure(headline(metric, values, aggregate), tuple(values), spread_of_repetitions(values),
                  tuple(logs) if logs is not None else None,
                  noise_of(logs) if logs is not None else None,
                  median(cvs) if cvs else None, aggregate, metric.percent)


