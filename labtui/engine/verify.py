"""Verified blocks: the header every verified write carries, and the check of every verified read.

Pure functions over buffers (no I/O, no state): the native engine stamps its write buffers with
`stamp` before they go to the kernel and checks its read buffers with `check` once they come
back (labtui.engine.native.verifier holds the state: counts, the blocks found, coverage).

Every 4 KiB unit of a verified block is self-describing, whatever the block size:

    bytes 0-7      the unit's byte offset in the file          (the native engine's stamp, as before)
    bytes 8-15     the write's number (unique in the run: the worker's in its top bits)
    bytes 16-23    the run's tag (from the run id)
    bytes 24-31    MAGIC
    bytes 32-4087  data: the run's random pattern, turned by an amount the offset and the write's
                   number set (so no two units are alike, and an older write of the same offset
                   differs from the newer in every byte, not only its header)
    bytes 4088-95  the checksum of bytes 0-4087 (xxHash's XXH3-64 where its wheel is installed,
                   else zlib's CRC-32: `CHECKSUM` names it, and the result does too)

So a read block is checked by its headers and checksums alone, and where it fails the bytes it
should have held are rebuilt from its own header (`expected_unit`) to find what differs.
"""

from __future__ import annotations

import hashlib
import random
import struct
import zlib
from collections.abc import Callable

from labtui.model.verification import CORRUPTED, MISPLACED, TORN, BlockMismatch

UNIT = 4096
HEADER = struct.Struct("<QQQ8s")  # offset, write number, run tag, magic
MAGIC = b"labtuiV1"
BODY = HEADER.size  # where the data starts
SUM_AT = UNIT - 8  # where the checksum is
SUM = struct.Struct("<Q")
SECTOR = 512  # a torn write tears at a sector boundary
SHOWN = 16  # bytes shown from the first that differs

try:  # the fastest checksum the machine has: XXH3-64 ~0.3 us per 4 KiB here, zlib's CRC-32 ~3 us
    import xxhash

    digest: Callable[..., int] = xxhash.xxh3_64_intdigest
    CHECKSUM = "xxh3-64"
except ImportError:  # pragma: no cover - xxhash is a dependency; a bare checkout still verifies
    digest = zlib.crc32
    CHECKSUM = "crc32"


def run_tag(run_id: str) -> int:
    """The 64-bit tag a run's headers carry, from its result id."""
    return int.from_bytes(hashlib.blake2b(run_id.encode(), digest_size=8).digest(), "little")


def pattern(tag: int) -> bytes:
    """The run's data pattern, twice over (a unit's data is a slice of it at its turn)."""
    one = random.Random(tag).randbytes(UNIT)
    return one + one


def turn(offset: int, number: int) -> int:
    """Where in the pattern a unit's data starts: set by its offset and its write's number."""
    return ((number * 40503 + (offset >> 12) * 7) * 8) % UNIT


def stamp(view: memoryview, at: int, size: int, offset: int, number: int, tag: int, pat: bytes) -> None:
    """Make `view[at:at+size]` (whole units) the block written at file `offset` by write `number`."""
    pack, put = HEADER.pack_into, SUM.pack_into
    for pos in range(at, at + size, UNIT):
        off = offset + pos - at
        k = turn(off, number)
        view[pos + BODY : pos + SUM_AT] = pat[k : k + SUM_AT - BODY]
        pack(view, pos, off, number, tag, MAGIC)
        put(view, pos + SUM_AT, digest(view[pos : pos + SUM_AT]))


# What `check` says of a block: None (read back as written), UNWRITTEN, or a BlockMismatch.
UNWRITTEN = "unwritten"


