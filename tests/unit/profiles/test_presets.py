"""Faithful presets: aggregation of repetitions (best / mean), pauses, a discarded preparing pass,
the order of repetitions, MB/s beside MiB/s, and write-through, from the profile file to every output."""

from __future__ import annotations

import asyncio
import csv
import fcntl
import io
import json
import os
import subprocess
import time
from dataclasses import replace

import pytest

from conftest import labtui_cmd
from engines import registered, require
from factories import make_result
from labtui.analysis.comparison import compare, summarize
from labtui.analysis.figures import BETTER, SMALL
from labtui.engine.diskspd.engine import caching_arg, diskspd_arguments
from labtui.engine.events import Paused, RunFinished, StepFinished, StepStarted
from labtui.engine.fio.engine import fio_arguments
from labtui.engine.native import worker as native_worker
from labtui.errors import ValidationError
from labtui.model.profile import Profile, Step
from labtui.model.result import DirectionStats, LatencySummary
from labtui.render.comparison import comparison_markdown, statistics_table
from labtui.render.export import COLUMN_NAMES, render
from labtui.render.result_tables import result_steps_table
from labtui.results.files import dumps_toml, loads_toml
from labtui.results.profile_file import profile_from_table, profile_to_table, step_to_table
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions
from labtui.tui.profile_draft import ProfileDraft, changes

MIB = 1024 * 1024

PRESET = """
name = "tiny-cdm"
file_size = "16MiB"
free_space_margin = "0"
repeat = 2
repeat_order = "step"
discard_first = true
pause = "600ms"
aggregate = "best"
decimal_units = true

[[steps]]
name = "read"
block_size = "64KiB"
threads = 1
outstanding = 2
duration = "500ms"
warmup = "0s"

[[steps]]
name = "write"
block_size = "64KiB"
write_percent = 100
threads = 1
outstanding = 2
duration = "500ms"
warmup = "0s"
write_through = true
pause = "0s"
"""


def preset(**changes) -> Profile:
    return replace(profile_from_table(loads_toml(PRESET)), **changes)


# --------------------------------------------------------------------------- the file format


def test_the_preset_keys_read_back_as_written():
    profile = preset()
    assert (profile.aggregate, profile.repeat_order, profile.discard_first, profile.pause, profile.decimal_units) == (
        "best", "step", True, 0.6, True)
    read, write = profile.steps
    assert (read.write_through, read.pause, write.write_through, write.pause) == (False, None, True, 0.0)
    again = profile_from_table(loads_toml(dumps_toml(profile_to_table(profile))))
    assert again == profile
    # A profile without them writes none of them: files from before read and write back the same.
    plain = Profile(name="plain", steps=(Step(name="s"),))
    assert not {"aggregate", "repeat_order", "discard_first", "pause", "decimal_units"} & set(profile_to_table(plain))
    assert not {"write_through", "pause"} & set(step_to_table(plain.steps[0]))


@pytest.mark.parametrize("change, message", [
    ({"aggregate": "max"}, "aggregate: must be mean or best, got 'max'"),
    ({"repeat_order": "steps"}, "repeat_order: must be profile or step, got 'steps'"),
    ({"discard_first": "yes"}, "discard_first: must be true or false, got 'yes'"),
    ({"decimal_units": 1}, "decimal_units: must be true or false, got 1"),
    ({"pause": "-1s"}, "pause"),
    ({"pause": "2h"}, "pause: must be 0 to 1h"),
    ({"aggreagte": "best"}, "unknown key 'aggreagte' (did you mean 'aggregate'?)"),
    ({"steps": [{"name": "s", "write_through": "on"}]}, "steps[1].write_through: must be true or false, got 'on'"),
    ({"steps": [{"name": "s", "pause": "soon"}]}, "steps[1].pause"),
    ({"steps": [{"name": "c", "kind": "command", "command": "true", "write_through": True}]},
     "'write_through' does not apply to a step of kind 'command'"),
])
def test_bad_preset_keys_are_one_line_errors_naming_the_key(change, message):
    data = loads_toml(PRESET) | change
    with pytest.raises(ValidationError) as caught:
        profile_from_table(data)
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_passes_follow_the_repeat_order_with_the_preparing_pass_first():
    profile = preset()
    assert [(i, rep) for i, _s, rep in profile.passes()] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    by_profile = preset(repeat_order="profile")
    assert [(i, rep) for i, _s, rep in by_profile.passes()] == [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2)]
    # The plan counts every pass and every pause (the write step's own pause is 0).
    passes = profile.passes()
    pauses = sum(profile.pause_before(s) for n, (_i, s, _r) in enumerate(passes) if n)
    assert pauses == pytest.approx(0.6 * 2)  # before read #1 and #2: the write step's own pause is 0
    assert profile.planned_seconds == pytest.approx(sum(s.duration + s.warmup + 0.4 for _i, s, _r in passes) + pauses)
    assert profile.aggregation_text() == "best of 2 (max throughput, min latency; 1 preparing pass not counted)"
    assert replace(profile, aggregate="mean").aggregation_text() == "mean of 2 (1 preparing pass not counted)"


