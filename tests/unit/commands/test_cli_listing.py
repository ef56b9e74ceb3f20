"""The headless listing commands on real data: disks, profiles, history and show, tables and --json."""

import json
import re
import subprocess
from dataclasses import replace

import pytest

from conftest import labtui_cmd
from factories import broken_files, make_result
from labtui.cli import main
from labtui.render.result_json import result_to_json
from labtui.render.result_tables import NARROW_STATUS
from labtui.results.store import Store


def cli(capsys, *args):
    """Run the CLI in this process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("labtui: error: ") and "Traceback" not in err


# --------------------------------------------------------------------------- disks


def test_disks_json_shows_the_root_volume_and_its_disk(labtui_home, capsys):
    code, out, _ = cli(capsys, "disks", "--json")
    assert code == 0
    data = json.loads(out)
    root = next(v for v in data["volumes"] if v["mount_point"] == "/")
    assert root["size_bytes"] > 0 and 0 < root["free_bytes"] <= root["size_bytes"]
    assert root["filesystem"] and root["source"]
    if root["disk"]:
        disk = next(d for d in data["disks"] if d["name"] == root["disk"])
        assert disk["size_bytes"] > 0 and disk["kind"] and disk["path"] == f"/dev/{root['disk']}"
        assert "pcie_link" in disk
    assert data["host"]["cpu_count"] >= 1 and data["host"]["ram_bytes"] > 0


def test_disks_table_shows_the_root_disk(labtui_home, capsys):
    _, out, _ = cli(capsys, "disks", "--json")
    root = next(v for v in json.loads(out)["volumes"] if v["mount_point"] == "/")
    code, table, err = cli(capsys, "disks")
    assert code == 0 and err == ""
    assert "Disks" in table and "Volumes" in table
    volume_rows = table.split("Volumes", 1)[1].splitlines()
    assert any(line.split()[:2] == ["/", root["filesystem"]] for line in volume_rows if line.strip())
    if root["disk"]:
        assert f"/dev/{root['disk']}" in table.split("Volumes", 1)[0]


# --------------------------------------------------------------------------- profiles


def test_profiles_json_lists_the_builtins_with_their_steps(labtui_home, capsys):
    code, out, _ = cli(capsys, "profiles", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["broken"] == []
    assert [p["name"] for p in data["profiles"]] == [
        "quick-sanity", "configmgr-sql-quick", "configmgr-sql", "cdm-standard", "cdm-nvme", "zpaq-extract", "snia-lite",
        "verify-after-swap"]
    for profile in data["profiles"]:
        assert profile["origin"] == "builtin" and profile["steps"]
        for step in profile["steps"]:
            if step.get("kind") == "command":
                assert {"name", "command", "timeout"} <= set(step)
                continue
            assert profile["planned_seconds"] > 0
            assert {"name", "block_size", "pattern", "write_percent", "threads", "outstanding", "duration",
                    "cache", "latency"} <= set(step)
    zpaq, snia, verify = data["profiles"][-3:]
    assert all(s["verify"] for s in verify["steps"]) and verify["file_size"] == "16GiB"
    assert snia["precondition"] == 2 and all(s["steady_state"] == "snia" for s in snia["steps"])
    assert zpaq["params"] == {"archive": {"description": zpaq["params"]["archive"]["description"], "type": "file"}}


def test_profiles_table_and_one_profile(labtui_home, capsys):
    code, table, _ = cli(capsys, "profiles")
    assert code == 0 and all(name in table for name in ("quick-sanity", "configmgr-sql", "cdm-nvme"))
    code, steps, _ = cli(capsys, "profiles", "configmgr-sql")
    assert code == 0
    assert all(name in steps for name in ("Read 64K random 60s", "Read 64K random 300s", "Write 64K random 300s"))
    assert "64KiB" in steps and "5m" in steps
    # What makes it the post's script beside its steps: -h (write-through) and the 5 s before each 300 s run.
    flat = " ".join(steps.split())
    assert "write-through (every step): writes wait for the media" in flat, steps
    assert "pauses: step 2: 5s before each of its passes; step 4: 5s before each of its passes" in flat, steps
    code, cdm, _ = cli(capsys, "profiles", "cdm-standard")
    flat = " ".join(cdm.split())
    assert ("repetitions: each step 4 times in a row; each step's figure: best of 3 (max throughput, min latency; "
            "1 preparing pass not counted)") in flat, cdm
    assert "pauses: 5s before every pass but the first" in flat and "MB/s (10^6 bytes per second)" in flat, cdm
    assert "repetitions" not in table and "pauses" not in cli(capsys, "profiles", "quick-sanity")[1]
    code, out, _ = cli(capsys, "profiles", "cdm-nvme", "--json")
    assert code == 0 and len(json.loads(out)["steps"]) == 8


def test_user_profiles_and_broken_ones(labtui_home, capsys, tmp_path):
    folder = labtui_home / "profiles"
    folder.mkdir()
    (folder / "mine.toml").write_text('name = "mine"\n[[steps]]\nname = "r"\nblock_size = "4K"\n')
    (folder / "typo.toml").write_text('name = "typo"\n[[steps]]\nname = "r"\nthreds = 4\n')
    code, out, err = cli(capsys, "profiles", "--json")
    assert code == 0
    data = json.loads(out)
    assert ("mine", "user") in [(p["name"], p["origin"]) for p in data["profiles"]]
    assert data["broken"] == [{"path": str(folder / "typo.toml"),
                               "reason": "steps[1]: unknown key 'threds' (did you mean 'threads'?)"}]
    code, table, err = cli(capsys, "profiles")
    assert code == 0 and "mine" in table and f"skipped {folder / 'typo.toml'}" in " ".join(err.split())
    code, _, err = cli(capsys, "profiles", "typo")
    assert code == 2 and one_line_error(err) and "threds" in err
    outside = tmp_path / "trial.toml"
    outside.write_text('name = "trial"\n[[steps]]\nname = "only"\nblock_size = "8K"\n')
    code, out, _ = cli(capsys, "profiles", str(outside), "--json")
    assert code == 0 and json.loads(out)["steps"][0]["block_size"] == "8KiB"


@pytest.mark.parametrize("name", ["no-such-profile", "missing/file.toml", "nothing.toml"])
def test_unknown_profile_is_one_line_and_exit_2(labtui_home, capsys, name):
    code, out, err = cli(capsys, "profiles", name)
    assert code == 2 and out == "" and one_line_error(err)


# --------------------------------------------------------------------------- history and show


@pytest.fixture
def saved(labtui_home):
    store = Store()
    older = store.save_result(make_result("20240501-103005-aaaa"))[0]
    newer = store.save_result(make_result("20240501-113005-bbbb", minutes=60, tags=("hp-adapter",),
                                          status="aborted", error="cancelled by the user"))[0]
    return older, newer


def test_history_empty(labtui_home, capsys):
    code, out, err = cli(capsys, "history")
    assert code == 0 and "no results yet" in out and err == ""
    code, out, _ = cli(capsys, "history", "--json")
    assert json.loads(out) == {"results": [], "broken": []}


def test_history_lists_newest_first_and_filters(saved, capsys):
    older, newer = saved
    code, out, _ = cli(capsys, "history", "--json")
    data = json.loads(out)
    assert [r["id"] for r in data["results"]] == [newer.id, older.id]
    entry = data["results"][1]
    assert entry["disk_model"] == "Samsung SSD 980 PRO 1TB" and entry["profile"] == "quick-sanity"
    assert entry["steps"][0]["iops"] == pytest.approx(30_000 / 10.0)
    assert entry["steps"][0]["mib_s"] == pytest.approx(30_000 * 65536 / 10.0 / 2**20)
    _, out, _ = cli(capsys, "history", "--json", "--tag", "hp-adapter")
    assert [r["id"] for r in json.loads(out)["results"]] == [newer.id]
    _, out, _ = cli(capsys, "history", "--json", "--limit", "1")
    assert [r["id"] for r in json.loads(out)["results"]] == [newer.id]
    _, out, _ = cli(capsys, "history", "--json", "--profile", "cdm-nvme")
    assert json.loads(out)["results"] == []
    code, table, _ = cli(capsys, "history")
    assert code == 0 and older.id in table and newer.id in table and table.index(newer.id) < table.index(older.id)
    assert "aborted" in table and "3,000" in table


@pytest.mark.parametrize("columns", ["80", "120"])
def test_history_marks_the_figures_of_a_step_that_did_not_complete(labtui_home, capsys, monkeypatch, columns):
    # Its figures cover only the part that ran: beside a completed step's they would read as a like measurement.
    monkeypatch.setenv("COLUMNS", columns)
    done = make_result("20240501-103005-aaaa")
    stopped = replace(done, id="20240501-113005-bbbb", status="aborted", error="cancelled by the user",
                      steps=(done.steps[0], replace(done.steps[1], status="aborted")))
    Store().save_result(done)
    Store().save_result(stopped)
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= int(columns)
    lines = table.splitlines()
    figures = [line for line in lines if "187.5" in line]  # one line per step, newest result first
    assert len(figures) == 4, table
    first, second = figures[:2]
    assert stopped.id in first and "aborted" in first  # the result's status, its first step completed
    assert first.count("aborted") == 1 and "step aborted" not in first, table
    assert "aborted" in second, table  # the stopped step, on its own line
    assert not any("aborted" in line for line in figures[2:]), table
    # Each figure beside its step's short label (issue 39, item 15).
    read, write = ("RND64K Q8T4 R", "RND64K Q8T4 W") if columns == "120" else ("RND64K R", "RND64K W")
    assert re.search(rf"{read}\s+3,000", first) and f"{write} aborted" in second, table
    assert [bool(re.search(rf"{label}\s+3,000", line)) for label, line in zip((read, write), figures[2:])] == [True, True]


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


@pytest.mark.parametrize("columns", ["80", "120"])
def test_history_tells_engines_and_tags_apart_at_any_width(labtui_home, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    store = Store()
    runs = {"fio": "20240501-103005-aaaa", "native": "20240501-113005-bbbb", "diskspd": "20240501-123005-cccc"}
    for minutes, (engine, result_id) in enumerate(runs.items()):
        result = make_result(result_id, minutes=minutes * 60, tags=("slot-2",) if engine == "fio" else ())
        store.save_result(replace(result, engine=replace(result.engine, name=engine)))
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= int(columns)
    # Each result's rows: from its id to the next one's (newest first).
    newest_first = sorted(runs.items(), key=lambda item: item[1], reverse=True)
    starts = [table.index(result_id) for _engine, result_id in newest_first] + [len(table)]
    blocks = {engine: table[starts[i]:starts[i + 1]] for i, (engine, _id) in enumerate(newest_first)}
    for engine, block in blocks.items():
        assert engine in block, (engine, block)
    assert "slot-2" in blocks["fio"] and "slot-2" not in blocks["native"] + blocks["diskspd"]
    assert all("3,000" in block and "187.5" in block for block in blocks.values())  # the figures are never cut


def test_history_reports_broken_files_and_keeps_the_good(saved, labtui_home, capsys):
    paths = broken_files(labtui_home / "results")
    code, out, _ = cli(capsys, "history", "--json")
    assert code == 0
    data = json.loads(out)
    assert sorted(r["id"] for r in data["results"]) == sorted(r.id for r in saved)
    assert sorted(b["path"] for b in data["broken"]) == sorted(str(p) for p in paths.values())
    assert all(b["reason"] for b in data["broken"])
    code, table, err = cli(capsys, "history")
    assert code == 0 and all(r.id in table for r in saved)
    # Many of them: one line counting them, and the command that lists each.
    assert " ".join(err.split()) == (f"skipped {len(paths)} files in {labtui_home / 'results'} that are not whole "
                                     "labtui results: labtui history --broken lists each and why")
    code, listed, err = cli(capsys, "history", "--broken")
    assert code == 0 and err == ""
    flat = " ".join(listed.split())  # rich may wrap a long path
    for path in paths.values():
        assert f"{path}: " in flat


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


def test_labtui_home_is_honoured_end_to_end(tmp_path):
    homes = [tmp_path / "a", tmp_path / "b"]
    result, _ = Store(homes[0]).save_result(make_result())

    def run(home, *args):
        env = {"LABTUI_HOME": str(home), "PATH": "/usr/bin:/bin"}
        return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env)

    seen = run(homes[0], "history", "--json")
    assert seen.returncode == 0 and [r["id"] for r in json.loads(seen.stdout)["results"]] == [result.id]
    unseen = run(homes[1], "show", result.id)
    assert unseen.returncode == 2 and unseen.stderr.count("\n") == 1 and str(homes[1]) in unseen.stderr
    shown = run(homes[0], "show", result.id, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == result.id


def test_a_changed_result_shows_its_tags(saved, labtui_home, capsys):
    older, _ = saved
    Store().update_result(replace(older, tags=("baseline", "startech")))
    _, out, _ = cli(capsys, "show", older.id)
    assert "baseline, startech" in out


def test_a_narrow_terminal_never_cuts_ids_profiles_or_statuses(saved, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, table, _ = cli(capsys, "history")
    assert code == 0 and max(len(line) for line in table.splitlines()) <= 80
    for result in saved:
        row = next(line for line in table.splitlines() if result.id in line)
        assert result.profile.name in row and NARROW_STATUS.get(result.status, result.status) in row  # "done"
    _, out, _ = cli(capsys, "history", "--profile", "cdm-nvme")
    assert "none of the 2 results match" in out


@pytest.mark.parametrize("columns", ["80", "120"])
def test_a_long_imported_name_folds_and_never_squeezes_ids_or_figures(saved, capsys, monkeypatch, columns):
    # Imports are named after their file: such a name takes more lines, not the whole table.
    older, _ = saved
    long_name = "fio-3.43-clientserver-2clients-randread4k-psync"
    imported = replace(make_result("20240502-090000-cccc", minutes=90), source="import",
                       profile=replace(older.profile, name=long_name))
    Store().save_result(imported)
    monkeypatch.setenv("COLUMNS", columns)
    code, table, _ = cli(capsys, "history")
    lines = table.splitlines()
    assert code == 0 and max(len(line) for line in lines) <= int(columns)
    assert "…" not in table
    for result in (*saved, imported):
        row = next(line for line in lines if result.id in line)
        status = NARROW_STATUS.get(result.status, result.status) if columns == "80" else result.status
        assert status in row and "3,000" in row and "187.5" in row
    assert all(piece in table for piece in re.findall(r"[^-]+-?", long_name))  # broken after its hyphens


def test_history_shows_a_repeated_step_once_as_its_profile_makes_it_and_json_keeps_every_pass(labtui_home, capsys):
    from synthetic import READ, run_result, step_result

    result = run_result("20240601-090000-ffff", {READ: [1000.0, 3000.0, 2000.0]})
    result = replace(result, profile=replace(result.profile, aggregate="best", discard_first=True),
                     steps=(step_result(READ, 9000.0, repetition=0), *result.steps))
    Store().save_result(result)
    code, table, _ = cli(capsys, "history")
    assert code == 0 and "3,000" in table
    assert "9,000" not in table and "1,000" not in table and "2,000" not in table  # one figure: the best
    _, out, _ = cli(capsys, "history", "--json")
    assert [s["repetition"] for s in json.loads(out)["results"][0]["steps"]] == [0, 1, 2, 3]


@pytest.mark.parametrize("columns", ["80", "120", None])
def test_history_wraps_tags_and_names_between_words_never_inside_one(labtui_home, capsys, monkeypatch, columns):
    # Rich folded a cell wherever its column ended: 'startech-adapte' over 'r' at 120 columns,
    # 'slot-2,after-car' over 'd-swap' at 80. A word is cut only where it is longer than its column,
    # and then after one of its hyphens.
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)  # into a pipe: lines of their natural width
    tags = ("startech-adapter", "slot-2,after-card-swap", "firmware 2.1.0 upgraded in place")
    Store().save_result(make_result("20240501-103005-aaaa", tags=tags))
    Store().save_result(make_result("20240501-113005-bbbb", minutes=60))
    code, table, _ = cli(capsys, "history")
    assert code == 0
    if columns:
        assert max(len(line) for line in table.splitlines()) <= int(columns)
    words = {w for text in (*tags, "Samsung SSD 980 PRO 1TB") for w in re.findall(r"[^\s,-]+-?", text)}
    for word in words:  # each piece up to a hyphen, a comma or a space is whole on a line
        assert re.search(rf"(^|[\s,-]){re.escape(word)}", table, re.M), (word, table)



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
