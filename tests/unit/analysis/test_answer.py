"""The plain answer first (issue 38 item 5): under `compare` and `check`, on synthetic results of known truth,
the first thing said is the answer a lab person acts on, in each case: no difference, faster, slower, too
noisy (with the runs needed), the setup differs (link, firmware, engine), CPU-bound."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from rich.console import Console

from labtui.analysis.answer import CANNOT_TELL, FASTER, SAME, SLOWER, check_answer, comparison_answers, warnings_under
from labtui.analysis.checks import check
from labtui.analysis.comparison import compare
from labtui.analysis.figures import KnownNoise
from labtui.render.comparison import check_renderable, comparison_renderable
from synthetic import READ, TARGET, WRITE, pair, run_result, runs

BOUND = "a worker process used 98 % of a CPU"  # how cpubound.verdict() words a worker that was its own limit


def answer(a, b, **kw):
    return comparison_answers(compare([a, b], **kw))[0]


def first_line(renderable, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()[0]


def test_no_difference_says_so_and_how_small_a_change_would_have_shown():
    a, b = pair()
    said = answer(a, b)
    assert said.outcome == SAME
    assert re.fullmatch(r"No change beyond noise \(a change of \d\.\d % or more would have shown\)\.", said.text)
    checked = check_answer(check(a, b, 10))
    assert re.fullmatch(r"Passed: no step is slower than the baseline beyond the ±10 % tolerance \(a regression of "
                        r"\d\.\d % or more would have shown\)\.", checked.text)
    # First, above the table, in the terminal output of both.
    assert first_line(comparison_renderable(compare([a, b]))) == said.text


def test_slower_names_the_step_in_plain_words_the_change_and_the_tolerance():
    a, b = pair(39_000)
    said = answer(a, b)
    assert said.outcome == SLOWER
    assert said.text.startswith("B is slower at 64K random reads (-23 %, beyond noise and beyond the ±5 % tolerance)"
                                "; the other step shows no change beyond noise")
    assert check_answer(check(a, b, 10)).text.startswith(
        "Failed: slower than the baseline at 64K random reads (-23 %), beyond noise and the ±10 % tolerance; "
        "nothing recorded about the setup changed")


def test_faster():
    a, b = pair(62_000)
    said = answer(a, b)
    assert said.outcome == FASTER
    assert said.text.startswith("B is faster at 64K random reads (+23 %, beyond noise and beyond the ±5 % tolerance)")
    assert check_answer(check(a, b, 10)).text.startswith("Passed: no step is slower than the baseline")


def test_too_noisy_says_how_much_it_varied_what_could_show_and_the_runs_that_would_tell():
    a, b = pair(sd=0.08, n=3)
    said = answer(a, b)
    assert said.outcome == SAME
    match = re.fullmatch(r"No change beyond noise, but this disk varied ±\d+–[\d.]+ % between runs, so only a change of "
                         r"about (\d+) % could show\. To see 10 %, run each side (\d+) times: `labtui run -p "
                         r"quick-sanity --repeat \2` on each\.", said.text)
    assert match, said.text
    assert int(match[1]) > 10 and 3 < int(match[2]) <= 100
    report = check(a, b, 10)
    checked = check_answer(report)
    assert checked.outcome == CANNOT_TELL
    assert re.match(r"Cannot tell: this disk varied ±[\d.]+(–[\d.]+)? % between runs, so only a regression of about \d+ % "
                    r"could show\. To see 10 %, ", checked.text), checked.text
    # One number of runs, the same wherever it is said (the answer, the verdict line, --json's hint).
    needed = report.runs_needed()
    assert needed is not None and needed.commands is not None and needed.commands in checked.text
    assert needed.hint() in report.summary() and report.to_json()["hint"] == needed.hint()


def test_single_runs_cannot_tell_and_say_how_to_measure_the_noise():
    a = run_result("a", {READ: [50_000], WRITE: [40_000]})
    b = run_result("b", {READ: [40_000], WRITE: [40_000]}, minutes=5)
    said = answer(a, b)
    assert said.outcome == CANNOT_TELL
    assert said.text == ("Cannot tell yet: B measured 20 % slower at 64K random reads, but single runs cannot tell a "
                         "difference from noise. To measure the noise, run each side 3 times or more: `labtui run -p "
                         "quick-sanity --repeat 3` on each.")
    # What earlier runs of the disk showed sizes the runs that would tell.
    known = KnownNoise(0.05, 12, "in 12 earlier runs of quick-sanity on this disk")
    assert answer(a, b, hint=lambda step, metric: known).text.endswith(
        "Earlier runs of this disk varied ±5.0 %: to see 10 %, run each side 5 times: `labtui run -p quick-sanity "
        "--repeat 5` on each.")


@pytest.mark.parametrize(("changes", "clause", "checked"), [
    ({"target": replace(TARGET, pcie_width=2, pcie_max_width=4, pcie_max_speed="8.0 GT/s PCIe")},
     "; the PCIe link trained at x2 on B (x4 on A): the drive does x4: an adapter or riser, a loose or dirty "
     "contact, or the BIOS's lane settings hold it narrower.",
     "; the PCIe link trained at x2 on the re-run (x4 on the baseline): the drive does x4: an adapter or riser, a "
     "loose or dirty contact, or the BIOS's lane settings hold it narrower."),
    ({"target": replace(TARGET, pcie_width=2, pcie_max_width=4, pcie_port_max_width=2)},
     "; the PCIe link trained at x2 on B (x4 on A): the port above it has 2 lanes: the slot, not the drive, sets "
     "the width.",
     "; the PCIe link trained at x2 on the re-run (x4 on the baseline): the port above it has 2 lanes: the slot, not "
     "the drive, sets the width."),
    ({"target": replace(TARGET, firmware="731120WD")},
     "; the drive ran firmware 731120WD on B (620361WD on A).",
     "; the drive ran firmware 731120WD on the re-run (620361WD on the baseline)."),
    ({"engine": "fio"},
     "; the engines differ (A native, B fio): part of any difference is theirs, so run both with one engine (-e).",
     "; the engines differ (the baseline native, the re-run fio): part of any difference is theirs, so run both "
     "with one engine (-e)."),
])
def test_a_setup_that_differs_is_named_beside_the_answer(changes, clause, checked):
    a, b = pair(39_000, **changes)
    said = answer(a, b)
    assert said.text.startswith("B is slower at 64K random reads (-23 %") and said.text.endswith(clause)
    assert check_answer(check(a, b, 10)).text.endswith(checked)


def test_a_cpu_bound_step_claims_nothing_and_says_what_to_do():
    a, b = pair(39_000)  # slower, but the re-run's reads were the engine's limit, not the disk's
    b = replace(b, steps=tuple(replace(s, engine_bound=BOUND) if s.step == READ else s for s in b.steps))
    said = answer(a, b)
    assert said.outcome == SAME and "slower" not in said.text
    # The answer names the step; what its figure means and what helps is the next line, not inside the sentence.
    assert "; B was CPU-bound at 64K random reads, so that step says nothing of the disk." in said.text
    advice = "This figure is the engine's limit, not the disk's: try more threads or -e fio."
    assert said.advice == advice and said.to_json()["advice"] == advice
    checked = check_answer(check(a, b, 10))
    assert checked.lines == ["Failed: slower than the baseline at 64K random reads (-23 %), beyond noise and the ±10 % "
                             "tolerance, but maybe not the disk's doing; the re-run was CPU-bound at 64K random reads.",
                             advice]
    # The writes CPU-bound, the reads slower: the failure is the disk's, and the setup said to be unchanged.
    slower = pair(39_000)[1]
    writes = replace(slower, steps=tuple(replace(s, engine_bound=BOUND) if s.step == WRITE else s for s in slower.steps))
    assert check_answer(check(a, writes, 10)).text == (
        "Failed: slower than the baseline at 64K random reads (-23 %), beyond noise and the ±10 % tolerance; the re-run "
        "was CPU-bound at 64K random writes; nothing recorded about the setup changed (link, firmware, engine, cache).")
    # Every step CPU-bound: nothing to answer on but that, in one line at 80 columns, what helps on the next.
    every = replace(b, steps=tuple(replace(s, engine_bound=BOUND) for s in b.steps))
    assert answer(a, every).lines == ["Cannot tell: B was CPU-bound at every step.",
                                      "The figures are the engine's limit, not the disk's: try more threads or -e fio."]
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    console.print(comparison_renderable(compare([a, every])))
    assert console.export_text().splitlines()[:2] == answer(a, every).lines


def test_several_results_answer_each_against_a():
    a, b = pair()
    c = run_result("c", {READ: runs(39_000, 0.01, 3, 5), WRITE: runs(40_000, 0.01, 3, 6)}, minutes=9)
    texts = [x.text for x in comparison_answers(compare([a, b, c]))]
    assert texts[0].startswith("B: no change beyond noise") and texts[1].startswith("C is slower at 64K random reads")


def test_check_output_says_the_answer_first_and_the_method_only_when_asked():
    a, b = pair(39_000)
    report = check(a, b, 10)
    plain = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    plain.print(check_renderable(report))
    text = plain.export_text()
    assert "Holm" not in text and "family" not in text
    explained = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    explained.print(check_renderable(report, explain=True))
    text = explained.export_text()
    assert "Holm" in text and "How the check decides" in text


def test_the_machine_s_cpu_is_context_never_a_verdict_or_a_p_value():
    """`check` printed "CPU 84.5 % → 30.8 %, −63.5 %, p=0.003" while labtui's own CPU held steady: the machine's
    other load moved, not the disk. It is shown, with no verdict and no test; the engine's own CPU per I/O is a
    metric, and the one --fail-on cpu gates."""
    from labtui.analysis.checks import parse_fail_on
    from labtui.analysis.figures import CONTEXT

    a = run_result("a", {READ: runs(50_000, 0.01, 3, 1)}, cpu=84.5)
    b = run_result("b", {READ: runs(50_000, 0.01, 3, 2)}, cpu=30.8, minutes=5)
    b = replace(b, steps=tuple(replace(s, cpu_seconds=s.total.ios * 2e-6) for s in b.steps))
    a = replace(a, steps=tuple(replace(s, cpu_seconds=s.total.ios * 1e-6) for s in a.steps))
    comparison = compare([a, b])
    cpu = comparison.groups[0].row("cpu_percent")
    assert cpu.metric.label == "machine CPU" and cpu.deltas[1].verdict == CONTEXT and cpu.deltas[1].test is None
    engine = comparison.groups[0].row("engine_cpu_us_per_io")
    assert engine.metric.label == "engine CPU per I/O" and engine.deltas[1].verdict == "worse"
    report = check(a, b, 10, parse_fail_on(["cpu"]))
    line = next(l for l in report.lines if l.metric.key == "cpu_percent")
    assert line.outcome == "INFO" and line.test is None and "p=" not in line.reason
    assert next(l for l in report.lines if l.metric.key == "engine_cpu_us_per_io").gating
    console = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    console.print(check_renderable(report))
    row = next(r for r in console.export_text().splitlines() if "machine CPU" in r)
    assert "p=" not in row and "↓" not in row


async def test_the_compare_screen_opens_on_the_answer_and_e_shows_the_method(labtui_home):
    from labtui.screens.compare import CompareScreen
    from tui_support import make_app, screen_text, wait_for

    a, b = pair(39_000)
    app = make_app(labtui_home)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(CompareScreen([a, b]))
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen) and "B is" in screen_text(app))
        lines = [line.strip() for line in screen_text(app).splitlines()]
        body = [line for line in lines[1:] if line]
        assert " ".join(body[:3]).startswith("B is slower at 64K random reads (-23 %, beyond noise and beyond the ±5 % "
                                             "tolerance)"), lines
        assert "How the verdicts were reached" not in screen_text(app)
        await pilot.press("e")
        await wait_for(pilot, lambda: "How the verdicts were reached" in screen_text(app), what="the method")
        await pilot.press("e")
        await wait_for(pilot, lambda: "How the verdicts were reached" not in screen_text(app), what="it hidden")


def test_both_sides_cpu_bound_alike_are_said_once():
    a, b = pair(39_000)
    bound = [replace(r, steps=tuple(replace(s, engine_bound=BOUND) for s in r.steps)) for r in (a, b)]
    said = answer(*bound)
    assert said.text == "Cannot tell: A and B were CPU-bound at every step." and said.advice.startswith("The figures are")
    # The baseline bound at every step, the re-run at one: the same advice, said once for all those figures.
    reads = replace(b, steps=tuple(replace(s, engine_bound=BOUND) if s.step == READ else s for s in b.steps))
    assert check_answer(check(bound[0], reads, 10)).lines[1:] == [
        "The figures are the engine's limit, not the disk's: try more threads or -e fio."]
    c = replace(bound[1], id="c")
    texts = [x.text for x in comparison_answers(compare([bound[0], bound[1], c]))]
    assert all("A was CPU-bound at every step" in t for t in texts), texts


def test_the_warnings_under_an_answer_name_each_sides_cpu_bound_steps_without_its_advice_again():
    a, b = pair(39_000)
    a, b = (replace(r, steps=tuple(replace(s, engine_bound=BOUND) for s in r.steps)) for r in (a, b))
    advice = "this figure is the engine's limit, not the disk's: try more threads or -e fio"
    steps = "is CPU-bound in 'Read 64K random', 'Write 64K random'"
    comparison = compare([a, b])
    # The answer and its advice line say it; --json (Comparison.warnings) keeps each warning whole.
    assert comparison.warnings == (f"A (a) {steps}: {advice}", f"B (b) {steps}: {advice}")
    assert warnings_under(comparison, comparison_answers(comparison)) == [f"A (a) {steps}", f"B (b) {steps}"]
    assert warnings_under(comparison, []) == list(comparison.warnings)  # no answer above: the advice stays
    text = plain(comparison_renderable(compare([a, b])), 120)
    assert text.count("try more threads") == 1 and f"warning: B (b) {steps}\n" in text
    # A check says the baseline and the re-run, as its answer does, and the advice once, on the answer's line.
    report = check(a, b, 10)
    said = check_answer(report)
    assert said.lines[1] == "The figures are the engine's limit, not the disk's: try more threads or -e fio."
    text = plain(check_renderable(report, answer=said), 120)
    assert f"warning: the baseline (a) {steps}\n" in text and f"warning: the re-run (b) {steps}\n" in text
    assert "try more threads" not in text and "A (a)" not in text
    assert f"warning: the re-run (b) {steps}: {advice}" in plain(check_renderable(report), 160)  # no answer above
    # Each of a check's warnings says the baseline and the re-run; its --json keeps the letters.
    fio = check(a, replace(b, engine=replace(b.engine, name="fio")), 10)
    assert "warning: engines differ (the baseline native, the re-run fio)" in plain(check_renderable(fio), 160)
    assert any(w.startswith("engines differ (A native, B fio)") for w in fio.to_json()["comparison"]["warnings"])


def plain(renderable, width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def test_results_with_no_workload_in_common_say_that_first_however_cpu_bound_they_were():
    # verify-after-swap against quick-sanity, both CPU-bound: that they share no step is the reason, not the CPU.
    a = run_result("a", {READ: [50_000]})
    b = run_result("b", {WRITE: [40_000]}, minutes=5)
    a, b = (replace(r, steps=tuple(replace(s, engine_bound=BOUND) for s in r.steps)) for r in (a, b))
    said = answer(a, b)
    assert said.outcome == CANNOT_TELL and said.text.startswith("Cannot tell: B runs none of A's workloads"), said.text