def test_the_editor_keeps_the_preset_keys_and_edits_them():
    draft = ProfileDraft(preset())
    draft.set_field("title", "edited")
    built = draft.build()
    assert built.title == "edited"
    assert (built.aggregate, built.discard_first, built.pause, built.decimal_units) == ("best", True, 0.6, True)
    assert built.steps[1].write_through and built.steps[1].pause == 0.0
    assert draft.steps[0].values["pause"] == "" and built.steps[0].pause is None  # empty: the profile's pause
    draft.set_field("aggregate", "mean")
    draft.set_field("pause", "")
    assert draft.errors() == {"pause": "'' is not a duration (use e.g. 500ms, 10s, 5m, 1h)"}  # the profile's is a figure
    draft.set_field("pause", "0s")
    draft.set_step_field(1, "write_through", False)
    draft.set_step_field(1, "pause", "")
    built = draft.build()
    assert (built.aggregate, built.pause, built.steps[1].write_through, built.steps[1].pause) == ("mean", 0.0, False,
                                                                                                    None)
    assert ("aggregate", "mean", "best") in changes(preset(), built)
    assert ("pause", "0s", "600ms") in changes(preset(), built)


# --------------------------------------------------------------------------- engines


def test_write_through_in_every_engines_command_line():
    reads = Step(name="r", block_size=65536)
    writes = Step(name="w", block_size=65536, write_percent=100)
    through = replace(writes, write_through=True)
    # DiskSpd: -Sh is the post's script (-h), not CrystalDiskMark's -S (here -Su; the Linux port's -Sd).
    assert [caching_arg(s, "windows") for s in (writes, through)] == ["-Su", "-Sh"]
    assert [caching_arg(s, "linux") for s in (writes, through)] == ["-Sd", "-Sh"]
    cached = replace(through, cache="on")
    assert (caching_arg(cached, "windows"), caching_arg(cached, "linux")) == ("-Sw", "-Ss")
    assert caching_arg(replace(writes, cache="on"), "windows") is None
    assert "-Sh" in diskspd_arguments(through, "D:\\t.dat", 1 << 30, variant="windows", create_file=False)
    # fio: O_DSYNC for writes; nothing for a read-only step or without write-through.
    assert "--sync=dsync" in fio_arguments(through, "/f", 1 << 30, linux=True)
    assert not any(a.startswith("--sync") for a in fio_arguments(writes, "/f", 1 << 30, linux=True))
    assert not any(a.startswith("--sync") for a in fio_arguments(replace(reads, write_through=True), "/f", 1 << 30,
                                                                  linux=True))
    # Write-through changes what a write step measures: it is another workload for matching.
    assert through.workload_key() != writes.workload_key()
    assert replace(reads, write_through=True).workload_key() == reads.workload_key()


def test_the_native_worker_opens_a_write_through_file_with_o_dsync(tmp_path):
    path = tmp_path / "f.dat"
    path.write_bytes(b"\0" * 65536)
    for through in (False, True):
        fd = native_worker._open({"path": str(path), "write_percent": 100, "direct": False, "write_through": through})
        try:
            assert bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DSYNC) is through
        finally:
            os.close(fd)


# --------------------------------------------------------------------------- a real run


def _collect(runner):
    events = []
    stamps = []

    async def go():
        async for event in runner.events():
            events.append(event)
            stamps.append(time.monotonic())

    asyncio.run(go())
    return events, stamps


