"""A re-run judged against its baseline: PASS, FAIL or cannot tell, line by line, with what decided each.

The question `labtui check` answers is "did this disk get slower?", so it tests one primary
metric per step (throughput for I/O steps, wall time for command steps), one-sided, in the
regression direction. Latency and CPU are shown and only fail when asked for (`fail_on`).
All the tested lines form one family: Holm's correction keeps the chance that an unchanged disk
fails anywhere at `alpha` (0.5 %), however many steps the profile has.

A line FAILs when its regression is larger than the tolerance and significant after the
correction. It is doubtful (`PASS?`) when it regressed beyond the tolerance without being
significant, or is significant on its own and beyond half the tolerance: the caller confirms
those with fresh runs, judged on their own (the first pass was picked for looking bad, so its
evidence is spent). A line PASSes when a regression the size of the tolerance would have shown
(the test's power), or when the runs themselves bound it: with 95 % confidence the re-run is not
worse by the tolerance (the one-sided confidence bound of a non-inferiority test; all lines must
hold, an intersection-union test, so no family correction is owed). A line is NOISY when neither
holds: its noise is so large that a regression of the tolerance could hide in it. The check then
cannot tell, and says how many runs would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from labtui.analysis import drive_run
from labtui.analysis.comparison import Comparison, StepGroup, compare, pooled
from labtui.analysis.figures import Delta, Figure, fmt_p
from labtui.analysis.metrics import ENGINE_CPU, LATENCY_MEAN, LATENCY_P99, Metric, primary
from labtui.analysis.stats import ALPHA, TestResult, holm, moderate, noise_prior, runs_needed, t_quantile, t_sf_two_sided
from labtui.errors import ValidationError
from labtui.model.result import RunResult

# The family's error: 0.5 % nominal, so that with the approximations (noise pooled across steps
# whose noise differs, t-tests on few runs) an unchanged disk still fails fewer than 1 check in
# 100 at every noise level benchmarks/verdicts.py tries (at 1 % it reached 1.25 %).
CHECK_ALPHA = 0.005
TRIGGER_P = 0.05  # significant on its own at this level (and beyond half the tolerance): confirm it
DETECT_POWER = 0.8  # the runs hint: runs that would see a regression of the tolerance this often
PASS, FAIL, INFO, DOUBT, NOISY = "PASS", "FAIL", "INFO", "PASS?", "NOISY"
PASSED, FAILED, INCONCLUSIVE = "pass", "fail", "cannot tell"
FAIL_ON = {"latency": LATENCY_MEAN, "p99": LATENCY_P99, "cpu": ENGINE_CPU}  # cpu: the engine's own, never the machine's


def parse_fail_on(names: Sequence[str]) -> tuple[Metric, ...]:
    """The extra metrics --fail-on names ("p99,latency" or repeated); ValidationError for an unknown one."""
    metrics = []
    if any(not item.replace(",", "").strip() for item in names):  # "" quietly asked for nothing more
        raise ValidationError("is empty: give a metric (" + ", ".join(FAIL_ON) + ") or leave the option out", "--fail-on")
    for name in (n.strip().lower() for item in names for n in item.split(",")):
        if not name:
            continue
        if name not in FAIL_ON:
            raise ValidationError(f"unknown metric {name!r} (choose from {', '.join(FAIL_ON)})", "--fail-on")
        if FAIL_ON[name] not in metrics:
            metrics.append(FAIL_ON[name])
    return tuple(metrics)


@dataclass(frozen=True)
class CheckLine:
    """One metric of one step in a check, and its outcome (PASS, FAIL, PASS?, NOISY or INFO)."""

    group: StepGroup
    metric: Metric
    baseline: Figure | None
    current: Figure | None
    delta: Delta | None
    outcome: str
    reason: str  # what decided the outcome, one line
    gating: bool  # tested for a regression (a primary metric, or one --fail-on asked for)
    p_worse: float | None = None  # one-sided p-value of "it got worse"
    p_adjusted: float | None = None  # after Holm's correction over the family
    unseen_pct: float | None = None  # a regression this large (%) would go unseen half the time
    bound_pct: float | None = None  # with 95 % confidence (one-sided) it is worse by at most this (%)
    noise_pct: float | None = None  # the run-to-run noise the test used (relative sd, %)
    test: TestResult | None = None  # the check's own one-sided test (gating lines)
    bounded: bool = False  # a PASS the confidence bound decided (the test alone could not have seen the tolerance)

    @property
    def measurably_worse(self) -> bool:
        """Worse, and beyond the noise on its own (two-sided 5 %), whatever the tolerance says."""
        return self.test is not None and self.test.p_value < ALPHA and (self.regression_pct or 0) > 0

    @property
    def regression_pct(self) -> float | None:
        """How much worse, in percent of the baseline (negative: it got better)."""
        if self.delta is None or self.delta.relative_pct is None:
            return None
        return -self.delta.relative_pct if self.metric.higher_is_better else self.delta.relative_pct


@dataclass(frozen=True)
class RunsNeeded:
    """The runs that would tell a regression of the tolerance, sized by the noisiest unclear line."""

    noise_pct: float  # that line's run-to-run noise
    change_pct: float  # the regression to tell: the tolerance
    base: int  # the baseline's runs per step
    rerun: int | None  # re-runs against this baseline that would (None: it has too few runs for that)
    each: int | None  # else runs per side, baseline and re-run (None: even 100 would not, or `rerun` says it)
    baseline_id: str

    @property
    def more(self) -> int:
        """Runs `labtui baseline --more` adds to reach `each`."""
        return max((self.each or 0) - self.base, 1)

    @property
    def commands(self) -> str | None:
        """The commands that run them: "`labtui check --repeat 9`"; None where no number would do."""
        if self.rerun is not None:
            return f"`labtui check --repeat {self.rerun}`"
        if self.each is not None:
            return (f"`labtui baseline {self.baseline_id} --more {self.more}`, then "
                    f"`labtui check --repeat {self.each}`")
        return None

    def hint(self) -> str:
        if self.rerun is not None:
            return f"about {self.rerun} re-runs against this {self.base}-run baseline would (--repeat {self.rerun})"
        if self.each is not None:
            return (f"about {self.each} runs each, baseline and re-run, would (labtui baseline {self.baseline_id} "
                    f"--more {self.more}; labtui check --repeat {self.each})")
        return "not even 100 runs each would: shorten the noise (a quieter machine, longer steps)"


@dataclass(frozen=True)
class CheckReport:
    comparison: Comparison
    lines: tuple[CheckLine, ...]
    tolerance_pct: float
    alpha: float = CHECK_ALPHA
    # What fails the check whatever the figures say: the link came up slower than the baseline's, or PCIe
    # errors were counted during the re-run (after a card swap, that is the regression: hardware()).
    hardware: tuple[str, ...] = ()

    def _with(self, outcome: str) -> tuple[CheckLine, ...]:
        return tuple(line for line in self.lines if line.outcome == outcome)

    @property
    def failures(self) -> tuple[CheckLine, ...]:
        return self._with(FAIL)

    @property
    def doubtful(self) -> tuple[CheckLine, ...]:
        return self._with(DOUBT)

    @property
    def noisy(self) -> tuple[CheckLine, ...]:
        return self._with(NOISY)

    @property
    def gating(self) -> tuple[CheckLine, ...]:
        return tuple(line for line in self.lines if line.gating)

    @property
    def outcome(self) -> str:
        """FAILED if a line failed or the hardware did; INCONCLUSIVE if one is doubtful or too noisy; else PASSED."""
        if self.failures or self.hardware:
            return FAILED
        if self.doubtful or self.noisy or not any(line.outcome == PASS for line in self.gating):
            return INCONCLUSIVE
        return PASSED

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED

    @property
    def needs_confirmation(self) -> bool:
        """A failure or a doubtful line: fresh runs should tell whether it reproduces."""
        return bool(self.failures or self.doubtful)

    def second_pass(self) -> str:
        """Why this first pass asks for more runs, as a clause: what looked worse, or what was noisy."""
        if self.needs_confirmation:
            what, more = _changes(self.failures + self.doubtful, ", ")
            return f"the first pass looks worse ({what}{more and ' ' + more})"
        noisy = [l for l in self.noisy if l.noise_pct is not None]
        if not noisy:
            return "the first pass cannot tell"
        worst = _noisiest(noisy)
        return (f"the first pass is too noisy to tell ({worst.group.name} {worst.metric.label} varies "
                f"{worst.noise_pct:.0f} % from run to run)")

    @property
    def runs(self) -> tuple[int, int]:
        """Runs per step of the baseline and of the re-run (the most of any step)."""
        return (max((l.baseline.n for l in self.gating if l.baseline), default=0),
                max((l.current.n for l in self.gating if l.current), default=0))

    def runs_needed(self) -> RunsNeeded | None:
        """How many runs would tell a regression of the tolerance where this check could not (None:
        nothing unclear, or no noise known to size it by). The one figure every text of the check says."""
        noisy = [l for l in self.noisy + self.doubtful if l.noise_pct is not None]
        if not noisy:
            return None
        worst = _noisiest(noisy)
        k = max(len(self.gating), 1)
        sd, change = (worst.noise_pct or 0.0) / 100.0, max(self.tolerance_pct, 1.0) / 100.0
        base = self.runs[0]
        rise = not worst.metric.higher_is_better
        more = runs_needed(sd, change, alpha=self.alpha / k, power=DETECT_POWER, one_sided=True, fixed=base,
                           rise=rise) if base >= 2 else None
        each = None if more is not None else runs_needed(sd, change, alpha=self.alpha / k, power=DETECT_POWER,
                                                         one_sided=True, rise=rise)
        marked = self.comparison.results[0].id.split("+")[0]  # a pooled baseline is named after its runs
        return RunsNeeded(worst.noise_pct or 0.0, change * 100.0, base, more, each, marked)

    def runs_hint(self) -> str | None:
        """How many runs would tell a regression of the tolerance where this check could not, as a clause."""
        needed = self.runs_needed()
        return needed.hint() if needed is not None else None

    @property
    def method(self) -> str:
        """How the check decides, in one paragraph (behind --explain)."""
        return (
            "A check asks \"did this disk get slower?\": it tests one figure per step (throughput; wall time for "
            "a command step) for a regression, one-sided; latency and CPU are shown and only fail when --fail-on "
            f"names them. The tested lines form one family: Holm's correction keeps the chance that an unchanged "
            f"disk fails anywhere at {self.alpha * 100:g} %, however many steps there are. Each step's two sides "
            "share one variance (Student's t on the log figures), moderated toward the other steps' (never below "
            f"its own). A line FAILs when it is slower by more than the ±{self.tolerance_pct:g} % tolerance and "
            "significant after the correction. One that looks slower without that is confirmed by fresh runs "
            "judged on their own (the first pass was picked for looking bad, so its evidence is spent). A line "
            "PASSes when a regression of the tolerance would have shown, or when its runs bound it below the "
            "tolerance with 95 % confidence (a non-inferiority bound); it is too noisy to tell when neither holds."
        )

    def summary(self, method: bool = True) -> str:
        """The verdict line: PASS, FAIL or CANNOT TELL, with what it rests on (`method`: and how the
        lines were tested together; the plain output leaves that to --explain)."""
        tolerance = f"±{self.tolerance_pct:g} % tolerance"
        family = (f"{len(self.gating)} line{'s' if len(self.gating) != 1 else ''} tested together "
                  f"(Holm, {self.alpha * 100:g} % family error), {self.runs[0]} vs {self.runs[1]} runs"
                  if method else f"{self.runs[0]} vs {self.runs[1]} runs")
        if self.hardware:
            lines = f"; and {len(self.failures)} line{'s' if len(self.failures) != 1 else ''} regressed" \
                if self.failures else ""
            return f"FAIL: {'; '.join(self.hardware)}{lines}; {family}"
        if self.failures:
            what, more = _changes(self.failures, "; ")
            n = len(self.failures)
            return (f"FAIL: {n} line{'s' if n != 1 else ''} regressed beyond the {tolerance} and the noise: "
                    f"{what}{more and f' ({more})'}; {family}")
        if self.outcome == INCONCLUSIVE:
            unclear = self.noisy + self.doubtful
            if not unclear:
                return "CANNOT TELL: the re-run has no figure to compare with the baseline"
            worst = _noisiest(unclear)
            noise = (f"{worst.group.name} {worst.metric.label} varies {worst.noise_pct:.1f} % from run to run"
                     if worst.noise_pct is not None else f"{worst.group.name} {worst.metric.label}: {worst.reason}")
            hint = self.runs_hint()
            return (f"CANNOT TELL: too noisy to tell a regression of the {tolerance} from noise in "
                    f"{len(unclear)} line{'s' if len(unclear) != 1 else ''} ({noise})"
                    + (f"; {hint}" if hint else "") + f"; {family}")
        small = [l for l in self.gating if l.outcome == PASS and l.measurably_worse]
        bounded = [l for l in self.gating if l.bounded and l.bound_pct is not None]
        text = f"PASS: no line regressed beyond the {tolerance}; {family}"
        if bounded:
            worst = max(bounded, key=lambda l: l.bound_pct or 0.0)
            n = len(bounded)
            name = f"{worst.group.name} {worst.metric.label}"
            text += (f"; {n} line{'s' if n != 1 else ''} too noisy to see a regression of the tolerance, "
                     + (f"yet its runs bound it: with 95 % confidence {name} is {_at_most(worst.bound_pct or 0.0)}"
                        if n == 1 else
                        f"yet their runs bound it: with 95 % confidence {_none_worse(worst.bound_pct or 0.0)} "
                        f"(the loosest bound: {name})"))
        if small:
            text += f"; {len(small)} got measurably worse, within the tolerance"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "outcome": self.outcome,
            "summary": self.summary(),
            "baseline": self.comparison.results[0].id,
            "result": self.comparison.results[-1].id,
            "tolerance_pct": self.tolerance_pct,
            "alpha": self.alpha,
            "runs": list(self.runs),
            "hint": self.runs_hint(),
            "hardware": list(self.hardware),
            "lines": [
                {
                    "step": line.group.name,
                    "label": line.group.label,
                    "metric": line.metric.key,
                    "gating": line.gating,
                    "baseline": line.baseline.value if line.baseline else None,
                    "current": line.current.value if line.current else None,
                    "relative_pct": line.delta.relative_pct if line.delta else None,
                    "verdict": line.delta.verdict if line.delta else None,
                    "p_worse": line.p_worse,
                    "p_adjusted": line.p_adjusted,
                    "unseen_pct": line.unseen_pct,
                    "bound_pct": line.bound_pct,
                    "noise_pct": line.noise_pct,
                    "outcome": line.outcome,
                    "reason": line.reason,
                }
                for line in self.lines
            ],
            "comparison": self.comparison.to_json(),
        }


def _changes(lines: Sequence[CheckLine], separator: str) -> tuple[str, str]:
    """The first three lines with their change ("Read 4K IOPS -12.0 %"), and "and N more" or ""."""
    what = separator.join(f"{l.group.name} {l.metric.label} {_change(l.delta)}" for l in lines[:3])
    return what, f"and {len(lines) - 3} more" if len(lines) > 3 else ""


def _noisiest(lines: Sequence[CheckLine]) -> CheckLine:
    return max(lines, key=lambda l: l.noise_pct or 0.0)


def _change(delta: Delta | None) -> str:
    if delta is None:
        return "missing"
    return f"{delta.relative_pct:+.1f} %" if delta.relative_pct is not None else f"{delta.absolute:+.4g}"


def _worse_p(metric: Metric, test: TestResult) -> float:
    return test.p_lower() if metric.higher_is_better else test.p_higher()


def _unseen(metric: Metric, test: TestResult, alpha: float) -> float:
    """The regression (%) on the edge of the test's rejection region: larger ones would mostly be seen."""
    edge = t_quantile(1.0 - alpha, test.df) * test.stderr
    return (1.0 - math.exp(-edge) if metric.higher_is_better else math.expm1(edge)) * 100.0


