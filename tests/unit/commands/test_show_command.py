"""`labtui show` (labtui/commands/show.py): one result's answer, table and method; ids refused in one line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import cli_calls
from cli_calls import cli, run
from factories import broken_files, make_result
from labtui.render.result_json import result_to_json
from labtui.results.store import Store
from tui_support import save_history


def test_show_with_an_id_no_file_can_have_is_a_clear_error(labtui_home):
    save_history(labtui_home, broken=False)
    message = cli_calls.one_line_error(cli_calls.run("show", "a" * 5000))
    assert "no result with id 'aaaaaaaaaaaaaaaaaaaaaaaa'… (5000 characters; an id is at most 250" in message
    assert len(message) < 200


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("labtui: error: ") and "Traceback" not in err


def test_show_of_a_run_stopped_in_its_first_step_has_no_empty_statistics_table(labtui_home, capsys):
    done = make_result("20240501-103005-aaaa")
    stopped = replace(done, id="20240501-113005-bbbb", status="aborted", error="stopped by SIGINT",
                      steps=(replace(done.steps[0], status="aborted"),))
    Store().save_result(stopped)
    Store().save_result(done)
    code, out, _ = cli(capsys, "show", stopped.id)
    assert code == 0 and "statistics: none, no step finished" in out
    assert "confidence intervals" not in out and "steadiness" not in out
    code, out, _ = cli(capsys, "show", done.id)
    assert code == 0 and "confidence intervals" in out and "statistics: none" not in out


def test_show_in_full_and_as_json(saved, capsys):
    older, newer = saved
    code, out, err = cli(capsys, "show", "20240501-1030")  # a unique prefix
    assert code == 0 and err == ""
    for text in (older.id, "Samsung SSD 980 PRO 1TB", "8.0 GT/s PCIe x4 (max 16.0 GT/s PCIe x4)", "ext4",
                 "Read 64K random", "3,000", "187.5", "Latency (ms)", "completed"):
        assert text in out, text
    code, out, _ = cli(capsys, "show", newer.id, "--json")
    data = json.loads(out)
    statistics = data.pop("statistics")  # the result's JSON form plus each figure's spread
    limits = data.pop("bottleneck")  # ... and where each step's limit was
    assert limits["link"]["name"] == "PCIe 3.0 x4" and [s["name"] for s in limits["steps"]] == ["Read 64K random",
                                                                                            "Write 64K random"]
    assert data == json.loads(json.dumps(result_to_json(newer)))
    assert [m["metric"] for m in statistics[0]["metrics"]][:2] == ["iops", "mib_s"]
    assert data["status"] == "aborted" and data["error"] == "cancelled by the user"
    step = data["steps"][1]
    assert step["write"]["ios"] == 30_001 and step["read"]["ios"] == 0 and step["total"]["ios"] == 30_001
    assert step["total"]["iops"] == pytest.approx(3000.1) and step["latency_ms"]["p99"] == 2.5
    assert set(step["latency_ms"]) >= {"mean", "p50", "p90", "p99", "p999", "max"}


def test_show_of_a_broken_or_unknown_result_is_exit_2_with_one_line(saved, labtui_home, capsys):
    paths = broken_files(labtui_home / "results")
    for name, path in paths.items():
        code, out, err = cli(capsys, "show", name)
        assert code == 2 and out == "" and one_line_error(err) and str(path) in err, (name, err)
    for key in ("no-such-id", "20240501", "../results/x"):
        code, out, err = cli(capsys, "show", key)
        assert code == 2 and out == "" and one_line_error(err), (key, err)


def test_a_changed_result_shows_its_tags(saved, labtui_home, capsys):
    older, _ = saved
    Store().update_result(replace(older, tags=("baseline", "startech")))
    _, out, _ = cli(capsys, "show", older.id)
    assert "baseline, startech" in out


def test_show_names_each_repetition_in_the_latency_table_and_a_shared_command_line_once(labtui_home, capsys,
                                                                                      monkeypatch):
    """A repeated step's passes each have a latency row: "Read 64K random #2 read", not three rows alike."""
    monkeypatch.setenv("COLUMNS", "160")
    base = make_result()
    passes = tuple(replace(s, repetition=rep, latency=replace(s.latency, max=10.0 + rep),
                           read_latency=replace(s.read_latency, max=10.0 + rep) if s.read.ios else s.read_latency,
                           write_latency=replace(s.write_latency, max=10.0 + rep) if s.write.ios else s.write_latency)
                   for rep in (1, 2, 3) for s in base.steps)
    result = replace(base, profile=replace(base.profile, repeat=3), steps=passes)
    Store().save_result(result)
    code, out, _ = cli(capsys, "show", result.id)
    assert code == 0
    latency = out[out.index("Latency (ms)"):]
    for rep in (1, 2, 3):
        row = next(line for line in latency.splitlines() if f"Read 64K random #{rep} read" in line)
        assert f"{10.0 + rep:.2f}" in row, row
        assert any(f"Write 64K random #{rep} write" in line for line in latency.splitlines()), latency
    commands = [line for line in out.splitlines() if line.startswith("Read 64K random") and "native:" in line]
    assert len(commands) == 1, commands  # the same command line for every pass: said once


def test_show_of_an_import_whose_report_gives_no_file_size_says_unknown_not_0(labtui_home, capsys, monkeypatch):
    """fio on a whole device (or a report without size=) stores no test file size: that is not a 0-byte file."""
    from conftest import FIXTURES

    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = cli(capsys, "import", "--json", str(FIXTURES / "fio-json" / "fio-3.6-randread4k-qd8-nj16-libaio-krbd.json"))
    assert code == 0
    rid = json.loads(out)["results"][0]["id"]
    code, out, _ = cli(capsys, "show", rid)
    line = next(line for line in out.splitlines() if line.startswith("test file"))
    assert line.split(None, 2)[2].strip() == "unknown: the report does not say its size", line
    other = make_result()
    Store().save_result(other)
    code, out, _ = cli(capsys, "compare", other.id, rid, "--json")
    row = next(r for r in json.loads(out)["context"] if r["label"] == "test file")
    assert row["values"] == ["1GiB", "unknown"], row


def test_show_of_a_run_on_a_raw_device_says_it_had_no_test_file(labtui_home, capsys, monkeypatch):
    """The run says "on the device itself, no test file"; show said "test file 1GiB" (the profile's size)."""
    monkeypatch.setenv("COLUMNS", "160")
    base = make_result()
    small = 256 * 1024**2  # smaller than the profile's 1 GiB file: the run used the whole device
    for size, used in ((None, "1GiB"), (small, "256MiB")):
        result = replace(base, id=f"20240501-10300{5 if size else 6}-raw{1 if size else 2}",
                         target=replace(base.target, path="/dev/nvme0n1", device="/dev/nvme0n1", filesystem=None,
                                        mount_point=None, size_bytes=size))
        Store().save_result(result)
        code, out, _ = cli(capsys, "show", result.id)
        line = next(line for line in out.splitlines() if line.startswith("test file"))
        assert line.split(None, 2)[2].strip() == f"none: the device itself, its first {used}", line


def test_show_unknown_id_is_bad_input(labtui_home):
    out = run("show", "no-such-id")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "no-such-id" in out.stderr


def test_show_without_an_id_names_it_as_its_help_and_the_other_commands_do(capsys):
    # "the following arguments are required: id", where compare, export and baseline say ID.
    from labtui.cli import main

    with pytest.raises(SystemExit) as ended:
        main(["show"])
    err = capsys.readouterr().err
    assert ended.value.code == 2 and "the following arguments are required: ID (see labtui show --help)" in err, err