@pytest.mark.parametrize("engine", registered())
def test_a_preset_with_pauses_and_best_of_runs_for_real(engine, disk_dir, tmp_path):
    require(engine)
    store = Store(tmp_path / "home")
    runner = Runner(preset(), disk_dir, store, RunOptions(engine=engine, interval=0.25))
    events, stamps = _collect(runner)
    result = events[-1].result
    assert isinstance(events[-1], RunFinished) and result.status == "completed", result.error
    started = [(e, t) for e, t in zip(events, stamps) if isinstance(e, StepStarted)]
    assert [(e.step.name, e.repetition) for e, _t in started] == [
        ("read", 0), ("read", 1), ("read", 2), ("write", 0), ("write", 1), ("write", 2)]
    assert {e.total for e, _t in started} == {6}
    finished = {e.index: t for e, t in zip(events, stamps) if isinstance(e, StepFinished)}
    # The read passes after the first wait for the profile's pause (the write step's own is 0:
    # that it is not waited for is the plan's rule, tested above, not a time to race here).
    gaps = [t - finished[e.index - 1] for e, t in started[1:]]
    # The stamps are the consumer's: a StepFinished read late (a loaded machine) shortens the gap it
    # sees by that much (0.5998 s in a full suite beside others' runs), never by a pass's length.
    assert gaps[0] >= 0.6 - 0.05 and gaps[1] >= 0.6 - 0.05
    assert [(e.seconds, e.before) for e in events if isinstance(e, Paused)] == [(0.6, 1), (0.6, 2)]
    # The preparing pass is measured, shown, and not kept: two repetitions per step.
    assert [(s.name, s.repetition) for s in result.steps] == [("read", 1), ("read", 2), ("write", 1), ("write", 2)]
    assert all(s.total.ios > 0 for s in result.steps)
    assert result.steps[2].step.write_through and "dsync" in (result.steps[2].command_line or "").lower()
    assert store.find_result(result.id) == result

    # Every output says how the figure was made; the headline is the best pass, the statistics all passes.
    summary = summarize(result)
    iops = summary.groups[0].row("iops").figures[0]
    reads = [s.total.iops for s in result.steps[:2]]
    assert iops.aggregate == "best" and iops.value == max(reads) and iops.mean == pytest.approx(sum(reads) / 2)
    assert iops.values == tuple(reads) and iops.n == 2
    latency = summary.groups[0].row("latency_mean_ms").figures[0]
    assert latency.value == min(s.latency.mean for s in result.steps[:2])
    mb = summary.groups[0].row("mb_s").figures[0]
    assert mb.value == pytest.approx(max(s.total.bytes_per_second for s in result.steps[:2]) / 1e6)
    text = _text(result_steps_table(result))
    assert "read: best of 2" in text and "MB/s" in text and "1 preparing pass not counted" in text
    stats = _text(statistics_table(summary))
    assert "best" in stats and "are of all the repetitions" in stats


