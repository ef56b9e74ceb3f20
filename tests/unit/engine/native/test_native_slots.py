"""The native engine's slots (labtui.engine.native.slots): random offsets and directions drawn a pool at a time."""

from __future__ import annotations

import math


def mix_tolerance(write_percent: int, ios: int) -> float:
    """How far, in percentage points, a write share may stray from what was asked: 2 points, or 4
    binomial standard deviations where there are few draws to count."""
    p = write_percent / 100
    return max(2.0, 400 * math.sqrt(p * (1 - p) / max(ios, 1)))


def test_random_draws_come_a_pool_at_a_time_aligned_in_the_file_and_in_the_mix():
    """Random offsets and a mixed step's directions are drawn several rings' worth at once: every
    offset a whole block inside the file, the writes' share what was asked, and the same seed draws
    the same pool (a step's streams can be repeated)."""
    from labtui.engine.native.slots import POOL_MIN, Slots

    cfg = {"workers": [0, 1], "outstanding": 8, "block_size": 8192, "file_size": 3 * 8192 * 1000 + 4096,
           "pattern": "random", "write_percent": 30, "seed": 11, "threads": 4}
    slots = Slots(cfg)
    offsets, writes = slots.pool()
    assert len(offsets) == len(writes) == max(POOL_MIN, 8 * slots.count)
    assert all(off % 8192 == 0 and 0 <= off <= 2999 * 8192 for off in offsets)
    assert len(set(offsets)) > 2000  # spread over the file's 3,000 whole blocks (about 2,230 of them drawn)
    assert abs(100 * sum(writes) / len(writes) - 30) <= mix_tolerance(30, len(writes))
    assert (offsets, writes) == Slots(cfg).pool() and slots.pool() != (offsets, writes)
    assert Slots({**cfg, "write_percent": 0}).pool()[1] == []
