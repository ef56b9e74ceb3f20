"""fio's verify= as labtui reads it (labtui.engine.fio.verify): the blocks fio names in its own words (fio 3.33's
stderr), counted whole however many it names."""

from __future__ import annotations

import asyncio

from labtui.engine.fio.verify import LOST, VerifyTally, fio_verification
from labtui.engine.subproc import read_all
from labtui.model.verification import CORRUPTED, MISPLACED


def magic(offset: int) -> str:
    """fio 3.33's words for a block without its header."""
    return (f"verify: bad magic header 9000, wanted acca at file /t/labtui-x.dat offset {offset}, length 4096 "
            f"(requested block: offset={offset}, length=4096)")


def test_fios_verify_failures_are_read_from_its_own_words_by_offset() -> None:
    # fio 3.33's stderr for a block changed under it (the lines as labtui.engine.fio.output splits them).
    said = ("crc32c: verify failed at file /t/labtui-x.dat offset 20480, length 4096 (requested block: offset=20480, "
            "length=4096, flags=8)", "Expected CRC: 5c975db9", "Received CRC: 9369a779",
            "verify: bad magic header 0, wanted acca at file /t/labtui-x.dat offset 40960, length 4096",
            "fio: pid=11776, err=84/file:io_u.c:2190, func=io_u_queued_complete, error=Invalid or incomplete multibyte")
    check = fio_verification(said, 100, 4096, 1 << 20, written=1 << 20)  # the run's verified write wrote it all
    assert [m.offset for m in check.mismatches] == [20480, 40960] and check.mismatched == 2 and check.engine == "fio"
    assert check.problem() == "2 blocks did not read back as written (corrupted)"
    assert fio_verification(("fio: some other complaint",), 10, 4096, 1 << 20).mismatched == 0


def test_fio_going_on_past_bad_blocks_names_each_and_a_swapped_one_as_misplaced() -> None:
    """fio 3.33's own stderr with --continue_on_error=verify, reading a file whose blocks 3 (16 bytes flipped),
    7 (torn) and 10 and 20 (swapped) were changed in a loop device's backing file after fio's verified write."""
    file = "at file /t/labtui-x.dat"
    said = (f"crc32c: verify failed {file} offset 12288, length 4096 (requested block: offset=12288, length=4096, "
            "flags=8)", "Expected CRC: dc132380", "Received CRC: 87323456",
            f"crc32c: verify failed {file} offset 28672, length 4096 (requested block: offset=28672, length=4096, "
            "flags=8)",
            f"verify: bad header offset 81920, wanted 40960 {file} offset 40960, length 4096 (requested block: "
            "offset=40960, length=4096)",
            f"verify: bad header offset 40960, wanted 81920 {file} offset 81920, length 4096 (requested block: "
            "offset=81920, length=4096)",
            f"verify: bad header crc 1234, calculated 5678 {file} offset 90112, length 4096 (requested block: "
            "offset=90112, length=4096)")
    check = fio_verification(said, 1024, 4096, 4 << 20)
    found = {m.offset // 4096: (m.kind, m.detail) for m in check.mismatches}
    assert check.mismatched == 5 and set(found) == {3, 7, 10, 20, 22}
    assert found[3] == (CORRUPTED, "fio: crc32c of the block's data does not match its header")
    assert found[10] == (MISPLACED, "holds the block fio wrote for offset 81920")
    assert found[20] == (MISPLACED, "holds the block fio wrote for offset 40960")
    assert found[22] == (CORRUPTED, "fio: bad header crc 1234, calculated 5678")
    assert check.problem() == "5 blocks did not read back as written (corrupted, misplaced)"


def test_a_block_with_no_fio_header_is_unwritten_unless_the_runs_verified_write_put_one_there() -> None:
    """A verified write step too short for its file (0.1 s of 256 MiB) made fio's verified read say '5831 blocks did
    not read back as written' on a sound loop device: blocks fio never wrote have no fio header. Within what the
    run's sequential verified write wrote, a block without one is a lost write."""
    said = (magic(8192), magic(1 << 20), magic((1 << 20) + 4096))
    never = fio_verification(said, 300, 4096, 4 << 20)  # no verified write known to have reached them
    assert (never.mismatched, never.unwritten, never.failed) == (0, 3, False)
    lost = fio_verification(said, 300, 4096, 4 << 20, written=1 << 20)  # the write put the first 1 MiB there
    assert (lost.mismatched, lost.unwritten) == (1, 2)
    assert (lost.mismatches[0].offset, lost.mismatches[0].kind, lost.mismatches[0].detail) == (8192, CORRUPTED, LOST)


def test_fios_messages_are_tallied_as_they_come_whole_past_the_megabyte_of_stderr_kept() -> None:
    """fio names every block without its header: a 256 MiB file a 0.1 s write step had not reached made ~58,000
    messages, of which the last megabyte of stderr was kept, and the read said 5,824 blocks, not ~58,000."""
    blocks = 20_000  # ~3.6 MB of messages
    said = "".join(magic(i * 4096) + "\n" + ("fio: some other complaint\n" if i == 7 else "") for i in range(blocks))

    async def read() -> tuple[VerifyTally, list[str]]:
        stream = asyncio.StreamReader()
        data = said.encode()
        for at in range(0, len(data), 10_000):  # lines cut across reads, as a pipe gives them
            stream.feed_data(data[at:at + 10_000])
        stream.feed_eof()
        tally, sink = VerifyTally(blocks * 4096), []
        await read_all(stream, sink, taken=tally.feed)
        return tally, sink

    tally, sink = asyncio.run(read())
    check = tally.verification(blocks, 4096, blocks * 4096)
    assert (check.unwritten, check.mismatched) == (blocks, 0)
    assert "".join(sink) == "fio: some other complaint\n"  # the rest of fio's words, kept for its error


def test_fios_error_for_blocks_it_went_on_past_does_not_fail_a_step_whose_blocks_were_never_written() -> None:
    """With --continue_on_error=verify fio ends the job with error 84 (EILSEQ) for the blocks it named: where all
    of them carry no fio header (the write step did not reach them) the step completed; a block that did not read
    back fails it, with what fio said."""
    import json
    from pathlib import Path

    from conftest import FIXTURES
    from labtui.engine.base import Job
    from labtui.engine.cpu import CpuMeter
    from labtui.engine.fio.engine import FioEngine
    from labtui.engine.fio.intervals import SampleTracker
    from labtui.model.profile import Step

    report = json.loads((FIXTURES / "fio-json/fio-3.40-readwrite4k-qd1-psync-sync.json").read_text())
    report["jobs"][0]["error"] = 84  # what fio 3.33 reported of the read of a file its write had not reached
    step = Step(name="Read back", block_size=4096, pattern="sequential", write_percent=0, duration=10.0, warmup=0.0,
                verify=True)
    job = Job(path=Path("/tmp/unused"), file_size=1 << 30)

    def result(*said: str):
        tally = VerifyTally(1 << 30)
        for line in said:
            tally.feed(line)
        return FioEngine()._result(step, job, [report], SampleTracker(warmup=0.0), CpuMeter(), "fio ...", 0, (), tally)

    fine = result(magic(1 << 20), magic(2 << 20))
    assert fine.status == "completed" and fine.error is None and fine.verify.unwritten == 2
    bad = result(magic(1 << 20), "crc32c: verify failed at file /t/f offset 8192, length 4096 (requested block: "
                                 "offset=8192, length=4096, flags=8)")
    assert bad.status == "failed" and bad.error == ("1 block did not read back as written (corrupted) (fio: crc32c of "
                                                    "the block's data does not match its header)")
