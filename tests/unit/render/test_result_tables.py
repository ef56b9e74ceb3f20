"""A result's tables (labtui.render.result_tables) as `labtui show` and the Run summary print them: CPU-bound steps
alike warned of once; a step stopped part-way, and what its "not measured" means."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from factories import make_result
from labtui.cli import main
from labtui.engine import cpubound
from labtui.engine.native.engine import NativeEngine
from labtui.model.result import DirectionStats, LatencySummary
from labtui.render.result_tables import latency_table, result_steps_table, shown_warnings
from labtui.results.store import Store
from synthetic import MIXED, READ, WRITE, run_result

CROWDED = "the machine had no idle CPU (100 % busy)"
OWN = "a worker process used 99 % of a CPU"
DROP = "step 'Write 64K random': the throughput dropped by 40 % at 0:04 (2 intervals)"


def _bound(reasons: dict[str, str], between: tuple[str, ...] = ()):
    result = run_result("20240501-103000-aaaa", {READ: [50_000], WRITE: [40_000], MIXED: [45_000]})
    steps = tuple(replace(s, engine_bound=reasons.get(s.name)) for s in result.steps)
    said = [cpubound.warning(s.name, s.repetition, s.engine_bound) for s in steps if s.engine_bound]
    return replace(result, steps=steps, warnings=(*said[:1], *between, *said[1:]))


def test_steps_cpu_bound_for_the_same_cause_are_warned_of_once_and_others_keep_theirs():
    # Two CPU-bound steps made 8 lines at 80x24 before the table, the same advice twice.
    result = _bound({"Read 64K random": CROWDED, "Write 64K random": CROWDED, "Mixed 70/30": OWN}, (DROP,))
    assert shown_warnings(result) == [
        f"steps 'Read 64K random' and 'Write 64K random' are CPU-bound: {CROWDED}; {NativeEngine.cpu_advice.crowded}",
        DROP,
        f"step 'Mixed 70/30' is CPU-bound: {OWN}; {NativeEngine.cpu_advice.own}",
    ]
    assert len(result.warnings) == 4  # the result keeps each warning as the run gave it


def test_reasons_that_differ_are_each_said_beside_their_step_with_the_advice_once():
    other = "a worker process was on a CPU or waiting for one 95 % of the time (50 % waiting: other work held it back)"
    result = _bound({"Read 64K random": CROWDED, "Mixed 70/30": other})
    assert shown_warnings(result) == [f"steps 'Read 64K random' and 'Mixed 70/30' are CPU-bound: 'Read 64K random': "
                                      f"{CROWDED}; 'Mixed 70/30': {other}; {NativeEngine.cpu_advice.crowded}"]
    one = _bound({"Read 64K random": CROWDED})
    assert shown_warnings(one) == list(one.warnings)  # one step: its warning as it is


def test_show_says_the_shared_cause_once_and_the_file_keeps_each_warning(labtui_home, capsys, monkeypatch):
    result = _bound({"Read 64K random": CROWDED, "Write 64K random": CROWDED, "Mixed 70/30": CROWDED})
    Store().save_result(result)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["show", result.id]) == 0
    out = capsys.readouterr().out
    assert out.count("CPU-bound: the machine had no idle CPU") == 1, out
    assert "steps 'Read 64K random', 'Write 64K random' and 'Mixed 70/30' are CPU-bound" in out
    assert Store().find_result(result.id).warnings == result.warnings


def test_a_runs_summary_says_whose_limit_under_the_warning_and_show_says_why():
    # The summary's warning says why a step was CPU-bound; its bottleneck lines said the reason a third time.
    from rich.console import Console

    from labtui.render.result_tables import bottleneck_renderable

    def text(every: bool) -> str:
        console = Console(width=200, record=True)
        console.print(bottleneck_renderable(_bound({"Read 64K random": CROWDED}), every=every))
        return console.export_text()

    assert "Read 64K random: CPU, not disk: the CPUs' limit" in text(False) and CROWDED not in text(False)
    assert f"Read 64K random: CPU, not disk: {CROWDED}" in text(True)  # show and the Result screen: in full


STOPPED = "stopped 0.8 s into its 10s measure: the figures are of the part measured"


def text(renderable, width=100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def stopped_run():
    """quick-sanity stopped by SIGINT 0.8 s into its first step's measure, as the native engine keeps it: the
    workers' live counters and latency histograms, which give percentiles but no min or max."""
    result = make_result(status="aborted", error="stopped by SIGINT")
    first = result.steps[0]
    part = LatencySummary(mean=2.59, p50=2.38, p90=3.59, p95=3.95, p99=6.46, p999=8.36, p9999=9.37)
    stats = DirectionStats(ios=9303, bytes=9303 * 65536, seconds=0.757)
    aborted = replace(first, status="aborted", read=stats, latency=part, read_latency=part, error=STOPPED,
                      samples=first.samples[:1])
    return replace(result, steps=(aborted,))


def row(out: str, start: str) -> list[str]:
    return next(line for line in out.splitlines() if line.strip().startswith(start)).split()


def test_a_stopped_steps_unknown_min_and_max_say_why_not_a_bare_dash():
    out = text(latency_table(stopped_run().steps))
    cells = row(out, "Read 64K random read")
    assert "-" not in cells, out
    assert cells[4] == "n/a" and cells[-1] == "n/a" and cells[5] == "2.59", out  # min, mean, ..., max
    assert "n/a: not measured" in out and "stopped part-way" in out and "min or max" in out, out


def test_a_completed_steps_latency_has_no_footnote():
    out = text(latency_table(make_result().steps))
    assert "n/a" not in out and "0.050" in out and "12.00" in out, out


def test_the_steps_table_says_how_far_a_stopped_step_got():
    out = text(result_steps_table(stopped_run()))
    assert "Read 64K random (aborted)" in out and STOPPED in " ".join(out.split()), out
    # The whole machine's CPU, named so (issue 39, item 12): a bare "CPU 100.0%" beside "(CPU-bound)" read
    # as labtui's own.
    assert "machine CPU" in out.splitlines()[1], out


def test_show_explains_a_stopped_steps_figures(labtui_home, capsys, monkeypatch):
    saved = Store().save_result(stopped_run())[0]
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["show", saved.id]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())
    assert STOPPED in flat and "n/a: not measured" in flat, out
    assert max(map(len, out.splitlines())) <= 80
