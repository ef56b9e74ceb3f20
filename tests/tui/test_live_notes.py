"""The notes under a running step's figures (tui/live_notes.py): each said once, fitted to its panel."""

from __future__ import annotations

import pytest

from labtui.engine.events import RunStarted, SampleTaken
from labtui.engine.native.engine import NativeEngine
from labtui.model.profile import Profile, Step
from run_support import MIB
from tui_support import (
    ScriptedRunner,
    make_app,
    open_run,
    screen_text,
    wait_for,
)

CROWDED_WARNING = ("step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy); "
                   + NativeEngine.cpu_advice.crowded)


DROP_WARNING = ("step 'Mix': the throughput dropped at 28 s, after 9.5 GiB: 158 → 89 MiB/s (-44 %), unexplained (the "
                "step was CPU-bound before and after it, so its throughput follows the CPU it got (a busier machine) as "
                "much as the disk; no sign of heat or a link change)")


@pytest.mark.parametrize("size", [(120, 35), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_notes_of_a_loaded_run_each_fit_their_panel_and_are_said_once(labtui_home, size):
    # Walked on verify-after-swap's third step under load: the live note said its advice, then each
    # finished step's CPU-bound warning said it again, and the panel's height cut the second warning
    # mid-sentence ("the workers waited for a CPU (other"); at 80x24 the notes were below the screen.
    from labtui.engine.events import RunWarning, StepStarted
    from labtui.model.result import EngineInfo, Sample, TargetInfo

    step = Step("Read back at random", block_size=4096, threads=1, outstanding=32, duration=60, warmup=0, verify=True)
    profile = Profile("verify", steps=(step,), file_size=16 * MIB)
    crowded = Sample(t=1.0, seconds=1.0, read_ios=50_000, read_bytes=50_000 * 4096, cpu_percent=100.0,
                     engine_cpu_percent=22.0, engine_bound=True)
    warnings = [CROWDED_WARNING, CROWDED_WARNING.replace("Write the pattern", "Read back in order"), DROP_WARNING]
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, 60.0),
              StepStarted(0, 1, step, 1, "labtui native: 1 logical worker on 1 process, io_uring, 32 outstanding "
                          "each, 4KiB random read, O_DIRECT, verified, file /mnt/x/labtui-1/labtui-1.dat (1GiB)"),
              *(RunWarning(w) for w in warnings), SampleTaken(0, "measure", crowded)]
    app = make_app(labtui_home)
    async with app.run_test(size=size) as pilot:
        screen = await open_run(pilot)
        screen.begin(ScriptedRunner(events))
        live = screen.live
        await wait_for(pilot, lambda: live.current is not None and live.current.last is not None
                       and screen.live_view.drawn_version == live.version, what="the notes drawn")
        text = screen_text(app)
        box = screen.query_one("#run-info").region
        assert box.bottom <= screen.query_one("#run-command").region.y, text  # on the screen, above the command
        shown = [line[box.x:box.right].rstrip() for line in text.splitlines()[box.y:box.bottom]]
        said = " ".join(" ".join(line.split()) for line in shown)
        advice = NativeEngine.cpu_advice.crowded
        # Said once: the advice at most once, and the live note no longer says the waiting twice.
        assert said.count("try a quieter machine") <= 1 and "waits for a CPU" not in said, shown
        full = (screen.help_note() or "").splitlines()
        assert full == ["CPU-bound: the engine's busiest worker is on a CPU only 22 % of the time; " + advice,
                        "warning: step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy)",
                        "warning: step 'Read back in order' is CPU-bound: the machine had no idle CPU (100 % busy)",
                        "warning: " + DROP_WARNING], full
        # Each line shown is a note whole, or wraps on, or is its first line ending where a clause ends.
        for line in shown:
            if line.endswith("…"):
                head = line.removesuffix(" …").strip()
                assert any(n.startswith(head) and n[len(head)] in ";,:( " for n in full), line
        if size[0] >= 100:
            assert full[0] in said and all(n in said or n[:40] in said for n in full[1:]), shown
            assert said.endswith("? says the notes in full"), shown
        else:
            # Two lines above the figures: the live note in short (? says why), then the newest warning's first line.
            assert shown[0] == "CPU-bound: the CPUs' limit, not the disk's (? says why and what helps)", shown
            assert shown[1].startswith("warning: step 'Mix': the throughput dropped at 28 s") and len(shown) == 2, shown
            assert box.y < screen.query_one("#run-figures").region.y
        screen.stop()


def test_a_note_too_long_for_its_panel_is_said_by_a_first_line_that_ends_where_a_clause_ends():
    from labtui.tui.live_notes import HELP, Note, first_line, fit, said_once

    drop = "warning: " + DROP_WARNING
    assert first_line(drop, 300) == drop
    assert first_line(drop, 60) == "warning: step 'Mix': the throughput dropped at 28 s …"
    assert first_line("a" * 30 + " " + "b" * 40, 40) == "a" * 30 + " …"  # no clause: a word's end
    notes = said_once([Note("CPU-bound: busy; " + NativeEngine.cpu_advice.crowded, "CPU-bound: short (? says why)"),
                       Note("warning: " + CROWDED_WARNING), Note(drop)])
    assert notes[1].full == "warning: step 'Write the pattern' is CPU-bound: the machine had no idle CPU (100 % busy)"
    assert fit(notes, 200, 8) == notes  # room for all, whole
    assert fit([], 70, 2, whole=False) == []  # no notes: no line saying ? has them
    tight = [n.full for n in fit(notes, 70, 6)]  # the live note whole, the others by their first lines, then ?
    assert tight[-1] == HELP and all(len(line) <= 70 for line in tight[1:]) and len(tight) == 4, tight
    assert [n.full for n in fit(notes, 70, 2, whole=False)] == ["CPU-bound: short (? says why)", first_line(drop, 70)]
