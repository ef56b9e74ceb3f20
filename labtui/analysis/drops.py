"""Drops: a sustained fall of a step's per-interval throughput, found by one stated rule and explained.

The rule (a change point, never one slow second):

1. The series is the step's measured intervals' throughput (bytes over seconds; warm-up excluded).
2. It is cut into levels by binary segmentation: the split that leaves the least squared error around
   the two parts' means (a least-squares change point), each part at least MIN_RUN intervals long,
   then each part again, down to parts too short to split; neighbouring levels whose medians are
   less than FALL (25 %) apart are then merged back into one.
3. A drop is a level at least FALL below the one before it, where HOLD (3 in 4) of each level's
   intervals lie on its own side of the midpoint between them: the lower level holds, it is not a dip
   and a burst. One slow interval never makes one (a level is at least MIN_RUN intervals).
4. Its recovery is the first later level back within FALL of the level before the drop, held the same way.

Steady-state rounds are judged by the very same rule, with the rounds' figures as the series.

Each drop gets its likely cause, with the evidence (CAUSES, in the order they are tried):
*thermal* (the drive's temperature reached its warning threshold, or its thermal-management
transition count rose), *link* (the PCIe link's speed or width fell, or AER errors were counted),
*CPU* (the engine or the machine's CPUs were the limit in most intervals after it and not before:
labtui.engine.cpubound),
*other I/O* (the disk's kernel counters moved more than labtui did), *write cache full* (a write
step with none of those, whose writes stay at the lower rate after N GiB), else *unexplained*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from labtui.model.result import MIB, DriveFacts, Drop, Sample, SteadyState, StepResult
from labtui.units import human_size

MIN_RUN = 3  # intervals on each side of a change point
FALL = 0.25  # the lower level is at least this much below the earlier one
HOLD = 0.75  # this share of the intervals after it lie below the midpoint of the two levels

THERMAL, CACHE, LINK, CPU, OTHER_IO, UNEXPLAINED = "thermal", "write cache full", "link", "CPU", "other I/O", "unexplained"
RULE = (f"a drop is a change point of a step's per-interval throughput (least squares, levels of at least {MIN_RUN} "
        f"intervals) after which the median is at least {FALL:.0%} lower and {HOLD:.0%} of the intervals stay "
        "below the midpoint of the two levels")


@dataclass(frozen=True)
class Level:
    """A stretch of the series at one level: intervals [start, end) and their median."""

    start: int
    end: int
    median: float


def best_split(values: Sequence[float], min_run: int = MIN_RUN) -> int | None:
    """The index that splits `values` into two parts with the least squared error around their means."""
    n = len(values)
    if n < 2 * min_run:
        return None
    total, squares = sum(values), sum(v * v for v in values)
    best, best_cost, left, left_sq = None, float("inf"), 0.0, 0.0
    for k in range(1, n):
        left += values[k - 1]
        left_sq += values[k - 1] ** 2
        if k < min_run or n - k < min_run:
            continue
        right, right_sq = total - left, squares - left_sq
        cost = (left_sq - left * left / k) + (right_sq - right * right / (n - k))
        if cost < best_cost - 1e-12:
            best, best_cost = k, cost
    return best


def _apart(a: float, b: float) -> bool:
    return max(a, b) > 0 and min(a, b) <= (1 - FALL) * max(a, b)


def levels(values: Sequence[float], min_run: int = MIN_RUN) -> list[Level]:
    """The series cut into levels: binary segmentation (the best split, then each part again) down to parts
    too short to split, then neighbours whose medians are less than FALL apart merged back together."""
    cut: list[Level] = []

    def segment(start: int, end: int) -> None:
        k = best_split(values[start:end], min_run)
        if k is None:
            cut.append(Level(start, end, median(values[start:end])))
            return
        segment(start, start + k)
        segment(start + k, end)

    if values:
        segment(0, len(values))
    merged = True
    while merged:
        merged = False
        for i in range(1, len(cut)):
            if not _apart(cut[i - 1].median, cut[i].median):
                start, end = cut[i - 1].start, cut[i].end
                cut[i - 1:i + 1] = [Level(start, end, median(values[start:end]))]
                merged = True
                break
    return cut


def _holds(values: Sequence[float], high: Level, low: Level) -> bool:
    """HOLD of each level's intervals on its own side of the midpoint between them."""
    middle = (high.median + low.median) / 2
    above = sum(1 for v in values[high.start:high.end] if v > middle)
    below = sum(1 for v in values[low.start:low.end] if v < middle)
    return above >= HOLD * (high.end - high.start) and below >= HOLD * (low.end - low.start)


