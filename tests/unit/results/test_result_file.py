"""labtui.results.result_file: a result as a TOML file, written and read back. Round-trip exactness: every
profile and result the model can hold is read back equal; a file proves it is whole."""

import json
import os
import random
import re
import subprocess
import tempfile
import tomllib
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import labtui_cmd
from factories import make_result
from labtui.errors import StoreError
from labtui.model.profile import SCHEMA, Profile, Step
from labtui.model.result import DriveFacts, EngineInfo, HostInfo, RunResult, Sample, StepResult, TargetInfo
from labtui.render.result_json import result_to_json
from labtui.results.profile_file import profile_from_table, profile_to_table
from labtui.results.result_file import HEAD, result_from_toml, result_to_toml, to_plain
from labtui.results.store import Store
from strategies import profiles, run_results, step_results

few = settings(max_examples=40, deadline=None)


@few
@given(run_results())
def test_result_text_round_trip(result: RunResult):
    text = result_to_toml(result)
    assert text.startswith(f"{HEAD}\nschema = {SCHEMA}\n")  # after the line saying how to tell it is whole
    assert text.endswith(f"# end of labtui result: {len(result.steps)} steps\n")
    assert result_from_toml(text) == result


@few
@given(profiles(valid=False))
def test_profile_table_round_trip(profile: Profile):
    # A result keeps its profile as it was run (or imported), checked or not.
    assert profile_from_table(profile_to_table(profile), origin="result", check=False) == profile


@few
@given(profiles())
def test_user_profile_saved_and_reread(profile: Profile):
    with tempfile.TemporaryDirectory() as home:
        store = Store(Path(home))
        path = store.save_profile(profile)
        assert path == Path(home) / "profiles" / f"{profile.name}.toml"
        assert tomllib.loads(path.read_text(encoding="utf-8"))["schema"] == 1
        again = store.profile(profile.name)
        assert again == profile and again.origin == "user"
        listed, broken = store.user_profiles()
        assert listed == [profile] and broken == []
        # Saving what was read changes not a byte.
        before = path.read_bytes()
        store.save_profile(again)
        assert path.read_bytes() == before


@few
@given(st.lists(run_results(), min_size=1, max_size=3))
def test_results_saved_and_listed_read_back_equal(results: list[RunResult]):
    with tempfile.TemporaryDirectory() as home:
        store = Store(Path(home))
        saved = [store.save_result(r)[0] for r in results]
        good, broken = store.load_results()
        assert broken == []
        assert sorted(good, key=lambda r: r.id) == sorted(saved, key=lambda r: r.id)
        for result in saved:
            assert store.find_result(result.id) == result


@few
@given(run_results())
def test_json_form_is_plain_json(result: RunResult):
    data = json.loads(json.dumps(result_to_json(result), default=str))
    assert data["id"] == result.id and data["schema"] == SCHEMA
    assert len(data["steps"]) == len(result.steps)
    for entry, step in zip(data["steps"], result.steps):
        assert entry["total"]["ios"] == step.read.ios + step.write.ios
        assert entry["total"]["bytes"] == step.read.bytes + step.write.bytes
        assert entry["samples"] == len(step.samples)


@few
@given(step_results)
def test_a_series_is_stored_as_columns_with_gaps(step: StepResult):
    data = to_plain(step)
    if not step.samples:
        assert "series" not in data
        return
    series = data["series"]
    assert {len(column) for column in series.values()} == {len(step.samples)}
    # A column nobody measured is left out rather than written as a row of gaps.
    for name in ("read_lat_mean_ms", "cpu_percent"):
        assert (name in series) == any(getattr(s, name) is not None for s in step.samples)


def test_a_long_series_stays_a_few_lines():
    samples = tuple(Sample(t=i + 1.0, seconds=1.0, read_ios=1000 + i, read_bytes=(1000 + i) * 65536,
                           read_lat_mean_ms=None if i % 7 == 0 else 0.25) for i in range(300))
    text = result_to_toml(_result_with(StepResult(step=Step(name="s"), samples=samples)))
    assert len(text.splitlines()) < 82  # with the first and last lines (result_file.HEAD and END)
    assert result_from_toml(text).steps[0].samples == samples


def _result_with(step: StepResult) -> RunResult:
    when = datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    return RunResult(id="20240102-030405-abcd", status="completed", started=when, ended=when, host=HostInfo(),
                     target=TargetInfo(path="/mnt/x"), engine=EngineInfo(name="native"),
                     profile=Profile(name="p", steps=(step.step,)), steps=(step,))


