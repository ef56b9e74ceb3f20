"""A reaped batch counted (labtui.engine.native.batch): by its slots, exactly as by the copied-out count."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("write_percent", [0, 30, 100])
def test_a_batch_counted_by_its_slots_counts_what_the_copied_out_count_does(write_percent):
    """The carriers' count of a reaped batch by its slots (labtui.engine.native.batch.slot_counter)
    against the count of its submission times and Tally indices copied out (`counter`), on the same
    synthetic batches: each worker's I/Os and summed latency, both histograms and each direction's
    extremes agree exactly, through a window's start that resets the extremes."""
    import random

    from labtui.engine.native.batch import slot_counter, tallied
    from labtui.engine.native.slots import Slots

    cfg = {"workers": [0, 1, 2], "outstanding": 4, "block_size": 4096, "file_size": 1 << 24, "pattern": "random",
           "write_percent": write_percent, "seed": 3, "threads": 6}
    slots = Slots(cfg)
    rng = random.Random(7)
    submit_ns = [0] * slots.count
    copied, count = tallied(slots, True)
    by_slot, _ = tallied(slots, True)
    count_slots = slot_counter(by_slot, slots, submit_ns)
    now = 10**15
    for batch in range(400):
        if batch == 200:
            copied.start_window()
            by_slot.start_window()
        reaped = rng.sample(range(slots.count), rng.randint(1, slots.count))
        now += rng.randint(50, 5000)
        # A few submission times per batch, as chunks give; latencies of 1 ns to 3.4 ms, whose
        # extremes keep moving (ever shorter and ever longer ones now and then).
        choices = (600 - batch, 127, 128, 900, 40_000, 3_000_000 + 1000 * batch)
        for slot in reaped:
            submit_ns[slot] = now - rng.choice(choices)
            if slots.mixed:
                slots.key[slot] = slots.base[slot] + (rng.random() < write_percent / 100)
        count(list(map(submit_ns.__getitem__, reaped)), list(map(slots.key.__getitem__, reaped)), now)
        count_slots(reaped, now)
    assert by_slot.ios == copied.ios and sum(by_slot.ios) > 1000
    assert by_slot.lat_sum == copied.lat_sum
    assert by_slot.hist_r == copied.hist_r and by_slot.hist_w == copied.hist_w
    assert by_slot.mins == copied.mins and by_slot.maxs == copied.maxs