def _bound(metric: Metric, test: TestResult, level: float = ALPHA) -> float:
    """The regression (%) the re-run is worse by at most, with 1 - level confidence (one-sided).

    Negative when even the bound is an improvement. The test's statistic times its standard error
    is the difference of the log means (re-run minus baseline).
    """
    diff = test.statistic * test.stderr if test.stderr else 0.0
    margin = t_quantile(1.0 - level, test.df) * test.stderr if test.stderr else 0.0
    if metric.higher_is_better:
        return -math.expm1(diff - margin) * 100.0
    return math.expm1(diff + margin) * 100.0


def _tests(pairs: dict[int, tuple[Figure, Figure]]) -> dict[int, tuple[TestResult, float]]:
    """Each line's t-test of the re-run's log mean against the baseline's, with its relative noise.

    Under "nothing changed" the re-run varies as much as the baseline did, so each step's two
    sides share one variance (Student's t: more freedom than Welch's with three runs a side),
    and the steps' variances are moderated toward each other as labtui.analysis.stats describes.
    """
    own: dict[int, tuple[float, float]] = {}
    for i, (base, now) in pairs.items():
        a, b = base.logs or (), now.logs or ()
        df = (len(a) - 1) + (len(b) - 1)
        if df < 1:
            continue
        ss = sum((x - fmean(a)) ** 2 for x in a) + sum((x - fmean(b)) ** 2 for x in b)
        own[i] = (ss / df, float(df))
    prior = noise_prior(list(own.values()))
    out = {}
    for i, (variance, own_df) in own.items():
        base, now = pairs[i]
        a, b = base.logs or (), now.logs or ()
        moderated, freedom = moderate(variance, own_df, prior)
        diff = fmean(b) - fmean(a)
        se2 = moderated * (1.0 / len(a) + 1.0 / len(b))
        method = "t-test" if base.n > 1 and now.n > 1 else "prediction"
        if se2 == 0:
            test = TestResult(method, 0.0 if diff == 0 else math.copysign(math.inf, diff), math.inf,
                              1.0 if diff == 0 else 0.0)
        else:
            t = diff / math.sqrt(se2)
            test = TestResult(method, t, freedom, t_sf_two_sided(t, freedom), math.sqrt(se2))
        out[i] = (test, math.sqrt(math.expm1(moderated)) * 100.0)
    return out


