"""The latency histogram: bounded relative error, exact nearest-rank semantics, clipping."""

import math
import random

from hypothesis import given, settings, strategies as st

from labtui.engine.native.histogram import BUCKETS, bucket_bounds, bucket_of, bucket_value, new_counts, percentiles


@given(st.integers(min_value=0, max_value=2**40 - 1))
@settings(max_examples=500)
def test_every_value_lands_in_a_bucket_that_holds_it(value):
    index = bucket_of(value)
    assert 0 <= index < BUCKETS
    low, high = bucket_bounds(index)
    assert low <= value <= high
    # The midpoint is within 0.8 % of any value in the bucket.
    if value:
        assert abs(bucket_value(index) - value) / value <= 1 / 128 + 1e-12


def test_buckets_are_contiguous_and_ordered():
    previous_high = -1
    for index in range(BUCKETS):
        low, high = bucket_bounds(index)
        assert low == previous_high + 1
        assert high >= low
        previous_high = high


def test_huge_values_land_in_the_last_bucket():
    assert bucket_of(2**50) == BUCKETS - 1


def _nearest_rank(values, p):
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@given(st.lists(st.integers(min_value=1_000, max_value=10**9), min_size=1, max_size=400),
       st.sampled_from([50.0, 90.0, 99.0, 99.9]))
@settings(max_examples=300)
def test_percentiles_are_within_one_percent_of_exact(values, p):
    counts = new_counts()
    for v in values:
        counts[bucket_of(v)] += 1
    got = percentiles(counts, [p], min(values), max(values))[0]
    exact = _nearest_rank(values, p)
    assert abs(got - exact) / exact <= 0.01


def test_percentiles_are_clipped_to_the_exact_extremes():
    counts = new_counts()
    counts[bucket_of(1_000_003)] += 10
    p0, p100 = percentiles(counts, [0.0001, 100.0], 1_000_001, 1_000_005)
    assert 1_000_001 <= p0 <= 1_000_005 and 1_000_001 <= p100 <= 1_000_005


def test_empty_histogram_has_no_percentiles():
    assert percentiles(new_counts(), [50.0, 99.0]) == [None, None]


def test_a_million_samples_cost_no_more_memory_than_a_few():
    rng = random.Random(1)
    counts = new_counts()
    for _ in range(100_000):
        counts[bucket_of(int(rng.lognormvariate(13, 1)))] += 1
    assert len(counts) == BUCKETS and sum(counts) == 100_000
