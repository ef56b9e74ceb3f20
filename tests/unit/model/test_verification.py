"""What a verified step found (labtui/model/verification.py): several processes' checks as one step's, and the
run's read-back facts its answer is said from."""

from labtui.model.verification import CORRUPTED, KEPT, MISPLACED, TORN, BlockMismatch, ReadBack, Verification, merged

MIB = 1 << 20


def block(offset: int, kind: str = CORRUPTED) -> BlockMismatch:
    return BlockMismatch(offset, kind, "", "", "")


def test_several_processes_checks_add_up_and_keep_their_first_blocks_by_offset():
    assert merged([]) is None
    one = Verification("xxh3-64", blocks=10, bytes=10 * 4096, mismatched=2, unwritten=1, covered_bytes=MIB,
                       file_bytes=4 * MIB, mismatches=(block(8192), block(0, TORN)))
    two = Verification("xxh3-64", blocks=5, bytes=5 * 4096, mismatched=1, unwritten=0, covered_bytes=2 * MIB,
                       file_bytes=4 * MIB, mismatches=(block(4096, MISPLACED),))
    both = merged([one, two])
    assert both is not None
    assert (both.blocks, both.bytes, both.mismatched, both.unwritten) == (15, 15 * 4096, 3, 1)
    assert (both.covered_bytes, both.file_bytes, both.checksum) == (3 * MIB, 4 * MIB, "xxh3-64")
    assert [m.offset for m in both.mismatches] == [0, 4096, 8192]
    # A part that did not count its covered bytes makes the sum unknown, not smaller.
    unknown = merged([one, Verification("xxh3-64", blocks=1, bytes=4096)])
    assert unknown is not None and unknown.covered_bytes is None
    # The blocks kept stay at KEPT however many processes found some; the count stays whole.
    many = [Verification("crc32c", mismatched=KEPT, mismatches=tuple(block(i * 4096) for i in range(KEPT)))] * 2
    lots = merged(many)
    assert lots is not None and lots.mismatched == 2 * KEPT and len(lots.mismatches) == KEPT


def test_a_runs_read_back_says_which_steps_found_what():
    assert ReadBack.of([]) is None
    good = Verification("xxh3-64", blocks=256, bytes=MIB, covered_bytes=MIB, file_bytes=MIB)
    bad = Verification("xxh3-64", blocks=256, bytes=MIB, mismatched=3, covered_bytes=MIB // 2, file_bytes=MIB,
                       mismatches=(block(0, TORN), block(4096)))
    facts = ReadBack.of([("Write", good, True), ("Read", bad, False)])
    assert facts is not None and facts.failed and not facts.whole
    assert (facts.mismatched, facts.kinds, facts.bad_steps) == (3, (CORRUPTED, TORN), ("Read",))
    assert facts.words("20240501-103005-ab12") == ("3 blocks did not read back as written (corrupted, torn) in 'Read': "
                                                  "labtui show 20240501-103005-ab12 lists them")
    whole = ReadBack.of([("Write", good, True)])
    assert whole is not None and whole.whole and whole.words("x") == "All 1 MiB read back as written"


def test_a_partial_read_back_says_what_to_do_for_the_rest():
    part = Verification("xxh3-64", blocks=64, bytes=MIB // 4, covered_bytes=MIB // 4, file_bytes=MIB)
    said = ReadBack.of([("Read", part, True)])
    assert said is not None and not said.whole
    assert said.words("x") == ("256 KiB of 1 MiB read back as written, no block otherwise "
                               "(the steps did not reach the rest: give them longer, --duration)")
    # Reads of blocks no verified write wrote: with no write in the run, a longer step would not help.
    unwritten = Verification("xxh3-64", blocks=64, bytes=MIB // 4, unwritten=1, covered_bytes=MIB // 4, file_bytes=MIB)
    none_wrote = ReadBack.of([("Read", unwritten, False)])
    assert none_wrote is not None and none_wrote.words("x").endswith(
        "; 1 block read was not written by this run's verified writes (not checked: put a verified write step before the reads)")
    # One 4 KiB block short of 4 MiB is no "4 MiB of 4 MiB" (it read as all of it: a loop device's run said so).
    short = Verification("xxh3-64", blocks=1023, bytes=MIB * 4 - 4096, covered_bytes=MIB * 4 - 4096, file_bytes=4 * MIB)
    said = ReadBack.of([("Read", short, False)], wrote=True)
    assert said is not None and said.words("x").startswith("All but 4 KiB of 4 MiB read back as written, no block")
    fio = ReadBack.of([("Read", Verification("crc32c", blocks=7, engine="fio"), True)])
    assert fio is not None and fio.whole and fio.words("x") == "Every block fio read back (7) was as written (fio's crc32c)"
    # Blocks with no fio header (the write step did not reach them): not every block came back, none is blamed.
    fio_part = ReadBack.of([("Read", Verification("crc32c", blocks=7, unwritten=3, engine="fio"), False)], wrote=True)
    assert fio_part is not None and not fio_part.whole and fio_part.mark == "data part"
    assert fio_part.words("x") == ("Every block fio read back with its header was as written (fio's crc32c); 3 blocks "
                                   "read carried no fio header (not written by this run's verified writes, not checked: "
                                   "give the write step longer, --duration)")


def test_a_verification_says_its_problem_in_one_line() -> None:
    ok = Verification("xxh3-64", blocks=4096, bytes=16 << 20, unwritten=3)
    assert not ok.failed and ok.problem() is None
    assert ok.summary() == "4096 blocks (16.0 MiB) read back as written (xxh3-64); 3 not written by this run (not checked)"
    bad = Verification("xxh3-64", blocks=10, bytes=40960, mismatched=2,
                       mismatches=(BlockMismatch(0, TORN, "", "", ""), BlockMismatch(4096, CORRUPTED, "", "", "")))
    assert bad.problem() == "2 blocks did not read back as written (corrupted, torn)"
