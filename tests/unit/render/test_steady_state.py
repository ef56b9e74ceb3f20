"""Steady state and preconditioning where people read them: compare's warning and context, exports,
`show`, the live state, the editor's draft, and the Run screen's rounds as they come."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace

import pytest

from conftest import labtui_cmd
from factories import make_result
from labtui.analysis import steady
from labtui.analysis.comparison import compare
from labtui.engine.events import PreconditionProgress, RunStarted, SampleTaken, SteadyRound, StepStarted
from labtui.model.profile import Profile, SteadyRule, Step
from labtui.model.result import DirectionStats, EngineInfo, Precondition, Sample, TargetInfo, settled
from labtui.render import export
from labtui.render.steady_state import live_lines, steady_summary_lines
from labtui.results.profile_file import step_to_table
from labtui.results.store import Store, builtin_profiles
from labtui.run.live import LiveRun
from labtui.tui.profile_draft import ProfileDraft
from tui_support import ScriptedRunner, make_app, wait_for, widget_text

SNIA = SteadyRule.parse("snia")
STEADY = steady.judge(SNIA, [900, 1000, 1010, 990, 1000, 1005], 60.0)
DRIFTING = steady.judge(SNIA, [float(2000 - 40 * i) for i in range(25)], 60.0)


def with_states(result_id: str, *states, precondition: Precondition | None = None):
    result = make_result(result_id)
    steps = tuple(replace(s, steady_state=st, step=replace(s.step, steady_state="snia" if st else ""))
                  for s, st in zip(result.steps, states))
    return replace(result, steps=steps, precondition=precondition)


def test_compare_warns_when_one_side_reached_steady_state_and_the_other_did_not():
    a = with_states("20240501-103005-aaaa", STEADY, STEADY, precondition=Precondition(2, 2 << 30, 9.5, (4.5, 5.0), True))
    b = with_states("20240502-103005-bbbb", DRIFTING, None)
    comparison = compare([a, b])
    [read, write] = [w for w in comparison.warnings if w.startswith("steady state differs")]
    assert "'Read 64K random' (A steady after 6 rounds, B not steady after 25 rounds)" in read
    assert "(A steady after 6 rounds, B a timed step)" in write
    context = {c.label: c.values for c in comparison.context}
    assert context["steady state"] == ("2 of 2 steps steady", "0 of 1 steps steady, 1 timed")
    assert context["preconditioning"] == ("2 passes (2GiB)", "none")
    # Both steady, or neither run to steady state: nothing to warn about.
    assert not [w for w in compare([a, a]).warnings if w.startswith("steady state")]
    plain = compare([make_result("20240501-103005-aaaa"), make_result("20240502-103005-bbbb")])
    assert "steady state" not in {c.label for c in plain.context}


def test_exports_carry_the_rounds_the_window_and_the_criteria():
    result = with_states("20240501-103005-aaaa", STEADY, DRIFTING, precondition=Precondition(2, 1 << 30, 3.0, (1.0, 2.0)))
    rows = export.to_json([result])["rows"]
    first, second = rows
    assert (first["steady_rule"], first["steady_attained"], first["steady_rounds"], first["steady_window_start"]) == \
        ("snia", True, 6, 2)
    assert first["steady_criteria"].startswith("range=") and ":held;excursion=" in first["steady_criteria"]
    assert second["steady_attained"] is False and second["steady_round_figures"].count(";") == 24
    assert first["precondition_passes"] == 2
    csv = export.to_csv([result]).splitlines()
    assert "steady_attained" in csv[0] and ",true," in csv[1]
    markdown = export.to_markdown([result])
    assert "| Steady state |" in markdown and "not steady after 25 rounds (snia)" in markdown
    assert "Steady state" not in export.to_markdown([make_result()])


def test_show_lines_say_the_verdict_the_window_and_how_far_each_criterion_is():
    result = with_states("20240501-103005-aaaa", DRIFTING, None)
    # The window measured whole: 335,400 I/Os in 300 s of rounds that were not all 60 s long: 1,118 IOPS,
    # where its rounds' figures average 1,120. The step shows 1,118, and so does the window's line.
    window = replace(result.steps[0], read=DirectionStats(335_400, 335_400 * 65536, 300.0))
    lines = steady_summary_lines(window)
    assert lines[0] == "Read 64K random: not steady after 25 rounds (SNIA PTS 2.0 on IOPS, 60 s rounds, window 5, at most 25)"
    # 1200 .. 1040 falling by 40: mean 1120, range 160 = 14.3 %, slope -40 x 4 rounds = 14.3 %
    assert lines[1] == ("  window: rounds 21-25 (1,200, 1,160, 1,120, 1,080, 1,040): 1,118 IOPS (its I/Os over its "
                        "seconds), the step's figure")
    assert lines[2] == "  range 14.3 % of the rounds' mean (at most 20 %): holds"
    assert lines[3] == "  best-fit excursion 14.3 % of the rounds' mean (at most 10 %): 4.29 % over"
    assert steady_summary_lines(result.steps[1]) == []
    # The state an engine ends a step with holds that figure too (--json, the result file, exports).
    assert DRIFTING.mean == 1120 and settled(window).steady_state.mean == window.total.iops == 1118


def test_live_lines_bracket_the_window_and_drop_the_oldest_rounds_to_fit():
    lines = live_lines(DRIFTING, width=60)
    assert lines[0].endswith("not steady after 25 rounds: the step ends here")
    assert lines[1].startswith("rounds (IOPS): … ") and lines[1].endswith("[1,200 1,160 1,120 1,080 1,040]")
    assert len(lines[1]) <= 60
    early = steady.judge(SNIA, [100.0, 120.0], 1.0)
    assert live_lines(early)[0].endswith("judged once 5 rounds are in")
    assert live_lines(early)[1] == "rounds (IOPS): 100 120"


def test_the_live_state_keeps_the_rounds_and_the_preconditioning():
    step = Step(name="s", steady_state="snia", duration=1.0, warmup=0.0)
    profile = Profile(name="p", steps=(step,), precondition=2, file_size=1 << 20)
    live = LiveRun(clock=lambda: 0.0)
    live.handle(RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, profile.planned_seconds))
    live.handle(PreconditionProgress(1 << 20, 2 << 20, 1.0, 2, 1))
    assert live.preconditioning and live.eta_seconds() == pytest.approx(1.0 + step.planned_seconds + 0.4)
    live.handle(PreconditionProgress(2 << 20, 2 << 20, 2.0, 2, 2))
    assert not live.preconditioning
    live.handle(StepStarted(0, 1, step, 1, None))
    live.handle(SteadyRound(0, STEADY))
    assert live.current.steady == STEADY and live.current.planned_seconds == 25.0


def test_the_editor_keeps_a_profiles_steady_state_and_preconditioning():
    snia = next(p for p in builtin_profiles() if p.name == "snia-lite")
    draft = ProfileDraft(snia)
    assert not draft.dirty and draft.build() == snia
    draft.set_step_field(0, "steady_state", "iops_slope:1%")
    draft.set_field("precondition", "1")
    built = draft.build()
    assert built.steps[0].steady_state == "iops_slope:1%" and built.precondition == 1
    draft.set_step_field(0, "steady_window", "1")
    assert draft.errors() == {"steps[1].steady_window": "the window must be 2..1000 rounds, got 1"}
    plain = ProfileDraft(next(p for p in builtin_profiles() if p.name == "quick-sanity"))
    assert not plain.dirty and "steady_state" not in step_to_table(plain.build().steps[0])


def test_cli_show_prints_the_steady_state_and_the_preconditioning(labtui_home):
    result = with_states("20240501-103005-aaaa", DRIFTING, None, precondition=Precondition(2, 2 << 30, 8.0, (3.0, 5.0), True))
    Store(labtui_home).save_result(result)
    out = subprocess.run(labtui_cmd("show", result.id), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "not steady after 25 rounds" in out.stdout and "NO, 25 rounds" in out.stdout
    assert "2 sequential passes, 2.0 GiB written in 8.0 s" in out.stdout
    data = json.loads(subprocess.run(labtui_cmd("show", result.id, "--json"), capture_output=True, text=True,
                                     timeout=60).stdout)
    assert data["steps"][0]["steady_state"]["verdict"] == "not steady after 25 rounds"
    assert "steady_state" not in data["steps"][1]


async def test_the_run_screen_shows_each_round_as_it_comes(labtui_home):
    from labtui.screens.run import RunScreen

    step = Step(name="RND4K steady", block_size=4096, duration=1.0, warmup=0.0, steady_state="snia")
    profile = Profile(name="ss", steps=(step,), file_size=16 << 20)
    figures = [1000.0, 1300.0, 900.0, 1250.0, 1000.0, 1010.0]
    events = [RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo("native"), 1, profile.planned_seconds),
              StepStarted(0, 1, step, 1, "labtui native: ...")]
    for i, figure in enumerate(figures[:5]):
        events.append(SampleTaken(0, "measure", Sample(t=i + 1.0, seconds=1.0, read_ios=int(figure),
                                                       read_bytes=int(figure) * 4096)))
        events.append(SteadyRound(0, steady.judge(SNIA, figures[: i + 1], 1.0)))
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.engines, what="the Run screen")
        screen = app.screen
        screen.begin(ScriptedRunner(events))
        await wait_for(pilot, lambda: "over rounds 1-5" in widget_text(app, "#run-steady"), what="the fifth round")
        text = widget_text(app, "#run-steady")
        assert "SNIA PTS 2.0 on IOPS, 1 s rounds, window 5, at most 25" in text
        assert "rounds (IOPS): [1,000 1,300 900 1,250 1,000]" in text
        assert "range 36.7 % of the rounds' mean (at most 20 %): 16.7 % over" in text  # 400 of a mean of 1090
        assert "round 5 of at most 25" in widget_text(app, "#run-status") or "round 6 of at most 25" in \
            widget_text(app, "#run-status")
        screen.stop()
