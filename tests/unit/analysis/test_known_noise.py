"""What earlier runs of a disk say about its noise (labtui/analysis/known_noise.py): pooled on the log scale from the
same disk and profile only, the compared results left out; a hint, from enough runs, or none."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest

from labtui.analysis.known_noise import hint_for, hint_from_store, noise_from
from labtui.analysis.metrics import IOPS
from labtui.results.store import Store
from synthetic import READ, TARGET, WRITE, run_result


def test_earlier_runs_of_the_same_disk_and_profile_give_the_noise_the_compared_ones_do_not(labtui_home):
    store = Store(labtui_home)
    earlier = (50_000, 52_000, 48_500, 51_000)
    for i, iops in enumerate(earlier):  # single runs on other occasions
        store.save_result(run_result(f"20261020-1{i}0000-e{i:03d}", {READ: [iops], WRITE: [40_000]}, minutes=-60 * (i + 1)))
    # Another profile and another disk say nothing of this one.
    store.save_result(run_result("20261020-200000-0the", {READ: [10_000]}, profile_name="other", minutes=-5))
    other_disk = replace(TARGET, serial="OTHER", model="Other disk")
    store.save_result(run_result("20261020-210000-0dsk", {READ: [90_000]}, target=other_disk, minutes=-4))
    a = run_result("20261101-120000-aaaa", {READ: [20_000], WRITE: [40_000]})
    b = run_result("20261101-130000-bbbb", {READ: [80_000], WRITE: [40_000]}, minutes=60)
    for r in (a, b):
        store.save_result(r)
    rows, _broken = store.summaries()
    known = hint_for(rows, [a, b])(READ, IOPS)
    logs = [math.log(v) for v in earlier]
    assert known is not None and known.runs == 4
    assert known.relative_sd == pytest.approx(math.sqrt(math.expm1(statistics.variance(logs))))
    assert known.source == "in 4 earlier runs of quick-sanity on this disk"
    # The same from the store's index; a step's figure that never varied is known to be quiet.
    from_store = hint_from_store(store, [a, b])
    assert from_store is not None and from_store(READ, IOPS) == known
    quiet = hint_for(rows, [a, b])(WRITE, IOPS)
    assert quiet is not None and quiet.relative_sd == 0.0


def test_too_few_runs_or_a_figure_the_index_does_not_keep_give_no_hint(labtui_home):
    store = Store(labtui_home)
    for i, iops in enumerate((50_000, 52_000)):  # two single runs: one degree of freedom, too little
        store.save_result(run_result(f"20261020-1{i}0000-e{i:03d}", {READ: [iops]}, minutes=-60 * (i + 1)))
    rows, _broken = store.summaries()
    assert noise_from(rows, READ.name, "iops") is None
    assert noise_from(rows, READ.name, "no such figure") is None
    # Repetitions inside one result count with their own degrees of freedom.
    store.save_result(run_result("20261020-300000-0rep", {READ: [50_000, 51_000, 49_000]}, minutes=-1))
    rows, _broken = store.summaries()
    pooled = noise_from(rows, READ.name, "iops")
    assert pooled is not None and pooled[1] == 5
