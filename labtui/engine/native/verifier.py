"""The native engine's verifying blocks: verified writes stamped, verified reads checked, per process.

A step with `verify = true` has a Verifier attached to its processes' `Blocks` (labtui.engine.native.
blocks.slot_buffers): the loops call `stamp` before a batch of writes goes to the kernel and `check`
(their `reads_done` hook) once a batch of reads has come back, as they do for any step. The format and
the check are labtui.engine.verify's; this keeps what a process found: blocks checked, a bitmap
of the blocks that read back as written, of those never written by this run, and each block that
did not read back as written (by offset: a block read twice is one block); of a write step, the 4 KiB
units it wrote a block in. `results()` hands them to the worker's result; the engine unites its
processes' (`merge`), and a later read's blocks the run wrote that came back without its header are lost
writes, not blocks never written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from labtui.engine import verify as v
from labtui.model.verification import CORRUPTED, KEPT, BlockMismatch, Verification

MAGIC_WORD = int.from_bytes(v.MAGIC, "little")  # the header mark as the buffers' 64-bit words hold it


class Verifier:
    """One process's verified writes and reads over its slot buffers (`stride` bytes apart)."""

    def __init__(self, view: memoryview, stride: int, block_size: int, nonce: int, tag: int, process: int,
                 file_size: int, coverage: bool = True) -> None:
        self.view, self.stride, self.block_size = view, stride, block_size
        self.tag = tag
        self.pat = v.pattern(tag)
        # Write numbers unique in the run: the process's index in the top bits (a step's processes
        # number their writes at once), the step's seed below them (steps of one run differ).
        self.nonce = (process << 48) | (nonce & 0xFFFF_FFFF) << 12
        nblocks = file_size // block_size
        self.good = bytearray(-(-nblocks // 8))  # blocks read back as written
        self.strangers = bytearray(len(self.good))  # blocks read that no verified write of this run wrote
        self.found: dict[int, BlockMismatch] = {}  # offset -> the first mismatch seen there
        self.mismatched = bytearray(len(self.good))
        self.blocks = 0
        # Per slot, each unit's checked bytes (0-4087) as a view made once: a slice per I/O cost more
        # than the checksum itself. And the buffers as 64-bit words: a header field is one index.
        count = len(view) // stride
        self.units = [[view[s * stride + u : s * stride + u + v.SUM_AT] for u in range(0, block_size, v.UNIT)]
                      for s in range(count)]
        self.words = view.cast("Q")
        self.first = [units[0] for units in self.units]
        # Which blocks read back as written, for "all 16 GiB read back": a sequential step's (its reads
        # cover the file); a random step's reads are checked but not mapped, which would cost them
        # a sixth more CPU each for a figure nobody reads.
        self.coverage = coverage
        self.counted = [0]  # blocks checked by the random-read hook
        # The 4 KiB units this process's verified writes put a block in: where a later verified read finds
        # no header of this run, the write did not come back (a lost write), it is no block never written.
        self.written: bytearray | None = None
        self.file_size = file_size
        self.granule: int | None = None  # the run's verified writes' block size, where a read's is larger

    def attach(self, blocks: Any, reads_only: bool = False) -> None:
        """Make `blocks` (a process's labtui.engine.native.blocks.Blocks) stamp and check verified blocks."""
        blocks.stamp = self.stamp
        blocks.check = self.check_reads
        blocks.results = self.results
        if reads_only and self.block_size == v.UNIT and not self.coverage:
            blocks.reads_done = self.random_reads_done()

    def random_reads_done(self) -> Callable[[Sequence[int], Sequence[int], Callable[[int], int]], None]:
        """The loops' read hook for a step of 4 KiB random reads, the cell where the interpreter's cost per
        I/O shows: every reaped slot is a read, checked where it lies, no list built, nothing looked up
        on an object (a batch at 32 in flight is often 1-3 I/Os, so what a call costs counts too)."""
        words, first, digest, magic, tag, sw = self.words, self.first, v.digest, MAGIC_WORD, self.tag, self.stride >> 3
        failed, counted = self._failed, self.counted

        def reads_done(reaped: Sequence[int], key: Sequence[int], offset_of: Callable[[int], int]) -> None:
            for slot in reaped:
                off = offset_of(slot)
                q = slot * sw
                if not (words[q] == off and words[q + 2] == tag and words[q + 3] == magic
                        and words[q + 511] == digest(first[slot])):
                    failed(slot, off)
            counted[0] += len(reaped)

        return reads_done

    def stamp(self, slots: Iterable[int], offsets: Iterable[int]) -> None:
        """Each slot's block made the one written at its offset (labtui.engine.verify.stamp, written out)."""
        view, stride, tag, pat, units, words = self.view, self.stride, self.tag, self.pat, self.units, self.words
        turn, digest, body, end, magic = v.turn, v.digest, v.BODY, v.SUM_AT, MAGIC_WORD
        number = self.nonce
        written = self.written
        if written is None:
            written = self.written = bytearray(-(-(self.file_size // v.UNIT) // 8))
        for slot, off in zip(slots, offsets):
            p = slot * stride
            for i, unit in enumerate(units[slot]):
                at = off + i * v.UNIT
                u = at >> 12
                written[u >> 3] |= 1 << (u & 7)
                k = turn(at, number)
                view[p + body : p + end] = pat[k : k + end - body]
                q = p >> 3
                words[q] = at
                words[q + 1] = number
                words[q + 2] = tag
                words[q + 3] = magic
                words[q + 511] = digest(unit)
                p += v.UNIT
            number += 1
        self.nonce = number

    def check_reads(self, slots: Sequence[int], offsets: Sequence[int]) -> None:
        view, stride, bs, tag = self.view, self.stride, self.block_size, self.tag
        good = self.good
        self.blocks += len(slots)
        if bs == v.UNIT:  # one unit a block (4 KiB reads, the common case): the check written out
            words, first, digest, magic, sw = self.words, self.first, v.digest, MAGIC_WORD, stride >> 3
            if not self.coverage:
                for slot, off in zip(slots, offsets):
                    q = slot * sw
                    if not (words[q] == off and words[q + 2] == tag and words[q + 3] == magic
                            and words[q + 511] == digest(first[slot])):
                        self._failed(slot, off)
                return
            for slot, off in zip(slots, offsets):
                q = slot * sw
                if (words[q] == off and words[q + 2] == tag and words[q + 3] == magic
                        and words[q + 511] == digest(first[slot])):
                    i = off >> 12
                    good[i >> 3] |= 1 << (i & 7)
                else:
                    self._failed(slot, off)
            return
        for slot, off in zip(slots, offsets):
            what = v.check(view, slot * stride, bs, off, tag, self.granule)
            if what is None:
                i = off // bs
                good[i >> 3] |= 1 << (i & 7)
            else:
                self._failed(slot, off, what)

    def _failed(self, slot: int, off: int, what: None | str | BlockMismatch = None) -> None:
        """The slow path: what the block is (never written by this run, or how it differs); `what`: the
        check's verdict where it gave one."""
        p = slot * self.stride
        i = off // self.block_size
        if (self.mismatched[i >> 3] | self.strangers[i >> 3]) >> (i & 7) & 1:
            return  # found before (a block read again): counted once, looked at once
        block = bytes(self.view[p : p + self.block_size])
        if what is None and len(self.found) >= KEPT:  # enough kept in full: only whether it is this run's at all
            units = range(0, self.block_size, v.UNIT)
            if any(v.ours(block[u : u + v.UNIT], self.tag) for u in units):
                self.mismatched[i >> 3] |= 1 << (i & 7)
            else:
                self.strangers[i >> 3] |= 1 << (i & 7)
            return
        if what is None:
            what = v.diagnose(block, off, self.tag, self.granule)
        if what == v.UNWRITTEN:
            self.strangers[i >> 3] |= 1 << (i & 7)
            return
        self.mismatched[i >> 3] |= 1 << (i & 7)
        if isinstance(what, BlockMismatch) and off not in self.found and len(self.found) < KEPT:
            self.found[off] = what

    def results(self) -> dict:
        return {"verify": {"checksum": v.CHECKSUM, "blocks": self.blocks + self.counted[0],
                           "good": bytes(self.good) if self.coverage else None,
                           "strangers": bytes(self.strangers), "mismatched": bytes(self.mismatched),
                           "found": list(self.found.values()),
                           "written": bytes(self.written) if self.written is not None else None}}


def written(parts: list[dict]) -> int:
    """The 4 KiB units a verified write step's processes wrote a block in (their `results()`), as one bitmap."""
    bits = 0
    for p in parts:
        if p and p.get("written"):
            bits |= int.from_bytes(p["written"], "little")
    return bits


LOST = ("no block of this run came back, though this run's verified write put one here: the write was lost "
        "(the block reads as zeros, or as older data)")


def lost_blocks(strangers: int, units: int, block_size: int) -> int:
    """The blocks (a bitmap of `block_size` blocks) among `strangers` whose every 4 KiB unit a verified write
    of the run wrote (`units`): what reads as never written there is a write that did not come back."""
    k = block_size // v.UNIT
    if k == 1 or not strangers or not units:
        return strangers & units
    have = units.to_bytes(-(-units.bit_length() // 8), "little")
    lost, raw = 0, strangers.to_bytes(-(-strangers.bit_length() // 8), "little")
    for at, byte in enumerate(raw):
        for bit in range(8) if byte else ():
            if byte >> bit & 1:
                j = at * 8 + bit
                if all(u >> 3 < len(have) and have[u >> 3] >> (u & 7) & 1 for u in range(j * k, j * k + k)):
                    lost |= 1 << j
    return lost


def merge(parts: list[dict], block_size: int, file_size: int, wrote: int = 0) -> Verification | None:
    """A step's verification from its processes' `results()` (None: the step was not verified); `wrote`: the
    4 KiB units the run's verified writes put a block in so far (`written`).

    Blocks are counted once however many times, and by however many processes, they were read."""
    parts = [p for p in parts if p]
    if not parts:
        return None

    def union(key: str) -> int:
        bits = 0
        for p in parts:
            bits |= int.from_bytes(p[key], "little")
        return bits

    bad = union("mismatched")
    mapped = all(p["good"] is not None for p in parts)
    good = union("good") & ~bad if mapped else 0
    strangers = union("strangers") & ~bad & ~good
    found: dict[int, BlockMismatch] = {}
    for p in parts:
        for m in p["found"]:
            found.setdefault(m.offset, m)
    lost = lost_blocks(strangers, wrote, block_size)
    strangers &= ~lost
    bad |= lost
    j = 0
    while lost >> j and len(found) < KEPT:
        j += (lost >> j & -(lost >> j)).bit_length() - 1  # the next lost block
        offset = j * block_size
        found.setdefault(offset, BlockMismatch(offset, CORRUPTED, LOST, f"offset {offset}, written by this run",
                                               "no header of this run"))
        j += 1
    blocks = sum(p["blocks"] for p in parts)
    return Verification(
        checksum=parts[0]["checksum"], blocks=blocks, bytes=blocks * block_size, mismatched=bad.bit_count(),
        unwritten=strangers.bit_count(), covered_bytes=good.bit_count() * block_size if mapped else None,
        file_bytes=file_size // block_size * block_size,
        mismatches=tuple(sorted(found.values(), key=lambda m: m.offset)[:KEPT]),
    )
