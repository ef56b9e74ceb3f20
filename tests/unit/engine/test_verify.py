"""The verified block format alone (labtui.engine.verify): pure functions over buffers, no I/O."""

from __future__ import annotations

import os

import pytest

from labtui.engine import verify as v
from labtui.model.verification import CORRUPTED, MISPLACED, TORN, BlockMismatch, Verification

TAG = v.run_tag("20261206-053000-abcd")
PAT = v.pattern(TAG)


def block(offset: int, number: int, size: int = 4096, tag: int = TAG) -> bytearray:
    buf = bytearray(size)
    v.stamp(memoryview(buf), 0, size, offset, number, tag, v.pattern(tag))
    return buf


def checked(buf: bytes | bytearray, offset: int) -> None | str | BlockMismatch:
    return v.check(memoryview(bytes(buf)), 0, len(buf), offset, TAG)


@pytest.mark.parametrize("size", [4096, 65536])
def test_a_block_written_reads_back_as_written_and_no_two_units_are_alike(size: int) -> None:
    buf = block(8 * size, 7, size)
    assert checked(buf, 8 * size) is None
    units = {bytes(buf[p + 8 : p + 4096]) for p in range(0, size, 4096)}
    assert len(units) == size // 4096
    # Checked in place too: a slot of a larger buffer.
    big = bytearray(3 * size)
    v.stamp(memoryview(big), size, size, 0, 1, TAG, PAT)
    assert v.check(memoryview(big), size, size, 0, TAG) is None
    assert v.CHECKSUM in ("xxh3-64", "crc32")


def test_a_block_no_verified_write_of_this_run_wrote_is_unwritten_not_corrupt() -> None:
    assert checked(os.urandom(4096), 0) == v.UNWRITTEN
    assert checked(bytes(4096), 4096) == v.UNWRITTEN
    # The test file's preparation stamps each 4 KiB with its offset and a nonce: still not ours.
    prep = bytearray(os.urandom(4096))
    prep[:16] = (4096).to_bytes(8, "little") + os.urandom(8)
    assert checked(prep, 4096) == v.UNWRITTEN
    # An intact block of another run (a device a verified run wrote before) is not this run's either.
    assert checked(block(4096, 3, tag=v.run_tag("another")), 4096) == v.UNWRITTEN


def test_changed_bytes_are_reported_with_where_they_start_and_what_was_there() -> None:
    good = block(12288, 5)
    bad = bytearray(good)
    for i in range(1000, 1016):
        bad[i] ^= 0xFF
    found = checked(bad, 12288)
    assert isinstance(found, BlockMismatch)
    assert (found.kind, found.offset, found.differ_at, found.differing) == (CORRUPTED, 12288, 1000, 16)
    assert found.expected_bytes == good[1000:1016].hex() and found.found_bytes == bad[1000:1016].hex()
    assert "16 bytes differ from what was written, the first at +1000" in found.detail
    assert "offset 12288" in found.expected and "write #5" in found.expected


def test_a_damaged_header_is_corruption_not_a_stranger() -> None:
    bad = block(0, 2)
    bad[25] ^= 0x01  # one bit of the header's mark
    found = checked(bad, 0)
    assert isinstance(found, BlockMismatch) and found.kind == CORRUPTED
    assert "header is damaged" in found.detail and found.differ_at == 25


@pytest.mark.parametrize("older", ["older write", "never written"])
def test_half_a_block_from_elsewhere_is_a_torn_write(older: str) -> None:
    new = block(4096, 9)
    old = block(4096, 2) if older == "older write" else bytearray(os.urandom(4096))
    torn = new[:2048] + old[2048:]
    found = checked(torn, 4096)
    assert isinstance(found, BlockMismatch) and found.kind == TORN, found
    assert found.differ_at == 2048 and "only its first 2048 bytes are this write's" in found.detail


def test_a_large_block_half_of_whose_units_are_an_older_write_is_torn() -> None:
    new, old = block(0, 9, 65536), block(0, 4, 65536)
    found = checked(new[:32768] + old[32768:], 0)
    assert isinstance(found, BlockMismatch) and found.kind == TORN and found.differ_at == 32768


