"""The I/O slots one process drives for the logical workers it carries, and their offset streams.

Slot s belongs to logical worker s // outstanding (of the process's own, in order): each worker
keeps `outstanding` slots, so `outstanding` I/Os, in flight. A worker's sequential stream runs
through its own share of the file whichever of its slots frees first; random offsets and the
direction of each I/O of a mixed step are drawn a pool at a time (several rings' worth), each pool in
a few passes that run at C speed, so a batch of freed slots takes its draws as two list slices.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from itertools import repeat
from operator import lt, mod, mul

from labtui.engine.native.common import region

# Draws made at once: at least this many, and at least POOL_RINGS rings' worth. Drawn per batch of
# freed slots (often 2-6 I/Os where many workers share a CPU), a batch of 5's offsets and directions
# cost 1.6 us (randbytes, an array, a comprehension; a call of random() per direction), its two
# slices of a pool 0.2 us (timeit, 2026-12-06, the 2-vCPU Xeon VM, loaded).
POOL_MIN = 4096
POOL_RINGS = 8


class Slots:
    """Slot -> logical worker, each worker's sequential position, and the random draws."""

    def __init__(self, cfg: dict) -> None:
        self.workers: list[int] = cfg["workers"]  # the step's logical workers this process carries
        self.outstanding = per = cfg["outstanding"]
        self.count = len(self.workers) * per
        self.block_size = bs = cfg["block_size"]
        self.blocks = cfg["file_size"] // bs
        self.sequential = cfg["pattern"] == "sequential"
        self.write_percent = wp = cfg["write_percent"]
        self.mixed = 0 < wp < 100
        # The direction of every I/O of a step that does not mix them.
        self.direction = 1 if wp == 100 else 0
        # Per slot: 2 x its worker (index into the Tally's per-worker lists; + 1 for a write).
        self.base = [2 * (s // per) for s in range(self.count)]
        regions = [region(cfg, w) for w in self.workers]
        self.starts = [r[0] for r in regions]
        self.ends = [r[1] for r in regions]
        self.positions = list(self.starts)
        self.rng = random.Random(cfg["seed"])
        self.share = wp / 100
        # A mixed step's I/O is a write where its 32-bit draw is below this (the share, to 2**-32).
        self.write_below = round(self.share * (1 << 32))
        self.pool_size = max(POOL_MIN, POOL_RINGS * self.count)
        # Per slot: the Tally index of its I/O now (2 x worker + direction; a mixed step's loop sets it).
        self.key = [b + self.direction for b in self.base]
        # Each worker's first `trace` I/Os (offset, is a write), in the order they were submitted.
        self.trace_limit: int = cfg.get("trace", 0)
        self.traces: list[list[tuple[int, bool]]] = [[] for _ in self.workers]

    def worker_of(self, slot: int) -> int:
        """The local index of the logical worker a slot belongs to."""
        return slot // self.outstanding

    def pool(self) -> tuple[list[int], list[bool]]:
        """`pool_size` random offsets (aligned, anywhere in the file) and, for a mixed step, as many
        directions (True: a write), drawn at once; a loop slices what each batch takes. A sequential step's
        offsets are its streams' (`offsets`): none drawn for it."""
        k, rb = self.pool_size, self.rng.randbytes
        offsets = [] if self.sequential else list(
            map(mul, map(mod, array("Q", rb(8 * k)), repeat(self.blocks)), repeat(self.block_size)))
        # operator.lt over a repeat, not the bound method: 88 against 116 ns a draw (timeit, 4096
        # draws, 2026-12-06 14:58 UTC).
        writes = list(map(lt, array("I", rb(4 * k)), repeat(self.write_below))) if self.mixed else []
        return offsets, writes

    def offsets(self, slots: Sequence[int]) -> list[int]:
        """The next offset of each slot's worker: its stream's next block, or a random block."""
        bs = self.block_size
        if not self.sequential:
            nblocks = self.blocks
            return [(r % nblocks) * bs for r in array("Q", self.rng.randbytes(8 * len(slots)))]
        per, positions, starts, ends = self.outstanding, self.positions, self.starts, self.ends
        out = []
        for slot in slots:
            w = slot // per
            off = positions[w]
            nxt = off + bs
            positions[w] = nxt if nxt < ends[w] else starts[w]
            out.append(off)
        return out

    def trace(self, slots: Sequence[int], offsets: Sequence[int]) -> bool:
        """Add the I/Os about to go to their workers' traces; whether a trace still wants more."""
        per, key, traces, limit = self.outstanding, self.key, self.traces, self.trace_limit
        for slot, off in zip(slots, offsets):
            trace = traces[slot // per]
            if len(trace) < limit:
                trace.append((off, bool(key[slot] & 1)))
        return any(len(t) < limit for t in traces)