def test_steady_state_and_preconditioning_round_trip_and_older_files_read_without():
    from dataclasses import replace

    from factories import make_result
    from labtui.analysis import steady
    from labtui.model.profile import SteadyRule
    from labtui.model.result import Precondition

    state = steady.judge(SteadyRule.parse("snia:mib_s"), [410.5, 402.0, 398.25, 401.0, 399.5, 400.0], 60.0)
    never = steady.judge(SteadyRule.parse("iops:0%", window=2, max_rounds=2), [0.0, 0.0], 1.0)  # a criterion of None
    base = make_result()
    steps = (replace(base.steps[0], steady_state=state, step=replace(base.steps[0].step, steady_state="snia:mib_s")),
             replace(base.steps[1], steady_state=never))
    result = replace(base, steps=steps, precondition=Precondition(2, 2 << 30, 10.5, (5.0, 5.5), True))
    text = result_to_toml(result)
    assert "[steps.steady_state]" in text and 'criteria = [{ name = "range"' in text and "[precondition]" in text
    assert result_from_toml(text) == result
    # The JSON form is plain JSON (no NaN), a criterion that could not be judged is null.
    json.dumps(result_to_json(result), allow_nan=False)
    assert result_to_json(result)["steps"][1]["steady_state"]["criteria"][0]["value"] is None
    # A file of before: neither table, and it reads as it did.
    older = result_from_toml(result_to_toml(base))
    assert older.precondition is None and all(s.steady_state is None for s in older.steps)


def test_the_drive_and_its_drops_round_trip_and_older_files_read_without():
    from labtui.model.result import DriveFacts, Drop

    samples = tuple(Sample(t=i + 1.0, seconds=1.0, write_ios=10, write_bytes=655360,
                           drive_temp_c=60.0 + i if i % 3 == 0 else None, link_width=4 if i % 3 == 0 else None)
                    for i in range(9))
    facts = DriveFacts(source="smartctl + sysfs", temperature_c=55.0, warning_c=82.0, pcie_width=4,
                       aer_correctable=2, thermal_transitions=1)
    step = StepResult(step=Step(name="s"), samples=samples, drive_before=facts, drive_after=facts,
                      drops=(Drop(3.0, 1966080, 400.0, 100.0, "thermal", "the drive reached 83 °C", 7.0),))
    text = result_to_toml(_result_with(step))
    assert "[steps.drive_before]" in text and "[[steps.drops]]" in text and "drive_temp_c" in text
    back = result_from_toml(text).steps[0]
    assert back == step
    plain = result_to_toml(_result_with(StepResult(step=Step(name="s"), samples=samples[:1])))
    assert "drops" not in plain and "drive_before" not in plain
    # A file of before the drive's figures: nor its first and last lines (result_file.HEAD and END).
    older = "\n".join(line for line in text.splitlines()
                      if not line.startswith(("drive_temp_c", "link_width", "#")))
    older = older.split("[steps.drive_before]")[0]
    assert result_from_toml(older).steps[0].drive_before is None


