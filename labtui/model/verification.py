"""What a verified step found when it read blocks back: the blocks that did not come back as written.

A step with `verify = true` writes every block with a header (the run, the offset, the write's
number, a checksum of the block) and checks every block it reads (labtui.engine.verify). This is
what it keeps: how much it checked, which checksum, and each block that did not read back as
written, with its offset, what was expected, what was found and the first bytes that differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from labtui.units import human_size

# What went wrong with a block (BlockMismatch.kind):
CORRUPTED = "corrupted"  # its bytes differ from what was written there (or its header is damaged)
TORN = "torn"  # part of it is one write's, the rest is not: a write that half landed
MISPLACED = "misplaced"  # it holds, intact, the block written for another offset
KINDS = (CORRUPTED, TORN, MISPLACED)
# A result keeps at most this many blocks in full; the counts are always whole.
KEPT = 100


@dataclass(frozen=True)
class BlockMismatch:
    """One block that did not read back as written."""

    offset: int  # the block's byte offset in the test file (or device)
    kind: str  # KINDS
    detail: str  # in words: "16 bytes differ from what was written, the first at +1000"
    expected: str  # the header it should have carried: "offset 4096, run 1f2e.., written by this run"
    found: str  # the header it carried: "offset 8192, write #12, run 1f2e.."
    differ_at: int | None = None  # the first differing byte, from the block's start
    expected_bytes: str = ""  # up to 16 bytes from there, in hex
    found_bytes: str = ""
    differing: int = 0  # bytes of the block that differ


@dataclass(frozen=True)
class Verification:
    """A verified step's checks: every block it read, checked against the header written with it."""

    checksum: str  # the block checksum: "xxh3-64", "crc32c", "crc32"
    blocks: int = 0  # blocks read and checked (measured phase and not: every read the step made)
    bytes: int = 0
    mismatched: int = 0  # blocks that did not read back as written (all of them, kept or not)
    unwritten: int = 0  # blocks read that no verified write of this run had written: not checked
    covered_bytes: int | None = None  # distinct bytes of the file read back as written; None: not counted
    file_bytes: int | None = None  # the test file's bytes the step could reach
    mismatches: tuple[BlockMismatch, ...] = ()  # the first KEPT, in the order they were found
    engine: str = "native"  # who checked: "native" (labtui's header) or "fio" (fio's verify=)

    @property
    def failed(self) -> bool:
        return self.mismatched > 0

    def problem(self) -> str | None:
        """The step's error where blocks did not read back as written, else None."""
        if not self.mismatched:
            return None
        n = self.mismatched
        kinds = sorted({m.kind for m in self.mismatches})
        how = f" ({', '.join(kinds)})" if kinds else ""
        return f"{n} block{'s' if n != 1 else ''} did not read back as written{how}"

    def summary(self) -> str:
        """One line: "4096 blocks (16 MiB) read back as written (xxh3-64); 12 not written by this run"."""
        if self.mismatched:
            head = self.problem() or ""
            head += f", of {self.blocks} checked ({human_size(self.bytes)})"
        else:
            head = f"{self.blocks} block{'s' if self.blocks != 1 else ''} ({human_size(self.bytes)}) read back as written"
        head += f" ({self.checksum})"
        if self.unwritten:
            head += f"; {self.unwritten} not written by this run (not checked)"
        return head


def merged(parts: list[Verification]) -> Verification | None:
    """Several processes' checks of one step as one (covered bytes are theirs summed: each process
    reads its own blocks' share, but random reads may overlap, so a sum is counted only where
    each part counted its own; the caller unites bitmaps where it has them)."""
    if not parts:
        return None
    first = parts[0]
    kept: list[BlockMismatch] = []
    for p in parts:
        kept += p.mismatches
    covered = [p.covered_bytes for p in parts]
    return Verification(
        checksum=first.checksum,
        blocks=sum(p.blocks for p in parts),
        bytes=sum(p.bytes for p in parts),
        mismatched=sum(p.mismatched for p in parts),
        unwritten=sum(p.unwritten for p in parts),
        covered_bytes=None if any(c is None for c in covered) else sum(c or 0 for c in covered),
        file_bytes=first.file_bytes,
        mismatches=tuple(sorted(kept, key=lambda m: m.offset)[:KEPT]),
        engine=first.engine,
    )