def test_two_blocks_swapped_each_say_whose_they_are() -> None:
    a, b = block(40960, 1), block(81920, 2)
    at_a, at_b = checked(b, 40960), checked(a, 81920)
    assert isinstance(at_a, BlockMismatch) and isinstance(at_b, BlockMismatch)
    assert (at_a.kind, at_b.kind) == (MISPLACED, MISPLACED)
    assert "written for offset 81920" in at_a.detail and "written for offset 40960" in at_b.detail
    assert "offset 81920" in at_a.found


def test_verify_is_a_step_key_written_only_where_set_kept_by_the_editor_and_its_rules_say_why() -> None:
    from dataclasses import replace

    from labtui.errors import ValidationError
    from labtui.results.profile_file import parse_profile_text, profile_to_text, step_to_table
    from labtui.tui.profile_draft import ProfileDraft

    text = 'name = "v"\n[[steps]]\nname = "w"\nblock_size = "4K"\nwrite_percent = 100\nverify = true\n'
    profile = parse_profile_text(text, "v.toml")
    assert profile.steps[0].verify and parse_profile_text(profile_to_text(profile), "again.toml") == profile
    assert "verify" not in step_to_table(replace(profile.steps[0], verify=False))
    draft = ProfileDraft(profile)
    draft.set_step_field(0, "threads", "2")
    assert draft.build().steps[0].verify
    with pytest.raises(ValidationError, match="whole 4KiB"):
        replace(profile.steps[0], block_size=512).validate()
    with pytest.raises(ValidationError, match="cache = off"):
        replace(profile.steps[0], cache="on").validate()


def test_a_verified_steps_findings_read_back_from_its_result_file_and_its_json() -> None:
    from datetime import UTC, datetime

    from labtui.model.profile import Profile, Step
    from labtui.model.result import EngineInfo, HostInfo, RunResult, StepResult, TargetInfo
    from labtui.render.result_json import result_to_json
    from labtui.results.result_file import result_from_toml, result_to_toml

    step = Step("read", block_size=4096, verify=True)
    found = BlockMismatch(8192, TORN, "torn: only its first 2048 bytes are this write's", "offset 8192, write #3",
                          "offset 8192, write #3, this run", 2048, "ab" * 16, "cd" * 16, 2040)
    check = Verification("xxh3-64", blocks=100, bytes=409600, mismatched=1, covered_bytes=409600,
                         file_bytes=409600, mismatches=(found,))
    now = datetime(2026, 12, 6, 5, 40, tzinfo=UTC)
    result = RunResult(id="20261206-054000-0001", profile=Profile("v", steps=(step,)), started=now, ended=now,
                       host=HostInfo(), target=TargetInfo(path="/tmp"), engine=EngineInfo("native"), status="failed",
                       steps=(StepResult(step, status="failed", error=check.problem(), verify=check),))
    again = result_from_toml(result_to_toml(result))
    assert again.steps[0].verify == check
    out = result_to_json(again)["steps"][0]["verify"]
    assert out["mismatches"][0]["offset"] == 8192 and out["summary"].startswith("1 block did not read back")


def test_fio_verifies_with_its_own_crc32c_said_in_its_command_line_and_diskspd_refuses_with_why() -> None:
    from labtui.engine.diskspd.engine import DiskSpdEngine
    from labtui.engine.fio.engine import fio_arguments
    from labtui.model.profile import Step

    write = Step("w", block_size=4096, write_percent=100, verify=True)
    read = Step("r", block_size=4096, verify=True)
    w_args, r_args = fio_arguments(write, "/t/f", 1 << 20), fio_arguments(read, "/t/f", 1 << 20)
    assert "--verify=crc32c" in w_args and "--do_verify=0" in w_args and "--refill_buffers" not in w_args
    assert "--verify=crc32c" in r_args and "--do_verify=0" not in r_args and "--verify_state_save=0" in r_args
    # The reads go on past a bad block (fio's default stopped at the first: four bad blocks were said as one).
    assert "--continue_on_error=verify" in r_args and "--continue_on_error=verify" not in w_args
    assert "--verify_interval=4096" in w_args and "--verify_interval=4096" in r_args  # 4 KiB reads of 1 MiB writes
    assert not any(a.startswith("--verify") for a in fio_arguments(Step("plain"), "/t/f", 1 << 20))
    why = DiskSpdEngine().refusal(read)
    assert why is not None and "DiskSpd cannot verify data" in why and "-e native or -e fio" in why
    assert DiskSpdEngine().refusal(Step("plain")) is None


