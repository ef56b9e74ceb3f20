"""Which steps of several results run the same workload: matched by what they do, not what they are called.

A step belongs with the steps of the other results that run the same workload
(`Step.workload_key()`: block size, pattern, write mix, threads, outstanding, cache), whatever
they are called or wherever they sit. When a profile holds the same workload several times
(configmgr-sql reads for 60 s and for 300 s) the n-th one matches the n-th one, and the group
says so. A step whose only difference is the cache mode (a file system that refused O_DIRECT
runs it buffered) is still matched, and flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from labtui.model.profile import Step
from labtui.model.result import RunResult, StepResult
from labtui.units import format_duration


@dataclass
class Occurrence:
    """The n-th step with one workload in one result, with its repetitions."""

    key: tuple
    index: int  # 0-based occurrence among the result's steps with this workload
    count: int  # how many steps with this workload the result has
    members: list[StepResult]

    @property
    def step(self) -> Step:
        return self.members[0].step


@dataclass
class Master:
    key: tuple
    index: int
    members: dict[int, Occurrence]
    cache_mismatch: bool = False


def loose(key: tuple) -> tuple:
    # The same workload whatever the cache mode and write-through (an io key ends with them).
    return key[:6] if key and key[0] == "io" else key


def occurrences(result: RunResult) -> list[Occurrence]:
    found: dict[tuple, Occurrence] = {}
    counts: dict[int, Counter] = {}
    for sr in result.steps:
        key = sr.step.workload_key()
        seen = counts.setdefault(sr.repetition, Counter())
        index = seen[key]
        seen[key] += 1
        occurrence = found.setdefault((key, index), Occurrence(key, index, 0, []))
        occurrence.members.append(sr)
    per_key = Counter(key for key, _ in found)
    for (key, _), occurrence in found.items():
        occurrence.count = per_key[key]
    return list(found.values())


def match(results: Sequence[RunResult]) -> list[Master]:
    masters: list[Master] = []
    for ri, result in enumerate(results):
        left = []
        for occ in occurrences(result):
            master = next((m for m in masters if m.key == occ.key and m.index == occ.index and ri not in m.members), None)
            if master is not None:
                master.members[ri] = occ
            else:
                left.append(occ)
        for occ in left:
            # Same workload but another cache mode: matched in order, and flagged.
            master = next((m for m in masters if loose(m.key) == loose(occ.key) and ri not in m.members), None)
            if master is not None:
                master.members[ri] = occ
                master.cache_mismatch = True
            else:
                masters.append(Master(occ.key, occ.index, {ri: occ}))
    return masters




def notes(master: Master, occs: Sequence[Occurrence | None], letters: Sequence[str]) -> list[str]:
    notes = []
    count = max((o.count for o in occs if o), default=1)
    if count > 1:
        notes.append(f"{_ordinal(master.index + 1)} of {count} steps with this workload: matched by order of occurrence")
    present = [(letter, o) for letter, o in zip(letters, occs) if o]
    durations = {o.step.duration for _, o in present if o.step.is_io}
    if len(durations) > 1:
        notes.append("durations differ: " + ", ".join(f"{l} {format_duration(o.step.duration)}" for l, o in present))
    if master.cache_mismatch:
        if len({o.step.cache for _, o in present}) > 1:
            notes.append("cache modes differ: " + ", ".join(f"{l} {o.step.cache}" for l, o in present))
        if len({o.step.write_through for _, o in present}) > 1:
            notes.append("write-through differs (each write waits for the media with it): "
                         + ", ".join(f"{l} {'on' if o.step.write_through else 'off'}" for l, o in present))
    missing = [letter for letter, o in zip(letters, occs) if o is None]
    if missing:
        notes.append(f"not in {', '.join(missing)}")
    for letter, o in present:
        bad = [m for m in o.members if m.status != "completed"]
        if bad:
            reason = f": {bad[0].error}" if bad[0].error else ""
            notes.append(f"{letter}: {len(bad)} of {len(o.members)} repetitions {bad[0].status}{reason}")
    return notes


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


