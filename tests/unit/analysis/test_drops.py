"""Drops found by the change-point rule and explained, on synthetic series of known truth."""

from __future__ import annotations

from dataclasses import replace

from factories import make_result
from labtui.analysis import drops
from labtui.model.profile import MIB
from labtui.model.result import DriveFacts, Sample, SteadyState


def series(levels: list[float], *, seconds: float = 1.0, **per_interval) -> tuple[Sample, ...]:
    """Write intervals at the given MiB/s levels; per_interval: {field: {index: value}}."""
    out = []
    for i, level in enumerate(levels):
        extra = {name: values[i] for name, values in per_interval.items() if i in values}
        out.append(Sample(t=(i + 1) * seconds, seconds=seconds, write_ios=int(level * 16),
                          write_bytes=int(level * MIB * seconds), **extra))
    return tuple(out)


def write_step(samples, **changes):
    result = make_result()
    step = next(s for s in result.steps if s.step.writes)
    return replace(step, samples=samples, **changes)


def read_step(samples, **changes):
    result = make_result()
    step = next(s for s in result.steps if not s.step.writes)
    return replace(step, samples=samples, **changes)


def test_one_slow_second_is_no_drop():
    assert drops.step_drops(write_step(series([400, 400, 400, 80, 400, 400, 400, 400]))) == ()


def test_a_sustained_fall_is_found_at_its_second_with_the_bytes_before():
    found = drops.step_drops(write_step(series([400, 410, 395, 405, 120, 118, 125, 119, 121])))
    assert len(found) == 1
    drop = found[0]
    assert drop.t == 4.0  # the fifth interval began at 4 s
    assert drop.bytes_before == sum(int(v * MIB) for v in (400, 410, 395, 405))
    assert round(drop.before_mib_s) == 402 and round(drop.after_mib_s) == 120
    assert drop.recovered_t is None
    assert drop.cause == drops.CACHE and "written" in drop.evidence  # a write step, no heat, stays low


def test_a_recovery_is_found_and_a_read_drop_is_not_the_cache():
    found = drops.step_drops(read_step(series([400, 400, 400, 100, 100, 100, 100, 400, 400, 400])))
    assert found and found[0].t == 3.0 and found[0].recovered_t == 7.0
    assert found[0].cause == drops.UNEXPLAINED


def test_thermal_by_threshold_and_by_transition_count():
    hot = series([400, 400, 400, 400, 150, 150, 150, 150], drive_temp_c={1: 70.0, 3: 83.0, 6: 84.0})
    before = DriveFacts(source="smartctl", temperature_c=60.0, warning_c=82.0)
    drop = drops.step_drops(write_step(hot, drive_before=before))[0]
    assert drop.cause == drops.THERMAL and "83 °C" in drop.evidence and "82 °C" in drop.evidence
    counted = series([400, 400, 400, 400, 150, 150, 150, 150], thermal_transitions={0: 3, 4: 5})
    drop = drops.step_drops(write_step(counted))[0]
    assert drop.cause == drops.THERMAL and "from 3 to 5" in drop.evidence


def test_link_cpu_and_other_io():
    narrowed = series([400, 400, 400, 200, 200, 200], link_width={0: 4, 3: 2})
    assert drops.step_drops(read_step(narrowed))[0].cause == drops.LINK
    aer = (DriveFacts(source="sysfs", aer_correctable=1), DriveFacts(source="sysfs", aer_correctable=40))
    drop = drops.step_drops(read_step(series([400, 400, 400, 200, 200, 200]), drive_before=aer[0],
                                      drive_after=aer[1]))[0]
    assert drop.cause == drops.LINK and "39 PCIe errors" in drop.evidence
    bound = series([400, 400, 400, 200, 200, 200], engine_bound={3: True, 4: True, 5: True})
    assert drops.step_drops(read_step(bound))[0].cause == drops.CPU
    levels = [400, 400, 400, 200, 200, 200]
    disk = [int(v * MIB) for v in levels[:3]] + [int(400 * MIB)] * 3
    assert drops.step_drops(read_step(series(levels)), disk)[0].cause == drops.OTHER_IO


def test_steady_state_rounds_use_the_same_rule():
    state = SteadyState(rule="snia", figure="mib_s", round_seconds=60.0, window=5, max_rounds=25, attained=False,
                        rounds=(500, 505, 498, 502, 250, 245, 252, 248))
    drop = drops.step_drops(write_step((), steady_state=state))[0]
    assert drop.t == 240.0 and "round 5" in drop.evidence
    flat = replace(state, rounds=(500, 505, 498, 502, 480, 495, 500, 490))
    assert drops.step_drops(write_step((), steady_state=flat)) == ()


def test_drop_words():
    found = drops.step_drops(write_step(series([400, 400, 400, 100, 100, 100])))
    assert drops.drop_words(found[0]).startswith("at 3 s, after 1.2 GiB: 400 → 100 MiB/s (-75 %), write cache full")
