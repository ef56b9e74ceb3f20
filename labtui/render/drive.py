"""The drive during a run in words: its temperature and link around each step, the series beside the
throughput, and the drops with their causes (show, the Result screen, the Run screen's summary)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from labtui.analysis.drops import RULE, aer_during, drop_words
from labtui.model.result import DriveFacts, RunResult, Sample, StepResult
from labtui.render.sparkline import sparkline
from labtui.results.result_file import dataclass_to_plain


def temperature_spark(temps: Sequence[float], width: int = 16) -> str:
    """A sparkline of temperatures from their lowest to their highest (from 0 °C, 48 and 58 would look alike)."""
    if len(temps) < 2:
        return ""
    low = min(temps) - max(1.0, (max(temps) - min(temps)) / 7)
    return sparkline([t - low for t in temps], width)


def temperatures(step: StepResult) -> list[float]:
    """Every temperature the step read, before, during and after, in order."""
    values = [step.drive_before.temperature_c] if step.drive_before and step.drive_before.temperature_c is not None \
        else []
    values += [s.drive_temp_c for s in step.samples if s.drive_temp_c is not None]
    if step.drive_after is not None and step.drive_after.temperature_c is not None:
        values.append(step.drive_after.temperature_c)
    return values


def _link(facts: DriveFacts | None) -> str | None:
    if facts is None or (facts.pcie_speed is None and facts.pcie_width is None):
        return None
    return f"{facts.pcie_speed or '?'} x{facts.pcie_width or '?'}"


def step_drive_line(step: StepResult, *, spark: int = 16) -> str | None:
    """"45 → 85 °C (max 85 °C, warning 82 °C) ▁▂▅█, link 8.0 GT/s PCIe x4, no PCIe errors; smartctl + sysfs"."""
    before, after = step.drive_before, step.drive_after
    if before is None and after is None and not temperatures(step):
        return None
    parts = []
    temps = temperatures(step)
    if temps:
        first, last = temps[0], temps[-1]
        warning = next((f.warning_c for f in (before, after) if f is not None and f.warning_c is not None), None)
        limits = [f"max {max(temps):g} °C"] + ([f"warning {warning:g} °C"] if warning is not None else [])
        bars = temperature_spark(temps, spark) if spark and len(temps) > 2 else ""
        parts.append(f"{first:g} → {last:g} °C ({', '.join(limits)})" + (f" {bars}" if bars else ""))
    link_before, link_after = _link(before), _link(after)
    if link_before or link_after:
        parts.append(f"link {link_before}" if link_before == link_after or not link_after
                     else f"link {link_before or '?'} → {link_after}")
    if before is not None and after is not None and before.aer_total is not None and after.aer_total is not None:
        errors = aer_during(before, after)
        parts.append(f"{errors} PCIe error{'s' if errors != 1 else ''} (AER)" if errors else "no PCIe errors")
    throttled = _thermal(before, after)
    if throttled:
        parts.append(throttled)
    latest = after or before
    source = latest.source if latest is not None else None
    return ", ".join(parts) + (f"; {source}" if source else "")


def _thermal(before: DriveFacts | None, after: DriveFacts | None) -> str | None:
    if before is None or after is None:
        return None
    if before.thermal_transitions is not None and after.thermal_transitions is not None \
            and after.thermal_transitions > before.thermal_transitions:
        seconds = (after.thermal_seconds or 0) - (before.thermal_seconds or 0)
        return (f"throttled ({after.thermal_transitions - before.thermal_transitions} thermal transitions"
                + (f", {seconds} s" if seconds > 0 else "") + ")")
    return None


def drive_lines(result: RunResult) -> list[str]:
    """For `show`: the drive at each step, its drops (with the rule, once), nothing where nothing was read."""
    lines: list[str] = []
    repeated = any(s.repetition != 1 for s in result.steps)
    for s in result.steps:
        line = step_drive_line(s)
        name = f"{s.name} #{s.repetition}" if repeated else s.name
        if line:
            lines.append(f"{name}: {line}")
        for drop in s.drops:
            lines.append(f"{name}: throughput drop {drop_words(drop)}" + (f" ({drop.evidence})" if drop.evidence else ""))
    if lines:
        lines.insert(0, "The drive during the run:")
    if any(s.drops for s in result.steps):
        lines.append(f"(rule: {RULE})")
    return lines


def series_lines(step: StepResult, limit: int = 40) -> list[str]:
    """The intervals where the drive was read, beside their throughput: "  3.0 s  1,024 IOPS  64.0 MiB/s  83 °C  x4"."""
    read = [s for s in step.samples if s.drive_temp_c is not None or s.link_width is not None]
    if not read:
        return []
    lines = []
    for s in read[:limit]:
        bits = [f"{s.t:6.1f} s", f"{s.iops:>10,.0f} IOPS", f"{s.mib_s:>9,.1f} MiB/s"]
        if s.drive_temp_c is not None:
            bits.append(f"{s.drive_temp_c:>4g} °C")
        if s.link_width is not None:
            bits.append(f"{s.link_gts or 0:g} GT/s x{s.link_width}")
        lines.append("  " + "  ".join(bits))
    if len(read) > limit:
        lines.append(f"  ... {len(read) - limit} more readings in the result file")
    return lines


def drive_json(step: StepResult) -> dict[str, Any]:
    """The step's drive for --json: before, after, the series of readings (t, °C, link), the drops."""
    def facts(f: DriveFacts | None) -> dict[str, Any] | None:
        return dataclass_to_plain(f) if f is not None else None

    return {
        "before": facts(step.drive_before),
        "after": facts(step.drive_after),
        "series": [_reading(s) for s in step.samples if s.drive_temp_c is not None or s.link_width is not None],
        "max_temperature_c": max(temperatures(step), default=None),
        "drops": [dataclass_to_plain(d) for d in step.drops],
    }


