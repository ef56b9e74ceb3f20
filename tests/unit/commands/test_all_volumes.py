"""Every volume, as the post's script does: `labtui run --all-volumes`, its skip rules, its results
tagged with their volume and compared, and the script's CSV (`export --format configmgr-csv`)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import brief_profile, labtui_cmd
from factories import make_result
from labtui.commands.sweep import run_sweep
from labtui.machine.devices import Disk, Volume, list_disks, list_volumes
from labtui.machine.volume_sweep import plan_sweep, volume_tag
from labtui.model.profile import Profile, Step
from labtui.render.export import CONFIGMGR_COLUMNS, configmgr_rows, render
from labtui.results.store import Store, builtin_profiles, load_profile_file
from labtui.run.request import RunRequest
from volumes import DISKS, MIB, vol


def _tiny() -> Profile:
    return Profile(name="tiny", title="tiny", file_size=16 * MIB, free_space_margin=0, steps=(
        Step(name="Read 64K random", block_size=65536, threads=1, outstanding=2, duration=0.5, warmup=0.0),
        Step(name="Write 64K random", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.5,
             warmup=0.0),
    ))


@pytest.fixture
def disk_dir(disk_dir, request) -> Path:
    """A directory of this test's own on the module's real disk directory."""
    path = disk_dir / request.node.name.replace("[", "-").replace("]", "")
    path.mkdir()
    return path


def _injected(disk_dir: Path) -> tuple[list[Volume], tuple[Disk, ...]]:
    """Two "volumes" whose mount points are real directories on a real disk, and a tmpfs.

    Their labtui folders are made here: the runner makes one only at a real mount point (by this
    machine's mount table, which the test cannot inject), and these are not.
    """
    volumes = []
    for name in ("a", "b"):
        (disk_dir / name / "labtui").mkdir(parents=True)
        volumes.append(vol(str(disk_dir / name), device="/dev/sda1", disk="sda", dev_id=f"fake:{name}"))
    volumes.append(vol("/dev/shm", "tmpfs", device=None, disk=None, pseudo=True))
    return volumes, DISKS


def test_a_sweep_runs_each_volume_in_turn_tags_the_results_and_compares_them(disk_dir, tmp_path, capsys):
    store = Store(tmp_path / "home")
    volumes, disks = _injected(disk_dir)
    code = run_sweep(_tiny(), store, RunRequest(tags=("sweep",), interval=0.25, all_volumes=True, tolerance=2.5),
                     as_json=True, yes=True, volumes=volumes, disks=disks, home=tmp_path / "nowhere")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert [r["volume"] for r in data["results"]] == [str(disk_dir / "a"), str(disk_dir / "b")]
    for r, name in zip(data["results"], "ab"):
        assert r["status"] == "completed" and r["tags"] == ["sweep", f"volume:{disk_dir / name}"]
        assert r["target"]["path"] == str(disk_dir / name / "labtui")
        assert store.find_result(r["id"]).tags == ("sweep", f"volume:{disk_dir / name}")
    assert [s["mount_point"] for s in data["skipped"]] == ["/dev/shm"] and "memory" in data["skipped"][0]["reason"]
    assert "skipping /dev/shm (tmpfs): tmpfs keeps its files in memory" in captured.err
    comparison = data["comparison"]
    assert [r["id"] for r in comparison["results"]] == [r["id"] for r in data["results"]]
    assert [s["name"] for s in comparison["steps"]] == ["Read 64K random", "Write 64K random"]
    assert comparison["tolerance_pct"] == 2.5  # run --all-volumes --tolerance 2.5
    assert not list((disk_dir / "a" / "labtui").iterdir())  # the test file is gone

    # The same without --json: each volume's table, the skipped ones, and the comparison.
    code = run_sweep(_tiny(), store, RunRequest(interval=0.25, all_volumes=True), as_json=False, yes=True, volumes=volumes,
                     disks=disks, home=tmp_path / "nowhere")
    out = capsys.readouterr().out
    assert code == 0
    assert f"{disk_dir / 'a'}: " in out and f"{disk_dir / 'b'}: " in out and "Skipped volumes" in out
    assert "The volumes compared (A is the first)" in out and "B vs A" in out


def test_a_sweep_with_nothing_to_test_is_a_one_line_error(tmp_path, labtui_home):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError, match="no volume can be tested with tiny: each one was skipped"):
        run_sweep(_tiny(), Store(labtui_home), RunRequest(all_volumes=True), as_json=False, yes=True,
                  volumes=[vol("/dev/shm", "tmpfs", device=None, disk=None, pseudo=True)], disks=DISKS)


@pytest.mark.parametrize("args, message", [
    (["-t", "/tmp"], "give a target or --all-volumes, not both"),
    (["--destroy-data", "/dev/sdz"], "never a raw device"),
    (["--hosts", "hosts.toml"], "give --hosts or --all-volumes, not both"),
])
def test_all_volumes_refuses_a_target_or_a_raw_device(labtui_home, args, message):
    out = subprocess.run(labtui_cmd("run", "--all-volumes", "--yes", *args), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_all_volumes_on_this_machine(labtui_home, tmp_path):
    """The real thing: every eligible volume here gets a result, every other one a reason."""
    brief = brief_profile(tmp_path)
    trial = load_profile_file(brief).with_overrides(file_size=16 * MIB)
    planned, _ = plan_sweep(trial, list_volumes(), list_disks(), Path.home())
    out = subprocess.run(labtui_cmd("run", "--all-volumes", "-p", str(brief), "--file-size", "16M", "--json", "--yes"),
                         capture_output=True, text=True, timeout=600)
    if not planned:
        # A container's overlay root and nothing else (as on some CI machines): said in one line.
        assert out.returncode == 2 and "no volume can be tested" in out.stderr
        return
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    tested = {r["volume"] for r in data["results"]}
    skipped = {s["mount_point"]: s["reason"] for s in data["skipped"]}
    still_there = {v.mount_point for v in list_volumes()}
    for target in planned:
        if target.volume.mount_point in still_there:  # another test's scratch mount may come and go
            assert target.volume.mount_point in tested | set(skipped)
    assert tested and all(reason for reason in skipped.values())
    assert all(r["status"] == "completed" and volume_tag_of(r) for r in data["results"])
    for mount, reason in skipped.items():
        assert mount not in tested and "\n" not in reason


def volume_tag_of(result: dict) -> str | None:
    return next((t for t in result["tags"] if t.startswith("volume:")), None)


# --------------------------------------------------------------------------- the script's CSV


def _sql_result(result_id: str, mount: str, minutes: int = 0):
    """A configmgr-sql result: its four steps, with the figures of make_result's two."""
    sql = next(p for p in builtin_profiles() if p.name == "configmgr-sql")
    base = make_result(result_id, minutes=minutes)
    read, write = base.steps
    steps = tuple(replace(read if not s.writes else write, step=s) for s in sql.steps)
    return replace(base, profile=sql, steps=steps, tags=(volume_tag(vol(mount)),),
                   target=replace(base.target, mount_point=mount, path=f"{mount}/labtui"))


def test_configmgr_csv_has_the_scripts_columns_and_parses_back(tmp_path):
    results = [_sql_result("a", "/"), _sql_result("b", "/data", minutes=20)]
    text = render(results, "configmgr-csv")
    assert text.splitlines()[0] == '"ComputerName","Test","Disk","IOPS","Mbps","Latency","CPU"'
    assert text.endswith("\r\n")  # Export-Csv's line ends
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(CONFIGMGR_COLUMNS)
    assert [(r["Disk"], r["Test"]) for r in rows] == [
        (disk, test) for disk in ("/", "/data")
        for test in ("Read Test 01", "Read Test 02", "Write Test 01", "Write Test 02")]
    first = rows[0]
    step = results[0].steps[0]
    assert first["ComputerName"] == "labbox"
    assert float(first["IOPS"]) == pytest.approx(step.total.iops, abs=0.005)
    assert float(first["Mbps"]) == pytest.approx(step.total.mib_s, abs=0.005)  # DiskSpd's MiB/s
    assert float(first["Latency"]) == pytest.approx(step.latency.mean, abs=0.0005)
    assert first["CPU"] == "12.50%"


def test_configmgr_csv_gives_a_repeated_step_its_profiles_figure():
    base = make_result("rep")
    read, write = base.steps
    ios = [30_000, 33_000]
    steps = tuple(replace(read, repetition=i + 1, read=replace(read.read, ios=n, bytes=n * 65536))
                  for i, n in enumerate(ios))
    best = replace(base, profile=replace(base.profile, repeat=2, aggregate="best"), steps=steps)
    mean = replace(best, profile=replace(best.profile, aggregate="mean"))
    assert [r["IOPS"] for r in configmgr_rows([best])] == ["3300.00"]
    assert [r["IOPS"] for r in configmgr_rows([mean])] == ["3150.00"]


def test_export_configmgr_csv_from_the_command_line(labtui_home):
    store = Store(labtui_home)
    store.save_result(_sql_result("20240501-103005-beef", "/mnt/nvme"))
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv"), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 4 and {r["Disk"] for r in rows} == {"/mnt/nvme"}


def test_export_configmgr_csv_says_which_named_results_it_leaves_out(labtui_home):
    store = Store(labtui_home)
    good = _sql_result("20240501-103005-good", "/mnt/nvme")
    # Failed at its first step: nothing the script's CSV can hold.
    failed = replace(good, id="20240501-113005-fail", status="failed",
                     steps=(replace(good.steps[0], status="failed"),))
    # Stopped in its third step: the two before it are in the CSV, the rest is not.
    aborted = replace(good, id="20240501-123005-stop", status="aborted",
                      steps=(*good.steps[:2], replace(good.steps[2], status="aborted")))
    for result in (good, failed, aborted):
        store.save_result(result)
    # Two results of one disk: their rows would mix, so the result id and date go after the script's columns.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", "--with-ids", good.id, failed.id,
                                    aborted.id), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        f"labtui export: {failed.id} (failed) is left out of the ConfigMgr CSV: none of its I/O steps completed",
        f"labtui export: {aborted.id} (aborted): only its 2 completed I/O steps are in the ConfigMgr CSV",
    ]
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 4 + 2 and [r["ResultId"] for r in rows] == [good.id] * 4 + [aborted.id] * 2
    # Every one named left out: nothing to write, bad input.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", failed.id), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        f"labtui export: {failed.id} (failed) is left out of the ConfigMgr CSV: none of its I/O steps completed",
        "labtui: error: none of the named results has a completed I/O step: the ConfigMgr CSV would have no rows",
    ]
    # None named (every result): one line for all it leaves out.
    out = subprocess.run(labtui_cmd("export", "--format", "configmgr-csv", "--with-ids"), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and len(list(csv.DictReader(io.StringIO(out.stdout)))) == 4 + 2
    assert out.stderr.splitlines() == ["labtui export: 1 failed or aborted result is left out of the ConfigMgr CSV; "
                                       "1 failed or aborted result has only its completed I/O steps in the ConfigMgr "
                                       "CSV"]


def test_export_configmgr_csv_where_the_rows_of_several_results_would_mix(labtui_home, tmp_path, capsys):
    # Issue 39, item 20: two runs of one disk wrote "Read Test 01" twice, nothing to tell them apart.
    from labtui.cli import main

    store = Store(labtui_home)
    first, second = _sql_result("20240501-103005-aaaa", "/data"), _sql_result("20240502-103005-bbbb", "/data", 60)
    other = _sql_result("20240503-103005-cccc", "/mnt/nvme", 120)
    for result in (first, second, other):
        store.save_result(result)
    # Said, with both ways out, and nothing written.
    assert main(["export", "--format", "configmgr-csv"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "labtui: error: the rows of 2 results of labbox's /data would mix: the script's columns cannot tell them "
        "apart. Add --with-ids (the result id and date after the script's columns), or --per-result DIR (one file "
        "per result, named by its id)\n")
    # Two results of two disks do not mix: the script's columns exactly.
    assert main(["export", "--format", "configmgr-csv", first.id, other.id]) == 0
    assert capsys.readouterr().out.splitlines()[0] == '"ComputerName","Test","Disk","IOPS","Mbps","Latency","CPU"'
    # --with-ids: the id and the run's start after the script's columns.
    assert main(["export", "--format", "configmgr-csv", "--with-ids"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == [*CONFIGMGR_COLUMNS, "ResultId", "Date"]
    assert [(r["ResultId"], r["Test"]) for r in rows[:5]] == [(first.id, t) for t in (
        "Read Test 01", "Read Test 02", "Write Test 01", "Write Test 02")] + [(second.id, "Read Test 01")]
    assert rows[0]["Date"] == first.started.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    # --per-result: a file per result, named by its id, with the script's columns exactly.
    folder = tmp_path / "per-result"
    folder.mkdir()
    assert main(["export", "--format", "configmgr-csv", "--per-result", str(folder)]) == 0
    assert capsys.readouterr().err == f"labtui export: 3 files written in {folder}, one per result, named by its id\n"
    assert sorted(p.name for p in folder.iterdir()) == [f"{r.id}.csv" for r in (first, second, other)]
    rows = list(csv.DictReader(io.StringIO((folder / f"{second.id}.csv").read_text())))
    assert list(rows[0]) == list(CONFIGMGR_COLUMNS) and len(rows) == 4
    # Never over a file: refused, nothing written.
    assert main(["export", "--format", "configmgr-csv", "--per-result", str(folder)]) == 2
    assert "labtui never replaces a file" in capsys.readouterr().err
    # Only the script's CSV takes them.
    assert main(["export", "--format", "csv", "--with-ids"]) == 2
    assert "--with-ids: goes with --format configmgr-csv" in capsys.readouterr().err
