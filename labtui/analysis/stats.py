"""Statistics for benchmark figures: Student's t, run-to-run noise pooled across steps, tests, sample sizes.

Pure Python (no scipy): the t distribution comes from the regularized incomplete beta function,
which also serves non-integer degrees of freedom (Welch-Satterthwaite).

Only repetitions (independent runs of a step) measure run-to-run noise, and only that noise can
show a difference to be real. Noise is relative (a disk that varies 3 % at 50,000 IOPS varies
about 3 % at 45,000), so tests work on the logarithms of the figures. With few runs a step's
own variance is a poor estimate (3 runs: 2 degrees of freedom), so the steps of one result share
what they know: each step's variance is moderated toward the result's typical one, by as much
as the steps' variances agree (empirical Bayes, Smyth 2004, limma's moderated t), and never
below the step's own estimate (a noisy step is not made to look quiet by its quiet neighbours).

A run's per-interval samples tell how steady it was (their coefficient of variation); they say
nothing about how much runs differ from each other (file placement, the drive's state, other
load), so they never decide a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean

CONFIDENCE = 0.95
ALPHA = 0.05  # two-sided significance level of the tests
MIN_INTERVALS = 3  # fewer interval samples say nothing about how steady a run was


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


def t_pdf(t: float, df: float) -> float:
    """The density of Student's t with `df` degrees of freedom."""
    log_c = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1.0) / 2.0 * math.log1p(t * t / df))


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
    # The t quantile is at least the normal one; widen until it is bracketed, then Newton's
    # method inside the bracket (bisecting wherever a step would leave it).
    lo = NormalDist().inv_cdf(p)
    hi = max(2.0 * lo, 1.0)
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    x = 0.5 * (lo + hi)
    for _ in range(200):
        f = t_cdf(x, df) - p
        if f < 0:
            lo = x
        else:
            hi = x
        step = f / t_pdf(x, df)
        nxt = x - step
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if abs(nxt - x) <= 1e-13 * max(1.0, abs(x)) or hi - lo <= 1e-13 * max(1.0, hi):
            return nxt
        x = nxt
    return x


def t_critical(df: float, confidence: float = CONFIDENCE) -> float:
    """The two-sided critical value: mean +- this x standard error covers `confidence`."""
    return t_quantile(0.5 + confidence / 2.0, df)


# --------------------------------------------------------------------------- digamma and trigamma


def digamma(x: float) -> float:
    """psi(x) for x > 0: the recurrence up to x >= 6, then the asymptotic series."""
    result = 0.0
    while x < 6.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (-1 / 12 + f * (1 / 120 + f * (-1 / 252 + f * (1 / 240 + f * (-1 / 132)))))
    return result + math.log(x) - 0.5 / x + series


def trigamma(x: float) -> float:
    """psi'(x) for x > 0."""
    result = 0.0
    while x < 6.0:
        result += 1.0 / (x * x)
        x += 1.0
    f = 1.0 / (x * x)
    series = 1.0 / x + f / 2.0 + f / x * (1 / 6 + f * (-1 / 30 + f * (1 / 42 + f * (-1 / 30 + f * 5 / 66))))
    return result + series


def trigamma_inverse(y: float) -> float:
    """The x > 0 with psi'(x) = y (psi' falls steadily from +inf to 0)."""
    if not y > 0:
        raise ValueError("trigamma takes only positive values")
    lo, hi = 1e-8, 1e8
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if trigamma(mid) > y:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1.0 + 1e-12:
            break
    return math.sqrt(lo * hi)


# --------------------------------------------------------------------------- the spread of repetitions


def variance(values: Sequence[float]) -> float:
    """The sample variance in plain floats (statistics.variance is exact, and hundreds of times slower)."""
    n = len(values)
    if n < 2:
        raise ValueError("a variance needs two values")
    mean = math.fsum(values) / n
    return math.fsum((v - mean) ** 2 for v in values) / (n - 1)


def stdev(values: Sequence[float]) -> float:
    return math.sqrt(variance(values))