def check(view: memoryview, at: int, size: int, offset: int, tag: int, granule: int | None = None) -> None | str | BlockMismatch:
    """Whether `view[at:at+size]`, read from file `offset`, is what a verified write of this run
    put there: None if so, UNWRITTEN where no verified write of this run wrote it, else what differs.
    `granule`: the run's verified writes' block size, where smaller than the read's (4 KiB writes read
    back 64 KiB at a time): one write's units agree on its number within each granule, not across the
    block (a sound file read so was '53 blocks did not read back as written')."""
    unpack, sum_of = HEADER.unpack_from, SUM.unpack_from
    number = None
    step = granule if granule and granule < size else size
    skip, partial = at, False
    for pos in range(at, at + size, UNIT):
        if pos < skip:
            continue
        off, num, run, magic = unpack(view, pos)
        if (offset + pos - at) % step == 0:
            number = None  # a granule's first unit: another write may have put it there
            if step < size and run != tag and not any(ours(bytes(view[p : p + UNIT]), tag)
                                                      for p in range(pos, pos + step, UNIT)):
                # No write of the run reached this granule (random writes leave some): the block is not
                # all this run's, which is no damage; what of it was written is checked on.
                skip, partial = pos + step, True
                continue
        if (off != offset + pos - at or run != tag or magic != MAGIC or (number is not None and num != number)
                or sum_of(view, pos + SUM_AT)[0] != digest(view[pos : pos + SUM_AT])):
            return diagnose(bytes(view[at : at + size]), offset, tag, step)
        number = num
    return UNWRITTEN if partial else None


def written_here(unit: bytes, offset: int, tag: int) -> bool:
    """Whether a unit's header says a verified write of this run put it at `offset` (its checksum aside)."""
    off, _num, run, magic = HEADER.unpack_from(unit)
    return off == offset and run == tag and magic == MAGIC


def ours(unit: bytes, tag: int) -> bool:
    """Whether a unit carries a header of this run, maybe another offset's, maybe damaged: its run's tag,
    or the header mark with a checksum that fails (an intact unit of another run is a stranger's)."""
    _off, _num, run, magic = HEADER.unpack_from(unit)
    return run == tag or (magic == MAGIC and not intact(unit))


def intact(unit: bytes) -> bool:
    """Whether a unit's checksum holds for its bytes."""
    return SUM.unpack_from(unit, SUM_AT)[0] == digest(unit[:SUM_AT])


def expected_unit(offset: int, number: int, tag: int, pat: bytes | None = None) -> bytes:
    """The unit a verified write `number` of run `tag` put at `offset`."""
    buf = bytearray(UNIT)
    stamp(memoryview(buf), 0, UNIT, offset, number, tag, pat or pattern(tag))
    return bytes(buf)


