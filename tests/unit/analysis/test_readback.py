"""A verified run's plain answer, check's failure and compare's cause, on synthetic results of known truth."""

from __future__ import annotations

from dataclasses import replace

from labtui.analysis.answer import comparison_answers
from labtui.analysis.comparison import compare
from labtui.analysis.readback import readback_answer
from labtui.model.result import DriveFacts
from labtui.model.verification import CORRUPTED, TORN, BlockMismatch, Verification
from synthetic import READ, TARGET, run_result

GIB = 1024**3
LINK = DriveFacts("sysfs", pcie_speed="16.0 GT/s PCIe", pcie_width=4, aer_correctable=0, aer_nonfatal=0, aer_fatal=0)
WHOLE = Verification("xxh3-64", blocks=4 * 262144, bytes=16 * GIB, covered_bytes=16 * GIB, file_bytes=16 * GIB)
LOST = replace(WHOLE, mismatched=2, covered_bytes=16 * GIB - 2 * 65536,
               mismatches=(BlockMismatch(65536, CORRUPTED, "16 bytes differ", "", ""),
                           BlockMismatch(131072, TORN, "torn", "", "")))


def verified(verify: Verification, before: DriveFacts | None = LINK, after: DriveFacts | None = LINK, rid: str = "v",
             **kw):
    step = replace(READ, verify=True, block_size=65536)
    result = run_result(rid, {step: [50_000]}, target=replace(TARGET, pcie_speed="16.0 GT/s PCIe", pcie_width=4), **kw)
    return replace(result, steps=tuple(replace(s, verify=verify, drive_before=before, drive_after=after)
                                       for s in result.steps))


def test_all_read_back_with_the_link_as_before_and_no_pcie_errors_is_one_line():
    assert readback_answer(verified(WHOLE)) == "All 16 GiB read back as written; link x4 16 GT/s as before; no PCIe errors"
    assert readback_answer(run_result("plain", {READ: [50_000]})) is None  # it verified nothing


def test_lost_blocks_a_retrained_link_and_pcie_errors_are_each_said():
    worse = replace(LINK, pcie_speed="8.0 GT/s PCIe", pcie_width=2, aer_correctable=5)
    said = readback_answer(verified(LOST, after=worse))
    assert said is not None
    assert said.startswith("2 blocks did not read back as written (corrupted, torn) in 'Read 64K random': "
                           "labtui show v lists them; the link changed during the run: 16 GT/s x4 → 8 GT/s x2; "), said
    assert said.endswith("; 5 PCIe errors (AER) counted during the run")


def test_a_file_not_reached_whole_says_how_much_and_what_to_do_and_no_link_is_said_as_such():
    part = replace(WHOLE, covered_bytes=12 * GIB)
    said = readback_answer(replace(verified(part, before=None, after=None), target=TARGET))
    assert said is not None and said.startswith("12 GiB of 16 GiB read back as written, no block otherwise (the steps "
                                                "did not reach the rest: give them longer, --duration)")
    assert "no link" not in said and said.endswith("; link x4 8 GT/s as before; PCIe errors not counted (the kernel "
                                                   "keeps no AER counters for this drive)")
    virtual = replace(TARGET, pcie_speed=None, pcie_width=None, kind="virtual")
    said = readback_answer(replace(verified(part, before=None, after=None), target=virtual))
    assert said is not None and said.endswith("--duration); not a PCIe drive: no link or PCIe errors to read")


def test_a_comparison_with_a_run_that_lost_data_says_so_and_claims_nothing_of_its_speed():
    a, b = verified(WHOLE, rid="a"), verified(LOST, rid="b", minutes=5)
    said = comparison_answers(compare([a, b]))[0]
    assert "2 blocks did not read back as written in B" in said.text and "faster" not in said.text, said.text


def test_check_fails_first_on_blocks_that_did_not_read_back_whatever_the_figures(capsys):
    from labtui.analysis.checks import check
    from labtui.commands.check import _verdict
    from labtui.errors import ExitCode

    base, rerun = verified(WHOLE, rid="base"), verified(LOST, rid="rerun", minutes=5, status="failed")
    code = _verdict([check(base, rerun, 10)], [rerun], [base], as_json=False)
    out = capsys.readouterr().out
    assert code == ExitCode.FAILED
    assert out.startswith("Failed: 2 blocks did not read back as written (corrupted, torn) in 'Read 64K random': "
                          "labtui show rerun lists them."), out
    # The same figures with every block back: no failure of data, and the check says so.
    again = verified(WHOLE, rid="again", minutes=5)
    code = _verdict([check(base, again, 10)], [again], [base], as_json=False)
    assert code != ExitCode.FAILED and "All 16 GiB read back as written" in capsys.readouterr().out


async def test_the_result_screen_says_the_answer_under_its_title_as_the_run_screen_and_show_do(labtui_home):
    from labtui.screens.result import ResultScreen
    from tui_support import make_app, widget_text

    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ResultScreen(verified(LOST)))
        await pilot.pause()
        said = widget_text(app, "#result-warnings")
        assert said.startswith("2 blocks did not read back as written (corrupted, torn)"), said
        # The step under the cursor lists its blocks, offset by offset, as `labtui show` does (the screen only
        # told to run `labtui show`).
        blocks = widget_text(app, "#step-command")
        assert "2 blocks did not read back as written (corrupted, torn), of" in blocks, blocks
        assert "65536" in blocks and "131072" in blocks and "16 bytes differ" in blocks, blocks
        app.pop_screen()
        await app.push_screen(ResultScreen(run_result("plain", {READ: [50_000]})))  # it verified nothing
        await pilot.pause()
        assert "read back" not in widget_text(app, "#result-warnings")


def test_blocks_no_verified_write_had_written_are_not_blamed_on_a_short_write_step():
    # Walked: a profile whose only verified step reads was told to 'give the write step longer': it has none.
    from labtui.analysis.readback import data_words
    from synthetic import WRITE

    unwritten = replace(WHOLE, covered_bytes=0, unwritten=1000)
    alone = verified(unwritten)
    said = data_words(alone)
    assert said is not None and said.endswith("(not checked: put a verified write step before the reads)"), said
    write = replace(WRITE, verify=True, block_size=65536)
    written = run_result("w", {write: [40_000]}, target=TARGET)
    ran = replace(alone, steps=(replace(written.steps[0], verify=replace(WHOLE, covered_bytes=GIB)), *alone.steps))
    said = data_words(ran)
    assert said is not None and said.endswith("(not checked: give the write step longer, --duration)"), said
    # As the engines keep it: a verified write step reads nothing back, so it has no checks of its own
    # (a run with one was told to 'put a verified write step before the reads').
    engine_made = replace(alone, steps=(written.steps[0], *alone.steps))
    assert engine_made.steps[0].verify is None
    said = data_words(engine_made)
    assert said is not None and said.endswith("(not checked: give the write step longer, --duration)"), said
