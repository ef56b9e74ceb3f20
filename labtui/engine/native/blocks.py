"""What a written block holds, stamped in place in the I/O buffers, a batch of slots at a time.

Every write carries, at each 4 KiB of its block, the byte offset that 4 KiB lands at and a number
no other write of the process carries: no two writes are alike (a drive that deduplicates or
compresses could otherwise store a repeated buffer for nothing), and a block read back says where
it was written. The loops call `stamp` once per batch, over the slots about to be written, before
they go to the kernel, and `check` once per batch over the slots whose reads have completed,
before those slots are used again (the place a verifying reader hooks in; none by default).
"""

from __future__ import annotations

import ctypes
import mmap
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import compress

from labtui.engine.native.common import buffers

STAMP = struct.Struct("<QQ")
STAMP_EVERY = 4096
# From this many stamps a block on, a block's stamps go in two strided stores (fewer calls);
# below, one call each costs less (CPU time per write, timeit over 32 slots: 8 KiB 0.6 us by
# calls against 1.8 us strided, 48 KiB 1.5 against 1.6, 64 KiB 2.0 against 1.8).
STRIDED_FROM = 13


def slot_buffers(cfg: dict, count: int) -> tuple[mmap.mmap, int, int, Blocks]:
    """`count` page-aligned buffers of one block each (random data for writes): the memory, the
    stride from one to the next, the first one's address, and their stamps."""
    buf, stride = buffers(cfg, count)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    blocks = Blocks(memoryview(buf), stride, cfg["block_size"], cfg["seed"])
    if cfg.get("verify"):  # verified writes and reads (a step's verify = true): stamped and checked
        from labtui.engine.native.verifier import Verifier

        verifier = Verifier(blocks.view, stride, cfg["block_size"], cfg["seed"], cfg["verify"]["tag"],
                            cfg["verify"]["process"], cfg["file_size"], coverage=cfg["pattern"] == "sequential")
        verifier.granule = cfg["verify"].get("granule")
        verifier.attach(blocks, cfg["write_percent"] == 0)
    return buf, stride, address, blocks


class Blocks:
    """The stamps of one process's buffers: `count` slots of `stride` bytes, blocks of `block_size`."""

    def __init__(self, buf: memoryview, stride: int, block_size: int, nonce: int) -> None:
        self.view = buf
        self.words = buf.cast("Q")  # buffers are whole pages (labtui.engine.native.common.buffers)
        self.stride = stride
        self.block_size = block_size
        self.nonce = nonce  # the next write's number
        self.positions = range(0, block_size - STAMP.size + 1, STAMP_EVERY)
        # Reads completed: (slots, each one's offset); None checks nothing. A verifier sets it.
        self.check: Callable[[Sequence[int], Sequence[int]], None] | None = None

    def stamp(self, slots: Iterable[int], offsets: Iterable[int]) -> None:
        """Stamp each slot's buffer for the write at its offset (slots and offsets pair up)."""
        nonce = self.nonce
        stride, bs = self.stride, self.block_size
        per_block = len(self.positions)
        if per_block < STRIDED_FROM:  # a call per stamp: the common block sizes (4-48 KiB)
            pack = STAMP.pack_into
            view = self.view
            positions = self.positions
            if per_block == 1:
                for slot, off in zip(slots, offsets):
                    pack(view, slot * stride, off, nonce)
                    nonce += 1
            else:
                for slot, off in zip(slots, offsets):
                    first = slot * stride
                    for p in positions:
                        pack(view, first + p, off + p, nonce)
                    nonce += 1
            self.nonce = nonce
            return
        words = self.words
        step = STAMP_EVERY // 8
        for slot, off in zip(slots, offsets):
            # Every stamp of the block at once: its offsets, then its number, each as one strided store.
            first = slot * stride // 8
            last = first + bs // 8
            words[first:last:step] = array("Q", range(off, off + per_block * STAMP_EVERY, STAMP_EVERY))
            words[first + 1 : last : step] = array("Q", (nonce,)) * per_block
            nonce += 1
        self.nonce = nonce

    def in_place(self) -> tuple[memoryview, int, tuple[int, ...]] | None:
        """For a loop that writes the plain stamps itself, in its own loop over a batch (no call,
        no iterators per batch): the buffers as 64-bit words, a slot's stride in words, and the word
        of each stamp within a block (its offset, then its number at the next word). None where
        `stamp` is not this one (a verifier's) or the words are not little-endian as STAMP is."""
        if getattr(self.stamp, "__func__", None) is not Blocks.stamp or sys.byteorder != "little":
            return None
        return self.words, self.stride // 8, tuple(p // 8 for p in self.positions)

    def results(self) -> dict:
        """What the process's result adds of its blocks (a verifier's findings; nothing by default)."""
        return {}

    def reads_done(self, reaped: Sequence[int], key: Sequence[int], offset_of: Callable[[int], int]) -> None:
        """The verifier's turn (if one is set), over the reads of a reaped batch, before their slots
        take another I/O: `key[slot] & 1` is a slot's direction (1: a write), `offset_of` its offset."""
        if self.check is None:
            return
        read = [slot for slot in reaped if not key[slot] & 1]
        if read:
            self.check(read, [offset_of(slot) for slot in read])


# Mark a batch of a mixed step's I/Os: (its freed slots, each one's draw (True: a write), each one's offset).
DirectionPass = Callable[[Sequence[int], Sequence[bool], Sequence[int]], None]


def direction_pass(blocks: Blocks, key: list[int], base: list[int], ops: memoryview, op_at: tuple[int, int],
                   op_write: int, op_read: int, offs: memoryview, off_at: tuple[int, int]) -> DirectionPass:
    """A ring loop's pass over a mixed step's batch: each slot's offset at `offs[slot * a + b]`
    (off_at = (a, b)), its opcode (op_write or op_read) at `ops[slot * a + b]` (op_at), its Tally
    index in `key` (2 x worker, from `base`, + 1 for a write), and each write's stamps written in
    place in the same pass: no call and no filtered iterators per write. A batch of 5 4K I/Os 50/50
    cost 2.1 us against 3.3 by `stamp` over two compress() (8K: 2.6 against 4.1; timeit,
    alternating, 2026-12-06 14:37 UTC, load 1.9). A verifier's stamps go through its `stamp`."""
    (op_scale, op_off), (off_scale, off_off) = op_at, off_at
    stamps = blocks.in_place()
    if stamps is None:
        def marked(free: Sequence[int], writes: Sequence[bool], offsets: Sequence[int]) -> None:
            for slot, w, off in zip(free, writes, offsets):
                offs[slot * off_scale + off_off] = off
                ops[slot * op_scale + op_off] = op_write if w else op_read
                key[slot] = base[slot] + w
            blocks.stamp(compress(free, writes), compress(offsets, writes))

        return marked
    words, slot_words, stamp_words = stamps
    one_stamp = len(stamp_words) == 1

    def mark(free: Sequence[int], writes: Sequence[bool], offsets: Sequence[int]) -> None:
        nonce = blocks.nonce
        for slot, w, off in zip(free, writes, offsets):
            offs[slot * off_scale + off_off] = off
            if w:
                ops[slot * op_scale + op_off] = op_write
                key[slot] = base[slot] + 1
                q = slot * slot_words
                if one_stamp:
                    words[q] = off
                    words[q + 1] = nonce
                else:
                    for p in stamp_words:
                        words[q + p] = off
                        words[q + p + 1] = nonce
                        off += STAMP_EVERY
                nonce += 1
            else:
                ops[slot * op_scale + op_off] = op_read
                key[slot] = base[slot]
        blocks.nonce = nonce

    return mark