def diagnose(block: bytes, offset: int, tag: int, granule: int | None = None) -> str | BlockMismatch:
    """What a block that failed its check is: UNWRITTEN, or how it differs (the slow path: a block
    that checks never comes here). `granule`: as check's."""
    units = [block[p : p + UNIT] for p in range(0, len(block), UNIT)]
    mine = [ours(u, tag) for u in units]
    if not any(mine):
        return UNWRITTEN
    pat = pattern(tag)
    heads = [HEADER.unpack_from(u) for u in units]
    found = _header_text(heads[0], tag)
    expected = f"offset {offset}, run {tag:016x}"
    # Intact units of this run, each where it was written: where they sit elsewhere, the block moved.
    if all(mine) and all(intact(u) for u in units):
        offsets = [h[0] for h in heads]
        starts = {o - i * UNIT for i, o in enumerate(offsets)}
        numbers = {h[1] for h in heads}
        if len(starts) == 1 and len(numbers) == 1 and starts != {offset}:
            src = starts.pop()
            want = _rebuilt(offset, heads[0][1], tag, pat, len(block))
            return BlockMismatch(offset, MISPLACED, f"holds the block written for offset {src}", expected, found,
                                 0, want[:SHOWN].hex(), block[:SHOWN].hex(), _count(block, want))
    # The write it should be: the number most of the block's own headers carry (of units at their place),
    # each granule's own where the run wrote in smaller blocks than it reads.
    g = granule if granule and granule < len(block) else len(block)
    placed = [h[1] for i, (h, m) in enumerate(zip(heads, mine)) if m and h[0] == offset + i * UNIT]
    number = max(set(placed), key=lambda n: (placed.count(n), n)) if placed else heads[0][1]
    want = _rebuilt(offset, number, tag, pat, len(block))
    if g < len(block):
        per = g // UNIT
        parts = []
        for c in range(0, len(units), per):
            here = [h[1] for i, (h, m) in enumerate(zip(heads[c : c + per], mine[c : c + per]), c)
                    if m and h[0] == offset + i * UNIT]
            n = max(set(here), key=lambda x: (here.count(x), x)) if here else number
            parts.append(_rebuilt(offset + c * UNIT, n, tag, pat, min(g, len(block) - c * UNIT)))
        want = b"".join(parts)
    # Whole units of another write (or none of this run's) at one end, this write's at the other: torn. A unit
    # of this run whose checksum fails is no whole unit of another write: its bytes changed (corrupted).
    good = [want[p : p + UNIT] == u for p, u in zip(range(0, len(block), UNIT), units)]
    whole = all(g_ or not m or intact(u) for g_, m, u in zip(good, mine, units))
    if any(good) and not all(good) and whole:
        cut = good.index(False) if good[0] else good.index(True)
        if all(good[:cut]) != all(good[cut:]) and len(set(good[:cut])) == len(set(good[cut:])) == 1:
            at = cut * UNIT
            differing = _count(block, want)
            found = _header_text(heads[cut] if good[0] else heads[0], tag)
            detail = (f"torn: only its first {at} bytes are this write's, the last {len(block) - at} are not" if good[0]
                      else f"torn: its first {at} bytes are not this write's, only the last {len(block) - at} are")
            first = at if good[0] else 0
            return BlockMismatch(offset, TORN, detail, expected + f", write #{number}", found, first,
                                 want[first : first + SHOWN].hex(), block[first : first + SHOWN].hex(), differing)
    # Byte by byte only within the units that differ (whole units compare at C speed).
    diff = [p + i for p, g in zip(range(0, len(block), UNIT), good) if not g
            for i, (x, y) in enumerate(zip(block[p : p + UNIT], want[p : p + UNIT])) if x != y] or [0]
    at, last = diff[0], diff[-1]
    differing = len(diff)
    shown_exp, shown_found = want[at : at + SHOWN].hex(), block[at : at + SHOWN].hex()
    expected += f", write #{number}"
    # Torn: from a sector boundary to one end of the block, (nearly) every byte is another write's
    # or never this run's, and the rest is this write's.
    span = last - at + 1
    tail = at % SECTOR == 0 and at > 0 and last == len(block) - 1
    head = at == 0 and (last + 1) % SECTOR == 0 and last + 1 < len(block)
    if (tail or head) and span >= SECTOR and differing >= span * 0.9:
        if tail:
            detail = f"torn: only its first {at} bytes are this write's, the last {len(block) - at} are not"
        else:
            detail = f"torn: its first {last + 1} bytes are not this write's, only the last {len(block) - last - 1} are"
        return BlockMismatch(offset, TORN, detail, expected, found, at, shown_exp, shown_found, differing)
    if not all(written_here(u, offset + i * UNIT, tag) for i, u in enumerate(units)) and differing <= 32:
        detail = f"its header is damaged ({differing} byte{'s' if differing != 1 else ''} differ, the first at +{at})"
    else:
        detail = f"{differing} byte{'s' if differing != 1 else ''} differ from what was written, the first at +{at}"
    return BlockMismatch(offset, CORRUPTED, detail, expected, found, at, shown_exp, shown_found, differing)


def _rebuilt(offset: int, number: int, tag: int, pat: bytes, size: int) -> bytes:
    buf = bytearray(size)
    stamp(memoryview(buf), 0, size, offset, number, tag, pat)
    return bytes(buf)


def _count(a: bytes, b: bytes) -> int:
    """Bytes that differ between two blocks of one size (byte by byte only in the 4 KiB units that differ)."""
    return sum(sum(x != y for x, y in zip(a[p : p + UNIT], b[p : p + UNIT]))
               for p in range(0, len(a), UNIT) if a[p : p + UNIT] != b[p : p + UNIT])


def _header_text(head: tuple[int, int, int, bytes], tag: int) -> str:
    off, num, run, magic = head
    who = "this run" if run == tag else f"run {run:016x}"
    mark = "" if magic == MAGIC else f", no header mark ({magic[:8].hex()})"
    return f"offset {off}, write #{num}, {who}{mark}"
