"""A native process's checks of what it reads (labtui.engine.native.verifier), on synthetic buffers: no I/O."""

from __future__ import annotations

from labtui.engine import verify as v

TAG = v.run_tag("20261206-053000-abcd")


def test_a_processs_random_reads_are_checked_in_place_and_a_changed_block_is_found_once() -> None:
    import mmap

    from labtui.engine.native.blocks import Blocks
    from labtui.engine.native.verifier import Verifier, merge

    buf = mmap.mmap(-1, 8 * 4096)
    blocks = Blocks(memoryview(buf), 4096, 4096, 1)
    Verifier(blocks.view, 4096, 4096, 1, TAG, 0, 1 << 20, coverage=False).attach(blocks, reads_only=True)
    offsets = [i * 4096 * 3 for i in range(8)]
    blocks.stamp(range(8), offsets)
    buf[5 * 4096 + 100] ^= 0xFF  # slot 5's block changed after it was written
    for _ in range(2):  # read twice: one block, found once
        blocks.reads_done(list(range(8)), [0] * 8, lambda slot: offsets[slot])
    check = merge([blocks.results()["verify"]], 4096, 1 << 20)
    assert check is not None and check.blocks == 16 and check.mismatched == 1 and check.covered_bytes is None
    assert check.mismatches[0].offset == offsets[5] and check.mismatches[0].differ_at == 100