@dataclass(frozen=True)
class Fall:
    """A drop in a series: where the lower level begins, the levels, and where it came back (None: never)."""

    index: int
    before: float
    after: float
    back: int | None


def falls(values: Sequence[float], min_run: int = MIN_RUN) -> list[Fall]:
    """Every fall of the series to a lower level that holds, and its recovery (the rule)."""
    found = []
    steps = levels(list(values), min_run)
    for i in range(1, len(steps)):
        high, low = steps[i - 1], steps[i]
        if low.median > (1 - FALL) * high.median or not _holds(values, high, low):
            continue
        back = next((later.start for later in steps[i + 1:]
                     if later.median >= (1 - FALL) * high.median and _holds(values, later, low)), None)
        found.append(Fall(low.start, high.median, low.median, back))
    return found


# --------------------------------------------------------------------------- a step's drops


def step_drops(result: StepResult, disk_bytes: Sequence[int | None] | None = None) -> tuple[Drop, ...]:
    """The drop in a step's measured intervals (at most one: the series' best change point), with its
    recovery and cause; a steady-state step's rounds are judged by the same rule. `disk_bytes`: the
    bytes the disk's kernel counters moved in each interval, where known (other I/O)."""
    samples = [s for s in result.samples if s.seconds > 0]
    values = [(s.read_bytes + s.write_bytes) / s.seconds / MIB for s in samples]
    found = []
    for fall in falls(values):
        k, back = fall.index, fall.back
        t = samples[k].t - samples[k].seconds  # where the lower level's first interval began
        recovered = samples[back].t - samples[back].seconds if back is not None else None
        bytes_before = sum(s.read_bytes + s.write_bytes for s in samples[:k])
        cause, evidence = explain(result, samples, k, back, bytes_before, disk_bytes)
        found.append(Drop(round(t, 3), bytes_before, round(fall.before, 3), round(fall.after, 3), cause, evidence,
                          round(recovered, 3) if recovered is not None else None))
    return tuple(found) if found else _round_drops(result)


def _round_drops(result: StepResult) -> tuple[Drop, ...]:
    """A steady-state step judged across its rounds by the same rule (each round one value, in MiB/s)."""
    state: SteadyState | None = result.steady_state
    if state is None or state.figure == "latency" or (state.figure == "iops" and not result.step.is_io):
        return ()
    scale = result.step.block_size / MIB if state.figure == "iops" else 1.0
    rounds = [r * scale for r in state.rounds]
    return tuple(Drop(f.index * state.round_seconds, 0, f.before, f.after, UNEXPLAINED,
                      f"from round {f.index + 1} of {len(rounds)} on, by the same rule across rounds",
                      f.back * state.round_seconds if f.back is not None else None) for f in falls(rounds))


