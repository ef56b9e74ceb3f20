"""A listing's steps: each step once, its passes made one figure as the profile says (mean or best),
a preparing pass not counted, two steps of one name kept apart."""

from dataclasses import replace

import pytest

from labtui.analysis.listed_steps import listed_steps
from labtui.results.summaries import ResultSummary
from synthetic import READ, WRITE, run_result, step_result


def summary(result) -> ResultSummary:
    return ResultSummary.of(result, f"{result.id}.toml")


def test_a_single_run_lists_its_steps_as_they_are():
    listed = listed_steps(summary(run_result("one", {READ: [1000.0], WRITE: [500.0]})))
    assert [(x.figures.name, round(x.figures.iops), x.passes, x.how) for x in listed] == [
        ("Read 64K random", 1000, 1, ""), ("Write 64K random", 500, 1, "")]


@pytest.mark.parametrize("order", ["profile", "step"])
def test_repetitions_are_one_mean_per_step_whatever_the_order_they_ran_in(order):
    result = run_result("rep", {READ: [1000.0, 2000.0, 3000.0], WRITE: [400.0, 500.0, 600.0]})
    if order == "step":  # each step's passes in a row (CrystalDiskMark's order)
        result = replace(result, steps=tuple(sorted(result.steps, key=lambda s: s.step.name)))
    listed = listed_steps(summary(result))
    assert [(x.figures.name, round(x.figures.iops), x.how) for x in listed] == [
        ("Read 64K random", 2000, "mean of 3"), ("Write 64K random", 500, "mean of 3")]
    read = next(s for s in result.steps if s.step is READ)
    assert listed[0].figures.mib_s == pytest.approx(2000.0 * read.step.block_size / 1024**2, rel=1e-3)


def test_best_of_is_the_highest_throughput_and_the_lowest_latency_and_a_preparing_pass_is_left_out():
    result = run_result("cdm", {READ: [1000.0, 3000.0, 2000.0]})
    prepare = step_result(READ, 9000.0, repetition=0, latency_ms=0.01)  # discarded: it would win both
    result = replace(result, profile=replace(result.profile, aggregate="best", discard_first=True),
                     steps=(prepare, *result.steps))
    (read,) = listed_steps(summary(result))
    assert read.how == "best of 3" and read.passes == 3
    assert round(read.figures.iops) == 3000
    lowest = min(s.latency.mean for s in result.steps if s.repetition > 0)
    assert read.figures.latency_mean_ms == pytest.approx(lowest)


def test_two_steps_of_one_name_stay_two():
    again = replace(READ)  # the same workload twice in one profile, e.g. before and after a write
    result = run_result("twice", {READ: [1000.0, 1100.0], WRITE: [500.0, 500.0]}, order=[READ, WRITE])
    steps = []
    for rep in (1, 2):
        steps += [s for s in result.steps if s.repetition == rep]
        steps.append(step_result(again, 100.0 * rep, rep))
    listed = listed_steps(summary(replace(result, steps=tuple(steps))))
    assert [(x.figures.name, round(x.figures.iops)) for x in listed] == [
        ("Read 64K random", 1050), ("Write 64K random", 500), ("Read 64K random", 150)]


def test_a_pass_that_did_not_complete_is_named_and_not_counted():
    result = run_result("cut", {READ: [1000.0, 2000.0, 3000.0]})
    last = replace(result.steps[2], status="aborted")
    (read,) = listed_steps(summary(replace(result, steps=(*result.steps[:2], last), status="aborted")))
    assert read.how == "mean of 2; 1 aborted" and round(read.figures.iops) == 1500
    assert read.figures.status == "aborted"


def test_a_repeated_steps_figure_is_the_same_in_every_command_that_shows_it(labtui_home, capsys, monkeypatch):
    """One --repeat 2 result (56,000 then 32,000 IOPS): history, history --json's figures, show's 'mean of 2'
    line, show --json's statistics give the passes' mean (44,000, 2,750 MiB/s), each saying so; show's pass
    lines, history --json's steps and export (CSV, Markdown) give each pass, by its repetition, and say
    how the profile makes its figure of them. (The History and Result screens: tests/tui/test_history_screen.py.)"""
    import csv
    import io
    import json

    from cli_calls import cli
    from labtui.results.store import Store

    monkeypatch.setenv("COLUMNS", "200")
    rid = "20240601-090000-ffff"
    Store().save_result(run_result(rid, {READ: [56_000.0, 32_000.0]}))
    words = lambda text: " ".join(text.split())  # noqa: E731
    _, table, _ = cli(capsys, "history")
    assert "44,000 2,750.0" in words(table) and "mean of its passes" in words(table)
    _, out, _ = cli(capsys, "history", "--json")
    entry = json.loads(out)["results"][0]
    assert [(s["iops"], s["mib_s"], s["how"]) for s in entry["figures"]] == [(44_000.0, 2750.0, "mean of 2")]
    assert [s["iops"] for s in entry["steps"]] == [56_000.0, 32_000.0]
    _, shown, _ = cli(capsys, "show", rid)
    assert "Read 64K random: mean of 2 44,000 2,750.0" in words(shown)
    assert "Read 64K random #1 56,000" in words(shown) and "Read 64K random #2 32,000" in words(shown)
    _, out, _ = cli(capsys, "show", rid, "--json")
    stats = json.loads(out)["statistics"][0]["metrics"]
    assert [(m["metric"], m["value"], m["aggregation"]) for m in stats[:2]] == [
        ("iops", 44_000.0, "mean of 2"), ("mib_s", 2750.0, "mean of 2")]
    _, out, _ = cli(capsys, "export", "--format", "csv", rid)
    rows = list(csv.DictReader(io.StringIO(out)))
    iops = next(k for k in rows[0] if k.lower() == "iops")
    assert [float(r[iops]) for r in rows] == [56_000.0, 32_000.0]
    _, out, _ = cli(capsys, "export", "--format", "markdown", rid)
    assert "| 56,000 |" in out and "| 32,000 |" in out and "the profile's figure of them is the mean of 2" in out
