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