def test_a_verified_step_with_one_io_in_flight_runs_on_a_ring_loop_which_checks_reads() -> None:
    from labtui.engine.native.plan import plan
    from labtui.model.profile import Step

    assert plan(Step("r", block_size=4096), True, missing={}).backend == "sync"
    assert plan(Step("r", block_size=4096, verify=True), True, missing={}).backend in ("io_uring", "aio")


def test_the_workload_preview_shows_each_engines_verified_command_and_diskspds_refusal() -> None:
    from pathlib import Path

    from labtui.model.profile import Step
    from labtui.widgets.command_lines import engine_lines

    lines = {label: (text, ok) for label, text, ok in engine_lines(Step("r", block_size=4096, verify=True),
                                                                  Path("/lab/t.dat"), 1 << 30)}
    assert "--verify=crc32c" in lines["fio"][0] and "verified (xxh3-64" in lines["native"][0]
    assert lines["DiskSpd"] == (DiskSpdWhy, False)


DiskSpdWhy = "DiskSpd cannot verify data (it never reads back what it wrote); run a verified step with -e native or -e fio"


def test_a_block_read_whole_that_smaller_writes_put_there_reads_back_and_a_changed_unit_is_corruption() -> None:
    """4 KiB verified random writes read back 64 KiB at a time: each unit from its own write. Checked as one write's
    block, a sound loop device's file read '53 blocks did not read back as written (corrupted, torn)'."""
    size = 65536
    buf = bytearray(size)
    for i in range(16):  # sixteen writes, one per 4 KiB, in any order
        v.stamp(memoryview(buf), i * 4096, 4096, size + i * 4096, 100 + (i * 7) % 16, TAG, PAT)
    assert v.check(memoryview(bytes(buf)), 0, size, size, TAG, granule=4096) is None
    assert isinstance(v.check(memoryview(bytes(buf)), 0, size, size, TAG), BlockMismatch)  # as one write: not so
    bad = bytearray(buf)
    for i in range(5 * 4096 + 100, 5 * 4096 + 116):
        bad[i] ^= 0xFF
    found = v.check(memoryview(bytes(bad)), 0, size, size, TAG, granule=4096)
    assert isinstance(found, BlockMismatch) and found.kind == CORRUPTED, found
    assert (found.differ_at, found.differing) == (5 * 4096 + 100, 16)
    # Random 4 KiB writes reach some units of a block and not others: not all the run's, no damage (it was '64 blocks
    # did not read back as written' of a 256 MiB file after a second of them).
    part = bytearray(buf)
    part[3 * 4096:5 * 4096] = os.urandom(2 * 4096)  # the test file's preparation, never rewritten
    assert v.check(memoryview(bytes(part)), 0, size, size, TAG, granule=4096) == v.UNWRITTEN
    part[9 * 4096 + 100] ^= 0xFF  # and a written unit changed: that is damage
    assert isinstance(v.check(memoryview(bytes(part)), 0, size, size, TAG, granule=4096), BlockMismatch)
    # One write's 64 KiB block whose last unit had 16 bytes changed: corrupted, not torn (no unit of another write).
    one = block(0, 9, size)
    for i in range(size - 100, size - 84):
        one[i] ^= 0xFF
    found = checked(one, 0)
    assert isinstance(found, BlockMismatch) and found.kind == CORRUPTED and found.differing == 16, found
