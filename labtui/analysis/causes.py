"""What besides the disk may explain a difference: the causes a plain answer names, one function each.

A comparison's figures say how much differs, not why. The finders here read what the results
recorded besides their figures (the link each drive trained at, its firmware, the engine, the cache
mode, a step that was CPU-bound) and say what else changed, in a clause a lab person can act on.
A cause has one of two effects on the answer (labtui.analysis.answer):

- CONFOUND: the setup differs, so the difference may be that, not the disk. The answer still says
  better or worse, and names the cause beside it ("the PCIe link trained at x2 on B (x4 on A)").
- VOID: a step's figure is not the disk's at all (the engine or the CPUs were the limit). No claim
  rests on that step; the answer says why and what to do.

A new cause is one function: it takes the comparison and the names the answer calls its results by
("A", "B"; or "the baseline", "the re-run"), yields Causes, and joins FINDERS.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from labtui.analysis import drive_run
from labtui.analysis.bottleneck import Link, link_of
from labtui.analysis.context import cache_modes
from labtui.engine import cpubound
from labtui.model.profile import Step
from labtui.model.result import RunResult
from labtui.units import format_size

if TYPE_CHECKING:
    from labtui.analysis.comparison import Comparison, StepGroup

CONFOUND = "confound"  # the setup differs: the difference may be this, not the disk
VOID = "void"  # the figures of these steps are not the disk's: nothing is claimed on them


@dataclass(frozen=True)
class Cause:
    """Something besides the disk that explains a difference, or makes a step's figure not the disk's."""

    key: str  # what kind: "link", "firmware", "engine", "cache", "cpu-bound"
    text: str  # a plain clause: "the PCIe link trained at x2 on B (x4 on A)"
    results: frozenset[int]  # the results it is about (indexes into the comparison's)
    effect: str = CONFOUND
    advice: str = ""  # what it means or what to do, said after the clause
    groups: frozenset[int] | None = None  # the step groups it concerns (None: every step)

    def concerns(self, index: int) -> bool:
        """Whether it bears on the answer for result `index` against the reference (result 0)."""
        return bool(self.results) and self.results <= {0, index}

    def voids(self, group: int) -> bool:
        return self.effect == VOID and (self.groups is None or group in self.groups)

    @property
    def said(self) -> str:
        """The clause with its advice: "the PCIe link trained at x2 on B (x4 on A): the slot, an adapter or a
        riser holds it there"; a step's figure that is not the disk's, with why in brackets."""
        if not self.advice:
            return self.text
        return f"{self.text} ({self.advice})" if self.effect == VOID else f"{self.text}: {self.advice}"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "effect": self.effect, "text": self.text, "advice": self.advice or None,
                "results": sorted(self.results), "steps": sorted(self.groups) if self.groups is not None else None}


Finder = Callable[["Comparison", Sequence[str]], Iterable[Cause]]


# --------------------------------------------------------------------------- plain words for steps


def step_words(step: Step) -> str:
    """A step as a lab person says it: "64K random reads", "1M sequential writes", "'extract'"."""
    if not step.is_io:
        return repr(step.name)
    size = format_size(step.block_size).replace("iB", "")
    if step.write_percent == 0:
        what = "reads"
    elif step.write_percent == 100:
        what = "writes"
    else:
        what = f"reads and writes ({100 - step.write_percent}/{step.write_percent})"
    return f"{size} {step.pattern} {what}"


def group_words(groups: Sequence[StepGroup]) -> list[str]:
    """Each group in plain words, told apart where two would read the same (queue, cache, occurrence)."""
    words = [step_words(g.step) for g in groups]
    for extra in (lambda g: f" at Q{g.step.outstanding}T{g.step.threads}" if g.step.is_io else "",
                  lambda g: f", cache {g.step.cache}" if g.step.is_io else "",
                  lambda g: f" (#{g.occurrence})" if g.occurrence > 1 else ""):
        twice = {w for w in words if words.count(w) > 1}
        words = [w + extra(g) if w in twice else w for w, g in zip(words, groups)]
    return words


