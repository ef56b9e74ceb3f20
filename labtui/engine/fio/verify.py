"""fio's verify= as labtui reads it: the blocks fio names in its messages, counted as they come.

fio (3.33, verify.c) names every block that did not check, one message each, on its stderr:
"crc32c: verify failed at file F offset N, length L ...", "verify: bad magic header 0, wanted acca at
file F offset N, length L" (no fio header at all) and "verify: bad header offset M, wanted N at file F
offset N, length L" (fio's header of another offset). A read of a large file the write step did not
reach names millions of them: they are tallied line by line as fio writes them (`VerifyTally.feed`),
never kept as text, so the counts are whole however much fio said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from labtui.model.verification import CORRUPTED, KEPT, MISPLACED, BlockMismatch, Verification

FIO_VERIFY = "crc32c"
UNIT = 4096  # fio's header every 4 KiB (--verify_interval=4096): the offsets it names are of these
_VERIFY_FAILED = re.compile(r"^(?P<what>[\w-]+: verify failed|verify: bad (?:magic )?header(?: offset (?P<held>\d+))?"
                            r"[^,]*,[^,]*?) at file .* offset (?P<offset>\d+), length (?P<length>\d+)")
_CRC_LINES = ("Expected CRC:", "Received CRC:")  # what follows a checksum failure
LOST = ("no fio header where this run's verified write put one: the write was lost (the block reads as zeros, "
        "or as older data)")


class VerifyTally:
    """The blocks fio's messages name, by kind. A block with no fio header at all ("bad magic header") is one no
    verified write of the run wrote, not counted against the drive, except within the first `written` bytes of the
    file, which the run's verified writes are known to have written: there it is a lost write."""

    def __init__(self, file_size: int, written: int = 0) -> None:
        self.written = written
        units = -(-max(file_size, 0) // UNIT)
        self.bad = bytearray(-(-units // 8))
        self.unwritten = bytearray(len(self.bad))
        self.found: dict[int, BlockMismatch] = {}  # the first KEPT, by offset

    def feed(self, line: str) -> bool:
        """Take one line of fio's stderr; whether it was one of its verify messages."""
        text = line.strip()
        if text.startswith(_CRC_LINES):
            return True
        m = _VERIFY_FAILED.match(text)
        if m is None:
            return False
        offset, what = int(m["offset"]), m["what"]
        u = offset // UNIT
        if u >> 3 >= len(self.bad):
            return True  # an offset past the file is no block of it
        if "magic" in what and offset + int(m["length"]) > self.written:
            self.unwritten[u >> 3] |= 1 << (u & 7)
            return True
        kind = CORRUPTED
        if "magic" in what:
            detail = LOST
        elif m["held"] is not None:  # fio's header, intact, of another offset: the block went to the wrong place
            kind, detail = MISPLACED, f"holds the block fio wrote for offset {m['held']}"
        elif "verify failed" in what:
            detail = f"fio: {FIO_VERIFY} of the block's data does not match its header"
        else:
            detail = f"fio: {what.removeprefix('verify: ')}"
        self.bad[u >> 3] |= 1 << (u & 7)
        if len(self.found) < KEPT and offset not in self.found:
            self.found[offset] = BlockMismatch(offset, kind, detail, f"fio's header for offset {offset}", text[:200])
        return True

    def verification(self, blocks: int, block_size: int, file_size: int) -> Verification:
        bad = int.from_bytes(self.bad, "little")
        return Verification(checksum=f"{FIO_VERIFY} (fio)", blocks=blocks, bytes=blocks * block_size,
                            mismatched=bad.bit_count(),
                            unwritten=(int.from_bytes(self.unwritten, "little") & ~bad).bit_count(),
                            file_bytes=file_size // block_size * block_size,
                            mismatches=tuple(sorted(self.found.values(), key=lambda b: b.offset)), engine="fio")


def fio_verification(messages: Sequence[str], blocks: int, block_size: int, file_size: int,
                     written: int = 0) -> Verification:
    """What fio's verify= found, from its messages (VerifyTally)."""
    tally = VerifyTally(file_size, written)
    for line in messages:
        tally.feed(line)
    return tally.verification(blocks, block_size, file_size)
