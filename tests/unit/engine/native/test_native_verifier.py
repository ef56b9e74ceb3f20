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


def test_a_block_the_runs_verified_write_put_there_that_reads_as_never_written_is_a_lost_write() -> None:
    """A block zeroed in a loop device's backing file after the verified write read as 'not written by this run'
    and the run passed: a drive that drops writes is what a check after a swap is for. A block no verified write
    reached stays unwritten, whatever the read's block size against the write's."""
    import mmap
    import os

    from labtui.engine.native.blocks import Blocks
    from labtui.engine.native.verifier import LOST, Verifier, merge, written

    size = 1 << 20
    wbuf = mmap.mmap(-1, 4 * 65536)
    writer = Blocks(memoryview(wbuf), 65536, 65536, 1)
    Verifier(writer.view, 65536, 65536, 1, TAG, 0, size).attach(writer)
    writer.stamp(range(4), [0, 65536, 2 * 65536, 3 * 65536])  # the first 256 KiB, in 64 KiB writes
    wrote = written([writer.results()["verify"]])
    assert wrote == (1 << 64) - 1  # its 64 units of 4 KiB

    def read(block_size: int, blocks_at: list[int], zeroed: int) -> object:
        rbuf = mmap.mmap(-1, len(blocks_at) * block_size)
        reader = Blocks(memoryview(rbuf), block_size, block_size, 2)
        Verifier(reader.view, block_size, block_size, 2, TAG, 1, size).attach(reader, reads_only=True)
        for slot, off in enumerate(blocks_at):  # what the disk gave back: the writes' blocks (slot i wrote offset
            # i x 64 KiB), the test file's preparation beyond them, one block zeroed
            data = wbuf[off:off + block_size] if off < len(wbuf) else os.urandom(block_size)
            rbuf[slot * block_size:(slot + 1) * block_size] = data
        rbuf[zeroed * block_size:(zeroed + 1) * block_size] = bytes(block_size)
        reader.check(list(range(len(blocks_at))), blocks_at)
        return merge([reader.results()["verify"]], block_size, size, wrote)

    # 4 KiB reads: unit 5 zeroed (the write put one there), and unit 100 (no write reached it) unwritten.
    check = read(4096, [0, 5 * 4096, 100 * 4096], zeroed=1)
    assert (check.mismatched, check.unwritten, check.covered_bytes) == (1, 1, 4096)
    assert [(m.offset, m.detail) for m in check.mismatches] == [(5 * 4096, LOST)]
    # 64 KiB reads of the 64 KiB writes: the same, block by block.
    check = read(65536, [0, 65536], zeroed=1)
    assert check.mismatched == 1 and check.mismatches[0].offset == 65536 and check.unwritten == 0
    assert merge([Verifier(Blocks(memoryview(mmap.mmap(-1, 4096)), 4096, 4096, 3).view, 4096, 4096, 3, TAG, 0,
                           size).results()["verify"]], 4096, size).mismatched == 0


def test_a_read_process_checks_its_larger_blocks_by_the_runs_write_granule() -> None:
    """The engine hands a verified read's processes the run's verified writes' block size (cfg verify.granule):
    a 64 KiB read of sixteen 4 KiB writes' units reads back as written."""
    from labtui.engine import verify as v
    from labtui.engine.native.blocks import slot_buffers

    cfg = {"block_size": 65536, "seed": 5, "write_percent": 0, "pattern": "sequential", "file_size": 1 << 20,
           "verify": {"tag": TAG, "process": 0, "granule": 4096}}
    buf, stride, _address, blocks = slot_buffers(cfg, 1)
    for i in range(16):
        v.stamp(memoryview(buf), i * 4096, 4096, i * 4096, 50 + i, TAG, v.pattern(TAG))
    blocks.check([0], [0])
    check = blocks.results()["verify"]
    assert check["found"] == [] and int.from_bytes(check["good"], "little") == 1


def test_an_unverified_write_of_the_run_forgets_where_its_verified_writes_put_their_blocks() -> None:
    """A profile may write unverified between its verified write and its verified read: what has no header then
    may be that write's data, no lost write; its block size becomes a granule of the read's check too."""
    from labtui.engine.native.engine import NativeEngine
    from labtui.model.profile import Step

    engine = NativeEngine()
    finals = [{"verify": {"written": b"\xff" * 4}}]
    engine._remember(Step("w", block_size=65536, write_percent=100, verify=True), "run", finals)
    assert engine._wrote["run"] == (1 << 32) - 1 and engine._granule["run"] == 65536
    engine._remember(Step("r", block_size=4096, verify=True), "run", [])  # a read changes nothing
    assert engine._wrote["run"] == (1 << 32) - 1
    engine._remember(Step("w2", block_size=4096, write_percent=100), "run", [])
    assert "run" not in engine._wrote and engine._granule["run"] == 4096