@dataclass(frozen=True)
class Spread:
    """How precisely repetitions fix a figure's mean: standard deviation, standard error, t's freedom."""

    n: int
    mean: float
    stdev: float
    stderr: float
    df: float

    def half_width(self, confidence: float = CONFIDENCE) -> float:
        """Half the width of the confidence interval of the mean."""
        return t_critical(self.df, confidence) * self.stderr

    def interval(self, center: float | None = None, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The confidence interval around `center` (default: the mean of the values)."""
        middle = self.mean if center is None else center
        width = self.half_width(confidence)
        return middle - width, middle + width

    def describe(self) -> str:
        return f"{self.n} repetitions (t-distribution, {self.n - 1} df)"


def spread_of_repetitions(values: Sequence[float]) -> Spread | None:
    """The spread of independent repetitions; None with fewer than two."""
    clean = [v for v in values if v is not None and math.isfinite(v)]
    if len(clean) < 2:
        return None
    n = len(clean)
    sd = stdev(clean)
    return Spread(n, fmean(clean), sd, sd / math.sqrt(n), float(n - 1))


def steadiness(series: Sequence[float]) -> float | None:
    """How much one run's interval samples vary: their coefficient of variation (None if too few).

    A description of the run, not a measure of run-to-run noise: it never decides a verdict.
    """
    clean = [v for v in series if v is not None and math.isfinite(v)]
    if len(clean) < MIN_INTERVALS:
        return None
    mean = fmean(clean)
    return stdev(clean) / abs(mean) if mean else None


# --------------------------------------------------------------------------- run-to-run noise


def log_values(values: Sequence[float]) -> list[float] | None:
    """The natural logarithms of positive figures; None if any is zero or negative."""
    if any(not (v > 0 and math.isfinite(v)) for v in values):
        return None
    return [math.log(v) for v in values]


@dataclass(frozen=True)
class Prior:
    """What the steps of one result say together about its relative noise (empirical Bayes).

    `variance` is the typical variance of a step's log figures; `df` how many degrees of
    freedom that is worth to each step: infinite when the steps' variances agree as well as
    chance allows, small when they clearly differ. `total_df` caps what pooling can give.
    """

    variance: float
    df: float
    steps: int
    total_df: float


def noise_prior(estimates: Sequence[tuple[float, float]]) -> Prior | None:
    """The prior from the steps' (variance, degrees of freedom) pairs (Smyth 2004, section 6.2).

    Each log sample variance scatters around the log of its true variance by trigamma(d/2) (its
    sampling noise); what the steps' log variances scatter beyond that is how much the steps
    truly differ, and fixes the prior's degrees of freedom. None with fewer than two steps.
    """
    pairs = [(v, d) for v, d in estimates if d > 0 and v > 0 and math.isfinite(v)]
    if len(pairs) < 2:
        return None
    e = [math.log(v) - digamma(d / 2) + math.log(d / 2) for v, d in pairs]
    mean_e = fmean(e)
    spread = sum((x - mean_e) ** 2 for x in e) / (len(e) - 1)
    excess = spread - fmean([trigamma(d / 2) for _, d in pairs])
    total = float(sum(d for _, d in pairs))
    if excess > 0:
        d0 = 2.0 * trigamma_inverse(excess)
        s0 = math.exp(mean_e + digamma(d0 / 2) - math.log(d0 / 2))
        return Prior(s0, d0, len(pairs), total)
    return Prior(math.exp(mean_e), math.inf, len(pairs), total)


@dataclass(frozen=True)
class Noise:
    """The run-to-run noise of one figure: the variance of its log values and what it rests on."""

    variance: float  # used in tests: the moderated one, never below `own`
    df: float
    runs: int  # the figure's own runs
    own: float  # the variance of the figure's own runs alone
    pooled_steps: int = 1  # steps whose variances informed it (1: its own runs only)

    @property
    def relative_sd(self) -> float:
        """The run-to-run standard deviation as a fraction of the figure (about its CV), as the tests use it
        (pooled with the result's other steps where it was)."""
        return math.sqrt(math.expm1(self.variance))

    @property
    def own_relative_sd(self) -> float:
        """The same of the figure's own runs alone: how much this step varied (what a table shows of it)."""
        return math.sqrt(math.expm1(self.own))

    def describe(self) -> str:
        own = f"{self.runs} runs"
        if self.pooled_steps > 1:
            return f"{own}, noise pooled across {self.pooled_steps} steps ({self.df:.0f} df)"
        return f"{own} ({self.df:.0f} df)"


def noise_of(logs: Sequence[float], prior: Prior | None = None) -> Noise | None:
    """A figure's noise from the logs of its runs, moderated by its result's prior; None for one run."""
    n = len(logs)
    if n < 2:
        return None
    own = variance(logs)
    df = float(n - 1)
    if prior is None:
        return Noise(own, df, n, own)
    moderated, pooled_df = moderate(own, df, prior)
    return Noise(moderated, pooled_df, n, own, prior.steps)


def moderate(own: float, df: float, prior: Prior | None) -> tuple[float, float]:
    """A step's variance and degrees of freedom after pooling with its result's prior.

    Shrunk toward the prior's variance by their degrees of freedom, and never below the step's
    own: a step noisier than its neighbours keeps its own variance, and then only its own
    degrees of freedom (claiming the pool's would make a noisy step look better known than it is).
    """
    if prior is None:
        return own, df
    if math.isinf(prior.df):
        shrunk, total = prior.variance, prior.total_df
    else:
        shrunk = (prior.df * prior.variance + df * own) / (prior.df + df)
        total = min(prior.df + df, prior.total_df)
    if own >= shrunk:
        return own, df
    return shrunk, max(total, df)


# --------------------------------------------------------------------------- tests


@dataclass(frozen=True)
class TestResult:
    """A t-test of "no difference" between two log means: the statistic, its freedom, p-values."""

    __test__ = False  # not a pytest class, whatever the name suggests

    method: str
    statistic: float  # of (b - a); positive when b is higher
    df: float
    p_value: float  # two-sided
    stderr: float = 0.0  # of the difference of the log means

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_value < alpha

    def p_higher(self) -> float:
        """One-sided p-value for "b is higher than a"."""
        return _upper_tail(self.statistic, self.df)

    def p_lower(self) -> float:
        """One-sided p-value for "b is lower than a"."""
        return _upper_tail(-self.statistic, self.df)


def _upper_tail(t: float, df: float) -> float:
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    return 1.0 - t_cdf(t, df)


def _t_test(method: str, diff: float, variance: float, df: float) -> TestResult:
    if variance == 0:
        # No spread at all: any difference is certain, none is none.
        return TestResult(method, 0.0 if diff == 0 else math.copysign(math.inf, diff), math.inf,
                          1.0 if diff == 0 else 0.0)
    statistic = diff / math.sqrt(variance)
    return TestResult(method, statistic, df, t_sf_two_sided(statistic, df), math.sqrt(variance))


def welch(a_mean: float, a_se2: float, a_df: float, b_mean: float, b_se2: float, b_df: float,
          method: str = "Welch") -> TestResult:
    """Welch's unequal-variances t-test of b_mean - a_mean from each side's squared standard error."""
    total = a_se2 + b_se2
    if total == 0:
        return _t_test(method, b_mean - a_mean, 0.0, math.inf)
    df = total**2 / ((a_se2**2 / a_df if a_se2 else 0.0) + (b_se2**2 / b_df if b_se2 else 0.0))
    return _t_test(method, b_mean - a_mean, total, df)


def welch_of(a_logs: Sequence[float], a: Noise, b_logs: Sequence[float], b: Noise) -> TestResult:
    """Welch's test of two figures' log means with their (moderated) noise: b against a."""
    return welch(fmean(a_logs), a.variance / a.runs, a.df, fmean(b_logs), b.variance / b.runs, b.df)


def prediction(single: float, logs: Sequence[float], noise: Noise, single_is_b: bool = True) -> TestResult:
    """Is one run out of line with repeated runs? A prediction t-test on the logs.

    Under "nothing changed" the single run is one more draw from the repetitions' distribution,
    so (x - mean) / sqrt(s^2 (1 + 1/n)) follows t with the noise's degrees of freedom. Assumes
    the single run varies as much as each of the repetitions does.
    """
    diff = single - fmean(logs) if single_is_b else fmean(logs) - single
    return _t_test("prediction", diff, noise.variance * (1.0 + 1.0 / noise.runs), noise.df)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values: reject where adjusted p < alpha keeps the family's error at alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# --------------------------------------------------------------------------- how many runs


def runs_needed(relative_sd: float, change: float, *, alpha: float = ALPHA, power: float = 0.8,
                one_sided: bool = False, fixed: int | None = None, limit: int = 100,
                rise: bool = False) -> int | None:
    """Runs per side (or, with `fixed`, on the other side of `fixed` runs) to tell a relative `change`.

    A t-test of the log means with `relative_sd` noise tells a drop of `change` (0.10 = 10 %;
    with `rise`, a rise of it) with probability `power`. None if even `limit` runs would not (a
    `fixed` side too small).
    """
    if relative_sd <= 0:
        return 2
    sd = math.sqrt(math.log1p(relative_sd**2))
    change = abs(change)
    if not rise and change >= 1.0:
        return 2  # a drop of 100 % or more: nothing left, any run tells
    delta = math.log1p(change) if rise else -math.log1p(-change)
    q = 1.0 - (alpha if one_sided else alpha / 2.0)
    for n in range(2, limit + 1):
        if fixed is None:
            se, df = sd * math.sqrt(2.0 / n), 2.0 * n - 2.0
        else:
            se, df = sd * math.sqrt(1.0 / fixed + 1.0 / n), max(fixed + n - 2.0, 1.0)
        if delta / se >= t_quantile(q, df) + t_quantile(power, df):
            return n
    return None
