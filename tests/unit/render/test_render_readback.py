"""A verified run as people read it (labtui.render.readback), on synthetic checks: the answer styled by whether
every block came back, then under each verified step the blocks that did not, as many as fit and how many more."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from labtui.model.verification import CORRUPTED, TORN, BlockMismatch, Verification
from labtui.render import readback
from synthetic import READ, run_result

MIB = 1024**2
WHOLE = Verification("xxh3-64", blocks=256, bytes=16 * MIB, covered_bytes=16 * MIB, file_bytes=16 * MIB)


def verified(verify: Verification):
    step = replace(READ, verify=True, block_size=65536)
    result = run_result("20261206-101500-v1", {step: [50_000]})
    return replace(result, steps=tuple(replace(s, verify=verify) for s in result.steps))


def shown(renderable) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def test_a_run_whose_every_block_came_back_is_its_answer_in_green_and_the_steps_check():
    line = readback.readback_line(verified(WHOLE))
    assert line is not None and str(line.style) == "green" and line.plain.startswith("All 16 MiB read back as written")
    text = shown(readback.readback_renderable(verified(WHOLE)))
    assert "Read 64K random: 256 blocks (16.0 MiB) read back as written (xxh3-64)" in text and "offset" not in text
    assert readback.readback_line(run_result("plain", {READ: [1000]})) is None  # it verified nothing


def test_blocks_that_did_not_read_back_are_listed_up_to_a_screenful_and_the_rest_counted():
    mismatches = tuple(BlockMismatch(i * 65536, CORRUPTED, "16 bytes differ", "offset here", "offset elsewhere",
                                     differ_at=1000, expected_bytes="00ff", found_bytes="ff00")
                       for i in range(readback.SHOWN + 5))
    lost = replace(WHOLE, mismatched=40, mismatches=mismatches, covered_bytes=None)
    line = readback.readback_line(verified(lost))
    assert line is not None and str(line.style) == "bold red"
    text = shown(readback.readback_renderable(verified(lost)))
    assert f"{(readback.SHOWN - 1) * 65536}" in text and f"{readback.SHOWN * 65536} " not in text
    assert "+1000: 00ff / ff00" in text and "corrupted: 16 bytes differ" in text
    assert "… and 20 more (labtui show 20261206-101500-v1 --json keeps the first 25)" in text
    # A torn block's detail says its kind itself: once ("torn: torn: only its first ...").
    torn = BlockMismatch(0, TORN, "torn: only its first 2048 bytes are this write's, the last 2048 are not", "", "")
    text = shown(readback.readback_renderable(verified(replace(WHOLE, mismatched=1, mismatches=(torn,)))))
    assert "torn: only its first 2048" in text and "torn: torn" not in text