def check(baseline: RunResult, current: RunResult, tolerance_pct: float, fail_on: Sequence[Metric] = (),
          alpha: float = CHECK_ALPHA) -> CheckReport:
    """Judge a re-run (one pass, all its repetitions) against its baseline (all its runs pooled)."""
    comparison = compare([baseline, current], tolerance_pct)
    rows = []
    for group in comparison.groups:
        if group.steps[0] is None:
            continue  # a step the baseline never ran cannot regress
        decisive = {primary(group.step).key} | {m.key for m in fail_on}
        for row in group.rows:
            if row.figures[0] is not None:
                rows.append((group, row, row.metric.key in decisive))
    family = max(sum(1 for _, _, g in rows if g), 1)
    tests: dict[int, tuple[TestResult, float]] = {}
    for key in {row.metric.key for _, row, gating in rows if gating}:
        pairs: dict[int, tuple[Figure, Figure]] = {}
        for i, (_, row, gating) in enumerate(rows):
            base, now = row.figures[0], row.figures[1]
            if (gating and row.metric.key == key and base is not None and now is not None
                    and base.logs is not None and now.logs is not None):
                pairs[i] = (base, now)
        tests.update(_tests(pairs))
    order = sorted(tests)
    raw = {i: _worse_p(rows[i][1].metric, tests[i][0]) for i in order}
    adjusted = dict(zip(order, holm([raw[i] for i in order])))
    lines = []
    for i, (group, row, gating) in enumerate(rows):
        base, now, delta = row.figures[0], row.figures[1], row.deltas[1]
        assert base is not None  # the rows are those with a baseline figure
        metric = row.metric
        if now is None or delta is None:
            lines.append(CheckLine(group, metric, base, now, delta, FAIL if gating else INFO,
                                   "missing in the re-run", gating))
            continue
        if not gating:
            lines.append(CheckLine(group, metric, base, now, delta, INFO, delta.reason, False))
            continue
        regression = -(delta.relative_pct or 0.0) if metric.higher_is_better else (delta.relative_pct or 0.0)
        beyond = regression > tolerance_pct
        if i not in tests:
            what = "single runs" if base.n == 1 and now.n == 1 else "zero figures"
            reason = f"{_change(delta)}: {what}: cannot tell it from noise"
            lines.append(CheckLine(group, metric, base, now, delta, NOISY, reason, True))
            continue
        test, noise = tests[i]
        p, p_adj = raw[i], adjusted[i]
        unseen = _unseen(metric, test, alpha / family)
        bound = _bound(metric, test) if math.isfinite(test.statistic) else regression
        runs = f"{base.n} vs {now.n} runs, {test.method}"
        evidence = f"{runs} p={_p(p)}, Holm-adjusted p={_p(p_adj)}, noise {noise:.1f} %"
        if beyond and p_adj < alpha:
            outcome, reason = FAIL, f"worse by {regression:.1f} %, beyond the ±{tolerance_pct:g} % tolerance: {evidence}"
        elif beyond or (p < TRIGGER_P and regression > tolerance_pct / 2):
            outcome = DOUBT
            reason = (f"worse by {regression:.1f} % but not beyond the noise after the family correction: {evidence}"
                      if beyond else f"worse by {regression:.1f} %, significant on its own ({fmt_p(p)}): {evidence}")
        elif unseen > tolerance_pct and bound > tolerance_pct:
            outcome = NOISY
            reason = (f"too noisy: a regression under {unseen:.0f} % would mostly go unseen, and the runs allow "
                      f"one of up to {bound:.0f} % ({evidence})")
        else:
            outcome = PASS
            if p < ALPHA and regression > 0:
                reason = f"worse by {regression:.1f} %, real but within the ±{tolerance_pct:g} % tolerance: {evidence}"
            elif unseen <= tolerance_pct:
                reason = f"{_change(delta)}; a regression of {unseen:.1f} % would have shown: {evidence}"
            else:
                reason = f"{_change(delta)}; {_at_most(bound)} with 95 % confidence: {evidence}"
        lines.append(CheckLine(group, metric, base, now, delta, outcome, reason, True, p, p_adj, unseen, bound,
                               noise, test, bounded=outcome == PASS and unseen > tolerance_pct))
    return CheckReport(comparison, tuple(lines), tolerance_pct, alpha, hardware(baseline, current))


