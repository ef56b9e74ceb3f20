"""What a result says of its drive over the whole run: its temperatures, throttling, PCIe errors, links
and drops, as the comparisons' context rows, the plain answer's causes and check's reasons read them."""

from __future__ import annotations

import math

from labtui.analysis.drops import aer_during
from labtui.model.result import DriveFacts, RunResult, gts


def temperatures(result: RunResult) -> list[float]:
    """Every temperature the run read, in order: each step's before, its series, its after."""
    values: list[float] = []
    for s in result.steps:
        if s.drive_before is not None and s.drive_before.temperature_c is not None:
            values.append(s.drive_before.temperature_c)
        values += [x.drive_temp_c for x in s.samples if x.drive_temp_c is not None]
        if s.drive_after is not None and s.drive_after.temperature_c is not None:
            values.append(s.drive_after.temperature_c)
    return values


def _facts(result: RunResult) -> list[DriveFacts]:
    return [f for s in result.steps for f in (s.drive_before, s.drive_after) if f is not None]


def warning_c(result: RunResult) -> float | None:
    return next((f.warning_c for f in _facts(result) if f.warning_c is not None), None)


def throttling(result: RunResult) -> tuple[int, int] | None:
    """The drive's thermal-management transitions and seconds during the run (None: it does not say)."""
    facts = [f for f in _facts(result) if f.thermal_transitions is not None]
    if len(facts) < 2:
        return None
    first, last = facts[0], facts[-1]
    seconds = (last.thermal_seconds or 0) - (first.thermal_seconds or 0)
    return (last.thermal_transitions or 0) - (first.thermal_transitions or 0), max(seconds, 0)


def aer_errors(result: RunResult) -> int | None:
    """PCIe AER errors counted during the run's steps (the drive's function and its port); None: not counted."""
    steps = [(s.drive_before, s.drive_after) for s in result.steps
             if s.drive_before is not None and s.drive_after is not None and s.drive_before.aer_total is not None]
    if not steps:
        return None
    return sum(aer_during(before, after) for before, after in steps)


def links(result: RunResult) -> list[tuple[float | None, int]]:
    """Every PCIe link the run saw (GT/s, lanes): the target's at the start, the steps' before, during, after."""
    seen: list[tuple[float | None, int]] = []
    if result.target.pcie_width:
        seen.append((gts(result.target.pcie_speed), result.target.pcie_width))
    for s in result.steps:
        for f in (s.drive_before, s.drive_after):
            if f is not None and f.pcie_width:
                seen.append((gts(f.pcie_speed), f.pcie_width))
        seen += [(x.link_gts, x.link_width) for x in s.samples if x.link_width]
    return seen


def narrowest_link(result: RunResult) -> tuple[float | None, int] | None:
    """The least link the run saw: the fewest lanes, then the slowest (a speed not read is no slower speed:
    sysfs says "Unknown" of a link it cannot read, and one such reading hid a link that did slow down)."""
    seen = links(result)
    return min(seen, key=lambda link: (link[1], math.inf if link[0] is None else link[0])) if seen else None


def narrower(a: tuple[float | None, int], b: tuple[float | None, int]) -> bool:
    """Whether link `a` has fewer lanes than `b`, or as many at a lower speed (where both speeds were read)."""
    return a[1] < b[1] or (a[1] == b[1] and a[0] is not None and b[0] is not None and a[0] < b[0])


def same_link(a: tuple[float | None, int], b: tuple[float | None, int]) -> bool:
    """Whether two readings are of one link: as many lanes, at one speed where both say it."""
    return a[1] == b[1] and (a[0] is None or b[0] is None or a[0] == b[0])


def link_text(link: tuple[float | None, int] | None) -> str:
    if link is None:
        return "unknown"
    speed, width = link
    return f"{speed:g} GT/s x{width}" if speed else f"x{width}"


def link_changed(result: RunResult) -> str | None:
    """"x4 → x2" where the link changed during the run; None where it held."""
    seen = links(result)
    if not seen:
        return None
    least = narrowest_link(result)
    return f"{link_text(seen[0])} → {link_text(least)}" if least is not None and narrower(least, seen[0]) else None


def drops_text(result: RunResult) -> str:
    found = [(s, d) for s in result.steps for d in s.drops]
    if not found:
        return "none"
    return "; ".join(f"{s.name} at {d.t:g} s ({d.cause}, -{d.fall_pct:.0f} %)" for s, d in found[:3]) + (
        f"; {len(found) - 3} more" if len(found) > 3 else "")


def temperature_text(result: RunResult) -> str:
    temps = temperatures(result)
    return f"{temps[0]:g} °C (max {max(temps):g} °C)" if temps else "unknown"


def has_drive(result: RunResult) -> bool:
    return any(s.drive_before or s.drive_after or s.drops for s in result.steps)
