"""What the compared runs were besides their figures: the context rows (disk, link, engine ...) and
the warnings a comparison carries (engines or cache modes that differ, CPU-bound steps, steady state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from labtui.analysis import drive_run
from labtui.analysis.matching import Master, Occurrence
from labtui.engine import cpubound
from labtui.model.result import RunResult
from labtui.units import format_size


@dataclass(frozen=True)
class ContextRow:
    """One fact about the runs (disk model, engine, ...) as each result records it."""

    label: str
    values: tuple[str, ...]

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1




def _engine(result: RunResult) -> str:
    return " ".join(x for x in (result.engine.name, result.engine.version) if x)


def cache_modes(result: RunResult) -> str:
    modes = sorted({s.step.cache for s in result.steps if s.step.is_io})
    return ", ".join(modes) if modes else "n/a"


def _write_through(result: RunResult) -> str:
    modes = sorted({"on" if s.step.write_through else "off" for s in result.steps if s.step.writes})
    return ", ".join(modes) if modes else "n/a"


def _figures(result: RunResult) -> str:
    # How, not how many: a single-run baseline and its 3-run check make their figures the same way.
    how = "best pass (max throughput, min latency)" if result.profile.aggregate == "best" else "mean of the passes"
    return how + ("; a preparing pass not counted" if result.profile.discard_first else "")


def _params(result: RunResult) -> str:
    return ", ".join(f"{name}={value}" for name, value in sorted(result.params.items())) or "none"


_CONTEXT: tuple[tuple[str, Callable[[RunResult], Any]], ...] = (
    ("host", lambda r: r.host.name),
    ("disk model", lambda r: r.target.model),
    ("disk kind", lambda r: r.target.kind),
    ("serial", lambda r: r.target.serial),
    ("firmware", lambda r: r.target.firmware),
    ("PCIe link", lambda r: r.target.pcie_link),
    ("SATA / SAS / USB link", lambda r: r.target.sata_speed or r.target.sas_speed or r.target.usb_speed),
    ("file system", lambda r: r.target.filesystem),
    ("target", lambda r: r.target.path),
    ("engine", _engine),
    ("cache", cache_modes),
    ("write-through", _write_through),
    ("figures", _figures),
    ("profile", lambda r: r.profile.shown_name),
    # An import whose report gives no size (fio on a whole device) stores 0: its size is unknown, not 0 bytes.
    ("test file", lambda r: (format_size(r.profile.file_size) if r.profile.file_size else None)
     if r.profile.needs_test_file else "none"),
    ("parameters", _params),
    ("kernel", lambda r: r.host.kernel),
    ("source", lambda r: r.source if r.source != "import" else f"import of {r.source_file or 'a file'}"),
    ("status", lambda r: r.status),
)


def context_rows(results: Sequence[RunResult]) -> tuple[ContextRow, ...]:
    rows = []
    for label, get in _CONTEXT:
        rows.append(ContextRow(label, tuple(str(v) if v not in (None, "") else "unknown" for v in map(get, results))))
    # Only where some result preconditioned or ran to steady state: older comparisons read as before.
    if any(r.precondition is not None or r.profile.precondition for r in results):
        rows.append(ContextRow("preconditioning", tuple(_preconditioning(r) for r in results)))
    if any(s.steady_state is not None for r in results for s in r.steps):
        rows.append(ContextRow("steady state", tuple(_steadiness(r) for r in results)))
    # Only where some result read its drive (labtui.run.drive_watch): older comparisons read as before.
    if any(drive_run.has_drive(r) for r in results):
        rows.append(ContextRow("drive temperature", tuple(drive_run.temperature_text(r) for r in results)))
        rows.append(ContextRow("throttling", tuple(_throttling(r) for r in results)))
        rows.append(ContextRow("PCIe errors (AER)", tuple(_aer(r) for r in results)))
        rows.append(ContextRow("link changes", tuple(drive_run.link_changed(r) or "none" for r in results)))
        rows.append(ContextRow("throughput drops", tuple(drive_run.drops_text(r) for r in results)))
    return tuple(rows)


def _throttling(result: RunResult) -> str:
    found = drive_run.throttling(result)
    if found is None:
        return "not reported"
    count, seconds = found
    return f"{count} transitions, {seconds} s" if count else "none"


def _aer(result: RunResult) -> str:
    errors = drive_run.aer_errors(result)
    return "not counted" if errors is None else str(errors)


def _preconditioning(result: RunResult) -> str:
    p = result.precondition
    if p is None:
        return "none" if not result.profile.precondition else "not done"
    return f"{p.passes} pass{'es' if p.passes != 1 else ''} ({format_size(p.bytes)})"


def _steadiness(result: RunResult) -> str:
    states = [s.steady_state for s in result.steps if s.step.is_io]
    judged = [st for st in states if st is not None]
    if not judged:
        return "timed steps"
    steady = sum(1 for st in judged if st.attained)
    timed = len(states) - len(judged)
    return f"{steady} of {len(judged)} steps steady" + (f", {timed} timed" if timed else "")


def _steady_state_of(occurrence: Occurrence) -> str:
    """"steady after 7 rounds", "not steady after 25 rounds" or "timed" (its repetitions' first that is not steady)."""
    states = [m.steady_state for m in occurrence.members if m.status == "completed"]
    if not states or all(st is None for st in states):
        return "a timed step"
    unsteady = [st for st in states if st is None or not st.attained]
    pick = unsteady[0] if unsteady else states[0]
    return pick.verdict if pick is not None else "a timed step"


def steady_warnings(results: Sequence[RunResult], masters: Sequence[Master], letters: Sequence[str]) -> list[str]:
    """One warning per matched step where one side reached steady state and another did not."""
    warnings = []
    for master in masters:
        present = [(letters[i], occ) for i, occ in sorted(master.members.items())]
        verdicts = [(letter, _steady_state_of(occ)) for letter, occ in present]
        steady = [v.startswith("steady") for _, v in verdicts]
        if len(verdicts) < 2 or not any(steady) or all(steady):
            continue
        name = present[0][1].step.name
        warnings.append(
            f"steady state differs in {name!r} (" + ", ".join(f"{l} {v}" for l, v in verdicts) + "): a figure not "
            "at steady state may still include the drive's cache or its fresh blocks, so part of the difference "
            "is the drive's state, not the hardware"
        )
    return warnings


def warnings_of(results: Sequence[RunResult], masters: Sequence[Master], letters: Sequence[str]) -> list[str]:
    warnings = []
    engines = [r.engine.name for r in results]
    if len(set(engines)) > 1:
        warnings.append(
            "engines differ (" + ", ".join(f"{l} {e}" for l, e in zip(letters, engines)) + "): they issue and time "
            "I/O differently, so part of any difference is the engines'"
        )
    caches = [cache_modes(r) for r in results]
    if len(set(caches)) > 1 or any(m.cache_mismatch for m in masters):
        warnings.append(
            "cache modes differ (" + ", ".join(f"{l} {c}" for l, c in zip(letters, caches)) + "): buffered I/O "
            "(cache on) measures the page cache as much as the disk"
        )
    aggregates = [r.profile.aggregation_text(max((s.repetition for s in r.steps), default=1)) for r in results]
    if len({r.profile.aggregate for r in results}) > 1 and any(r.profile.aggregate == "best" for r in results):
        warnings.append(
            "figures are made differently (" + ", ".join(f"{l} {a}" for l, a in zip(letters, aggregates)) + "): a "
            "best-of figure is higher than the mean of the same runs; the verdicts compare the repetitions' means"
        )
    params = [_params(r) for r in results]
    if len(set(params)) > 1:
        warnings.append(
            "profile parameters differ (" + "; ".join(f"{l} {p}" for l, p in zip(letters, params)) + "): the command "
            "steps ran on different inputs (a larger archive takes longer to extract)"
        )
    for letter, r in zip(letters, results):
        if r.status != "completed":
            why = f": {r.error}" if r.error else ""
            warnings.append(f"{letter} ({r.id}) is {r.status}{why}; its figures cover only the steps that finished")
    if len(results) > 1:
        for i, letter in enumerate(letters[1:], 1):
            if not any(0 in m.members and i in m.members for m in masters):
                warnings.append(f"no step of {letter} runs a workload of {letters[0]}: nothing to compare")
    return warnings


def engine_bound_warnings(results: Sequence[RunResult], letters: Sequence[str],
                          said: frozenset[tuple[int, str]] = frozenset()) -> list[str]:
    """One warning per result with CPU-bound steps: those figures are the engine's, not the disk's.

    `said`: the (result's index, advice) an answer shown above already gives on its advice line; such a
    warning names its steps only (which the answer's "at every step" or "at 64K random reads" may not)."""
    warnings = []
    for i, (letter, r) in enumerate(zip(letters, results)):
        bound = [s for s in r.steps if s.engine_bound]
        if bound:
            which = ", ".join(repr(n) for n in dict.fromkeys(s.name for s in bound))
            # One worker its own limit anywhere: more threads is the advice that can help.
            reasons = [s.engine_bound for s in bound if s.engine_bound]
            own = next((s for s in bound if s.engine_bound and s.engine_bound.startswith(cpubound.OWN_CPU)), None)
            # Its own limit with the page cache on: the cure is the cache off, not more threads.
            cached = own is not None and own.step.is_io and own.step.cache == "on"
            advice = cpubound.advice(own.engine_bound if own else reasons[0], r.engine.name, cached)
            warnings.append(f"{letter} ({r.id}) is CPU-bound in {which}" + ("" if (i, advice) in said else f": {advice}"))
    return warnings
