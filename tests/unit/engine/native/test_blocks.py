"""The stamps the native engine writes into its buffers (synthetic buffers, no I/O).

Each write carries, at every 4 KiB of its block, the offset that 4 KiB lands at and the write's
own number; `Blocks.stamp` takes one of two paths by how many stamps a block has (a call per
stamp, or strided stores): both must leave the same bytes, and nothing else of the buffer moves.
"""

from __future__ import annotations

import mmap
import os
import struct

import pytest

from labtui.engine.native.blocks import STAMP_EVERY, STRIDED_FROM, Blocks

SLOTS = 3


@pytest.mark.parametrize(
    "block_size", [512, 4096, 8192, (STRIDED_FROM - 1) * STAMP_EVERY, STRIDED_FROM * STAMP_EVERY, 128 * 1024]
)
def test_every_4k_of_a_written_block_says_where_it_landed_and_which_write_it_was(block_size):
    stride = -(-block_size // 4096) * 4096
    buf = mmap.mmap(-1, stride * SLOTS)
    before = os.urandom(stride * SLOTS)
    buf[:] = before
    blocks = Blocks(memoryview(buf), stride, block_size, nonce=1000)
    offsets = [7 * block_size, 0, 123 * block_size]
    blocks.stamp([2, 0, 1], offsets)  # slots in any order, each with its write's offset
    assert blocks.nonce == 1003
    expected = bytearray(before)
    for nonce, (slot, off) in enumerate(zip([2, 0, 1], offsets), start=1000):
        for p in range(0, block_size - 16 + 1, STAMP_EVERY):
            struct.pack_into("<QQ", expected, slot * stride + p, off + p, nonce)
    assert bytes(buf) == bytes(expected)
    # The next batch goes on from the next number: no two writes of the process alike.
    blocks.stamp([1], [5 * block_size])
    assert struct.unpack_from("<QQ", buf, stride) == (5 * block_size, 1003) and blocks.nonce == 1004


@pytest.mark.parametrize("block_size", [4096, 8192])
def test_a_mixed_batch_marked_in_one_pass_is_what_stamp_and_a_loop_over_it_leave(block_size):
    """direction_pass writes the plain stamps itself, in the pass that sets each I/O's offset, opcode
    and Tally index; where `stamp` is another's (a verifier's) it calls that. Both leave the same."""
    from labtui.engine.native.blocks import direction_pass

    stride, slots = block_size, 6
    before = os.urandom(stride * slots)
    outcomes = []
    for own in (False, True):
        buf = mmap.mmap(-1, stride * slots)
        buf[:] = before
        blocks = Blocks(memoryview(buf), stride, block_size, nonce=50)
        if own:  # a stamp of someone else's: the pass must call it
            blocks.stamp = lambda s, o, b=blocks: Blocks.stamp(b, s, o)
        assert (blocks.in_place() is None) == own
        key, base = [0] * slots, [0, 0, 2, 2, 4, 4]
        ops, offs = memoryview(bytearray(slots * 2)), memoryview(bytearray(8 * slots * 2)).cast("q")
        mark = direction_pass(blocks, key, base, ops, (2, 1), 9, 7, offs, (2, 0))
        mark([4, 1, 2], [True, False, True], [3 * block_size, 9 * block_size, 0])
        mark([0, 5], [False, True], [block_size, 2 * block_size])
        outcomes.append((bytes(buf), bytes(ops), offs.tolist(), key, blocks.nonce))
    assert outcomes[0] == outcomes[1]
    data, ops_bytes, offsets, key, nonce = outcomes[0]
    assert nonce == 53 and key == [0, 0, 3, 0, 5, 5]
    assert ops_bytes[1::2] == bytes([7, 7, 9, 0, 9, 9]) and offsets[0::2] == [block_size, 9 * block_size, 0, 0,
                                                                              3 * block_size, 2 * block_size]
    assert struct.unpack_from("<QQ", data, 4 * stride) == (3 * block_size, 50)
    assert struct.unpack_from("<QQ", data, 2 * stride + block_size - 4096) == (block_size - 4096, 51)
    assert data[stride : 2 * stride] == before[stride : 2 * stride]  # a read's buffer is left alone