def history(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("history", *args), capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LABTUI_HOME": str(home), "COLUMNS": "200"})


def test_no_truncated_copy_of_a_result_loads(tmp_path):
    store = Store(tmp_path / "home")
    _saved, path = store.save_result(make_result())
    whole = path.read_bytes()
    assert whole.startswith(HEAD.encode()) and whole.rstrip().endswith(b"# end of labtui result: 2 steps")
    cuts = random.Random(37).sample(range(len(whole)), 400)
    for cut in cuts:
        path.write_bytes(whole[:cut])
        try:
            loaded = store.read_result(path)
        except StoreError as exc:
            # Past its first line, the reason is always that it was cut short (not what of it happens to parse).
            assert cut <= len(HEAD) or "cut short after" in str(exc), (cut, exc)
        else:
            raise AssertionError(f"cut at {cut} of {len(whole)} bytes loaded as {loaded.status}, {len(loaded.steps)} steps")


def test_a_file_missing_a_step_says_so_and_one_from_before_the_lines_still_loads():
    text = result_to_toml(make_result())
    one_step = result_to_toml(replace(make_result(), steps=make_result().steps[:1]))
    body = one_step.removeprefix(HEAD + "\n").rpartition("# end of labtui result")[0]
    try:
        result_from_toml(f"{HEAD}\n{body}# end of labtui result: 2 steps\n")
    except ValueError as exc:
        assert "it holds 1 steps where its last line says 2: part of it is missing" in str(exc)
    else:
        raise AssertionError("a result missing a step loaded")
    older = text.removeprefix(HEAD + "\n").rpartition("# end of labtui result")[0]  # as labtui wrote it before
    assert result_from_toml(older) == make_result()


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "65262.0", "-273.0", "1e300"])
def test_a_drive_temperature_no_drive_can_have_reads_as_unknown(value):
    """A result from another lab or a fleet host is anyone's: `labtui show` said "30 → inf °C (max inf °C,
    warning nan °C)" of one, and a comparison would name that heat as the cause of a difference."""
    result = make_result()
    step = result.steps[0]
    step = replace(step, drive_after=DriveFacts(source="smartctl", temperature_c=31.25, warning_c=82.5, critical_c=84.5),
                   samples=tuple(replace(s, drive_temp_c=31.75) for s in step.samples))
    text = result_to_toml(replace(result, steps=(step, *result.steps[1:])))
    for said in ("31.25", "82.5", "84.5", "31.75"):
        assert said in text
        text = text.replace(said, value)
    facts = result_from_toml(text).steps[0].drive_after
    assert facts is not None and facts.source == "smartctl"
    assert (facts.temperature_c, facts.warning_c, facts.critical_c) == (None, None, None)
    assert [s.drive_temp_c for s in result_from_toml(text).steps[0].samples] == [None] * len(step.samples)
    assert result_from_toml(result_to_toml(result_from_toml(text))) == result_from_toml(text)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_figure_that_is_no_number_reads_as_not_measured(value, labtui_home, capsys):
    """A result from elsewhere with `p99 = nan` ended `labtui show` with "internal error: ValueError: cannot convert
    float NaN to integer" (and `mean = inf` was shown as "inf"): a figure that may be missing and is no number is
    missing; a number that must be there (a drop's time) and is none makes the file broken, with the reason."""
    from labtui import cli

    result = make_result()
    text = result_to_toml(result)
    assert "\nmean = 0.9\n" in text and "\np99 = 2.5\n" in text
    text = text.replace("\nmean = 0.9\n", f"\nmean = {value}\n").replace("\np99 = 2.5\n", f"\np99 = {value}\n")
    latency = result_from_toml(text).steps[0].latency
    assert (latency.mean, latency.p99, latency.p50) == (None, None, 0.7)
    (labtui_home / "results").mkdir()
    (labtui_home / "results" / f"{result.id}.toml").write_text(text)
    assert cli.main(["show", result.id]) == 0
    shown = capsys.readouterr()
    assert "internal error" not in shown.err and " inf" not in shown.out and "nan" not in shown.out
    with pytest.raises(ValueError, match="is no measured number"):
        result_from_toml(text.replace("[steps.read]\nios = ", f"[[steps.drops]]\nt = {value}\nbytes_before = 1\n"
                                      "before_mib_s = 1.0\nafter_mib_s = 0.5\ncause = \"other I/O\"\n\n"
                                      "[steps.read]\nios = ", 1))


@pytest.mark.parametrize("change, says", [
    ({"mismatched": -3}, "mismatched = -3: a count cannot be negative"),
    ({"blocks": -1, "bytes": -4096}, "blocks = -1, bytes = -4096: a count cannot be negative"),
    ({"mismatched": 0}, "mismatched = 0 with 1 blocks kept that did not read back"),
    ({"kind": "fine"}, "a mismatch of a kind labtui does not record"),
])
def test_a_verified_step_whose_counts_no_step_can_have_is_a_broken_file_not_data_ok(change, says):
    from labtui.model.verification import CORRUPTED, BlockMismatch, Verification

    block = BlockMismatch(offset=4096, kind=CORRUPTED, detail="16 bytes differ", expected="e", found="f")
    checks = Verification(checksum="xxh3-64", blocks=256, bytes=256 * 4096, mismatched=1, mismatches=(block,))
    result = make_result()
    result = replace(result, steps=(replace(result.steps[0], verify=checks),))
    assert result_from_toml(result_to_toml(result)).steps[0].verify == checks  # as written: it reads
    # A hand-edited or damaged file with counts changed reads as broken, with the reason, not as "data ok".
    kind = change.pop("kind", CORRUPTED)
    changed = replace(checks, mismatches=(replace(block, kind=kind),), **change)
    damaged = replace(result, steps=(replace(result.steps[0], verify=changed),))
    with pytest.raises(ValueError, match=re.escape(says)):
        result_from_toml(result_to_toml(damaged))
