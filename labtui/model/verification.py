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
# A step's error where blocks did not come back ("2 blocks did not read back as written (torn)"): what
# History's detail knows it by, the read-back line under it saying it in full.
READ_BACK_FAILED = "did not read back as written"


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

    def impossible(self) -> str | None:
        """Why these checks cannot be a step's (a damaged or hand-made result file), or None: a count
        below zero, fewer mismatches counted than kept, a kind of mismatch labtui never records."""
        counts = {"blocks": self.blocks, "bytes": self.bytes, "mismatched": self.mismatched,
                  "unwritten": self.unwritten, "covered_bytes": self.covered_bytes or 0, "file_bytes": self.file_bytes or 0}
        negative = [f"{name} = {value}" for name, value in counts.items() if value < 0]
        if negative:
            return f"{', '.join(negative)}: a count cannot be negative"
        if self.mismatched < len(self.mismatches):
            return f"mismatched = {self.mismatched} with {len(self.mismatches)} blocks kept that did not read back"
        if any(m.kind not in KINDS for m in self.mismatches):
            return f"a mismatch of a kind labtui does not record (it records {', '.join(KINDS)})"
        return None

    def problem(self) -> str | None:
        """The step's error where blocks did not read back as written, else None."""
        if not self.mismatched:
            return None
        n = self.mismatched
        kinds = sorted({m.kind for m in self.mismatches})
        how = f" ({', '.join(kinds)})" if kinds else ""
        return f"{n} block{'s' if n != 1 else ''} {READ_BACK_FAILED}{how}"

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


# A verified run's read-back in two words, beside its status in History's table and `labtui history`.
DATA_OK, DATA_BAD, DATA_PART, DATA_UNCHECKED = "data ok", "data BAD", "data part", "data unchecked"


@dataclass(frozen=True)
class ReadBack:
    """What a run's verified steps found, together: the facts its answer ("All 16 GiB read back as
    written", "3 blocks did not read back as written") is said from. Kept in History's summary
    index (labtui.results.summaries), where the result's steps are not."""

    mismatched: int = 0  # the most blocks one step found that did not read back as written
    kinds: tuple[str, ...] = ()  # KINDS of the blocks kept, sorted
    bad_steps: tuple[str, ...] = ()  # the steps that found them, in order
    file_bytes: int = 0  # the test file's bytes the steps could reach (the largest)
    covered_bytes: int = 0  # distinct bytes read back as written (the most one step reached)
    unwritten: int = 0  # blocks read that this run's verified writes had not written (not checked)
    fio_blocks: int | None = None  # fio checked them (its own verify=): how many blocks; None: labtui did
    wrote: bool = True  # a verified step of the run wrote (else nothing it read can have been its own)

    @classmethod
    def of(cls, steps: list[tuple[str, Verification, bool]], wrote: bool | None = None) -> ReadBack | None:
        """The facts of the verified steps `steps` (name, checks, whether it wrote); None where none verified.
        `wrote`: whether a verified step of the run wrote, where the steps with checks do not say it all."""
        if not steps:
            return None
        bad = [(name, v) for name, v, _ in steps if v.mismatched]
        checks = [v for _, v, _ in steps]
        return cls(
            mismatched=max((v.mismatched for _, v in bad), default=0),
            kinds=tuple(sorted({m.kind for _, v in bad for m in v.mismatches})),
            bad_steps=tuple(name for name, _ in bad),
            file_bytes=max(v.file_bytes or 0 for v in checks),
            covered_bytes=max(v.covered_bytes or 0 for v in checks),
            unwritten=max(v.unwritten for v in checks),
            fio_blocks=sum(v.blocks for v in checks) if checks[0].engine == "fio" else None,
            wrote=any(writes for _, _, writes in steps) if wrote is None else wrote,
        )

    @property
    def failed(self) -> bool:
        return self.mismatched > 0

    @property
    def whole(self) -> bool:
        """Every block checked came back, and the checks reached all of the file (or fio checked them)."""
        return not self.failed and (self.fio_blocks is not None and not self.unwritten
                                    or 0 < self.file_bytes <= self.covered_bytes)

    @property
    def mark(self) -> str:
        """'data ok' (every block of the file came back), 'data BAD' (some did not), 'data part' (what was
        read came back, the steps did not reach all of the file), 'data unchecked' (no block read had been
        written by the run's verified writes)."""
        if self.failed:
            return DATA_BAD
        if self.whole:
            return DATA_OK
        return DATA_PART if self.covered_bytes or self.fio_blocks is not None else DATA_UNCHECKED

    def words(self, result_id: str) -> str:
        """The answer's first clause, as `labtui show` and every screen say it."""
        if self.failed:
            n = self.mismatched
            return (f"{n} block{'s' if n != 1 else ''} did not read back as written ({', '.join(self.kinds) or 'fio'}) "
                    f"in {', '.join(repr(name) for name in self.bad_steps)}: labtui show {result_id} lists them")
        # With no verified write in the run, longer steps check nothing more: the writes are missing.
        fix = "give the write step longer, --duration" if self.wrote else "put a verified write step before the reads"
        if self.fio_blocks is not None and self.unwritten:
            n = self.unwritten
            return (f"Every block fio read back with its header was as written (fio's crc32c); {n} block"
                    f"{'s' if n != 1 else ''} read carried no fio header (not written by this run's verified writes, "
                    f"not checked: {fix})")
        if self.fio_blocks is not None:
            return f"Every block fio read back ({self.fio_blocks}) was as written (fio's crc32c)"
        if self.whole:
            return f"All {_size(self.file_bytes)} read back as written"
        covered, whole = _size(self.covered_bytes), _size(self.file_bytes)
        if covered == whole:  # 4 KiB short of 4 MiB is "4 MiB" too: "4 MiB of 4 MiB" read as all of it
            covered = f"All but {_size(self.file_bytes - self.covered_bytes)}"
        words = f"{covered} of {whole} read back as written, no block otherwise"
        if self.unwritten:
            n = self.unwritten
            were = "blocks read were" if n != 1 else "block read was"
            return words + f"; {n} {were} not written by this run's verified writes (not checked: {fix})"
        return words + " (the steps did not reach the rest: give them longer, --duration)"


def _size(n: int) -> str:
    """"16 GiB", "1.5 GiB", "512 KiB"."""
    return human_size(n).replace(".0 ", " ")
