"""Statistics for benchmark figures: Student's t, confidence intervals, Welch's test, within-run spread.

Pure Python (no scipy): the t distribution comes from the regularized incomplete beta function,
which also serves non-integer degrees of freedom (Welch-Satterthwaite). Two sources of spread:

- repetitions of a step (a profile's `repeat`): independent runs, so the textbook standard
  error s / sqrt(n) with n - 1 degrees of freedom holds;
- the per-interval samples of one run: consecutive intervals are autocorrelated (a slow second
  tends to follow a slow second), so s / sqrt(n) would be too optimistic. The series is treated
  as a stationary AR(1) process: with lag-1 autocorrelation r the effective number of
  independent values is n (1 - r) / (1 + r). This spread says how steady the run was; it says
  nothing about run-to-run variation (file placement, the drive's state, other load), which
  only repetitions measure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev
from typing import Sequence

CONFIDENCE = 0.95
ALPHA = 0.05  # two-sided significance level of the tests
MIN_INTERVALS = 5  # fewer interval samples say too little about a run's spread
MAX_AUTOCORRELATION = 0.9  # beyond this the AR(1) correction is itself unreliable; cap it

REPETITIONS = "repetitions"
INTERVALS = "intervals"


# --------------------------------------------------------------------------- the t distribution


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError("betainc needs a > 0 and b > 0")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    # The continued fraction converges fast only for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    # Modified Lentz evaluation of the continued fraction for I_x(a, b) (Numerical Recipes 6.4).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` (> 0, not necessarily whole) degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    if math.isinf(df):
        return NormalDist().cdf(t)
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_sf_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|): the two-sided p-value of a t statistic."""
    if math.isinf(df):
        return 2.0 * NormalDist().cdf(-abs(t))
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """The t value below which a fraction `p` of Student's t with `df` degrees of freedom lies."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be strictly between 0 and 1")
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    if math.isinf(df) or df > 1e7:
        return NormalDist().inv_cdf(p)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    # The t quantile is at least the normal one; widen until it is bracketed, then bisect.
    lo = NormalDist().inv_cdf(p)
    hi = max(2.0 * lo, 1.0)
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def t_critical(df: float, confidence: float = CONFIDENCE) -> float:
    """The two-sided critical value: mean +- this x standard error covers `confidence`."""
    return t_quantile(0.5 + confidence / 2.0, df)


# --------------------------------------------------------------------------- spread of a figure


@dataclass(frozen=True)
class Spread:
    """How precisely a figure is known: the standard error of its mean and the t's freedom."""

    basis: str  # REPETITIONS or INTERVALS
    n: int  # how many values (repetitions or interval samples)
    mean: float  # of those values
    stdev: float  # sample standard deviation of the values
    stderr: float  # standard error of the mean (autocorrelation-corrected for intervals)
    df: float  # degrees of freedom for Student's t
    autocorrelation: float | None = None  # lag-1, intervals only (after capping)

    @property
    def effective_n(self) -> float:
        """Independent values the spread is worth (n for repetitions, less for intervals)."""
        return self.df + 1.0

    def half_width(self, confidence: float = CONFIDENCE) -> float:
        """Half the width of the confidence interval of the mean."""
        return t_critical(self.df, confidence) * self.stderr

    def interval(self, center: float | None = None, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The confidence interval around `center` (default: the mean of the values)."""
        middle = self.mean if center is None else center
        width = self.half_width(confidence)
        return middle - width, middle + width

    def short(self) -> str:
        """A few words for a table cell."""
        if self.basis == REPETITIONS:
            return f"{self.n} repetitions"
        return f"{self.n} intervals (~{self.effective_n:.1f} independent)"

    def describe(self) -> str:
        """What the spread comes from and what it assumes, for a person reading the output."""
        if self.basis == REPETITIONS:
            return f"{self.n} repetitions (t-distribution, {self.n - 1} df)"
        return (
            f"{self.n} interval samples, lag-1 autocorrelation {self.autocorrelation:.2f}, "
            f"worth {self.effective_n:.1f} independent values (AR(1) assumption)"
        )


def spread_of_repetitions(values: Sequence[float]) -> Spread | None:
    """The spread of independent repetitions; None with fewer than two."""
    clean = [v for v in values if v is not None and math.isfinite(v)]
    if len(clean) < 2:
        return None
    n = len(clean)
    sd = stdev(clean)
    return Spread(REPETITIONS, n, fmean(clean), sd, sd / math.sqrt(n), float(n - 1))


def lag1_autocorrelation(values: Sequence[float]) -> float:
    """The lag-1 sample autocorrelation (0 for a constant series)."""
    n = len(values)
    if n < 2:
        return 0.0
    m = fmean(values)
    dev = [v - m for v in values]
    denominator = sum(d * d for d in dev)
    if denominator == 0:
        return 0.0
    return sum(dev[i] * dev[i + 1] for i in range(n - 1)) / denominator


def spread_of_intervals(values: Sequence[float]) -> Spread | None:
    """The spread of one run's interval samples, corrected for autocorrelation (AR(1)).

    Negative autocorrelation would shrink the error; it is treated as zero, which errs on the
    side of calling a difference noise. None with fewer than MIN_INTERVALS samples.
    """
    clean = [v for v in values if v is not None and math.isfinite(v)]
    n = len(clean)
    if n < MIN_INTERVALS:
        return None
    r = min(max(lag1_autocorrelation(clean), 0.0), MAX_AUTOCORRELATION)
    effective = n * (1.0 - r) / (1.0 + r)
    sd = stdev(clean)
    return Spread(INTERVALS, n, fmean(clean), sd, sd / math.sqrt(effective), max(effective - 1.0, 1.0), r)


# --------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class TestResult:
    """A two-sided test of "no difference": the statistic, its freedom and the p-value."""

    __test__ = False  # not a pytest class, whatever the name suggests

    method: str
    statistic: float
    df: float
    p_value: float

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_value < alpha


def welch(a_mean: float, a: Spread, b_mean: float, b: Spread) -> TestResult:
    """Welch's unequal-variances t-test of b_mean - a_mean, from each side's standard error.

    The means are passed separately so a run's exact-count figure can be tested with the
    spread of its intervals.
    """
    va, vb = a.stderr**2, b.stderr**2
    diff = b_mean - a_mean
    method = f"Welch's t-test ({_basis_words(a)} vs {_basis_words(b)})"
    if va + vb == 0:
        # No spread at all on either side: any difference is certain, none is none.
        return TestResult(method, 0.0 if diff == 0 else math.copysign(math.inf, diff), math.inf, 1.0 if diff == 0 else 0.0)
    statistic = diff / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va * va / a.df if va else 0.0) + (vb * vb / b.df if vb else 0.0))
    return TestResult(method, statistic, df, t_sf_two_sided(statistic, df))


def single_against(value: float, others: Spread, others_mean: float | None = None) -> TestResult:
    """Is one run's `value` out of line with repeated runs? (A prediction-interval t-test.)

    Under "nothing changed" the single run comes from the repetitions' distribution, so
    (mean - value) / (s * sqrt(1 + 1/n)) follows t with n - 1 df. Assumes the single run
    varies as much as each of the repetitions does.
    """
    center = others.mean if others_mean is None else others_mean
    method = f"t-test of one run against {_basis_words(others)} (assumes equal spread)"
    scale = others.stdev * math.sqrt(1.0 + 1.0 / others.n)
    diff = center - value
    if scale == 0:
        return TestResult(method, 0.0 if diff == 0 else math.copysign(math.inf, diff), others.df, 1.0 if diff == 0 else 0.0)
    statistic = diff / scale
    return TestResult(method, statistic, others.df, t_sf_two_sided(statistic, others.df))


def _basis_words(spread: Spread) -> str:
    return f"{spread.n} repetitions" if spread.basis == REPETITIONS else f"{spread.n} intervals"