def hardware(baseline: RunResult, current: RunResult) -> tuple[str, ...]:
    """Why the re-run's hardware fails it, whatever its figures: a link narrower or slower than the
    baseline's (the narrowest each run saw), or PCIe errors (AER) counted during the re-run's steps."""
    reasons = []
    base, now = drive_run.narrowest_link(baseline), drive_run.narrowest_link(current)
    if base is not None and now is not None and (now[1] < base[1] or (now[1] == base[1] and (now[0] or 0) <
                                                                       (base[0] or 0) and now[0] is not None)):
        reasons.append(f"the PCIe link came up at {drive_run.link_text(now)}, slower than the baseline's "
                       f"{drive_run.link_text(base)}")
    errors = drive_run.aer_errors(current)
    if errors:
        reasons.append(f"{errors} PCIe error{'s were' if errors != 1 else ' was'} counted (AER) during the re-run")
    return tuple(reasons)


def _at_most(bound: float) -> str:
    return f"worse by at most {bound:.1f} %" if bound > 0 else f"better by at least {-bound:.1f} %"


def _none_worse(bound: float) -> str:
    """_at_most for several lines, given the loosest of their bounds."""
    return f"none is worse by more than {bound:.1f} %" if bound > 0 else f"each is better by at least {-bound:.1f} %"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def confirmed(baseline: RunResult, first: RunResult, tolerance_pct: float, fail_on: Sequence[Metric] = (),
              more: Callable[[CheckReport], RunResult | None] | None = None,
              alpha: float = CHECK_ALPHA) -> tuple[list[CheckReport], list[RunResult]]:
    """A check with its second pass: the reports (the last decides) and the passes run.

    A first pass that fails or is doubtful asks `more(its report)` for fresh runs (None: none),
    and those are judged on their own against the baseline: the first pass was picked for
    looking bad, so pooling it in would count the same evidence twice. A first pass that is
    only too noisy to tell (nothing looked worse) is extended instead: the fresh runs join it,
    since what picked it was its spread, which says nothing about its mean.
    """
    reports = [check(baseline, first, tolerance_pct, fail_on, alpha)]
    passes = [first]
    report = reports[0]
    # Re-runs cannot make up for a single-run baseline: only extend where they can help.
    extend = (not report.needs_confirmation and report.runs[0] >= 2
              and any(l.test is not None for l in report.noisy))
    if (report.needs_confirmation or extend) and first.status == "completed" and more is not None:
        extra = more(report)
        if extra is not None:
            passes.append(extra)
            if extra.status == "completed":
                judged = pooled([first, extra]) if extend else extra
                reports.append(check(baseline, judged, tolerance_pct, fail_on, alpha))
    return reports, passes
