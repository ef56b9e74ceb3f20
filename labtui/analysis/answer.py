"""The plain answer first: what a lab person reads above every comparison and check, and acts on.

One or two sentences: the answer (no change beyond noise, faster, slower, cannot tell), why in
plain words (the causes of labtui.analysis.causes: a link that trained narrower, other firmware,
another engine, a CPU-bound step), and what to do next (how many runs would tell, and the command
that runs them). Where a step's figure is not the disk's (CPU-bound, data that did not come back),
the answer names it and what that means and what helps is said on the next line (Answer.advice):
inside the sentence it pushed the answer over three lines at 80 columns. The table follows; the
method (the tests, the pooling, Holm's correction) is behind `--explain` and a key on the screens.

It says only what the verdicts say (labtui.analysis.figures, labtui.analysis.checks): faster or
slower only where a verdict claims it, "no change beyond noise" only where repetitions measured
the noise, "cannot tell" where they did not. It rests on each step's primary figure (throughput;
wall time for a command step), as `check` does; latency is said where it alone moved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from labtui.analysis.causes import VOID, Cause, causes, group_words, listed
from labtui.analysis.checks import FAILED, INCONCLUSIVE, PASS, CheckLine, CheckReport
from labtui.analysis.comparison import Comparison
from labtui.analysis.context import engine_bound_warnings, steady_warnings, warnings_of
from labtui.analysis.figures import BETTER, HINT_CHANGE, SMALL, UNKNOWN, WORSE, Delta, Figure
from labtui.analysis.matching import match
from labtui.analysis.metrics import LATENCY_MEAN, LATENCY_P99, primary
from labtui.analysis.stats import ALPHA, runs_needed, t_quantile

# What an answer comes to, for scripts (--json "answer"): a comparison's, then a check's.
SAME, FASTER, SLOWER, MIXED, CANNOT_TELL = "no change", "faster", "slower", "faster and slower", "cannot tell"
PASSED, FAILED_ANSWER = "passed", "failed"
CHECK_NAMES = ("the baseline", "the re-run")  # what a check calls the two sides, where a comparison says A and B


@dataclass(frozen=True)
class Answer:
    """The plain answer for one result against the reference (or one check): the outcome and its words."""

    outcome: str
    text: str
    causes: tuple[Cause, ...] = ()
    advice: str = ""  # what a step's figure that is not the disk's means and what helps: the line after the answer

    @property
    def lines(self) -> list[str]:
        """The answer, then its advice on a line of its own (where there is one)."""
        return [self.text, *([self.advice] if self.advice else [])]

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "text": self.text, "advice": self.advice or None,
                "causes": [c.to_json() for c in self.causes]}


def _pct(value: float | None) -> str:
    """A change as the answer says it, whole where it is large: "-22 %", "+3.4 %"."""
    if value is None:
        return "?"
    return f"{value:+.0f} %" if abs(value) >= 9.5 else f"{value:+.1f} %"


def _size(value: float) -> str:
    return f"{value:.0f} %" if value >= 9.5 else f"{value:.1f} %"


def _noise_range(noises: Sequence[float]) -> str:
    """"±17–35 %" (or "±8 %"), from relative noises in percent."""
    low, high = min(noises), max(noises)
    return f"±{_size(high)}" if round(low) == round(high) else f"±{low:.0f}–{_size(high)}"


def _faster(metric_higher_is_better: bool, relative_pct: float) -> bool:
    return (relative_pct > 0) == metric_higher_is_better


def _join(parts: Sequence[str]) -> str:
    """Clauses into a sentence: "a; b; c." (the first capitalised)."""
    text = "; ".join(p for p in parts if p)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def _advice(void: Sequence[Cause]) -> str:
    """What the steps whose figures are not the disk's mean and what helps, as the line after the answer:
    "This figure is the engine's limit, not the disk's: try more threads or -e fio." (each cause named
    where several say different things)."""
    def said(cause: Cause) -> str:
        several = cause.groups is None or len(cause.groups) > 1  # "CPU-bound at every step": figures, not one
        plural = "the figures are " + cause.advice.removeprefix(_ONE)
        return plural if several and cause.advice.startswith(_ONE) else cause.advice

    with_advice = [c for c in void if c.advice]
    if len({said(c) for c in with_advice}) == 1:
        return _join([said(with_advice[0])])
    if len({c.advice for c in with_advice}) == 1 and with_advice[0].advice.startswith(_ONE):
        # One side CPU-bound at every step, the other at one: the same advice, once, for all those figures (each
        # cause said with it repeated the answer's clauses and the advice, three lines at 80 columns).
        return _join(["the figures are " + with_advice[0].advice.removeprefix(_ONE)])
    return " ".join(_join([f"{c.text}: {said(c)}"]) for c in with_advice)


_ONE = "this figure is "  # how the engines' CPU-bound advice begins (labtui.engine.cpubound)


def warnings_under(comparison: Comparison, answers: Sequence[Answer], names: Sequence[str] | None = None) -> list[str]:
    """The comparison's warnings as a table under `answers` shows them: a CPU-bound result's warning names its
    steps, and leaves out the advice an answer's own line gives already (said three times, it was read as three
    problems); `names` are what the results are called there (a check's "the baseline", "the re-run", where
    its warnings said A and B). --json keeps Comparison.warnings whole."""
    said = frozenset((i, c.advice) for a in answers if a.advice for c in a.causes
                     if c.key == "cpu-bound" and c.advice for i in c.results)
    results, letters = comparison.results, comparison.letters
    called = names or letters
    shown = dict(zip(engine_bound_warnings(results, letters), engine_bound_warnings(results, called, said),
                     strict=True))
    if names:
        masters = match(results)
        shown |= dict(zip(warnings_of(results, masters, letters) + steady_warnings(results, masters, letters),
                          warnings_of(results, masters, called) + steady_warnings(results, masters, called), strict=True))
    return [shown.get(w, w) for w in comparison.warnings]


# --------------------------------------------------------------------------- compare


def comparison_answers(comparison: Comparison) -> tuple[Answer, ...]:
    """The answer for each result against the first (A), in order: one for two results."""
    found = causes(comparison)
    return tuple(_compared(comparison, i, tuple(c for c in found if c.concerns(i)))
                 for i in range(1, len(comparison.results)))


def first_lines(comparison: Comparison) -> list[str]:
    """What a person reads first under a comparison: one answer per result after the first."""
    return [a.text for a in comparison_answers(comparison)]


@dataclass(frozen=True)
class _Step:
    index: int
    words: str
    delta: Delta
    reference: Figure
    other: Figure
    higher_is_better: bool


def _compared(comparison: Comparison, i: int, found: tuple[Cause, ...]) -> Answer:
    letters = comparison.letters
    who = letters[i]
    lead = f"{who}: " if len(letters) > 2 else ""  # several results: each answer says whose it is
    words = group_words(comparison.groups)
    void = [c for c in found if c.effect == VOID]
    steps: list[_Step] = []
    latency: list[tuple[str, str, Delta]] = []
    for g, group in enumerate(comparison.groups):
        if any(c.voids(g) for c in void):
            continue
        row = group.row(primary(group.step).key)
        if row is None:
            continue
        delta, figure_a, figure_b = row.deltas[i], row.figures[0], row.figures[i]
        if delta is None or figure_a is None or figure_b is None:
            continue
        steps.append(_Step(g, words[g], delta, figure_a, figure_b, row.metric.higher_is_better))
        for metric in (LATENCY_P99, LATENCY_MEAN):
            other = group.row(metric.key)
            delta = other.deltas[i] if other is not None else None
            if delta is not None and delta.claim:
                latency.append((words[g], metric.label, delta))
                break
    setup = [c.said for c in found if c.effect != VOID]
    voided = [f"{c.text}, so {'that step says' if c.groups and len(c.groups) == 1 else 'those steps say'} "
              "nothing of the disk" for c in void]
    advice = _advice(void)
    if not steps:
        why = _nothing_compared(comparison, i, void)
        common = any(g.steps[0] is not None and g.steps[i] is not None for g in comparison.groups)
        return Answer(CANNOT_TELL, _join([f"{lead}cannot tell: {why}", *setup]), found, advice if common else "")
    claims = [s for s in steps if s.delta.claim]
    if claims:
        outcome, text = _claims(who, claims, steps, comparison.tolerance_pct)  # it names whose it is
        return Answer(outcome, _join([text, *voided, *setup]), found, advice)
    unknown = [s for s in steps if s.delta.verdict == UNKNOWN]
    if unknown:
        text, then = _single_runs(comparison, who, unknown)
        return Answer(CANNOT_TELL, _join([lead + text, *voided, *setup]) + then, found, advice)
    text, then = _no_change(comparison, steps, latency)
    return Answer(SAME, _join([lead + text, *voided, *setup]) + then, found, advice)


def _nothing_compared(comparison: Comparison, i: int, void: Sequence[Cause]) -> str:
    result, letter = comparison.results[i], comparison.letters[i]
    if not any(g.steps[0] is not None and g.steps[i] is not None for g in comparison.groups):
        # Nothing in common is the reason, whatever else is true of each side's own steps.
        return f"{letter} runs none of {comparison.letters[0]}'s workloads"
    if void:
        return "; ".join(c.text for c in void)
    if result.status != "completed":
        return f"{letter} has no figures: it {result.status}" + (f" ({result.error})" if result.error else "")
    return f"{letter} has no figure to set against {comparison.letters[0]}'s"


def _claims(who: str, claims: Sequence[_Step], steps: Sequence[_Step], tolerance: float) -> tuple[str, str]:
    """"B is slower at 64K random reads (-22 %, beyond noise and beyond the ±5 % tolerance)"."""
    faster = [s for s in claims if s.delta.verdict == BETTER]
    slower = [s for s in claims if s.delta.verdict == WORSE]
    beyond = f"beyond noise and beyond the ±{tolerance:g} % tolerance"

    def at(items: Sequence[_Step]) -> str:
        shown = [f"{s.words} ({_pct(s.delta.relative_pct)}" + (f", {beyond})" if len(claims) == 1 else ")")
                 for s in items[:3]]
        more = len(items) - 3
        return listed(shown + ([f"{more} more step{'s' if more > 1 else ''}"] if more > 0 else []))

    if faster and slower:
        outcome, text = MIXED, f"{who} is faster at {at(faster)} but slower at {at(slower)}"
    elif slower:
        outcome, text = SLOWER, f"{who} is slower at {at(slower)}"
    else:
        outcome, text = FASTER, f"{who} is faster at {at(faster)}"
    if len(claims) > 1:
        text += f", each {beyond}"
    rest = [s for s in steps if not s.delta.claim]
    if rest and all(s.delta.verdict == UNKNOWN for s in rest):
        text += "; single runs cannot tell the other steps from noise"
    elif rest and not any(s.delta.verdict == UNKNOWN for s in rest):
        text += f"; the other step{'s show' if len(rest) > 1 else ' shows'} no change beyond noise"
    return outcome, text


def _profile_command(comparison: Comparison, runs: int) -> str:
    """How to run each side `runs` times: the command where both ran one profile labtui can re-run."""
    profiles = {r.profile.name for r in comparison.results}
    imported = any(r.source == "import" for r in comparison.results)
    if len(profiles) == 1 and not imported:
        return f": `labtui run -p {profiles.pop()} --repeat {runs}` on each"
    return f" (--repeat {runs})"


def _single_runs(comparison: Comparison, who: str, unknown: Sequence[_Step]) -> tuple[str, str]:
    """Single runs on both sides: the difference seen, that it cannot be told from noise, and how to tell."""
    largest = max(unknown, key=lambda s: abs(s.delta.relative_pct or 0.0))
    change = largest.delta.relative_pct
    if change is None or abs(change) < 0.05:
        seen = f"{who} measured the same as {comparison.letters[0]}"
    elif all(abs(s.delta.relative_pct or 0.0) <= comparison.tolerance_pct for s in unknown):
        seen = f"{who} measured within {_size(abs(change))} of {comparison.letters[0]} at every step"
    else:
        way = "faster" if _faster(largest.higher_is_better, change) else "slower"
        seen = f"{who} measured {_size(abs(change))} {way} at {largest.words}"
    text = f"cannot tell yet: {seen}, but single runs cannot tell a difference from noise"
    target = max(comparison.tolerance_pct / 100.0, HINT_CHANGE)
    known = [s.delta.known for s in unknown if s.delta.known is not None]
    if known:
        noisiest = max(known, key=lambda k: k.relative_sd)
        n = noisiest.runs_needed(target)
        if n is None:
            return text, (f" Earlier runs of this disk varied ±{_size(noisiest.relative_sd * 100)}: even 100 runs "
                          f"each would not tell a {target * 100:.0f} % change; quiet the machine or lengthen the steps.")
        return text, (f" Earlier runs of this disk varied ±{_size(noisiest.relative_sd * 100)}: to see "
                      f"{target * 100:.0f} %, run each side {n} times{_profile_command(comparison, n)}.")
    return text, f" To measure the noise, run each side 3 times or more{_profile_command(comparison, 3)}."


def _edge_pct(test_stderr: float, df: float) -> float:
    """The smallest change (%) a two-sided test at ALPHA would call, for this standard error of the log ratio."""
    if not test_stderr or not math.isfinite(df):
        return 0.0
    return math.expm1(t_quantile(1.0 - ALPHA / 2.0, df) * test_stderr) * 100.0


def _no_change(comparison: Comparison, steps: Sequence[_Step],
               latency: Sequence[tuple[str, str, Delta]]) -> tuple[str, str]:
    """No claim: within the tolerance, or within a noise small enough to say so, or too noisy to say."""
    small = [s for s in steps if s.delta.verdict == SMALL]
    noises = [f.noise.relative_sd * 100 for s in steps for f in (s.reference, s.other) if f.noise is not None]
    edges = [_edge_pct(s.delta.test.stderr, s.delta.test.df) for s in steps if s.delta.test is not None]
    target = max(comparison.tolerance_pct, HINT_CHANGE * 100)
    worst = max(edges, default=0.0)
    if small:
        largest = max(small, key=lambda s: abs(s.delta.relative_pct or 0.0))
        way = "faster" if _faster(largest.higher_is_better, largest.delta.relative_pct or 0.0) else "slower"
        text = (f"no change beyond the ±{comparison.tolerance_pct:g} % tolerance: {largest.words} measured "
                f"{_size(abs(largest.delta.relative_pct or 0.0))} {way}, beyond noise but within the tolerance")
    else:
        text = "no change beyond noise"
    for words, label, delta in latency[:1]:
        text += f", though the {label} is {'higher' if (delta.relative_pct or 0) > 0 else 'lower'} at {words} " \
                f"({_pct(delta.relative_pct)}, beyond noise and the tolerance)"
    if worst <= target or not noises:
        if worst and not small:
            text += f" (a change of {_size(max(worst, 1.0))} or more would have shown)"
        return text, ""
    same_disk = len({(r.target.model, r.target.serial, r.host.name) for r in comparison.results}) == 1
    varied = f"{'this disk' if same_disk else 'these runs'} varied {_noise_range(noises)} between runs"
    text += f", but {varied}, so only a change of about {worst:.0f} % could show"
    n = runs_needed(max(noises) / 100.0, target / 100.0)
    if n is None:
        return text, (f" To see {target:.0f} %, quiet the machine or lengthen the steps: even 100 runs each "
                      "would not.")
    return text, f" To see {target:.0f} %, run each side {n} times{_profile_command(comparison, n)}."


# --------------------------------------------------------------------------- check


def check_answer(report: CheckReport) -> Answer:
    """What a check comes to, in plain words: passed, failed or cannot tell, why, and what next."""
    found = causes(report.comparison, CHECK_NAMES)
    words = group_words(report.comparison.groups)
    index = {id(g): n for n, g in enumerate(report.comparison.groups)}

    def step(line: CheckLine) -> str:
        said = words[index[id(line.group)]]
        return said if line.metric is primary(line.group.step) else f"{said}, {line.metric.label}"

    void = [c for c in found if c.effect == VOID]
    setup = [c.said for c in found if c.effect != VOID]
    voided = [c.text for c in void]
    advice = _advice(void)
    tolerance = f"±{report.tolerance_pct:g} % tolerance"
    if report.hardware:
        # The link or PCIe errors fail it whatever the figures say: after a card swap, that is the regression.
        text = f"failed: {listed(list(report.hardware))}"
        if report.failures:
            text += f"; and slower than the baseline at {listed([_regressed(step(l), l) for l in report.failures[:3]])}"
        else:
            text += ", whatever the figures (a link that trained slower or counts errors is the regression)"
        return Answer(FAILED_ANSWER, _join([text, *voided, *setup]), found, advice)
    if report.outcome == FAILED:
        failing = report.failures
        in_void = [l for l in failing if any(c.voids(index[id(l.group)]) for c in void)]
        shown = [_regressed(step(l), l) for l in failing[:3]]
        more = [f"{len(failing) - 3} more"] if len(failing) > 3 else []
        text = f"failed: slower than the baseline at {listed(shown + more)}, beyond noise and the {tolerance}"
        all_void = bool(in_void) and len(in_void) == len(failing)
        if all_void:
            text += ", but maybe not the disk's doing"
        # Where the failing steps were not the disk's (CPU-bound), that is said instead: "nothing changed" misread.
        extra = setup or ([] if all_void else ["nothing recorded about the setup changed (link, firmware, engine, cache)"])
        return Answer(FAILED_ANSWER, _join([text, *voided, *extra]), found, advice)
    if report.outcome == INCONCLUSIVE:
        return replace(_cannot_tell(report, step, voided, setup, found), advice=advice)
    bounded = [l for l in report.gating if l.bounded and l.bound_pct is not None]
    seen = [l.unseen_pct for l in report.gating if l.outcome == PASS and not l.bounded and l.unseen_pct is not None]
    text = f"passed: no step is slower than the baseline beyond the {tolerance}"
    if bounded:
        loosest = max(l.bound_pct or 0.0 for l in bounded)
        text += (f" (with 95 % confidence none is slower by more than {_size(loosest)})" if loosest > 0 else
                 " (with 95 % confidence each is faster)")
    elif seen:
        text += f" (a regression of {_size(max(max(seen), 1.0))} or more would have shown)"
    small = [l for l in report.gating if l.outcome == PASS and l.measurably_worse]
    if small:
        text += "; " + listed([f"{step(l)} measured {_size(l.regression_pct or 0.0)} slower" for l in small[:2]]) + \
            ", beyond noise but within the tolerance"
    return Answer(PASSED, _join([text, *voided, *setup]), found, advice)


def _regressed(words: str, line: CheckLine) -> str:
    """"64K random reads (-22 %)", "64K random reads, p99 latency (+40 %)", "... (missing from the re-run)"."""
    if line.delta is None or line.current is None:
        return f"{words} (missing from the re-run)"
    return f"{words} ({_pct(line.delta.relative_pct)})"


def _cannot_tell(report: CheckReport, step: Any, voided: list[str], setup: list[str],
                 found: tuple[Cause, ...]) -> Answer:
    unclear = report.noisy + report.doubtful
    if not unclear:
        return Answer(CANNOT_TELL, _join(["cannot tell: the re-run has no figure to set against the baseline",
                                          *voided, *setup]), found)
    needed = report.runs_needed()
    doubtful = [l for l in report.doubtful if l.delta is not None]
    if doubtful:
        worst = max(doubtful, key=lambda l: l.regression_pct or 0.0)
        text = (f"cannot tell: {step(worst)} measured {_size(worst.regression_pct or 0.0)} slower than the "
                "baseline, but not clearly beyond the noise")
    else:
        noises = [l.noise_pct for l in report.gating if l.noise_pct is not None]
        if not noises:
            text = "cannot tell: single runs on both sides cannot tell a regression from noise"
        else:
            unseen = max((l.unseen_pct or 0.0) for l in unclear)
            text = (f"cannot tell: this disk varied {_noise_range(noises)} between runs, so only a regression of "
                    f"about {unseen:.0f} % could show")
    then = ""
    if needed is not None:
        change = f"{needed.change_pct:.0f} %"
        if needed.rerun is not None:
            then = (f" To see {change}, re-run it {needed.rerun} times against this {needed.base}-run baseline: "
                    f"{needed.commands}.")
        elif needed.each is not None:
            then = f" To see {change}, run each side {needed.each} times: {needed.commands}."
        else:
            then = f" To see {change}, quiet the machine or lengthen the steps: even 100 runs each would not."
    elif report.runs[0] < 2:
        marked = report.comparison.results[0].id.split("+")[0]
        then = f" Add runs to the baseline (`labtui baseline {marked} --more 2`) and check again."
    return Answer(CANNOT_TELL, _join([text, *voided, *setup]) + then, found)