def _text(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return " ".join(console.export_text().split())  # captions wrap at the table's width


def test_show_json_and_export_say_how_a_figure_was_aggregated(disk_dir, labtui_home, tmp_path):
    profile_file = tmp_path / "tiny-cdm.toml"
    profile_file.write_text(PRESET.replace('pause = "600ms"', 'pause = "200ms"'))
    out = subprocess.run(labtui_cmd("run", "-p", str(profile_file), "-t", str(disk_dir), "--json", "--yes"),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "(preparing pass, not counted)" in out.stderr
    assert "pausing 200ms before step 2 (the profile's pause)" in out.stderr
    data = json.loads(out.stdout)
    first = data["statistics"][0]["metrics"][0]
    assert first["metric"] == "iops" and first["aggregate"] == "best" and first["aggregation"] == "best of 2"
    assert first["value"] == max(first["values"]) and first["mean"] == pytest.approx(sum(first["values"]) / 2)
    show = subprocess.run(labtui_cmd("show", data["id"]), capture_output=True, text=True, timeout=60)
    shown = " ".join(show.stdout.split())
    assert show.returncode == 0 and "read: best of 2" in shown and "MB/s" in shown and "not counted" in shown
    exported = subprocess.run(labtui_cmd("export", data["id"]), capture_output=True, text=True, timeout=60)
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert len(rows) == 4 and {r["aggregate"] for r in rows} == {
        "best of 2 (max throughput, min latency; 1 preparing pass not counted)"}
    assert [r["write_through"] for r in rows] == ["false", "false", "true", "true"]
    for r in rows:
        assert float(r["mb_s"]) == pytest.approx(float(r["mib_s"]) * MIB / 1e6)
    markdown = subprocess.run(labtui_cmd("export", data["id"], "--format", "markdown"), capture_output=True,
                              text=True, timeout=60)
    assert "the profile's figure of them is the best of 2" in markdown.stdout


# --------------------------------------------------------------------------- comparison honesty


def _with_reads(result, aggregate: str, values: list[float]):
    """`result` with its read step run len(values) times at these IOPS (the write step once per pass)."""
    profile = replace(result.profile, aggregate=aggregate, repeat=len(values), decimal_units=True)
    read, write = result.steps
    steps = []
    for rep, iops in enumerate(values, 1):
        ios = int(iops * 10)
        steps.append(replace(read, repetition=rep, read=DirectionStats(ios, ios * 65536, 10.0),
                             latency=LatencySummary(mean=1000 / iops, p99=3000 / iops), samples=()))
        steps.append(replace(write, repetition=rep, samples=()))
    return replace(result, profile=profile, steps=tuple(steps))


def test_a_best_of_figure_is_shown_but_the_verdict_rests_on_the_repetitions_means():
    a = _with_reads(make_result("a"), "best", [10_000, 10_050, 10_100])
    b = _with_reads(make_result("b", minutes=5), "best", [10_000, 10_050, 11_000])
    comparison = compare([a, b])
    row = comparison.groups[0].row("iops")
    fa, fb = row.figures
    assert (fa.value, fb.value) == (10_100, 11_000)  # the best passes
    assert fb.interval() is not None and fb.interval()[0] < fb.mean < fb.interval()[1]  # about the mean
    delta = row.deltas[1]
    assert delta.relative_pct == pytest.approx((11_000 / 10_100 - 1) * 100)  # +8.9 %: beyond 5 % ...
    mean_change = (sum([10_000, 10_050, 11_000]) / sum([10_000, 10_050, 10_100]) - 1) * 100
    assert mean_change < 5  # ... but the means differ by 3 %
    assert not delta.beyond_tolerance and delta.verdict != BETTER
    assert f"+8.9 % (best of 3 vs best of 3; the means {mean_change:+.1f} %)" in delta.reason
    # The test is of the individual repetitions, not of the best figures.
    assert delta.test is not None and fb.values == (10_000, 10_050, 11_000)
    # Latency's best is the lowest.
    lat = comparison.groups[0].row("latency_mean_ms").figures[1]
    assert lat.value == pytest.approx(1000 / 11_000)
    md = comparison_markdown(comparison)
    assert "| 11,000 (best of 3) |" in md and "| MB/s (higher is better) | 661.9 (best of 3) |" in md


def test_a_large_best_of_difference_with_large_mean_difference_is_claimed():
    a = _with_reads(make_result("a"), "best", [10_000, 10_050, 10_100])
    b = _with_reads(make_result("b", minutes=5), "best", [11_500, 11_550, 11_600])
    delta = compare([a, b]).groups[0].row("iops").deltas[1]
    assert delta.verdict == BETTER and delta.beyond_tolerance


def test_comparing_best_of_with_a_mean_says_they_are_made_differently():
    a = _with_reads(make_result("a"), "mean", [10_000, 10_050, 10_100])
    b = _with_reads(make_result("b", minutes=5), "best", [10_000, 10_050, 10_150])
    comparison = compare([a, b])
    assert any("figures are made differently (A mean of 3, B best of 3 (max throughput, min latency))" in w
               for w in comparison.warnings)
    figures = next(c for c in comparison.context if c.label == "figures")
    assert figures.values == ("mean of the passes", "best pass (max throughput, min latency)")
    assert comparison.groups[0].row("iops").deltas[1].verdict in (SMALL, "within noise")
    # How many passes is not how a figure is made: a single-run baseline and its 3-run check agree.
    single = replace(make_result("s"), profile=replace(make_result("s").profile, aggregate="mean"))
    assert not next(c for c in compare([single, a]).context if c.label == "figures").differs


def test_configmgr_sql_is_matched_with_an_older_run_without_write_through():
    old = make_result("old")
    new = replace(make_result("new", minutes=5), steps=tuple(
        replace(s, step=replace(s.step, write_through=True)) for s in make_result("x").steps))
    comparison = compare([old, new])
    write = comparison.groups[1]
    assert write.steps[0] is not None and write.steps[1] is not None
    assert any("write-through differs" in note and "A off, B on" in note for note in write.notes)
    context = next(c for c in comparison.context if c.label == "write-through")
    assert context.values == ("off", "on")


def test_imported_diskspd_runs_keep_their_write_through():

    from conftest import FIXTURES as fixtures
    from labtui.engine.diskspd.parse import parse_report, timespan_workload
    xml = next(fixtures.rglob("diskspd-2.0.21a-rnd4k-rw70-30-L-D.xml"))
    span = parse_report(xml.read_text(encoding="utf-8")).timespans[0]
    step = timespan_workload(span)
    assert step.cache == "off" and step.write_through  # -Sh: <WriteThrough>true
    text = next(fixtures.rglob("diskspd-2.2.0-rnd4k-write-t4-o16-L-D.txt"))
    step = timespan_workload(parse_report(text.read_text(encoding="utf-8")).timespans[0])
    assert step.write_through  # -Suw: "hardware write cache disabled, writethrough on"


def test_export_columns_hold_the_new_facts():
    assert {"aggregate", "write_through", "mb_s"} <= set(COLUMN_NAMES)
    rows = list(csv.DictReader(io.StringIO(render([make_result()], "csv"))))
    assert rows[0]["aggregate"] == "single run" and rows[0]["write_through"] == "false"


def test_the_live_state_knows_a_pause_until_the_next_pass_starts():
    from labtui.run.live import LiveRun

    now = [100.0]
    live = LiveRun(clock=lambda: now[0])
    step = preset().steps[0]
    live.handle(StepStarted(0, 6, step, 0, None))
    live.handle(Paused(0.6, 1))
    assert live.pause is not None and live.pause[0].before == 1 and live.pause[1] == 100.0
    now[0] = 100.6
    live.handle(StepStarted(1, 6, step, 1, None))
    assert live.pause is None