def explain(result: StepResult, samples: Sequence[Sample], k: int, back: int | None, bytes_before: int,
            disk_bytes: Sequence[int | None] | None = None) -> tuple[str, str]:
    """The drop's likely cause at interval `k`, and the evidence, in the module's order."""
    before, after = result.drive_before, result.drive_after
    upto = samples[: min(len(samples), k + 2)]  # the drive's readings up to just after the fall
    temps = [(s.t, s.drive_temp_c) for s in upto if s.drive_temp_c is not None]
    warning = next((f.warning_c for f in (before, after) if f is not None and f.warning_c is not None), None)
    hot = next(((t, c) for t, c in temps if warning is not None and c >= warning), None)
    if hot is not None:
        return THERMAL, f"the drive reached {hot[1]:g} °C at {hot[0]:g} s (its warning threshold is {warning:g} °C)"
    counts = [s.thermal_transitions for s in upto if s.thermal_transitions is not None]
    first = before.thermal_transitions if before is not None and before.thermal_transitions is not None else (
        counts[0] if counts else None)
    if first is not None and counts and max(counts) > first:
        return THERMAL, f"the drive's thermal-management transitions went from {first} to {max(counts)}"
    link = _link_change(samples, k, before, after)
    if link:
        return LINK, link
    later, earlier = samples[k:back], samples[:k]
    bound = sum(1 for s in later if s.engine_bound)
    # Bound after it and not before: a CPU limit that was there all along did not make the fall.
    if later and bound * 2 > len(later) and sum(1 for s in earlier if s.engine_bound) * 2 <= len(earlier):
        return CPU, (f"the engine's busiest worker or the machine's CPUs were the limit in {bound} of the "
                     f"{len(later)} intervals after it, not before")
    # With the page cache on, the disk's counters lag and lead the engine's (write-back, read-ahead): not evidence.
    if disk_bytes is not None and len(disk_bytes) == len(samples) and result.step.is_io and result.step.cache == "off":
        other = [(d or 0) - (s.read_bytes + s.write_bytes) for d, s in zip(disk_bytes[k:], samples[k:])]
        moved = sum(o for o in other if o > 0)
        ours = sum(s.read_bytes + s.write_bytes for s in samples[k:])
        if ours and moved > 0.25 * ours:
            return OTHER_IO, f"the disk moved {human_size(moved)} that labtui did not after it (its kernel counters)"
    if result.step.is_io and result.step.write_percent >= 50 and back is None:
        return CACHE, (f"after {human_size(bytes_before)} written the writes stayed at the lower rate, "
                       "with no sign of heat: the drive's fast write cache (SLC) was full")
    if later and bound * 2 > len(later):
        return UNEXPLAINED, ("the step was CPU-bound before and after it, so its throughput follows the CPU it got "
                             "(a busier machine) as much as the disk; no sign of heat or a link change")
    return UNEXPLAINED, "no sign of heat, a link change, a CPU limit or other I/O"


def _link_change(samples: Sequence[Sample], k: int, before: DriveFacts | None, after: DriveFacts | None) -> str:
    widths = [s.link_width for s in samples if s.link_width is not None]
    speeds = [s.link_gts for s in samples if s.link_gts is not None]
    if before is not None and before.pcie_width is not None:
        widths.insert(0, before.pcie_width)
    if widths and min(widths) < widths[0]:
        return f"the PCIe link fell from x{widths[0]} to x{min(widths)} during the step"
    if speeds and min(speeds) < speeds[0]:
        return f"the PCIe link fell from {speeds[0]:g} to {min(speeds):g} GT/s during the step"
    errors = aer_during(before, after)
    if errors:
        return f"{errors} PCIe error{'s' if errors != 1 else ''} (AER) were counted during the step"
    return ""


def aer_during(before: DriveFacts | None, after: DriveFacts | None) -> int:
    """The AER errors counted between two readings (the drive's function and the port above it)."""
    if before is None or after is None or before.aer_total is None or after.aer_total is None:
        return 0
    return max(after.aer_total - before.aer_total, 0)


def drop_words(drop: Drop) -> str:
    """"at 3 s, after 1.2 GiB: 410 → 120 MiB/s (-71 %), thermal; back at 6 s"."""
    after = f", after {human_size(drop.bytes_before)}" if drop.bytes_before else ""
    text = (f"at {round(drop.t, 1):g} s{after}: {drop.before_mib_s:,.0f} → {drop.after_mib_s:,.0f} MiB/s "
            f"(-{drop.fall_pct:.0f} %), {drop.cause}")
    if drop.recovered_t is not None:
        text += f"; back at {round(drop.recovered_t, 1):g} s"
    return text
