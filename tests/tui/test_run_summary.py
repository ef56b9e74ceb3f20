"""The end of a run on the Run screen (widgets/run_summary.py): the answer first, warnings once, the
comparison with the previous run."""

from __future__ import annotations

from labtui.engine import cpubound
from labtui.engine.native.engine import NativeEngine
from labtui.tui.run_state import RunState
from run_support import prepare
from tui_support import (
    make_app,
    open_run,
    widget_text,
)


async def test_the_run_summary_warns_of_this_runs_cpu_bound_steps_once(labtui_home, target):
    # The summary's own warning says it for this run (B): its comparison says it for the previous
    # one (A) only. Said three times, the comparison fell below a 35-line screen.
    from dataclasses import replace

    from factories import make_result

    def bound(result):
        reason = "the machine had no idle CPU (100 % busy)"
        return replace(result, steps=tuple(replace(s, engine_bound=reason) for s in result.steps),
                       warnings=tuple(cpubound.warning(s.name, 1, reason) for s in result.steps))

    previous, outcome = bound(make_result("20240501-103005-aaaa")), bound(make_result("20240501-104005-bbbb", minutes=10))
    title, text = await run_summary(labtui_home, target, previous, outcome)
    # Its own warnings: the steps CPU-bound for one cause in one warning, the advice once (it was said once a step).
    assert ("warning: steps 'Read 64K random' and 'Write 64K random' are CPU-bound: the machine had no idle CPU "
            "(100 % busy); " + NativeEngine.cpu_advice.crowded) in title
    assert title.count("try a quieter machine") == 1, title
    assert f"A ({previous.id}) is CPU-bound in 'Read 64K random', 'Write 64K random'" in text
    assert f"B ({outcome.id}) is CPU-bound" not in text
    assert "B vs A" in text


async def run_summary(home, target, previous, outcome) -> tuple[str, str]:
    """The Run screen's end for `outcome` with `previous` as the run before: its summary and its comparison."""
    prepare(home, target)
    app = make_app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.outcome, screen.previous = outcome, previous
        screen.show_done()
        screen._show_comparison()
        await pilot.pause()
        return (" ".join(widget_text(app, "#done-title").split()),
                " ".join(widget_text(app, "#done-compare").split()))


async def test_the_run_summary_says_what_limited_the_run_and_its_comparison_the_link_both_met(labtui_home, target):
    from synthetic import seed_pair

    title, compared = await run_summary(labtui_home, target, *seed_pair())
    assert "Read 64K random: uses 90 % of a PCIe 3.0 x4 link (3,558 MB/s of 3,938 MB/s): the link limits it" in title
    assert "both runs use 90 % of a PCIe 3.0 x4 link: the link, not the adapter, limits this drive" in compared


async def test_the_run_summary_says_the_answer_first_and_e_shows_how_it_was_decided(labtui_home, target):
    """The comparison with the previous run opens on the plain answer (issue 38 item 5); the method is behind e."""
    from synthetic import pair

    previous, outcome = pair(39_000)
    prepare(labtui_home, target)
    app = make_app(labtui_home)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_run(pilot)
        screen.outcome, screen.previous, screen.state = outcome, previous, RunState.DONE
        screen.show_done()
        screen._show_comparison()
        screen.query_one("#run-done").focus()  # where the end of a run puts the cursor
        await pilot.pause()
        compared = " ".join(widget_text(app, "#done-compare").split())
        assert compared.startswith(
            "Against the previous run of quick-sanity on this disk (A = a, B = this run; c shows it in full, e how it "
            "was decided): B is slower at 64K random reads (-23 %, beyond noise and beyond the ±5 % tolerance); the "
            "other step shows no change beyond noise. A a: "), compared
        assert "How the verdicts were reached" not in compared
        await pilot.press("e")
        await pilot.pause()
        assert "How the verdicts were reached" in " ".join(widget_text(app, "#done-compare").split())
