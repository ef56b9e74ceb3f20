"""`labtui baseline` (labtui/commands/baseline.py): its options read once into a BaselineRequest, each refusal in
one line before anything is read; --more runs the result's profile through a run request."""

from __future__ import annotations

import pytest


def _baseline_request(*options: str):
    from labtui.cli import build_parser
    from labtui.commands import baseline

    return baseline.parse(build_parser().parse_args(["baseline", *options]))


def test_labtui_baseline_reads_each_option_into_its_request():
    from labtui.run.request import BaselineRequest

    assert _baseline_request() == BaselineRequest()
    assert _baseline_request("--json", "--yes") == BaselineRequest()  # how it answers, not what it asks
    asked = _baseline_request("20240501-1", "2024050", "--add", "--more", "2", "-t", "/mnt/x")
    assert asked == BaselineRequest(ids=("20240501-1", "2024050"), add=True, more=2, target="/mnt/x")
    assert _baseline_request("20240501-1", "--clear") == BaselineRequest(ids=("20240501-1",), clear=True)
    # -t alone is where the runs a terminal is offered would run
    assert _baseline_request("20240501-1", "-t", ".").target == "."


def test_baseline_more_runs_the_results_profile_with_its_engine_and_parameters_through_a_run_request():
    from dataclasses import replace

    from factories import make_result
    from labtui.model.result import EngineInfo
    from labtui.results.store import builtin_profiles
    from labtui.run.request import BaselineRequest, Overrides, RunRequest

    result = replace(make_result(), engine=EngineInfo("fio", "3.33"), params={"n": "2"})
    asked = BaselineRequest(ids=(result.id,), more=2)
    assert asked.more_run(result) == RunRequest(target=result.target.path, engine="fio", overrides=Overrides(repeat=2),
                                                tags=("baseline",), params=(("n", "2"),))
    elsewhere = replace(asked, target="/mnt/x").more_run(result, 3)  # the runs a terminal is offered: its own count
    assert (elsewhere.target, elsewhere.overrides.repeat) == ("/mnt/x", 3)
    options = elsewhere.options()
    assert (options.engine, options.tags, options.params) == ("fio", ("baseline",), {"n": "2"})
    # A profile of command steps only ran no I/O engine (its result says "command"): the default one runs it.
    commands = replace(result, engine=EngineInfo("command", ""),
                       profile=next(p for p in builtin_profiles() if not p.needs_test_file))
    assert asked.more_run(commands).engine is None and asked.more_run(commands).options().engine == "native"


@pytest.mark.parametrize(("options", "says"), [
    (("--more", "2"), "--clear, --add and --more need the id of a result"),
    (("--add",), "--clear, --add and --more need the id of a result"),
    (("--clear",), "--clear, --add and --more need the id of a result"),
    (("--more", "0"), "--clear, --add and --more need the id of a result"),  # it listed the baselines
    (("",), "an ID is empty: give a result's id or a unique beginning of it"),  # "" began every id
    (("a", " "), "an ID is empty"),
    (("a", "b", "--clear"), "--clear takes one id"),
    (("a", "--clear", "--add"), "--clear: takes a result out of its baseline: not with --add or --more"),
    (("a", "--clear", "--more", "1"), "--clear: takes a result out of its baseline: not with --add or --more"),
    (("a", "--more", "0"), "--more: must be at least 1"),
    (("a", "--more", "101"), "--more: must be from 1 to 100, got 101"),
    (("a", "--more", "1", "-t", ""), "--target: is empty: give a directory (. is the current one) or leave the "
                                     "option out"),
    (("a", "-t", " "), "--target: is empty"),
])
def test_labtui_baseline_refuses_a_wrong_option_in_one_line_before_anything_is_read(options, says):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError) as refused:
        _baseline_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)


def test_echo_n_into_baseline_more_runs_nothing_and_exits_4(labtui_home, tmp_path, monkeypatch, capsys):
    import io

    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, WRITE, run_result

    # Off a terminal --more's runs went ahead without asking: the "n" piped in is the answer now.
    target = tmp_path / "target"
    target.mkdir()
    result = Store(labtui_home).save_result(run_result("20261101-120000-once", {READ: [50_000], WRITE: [40_000]}))[0]
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    assert main(["baseline", result.id, "--more", "1", "-t", str(target)]) == 4
    out, err = capsys.readouterr()
    assert "Go ahead? [y/N] n (read from stdin)" in err and "Go ahead" not in out
    assert err.rstrip().endswith("labtui: not run: nothing was marked or added to the baseline")
    assert list(target.iterdir()) == [] and [r.id for r in Store(labtui_home).summaries()[0]] == [result.id]
    # Nor marked: the "no" marked the result as its disk's baseline all the same (replacing the one it had).
    from labtui.results import baselines

    assert baselines.ids(Store(labtui_home)) == set()


def test_off_a_terminal_baseline_gives_the_command_line_that_adds_the_runs_where_it_was_told(
        labtui_home, tmp_path, monkeypatch, capsys):
    # A terminal is offered the missing runs (on -t's directory); off one the line to copy named no -t (it ran
    # them on the result's own target), and --json, a script's way, said nothing of them.
    import io
    import json

    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, WRITE, run_result

    result = Store(labtui_home).save_result(run_result("20261101-120000-once", {READ: [50_000], WRITE: [40_000]}))[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: nothing is offered, nothing read
    target = tmp_path / "lab disk"
    assert main(["baseline", result.id, "-t", str(target)]) == 0
    out, err = capsys.readouterr()
    said = " ".join(out.split())
    assert f"`labtui baseline {result.id} --more 2 -t '{target}'` runs each step 2 more times now" in said, out
    assert "[y/N]" not in out + err and not target.exists()
    assert main(["baseline", result.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hint"] == f"labtui baseline {result.id} --more 2"
    three = Store(labtui_home).save_result(run_result("20261101-130000-many", {READ: [5.0] * 3, WRITE: [4.0] * 3}))[0]
    assert main(["baseline", three.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hint"] is None  # enough runs: nothing to add


def test_baseline_more_refused_for_room_says_how_to_make_room(labtui_home, tmp_path, capsys):
    # "not enough free space in DIR: ..." stopped there, where `labtui run` says how to make room. The stored
    # profile (its file size too) is the baseline's: room is made on the disk or another target is given.
    from dataclasses import replace

    from labtui.cli import main
    from labtui.results.store import Store
    from synthetic import READ, WRITE, run_result

    target = tmp_path / "target"
    target.mkdir()
    once = run_result("20261101-120000-once", {READ: [50_000], WRITE: [40_000]})
    huge = replace(once, profile=replace(once.profile, file_size=900 * 1024**4))
    result = Store(labtui_home).save_result(huge)[0]
    assert main(["baseline", result.id, "--more", "1", "-t", str(target), "--yes"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"labtui: error: not enough free space in {target}: quick-sanity needs ") and err.count(
        "\n") == 1, err
    assert err.rstrip().endswith("is free. Make room there or give another target (-t DIR)."), err
    assert list(target.iterdir()) == []
    from labtui.results import baselines

    assert baselines.ids(Store(labtui_home)) == set()  # bad input changes nothing: nothing marked either
