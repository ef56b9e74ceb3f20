"""Counting a batch of completed I/Os at once: the ring loops' tally, per logical worker.

A reaped batch shares one completion time; its I/Os were submitted in a few chunks, each with one
timestamp. So the latency of a run of I/Os from one chunk is one subtraction and one bucket; a
batch of one worker and one direction adds up at C speed (a sum of its submission times); and the
extremes are the batch's oldest and newest submissions', looked at I/O by I/O only in the rare
batch that holds a new one.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

from labtui.engine.native.common import Tally
from labtui.engine.native.histogram import BUCKETS, SUB_BITS
from labtui.engine.native.slots import Slots

# Count a batch: the submission times of its I/Os, their Tally indices (None: every one is the
# process's only worker's, in the step's only direction), and the time they were all seen done.
BatchCounter = Callable[[list[int], "list[int] | None", int], None]


def tallied(slots: Slots, latency: bool) -> tuple[Tally, BatchCounter]:
    """The process's Tally, one list entry per logical worker and direction, and its batch counter."""
    tally = Tally(len(slots.workers))
    return tally, counter(tally, slots, latency)


def counter(tally: Tally, slots: Slots, latency: bool) -> BatchCounter:
    """The batch counter for this process's shape (one worker and one direction, or several)."""
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists
    d0 = slots.direction
    hist0 = hists[d0]
    mixed = slots.mixed
    hist_of = [hists[k & 1] for k in range(len(ios))]  # per Tally index: its direction's histogram
    top = BUCKETS - 1

    def count(stamps: list[int], keys: list[int] | None, now: int) -> None:
        if not stamps:
            return
        if keys is None:
            n = len(stamps)
            ios[d0] += n
            lat_sum[d0] += now * n - sum(stamps)
        last_t = -1
        idx = 0
        if not latency:
            if keys is not None:
                for t, k in zip(stamps, keys):
                    ios[k] += 1
                    lat_sum[k] += now - t
            return
        lo, hi = now - max(stamps), now - min(stamps)
        if not mixed:
            if lo < mins[d0]:
                mins[d0] = lo
            if hi > maxs[d0]:
                maxs[d0] = hi
            if keys is None:
                for t in stamps:
                    if t != last_t:
                        last_t = t
                        lat = now - t
                        if lat < 128:
                            idx = lat if lat > 0 else 0
                        else:
                            shift = lat.bit_length() - SUB_BITS
                            idx = (shift << 6) + (lat >> shift) if shift < 34 else top
                    hist0[idx] += 1
                return
        elif lo < mins[0] or lo < mins[1] or hi > maxs[0] or hi > maxs[1]:
            # A new extreme in one direction or the other: which one, I/O by I/O.
            for t, k in zip(stamps, keys or ()):
                lat = now - t
                d = k & 1
                if lat < mins[d]:
                    mins[d] = lat
                if lat > maxs[d]:
                    maxs[d] = lat
        for t, k in zip(stamps, keys or ()):
            lat = now - t
            ios[k] += 1
            lat_sum[k] += lat
            if t != last_t:
                last_t = t
                if lat < 128:
                    idx = lat if lat > 0 else 0
                else:
                    shift = lat.bit_length() - SUB_BITS
                    idx = (shift << 6) + (lat >> shift) if shift < 34 else top
            hist_of[k][idx] += 1

    return count


# Count a reaped batch by its slots, where it completed at `now`, before they take their next I/Os.
SlotCounter = Callable[[list[int], int], None]


def slot_counter(tally: Tally, slots: Slots, submit_ns: list[int]) -> SlotCounter:
    """The batch counter of a process that counts each batch as it is reaped (one that sends its
    freed slots with the call that waits: nothing is resubmitted before the count), latency on.

    It reads each slot's submission time and Tally index where they are: a batch of 2-6 I/Os, as
    where many workers share a CPU, cost 2.8 us copied out into lists for `counter`'s count and
    1.4 us counted here (timeit, 5 I/Os of 2 workers 50/50, 2026-12-06, the 2-vCPU Xeon VM); with
    the extremes' bounds worked out without generators, 1.3 us where it had cost 2.3 (same batch,
    alternating, 14:35 UTC, load 1.9). A
    latency is worked out once per submission time; the extremes are looked at only for the
    latencies outside the range every direction's extremes already cover.
    """
    ios, lat_sum, mins, maxs, hists = tally.ios, tally.lat_sum, tally.mins, tally.maxs, tally.hists
    key = slots.key
    hist_of = [hists[k & 1] for k in range(len(ios))]  # per Tally index: its direction's histogram
    # The directions whose extremes can move: both in a mixed step, else the step's own.
    mixed, d0 = slots.mixed, slots.direction
    top = BUCKETS - 1

    def count(reaped: list[int], now: int) -> None:
        # Below `low` or above `high` a latency is a new extreme for some direction; between, for
        # none. Worked out without a generator: two of them cost more than counting 5 I/Os.
        if mixed:
            low, high = mins
            if high > low:
                low = high
            high, other = maxs
            if other < high:
                high = other
        else:
            low, high = mins[d0], maxs[d0]
        last_t = -1
        idx = 0
        edge = False
        for slot in reaped:
            t = submit_ns[slot]
            k = key[slot]
            lat = now - t
            ios[k] += 1
            lat_sum[k] += lat
            if t != last_t:
                last_t = t
                if lat < 128:
                    idx = lat if lat > 0 else 0
                else:
                    shift = lat.bit_length() - SUB_BITS
                    idx = (shift << 6) + (lat >> shift) if shift < 34 else top
                edge = lat < low or lat > high
            if edge:
                d = k & 1
                if lat < mins[d]:
                    mins[d] = lat
                if lat > maxs[d]:
                    maxs[d] = lat
            hist_of[k][idx] += 1

    return count


def whole(reaped: list[int], results: list[int], bs: int) -> tuple[list[int], tuple[int, str] | None]:
    """The reaped slots whose I/O moved its whole block, and why the first that did not failed (None: all did)."""
    if results.count(bs) == len(results):
        return reaped, None
    bad = next(r for r in results if r != bs)
    error = (-bad, "short transfer") if bad < 0 else (errno.EIO, f"short transfer of {bad} bytes")
    return [slot for slot, r in zip(reaped, results) if r == bs], error
