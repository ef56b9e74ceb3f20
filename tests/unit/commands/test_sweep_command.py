"""Every volume, as the post's script does: `labtui run --all-volumes`, its skip rules, its results
tagged with their volume and compared, and the script's CSV (`export --format configmgr-csv`)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from conftest import brief_profile, labtui_cmd
from labtui.commands.sweep import run_sweep
from labtui.errors import ExitCode
from labtui.machine.devices import Disk, Volume, list_disks, list_volumes
from labtui.machine.volume_sweep import plan_sweep
from labtui.model.profile import Profile, Step
from labtui.results.store import Store, load_profile_file
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


def test_a_sweep_with_nothing_to_test_is_a_one_line_error(tmp_path, labtui_home, capsys):
    from labtui.errors import LabtuiError

    with pytest.raises(LabtuiError, match="no volume can be tested with tiny: each one was skipped"):
        run_sweep(_tiny(), Store(labtui_home), RunRequest(all_volumes=True), as_json=False, yes=True,
                  volumes=[vol("/dev/shm", "tmpfs", device=None, disk=None, pseudo=True),
                           vol("/small", device="/dev/sda2", disk="sda", free=10 * MIB + 5)], disks=DISKS)
    # A volume skipped for want of room says how to make room, as `labtui run` does (no -t: the sweep chooses).
    skipped = capsys.readouterr().err.splitlines()
    assert skipped[1] == ("labtui: skipping /small (ext4): not enough free space: tiny needs 16.0 MiB (test file 16.0 MiB "
                          "+ margin 0 B), only 10.0 MiB is free. Make room: a smaller test file (--file-size, at most "
                          "10MiB) or, for the profile, a smaller file_size or free_space_margin in its file."), skipped


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


def test_echo_n_into_a_sweep_writes_on_no_volume(tmp_path, monkeypatch, capsys):
    # Off a terminal the sweep asked nothing and wrote a test file on every volume.
    volumes = []
    for name in ("a", "b"):
        (tmp_path / name / "labtui").mkdir(parents=True)
        volumes.append(vol(str(tmp_path / name), device="/dev/sda1", disk="sda", dev_id=f"fake:{name}"))
    tiny = Profile(name="tiny", title="tiny", file_size=16 * MIB, free_space_margin=0, steps=(
        Step(name="Write 64K random", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.5,
             warmup=0.0),))
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code = run_sweep(tiny, Store(tmp_path / "home"), RunRequest(all_volumes=True), as_json=True, yes=False,
                     volumes=volumes, disks=DISKS, home=tmp_path / "nowhere")
    out, err = capsys.readouterr()
    assert code == ExitCode.DECLINED and out == ""
    assert "on 2 volumes, writing a 16MiB test file on each" in err and "Go ahead? [y/N] n (read from stdin)" in err
    assert not list((tmp_path / "a" / "labtui").iterdir()) and not list((tmp_path / "b" / "labtui").iterdir())
    assert not (tmp_path / "home" / "results").exists()