def _reading(s: Sample) -> dict[str, Any]:
    return {"t": s.t, "temperature_c": s.drive_temp_c, "link_gts": s.link_gts, "link_width": s.link_width,
            "thermal_transitions": s.thermal_transitions, "iops": s.iops, "mib_s": s.mib_s}


def health_cells(facts: DriveFacts | None, problem: str | None) -> tuple[str, str, str, str]:
    """A disk's temperature, health, PCIe errors and source for the Disks tables ("-" where unreadable)."""
    if facts is None:
        return "-", "-", "-", f"nothing readable ({problem})" if problem else "nothing readable"
    temp = "-"
    if facts.temperature_c is not None:
        temp = f"{facts.temperature_c:g} °C" + (f" (warning {facts.warning_c:g})" if facts.warning_c is not None else "")
    health = []
    if facts.critical_warning:
        health.append(f"CRITICAL: {facts.critical_warning}")
    elif facts.health_passed is not None:
        health.append("passed" if facts.health_passed else "FAILED")
    if facts.percentage_used is not None:
        health.append(f"{facts.percentage_used} % used")
    if facts.media_errors is not None:
        health.append(f"{facts.media_errors} media error{'s' if facts.media_errors != 1 else ''}")
    aer = "-"
    if facts.aer_total is not None:
        aer = f"{facts.aer_total} since boot" + (f" ({facts.port_aer_correctable or 0} at the port)"
                                                  if facts.port_aer_correctable else "")
    source = facts.source + (f"; smartctl: {problem}" if problem and "smartctl" not in facts.source else "")
    return temp, ", ".join(health) or "-", aer, source


def health_json(facts: DriveFacts | None, problem: str | None) -> dict[str, Any]:
    """A disk's health for `labtui disks --json`: the facts with their source, and why smartctl said nothing."""
    return {"facts": dataclass_to_plain(facts) if facts is not None else None, "smartctl_problem": problem}


def has_drive(steps: Sequence[StepResult]) -> bool:
    return any(s.drive_before or s.drive_after or s.drops for s in steps)