def listed(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------- the finders


def _pairs(comparison: Comparison) -> Iterable[tuple[int, RunResult, RunResult]]:
    reference = comparison.results[0]
    for index, other in enumerate(comparison.results[1:], 1):
        yield index, reference, other


def _same_drive(a: RunResult, b: RunResult) -> bool:
    """The same drive model (or not known to differ): its link or firmware differing is then a cause,
    not what is being compared (an NVMe drive against a SATA one links differently by design)."""
    return not (a.target.model and b.target.model and a.target.model != b.target.model)


def link_differs(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """The same drive on another link: narrower or slower (an adapter, a slot, a riser)."""
    for i, a, b in _pairs(comparison):
        link_a, link_b = link_of(a.target), link_of(b.target)
        if link_a is None or link_b is None or link_a.name == link_b.name or not _same_drive(a, b):
            continue
        yield Cause("link", _link_change(link_a, link_b, names[0], names[i]), frozenset({0, i}),
                    advice=_link_advice(link_a, link_b))


def _link_change(a: Link, b: Link, name_a: str, name_b: str) -> str:
    if a.bus == b.bus == "PCIe" and a.rate == b.rate:
        return f"the PCIe link trained at x{b.lanes} on {name_b} (x{a.lanes} on {name_a})"
    if a.bus == b.bus == "PCIe" and a.lanes == b.lanes:
        return f"the PCIe link ran at {b.rate:g} GT/s on {name_b} ({a.rate:g} GT/s on {name_a})"
    return f"the link was {b.name} on {name_b} ({a.name} on {name_a})"


def _link_advice(a: Link, b: Link) -> str:
    """Why the lesser of two links of one drive may be so, as far as the kernel's facts tell: its width
    (the slot's lanes, or an adapter, a riser, a contact, the BIOS) or its speed (Link.cause())."""
    if a.bus == b.bus == "PCIe" and a.lanes != b.lanes:
        narrow, wide = (a, b) if a.lanes < b.lanes else (b, a)
        best = max(narrow.best_lanes or 0, wide.lanes)
        if narrow.port_lanes and narrow.port_lanes < best:
            return f"the port above it has {narrow.port_lanes} lanes: the slot, not the drive, sets the width"
        return (f"the drive does x{best}: an adapter or riser, a loose or dirty contact, or the BIOS's lane "
                "settings hold it narrower")
    slower = min((a, b), key=lambda link: link.bytes_per_second)
    return slower.cause() if slower.downgraded else ""


def firmware_differs(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """The same drive model on other firmware."""
    for i, a, b in _pairs(comparison):
        fa, fb = a.target.firmware, b.target.firmware
        if fa and fb and fa != fb and _same_drive(a, b):
            yield Cause("firmware", f"the drive ran firmware {fb} on {names[i]} ({fa} on {names[0]})",
                        frozenset({0, i}))


def engine_differs(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """Another engine: it issues and times the I/O its own way."""
    for i, a, b in _pairs(comparison):
        if a.engine.name != b.engine.name:
            yield Cause("engine", f"the engines differ ({names[0]} {a.engine.name}, {names[i]} {b.engine.name})",
                        frozenset({0, i}), advice="part of any difference is theirs, so run both with one engine (-e)")


def cache_differs(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """Buffered I/O on one side: it measures the page cache as much as the disk."""
    for i, a, b in _pairs(comparison):
        ca, cb = cache_modes(a), cache_modes(b)
        if ca != cb:
            yield Cause("cache", f"the cache modes differ ({names[0]} {ca}, {names[i]} {cb})", frozenset({0, i}),
                        advice="cache on measures the page cache as much as the disk, so run both with cache off")


def cpu_bound(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """Steps whose figure was the engine's or the CPUs' limit, not the disk's: one cause per result, or one
    for several where they were bound at the same steps for the same reason ("A and B were ...")."""
    words = group_words(comparison.groups)
    found: dict[tuple[str, str, int], tuple[list[int], set[int]]] = {}
    for i, result in enumerate(comparison.results):
        bound: dict[int, Any] = {}
        for g, group in enumerate(comparison.groups):
            step = group.steps[i]
            members = [s for s in result.steps if step is not None and s.step == step and s.engine_bound]
            if members:
                bound[g] = members[0]
        if not bound:
            continue
        judged = [g for g, group in enumerate(comparison.groups) if group.steps[i] is not None]
        where = "every step" if len(bound) == len(judged) > 1 else listed([words[g] for g in bound])
        own = next((s for s in bound.values() if s.engine_bound.startswith(cpubound.OWN_CPU)), None)
        pick = own or next(iter(bound.values()))
        cached = own is not None and own.step.is_io and own.step.cache == "on"
        advice = cpubound.advice(pick.engine_bound, result.engine.name, cached)
        # Merged only between the two results of a pair: with more, each answer is of one result against A.
        who, groups = found.setdefault((where, advice, -1 if len(comparison.results) == 2 else i), ([], set()))
        who.append(i)
        groups.update(bound)
    for (where, advice, _), (who, groups) in found.items():
        verb = "was" if len(who) == 1 else "were"
        yield Cause("cpu-bound", f"{listed([names[i] for i in who])} {verb} CPU-bound at {where}", frozenset(who),
                    VOID, advice=advice, groups=frozenset(groups))


HOTTER_C = 10.0  # a difference of maximum temperatures worth naming


def drive_hotter(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """One drive ran much hotter (or throttled where the other did not): the difference may be its cooling."""
    for i, a, b in _pairs(comparison):
        temps_a, temps_b = drive_run.temperatures(a), drive_run.temperatures(b)
        throttle_a, throttle_b = drive_run.throttling(a), drive_run.throttling(b)
        hot = None
        if temps_a and temps_b and abs(max(temps_b) - max(temps_a)) >= HOTTER_C:
            hotter, cooler = (names[i], names[0]) if max(temps_b) > max(temps_a) else (names[0], names[i])
            hot = (f"{hotter} ran {abs(max(temps_b) - max(temps_a)):.0f} °C hotter (max {max(max(temps_a), max(temps_b)):g} "
                   f"°C against {min(max(temps_a), max(temps_b)):g} °C on {cooler})")
        throttled = [(names[j], t) for j, t in ((0, throttle_a), (i, throttle_b)) if t is not None and t[0] > 0]
        if len(throttled) == 1:
            who, (count, seconds) = throttled[0]
            clause = f"{who} throttled" + (f" for {seconds} s" if seconds else f" ({count} thermal transitions)")
            hot = f"{hot} and {clause.split(' ', 1)[1]}" if hot and hot.startswith(who) else (
                f"{hot}; {clause}" if hot else clause)
        if hot:
            yield Cause("temperature", hot, frozenset({0, i}),
                        advice="the difference may be cooling, not the adapter or the disk")


def drive_errors(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """PCIe errors counted, or a link that changed, during one run: the link, not the disk, may be the difference."""
    for i, a, b in _pairs(comparison):
        for j, result in ((0, a), (i, b)):
            errors = drive_run.aer_errors(result)
            changed = drive_run.link_changed(result)
            said = []
            if errors:
                said.append(f"{errors} PCIe error{'s' if errors != 1 else ''} (AER) were counted during {names[j]}")
            if changed:
                said.append(f"the link changed during {names[j]} ({changed})")
            if said:
                yield Cause("pcie-errors", "; ".join(said), frozenset({0, i}),
                            advice="a contact, a riser or the adapter may be at fault")


def data_lost(comparison: Comparison, names: Sequence[str]) -> Iterable[Cause]:
    """Blocks a verified step read back otherwise than written: whatever its speed, that drive (or its
    adapter, riser, cable) lost data, and no figure of that run counts until it is fixed."""
    for i, a, b in _pairs(comparison):
        for j, result in ((0, a), (i, b)):
            bad = max((s.verify.mismatched for s in result.steps if s.verify is not None), default=0)
            if bad:
                yield Cause("data", f"{bad} block{'s' if bad != 1 else ''} did not read back as written in {names[j]}",
                            frozenset({0, i}), effect=VOID,
                            advice="the data did not come back: the drive, its adapter, riser or cable corrupts it")


# The order they are said in: what makes a figure not the disk's first, then the setup.
FINDERS: tuple[Finder, ...] = (data_lost, cpu_bound, link_differs, drive_hotter, drive_errors, firmware_differs, engine_differs,
                               cache_differs)


def causes(comparison: Comparison, names: Sequence[str] | None = None) -> tuple[Cause, ...]:
    """Every cause the finders see in a comparison, its results called by `names` (default its letters)."""
    called = tuple(names) if names is not None else comparison.letters
    return tuple(cause for finder in FINDERS for cause in finder(comparison, called))


def cpu_bound_verdicts(comparison: Comparison) -> frozenset[tuple[int, int]]:
    """The (step group, result) whose verdict against A rests on a CPU-bound figure (either side's): the answer
    claims nothing on that step, so a table marks the verdict ("worse, CPU-bound", not in red) and keeps it."""
    found = [c for c in cpu_bound(comparison, comparison.letters) if c.effect == VOID]
    return frozenset((g, i) for c in found for i in range(1, len(comparison.results)) if c.concerns(i)
                     for g in range(len(comparison.groups)) if c.voids(g))
