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


def whole(reaped: list[int], results: list[int], bs: int) -> tuple[list[int], tuple[int, str] | None]:
    """The reaped slots whose I/O moved its whole block, and why the first that did not failed (None: all did)."""
    if results.count(bs) == len(results):
        return reaped, None
    bad = next(r for r in results if r != bs)
    error = (-bad, "short transfer") if bad < 0 else (errno.EIO, f"short transfer of {bad} bytes")
    return [slot for slot, r in zip(reaped, results) if r == bs], error
