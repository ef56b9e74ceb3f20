"""Real runs: `labtui check` (a quick-sanity baseline, an immediate check that passes, a check on a
disk throttled to 100 IOPS by a blkio/io cgroup that fails) and `run --repeat` statistics.
Short runs: 1 s steps on small files.

The pass side uses a wide tolerance: on a shared 2-core machine two short runs can differ by a
factor of three in p99 latency, while throttling makes latency ~100 times worse, so neither test
depends on the machine being quiet.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import labtui_cmd

from labtui.engine import devices
from labtui.store import Store

pytestmark = pytest.mark.slow
THROTTLE_IOPS = 100


def labtui(home: Path, *args: str, preexec=None) -> subprocess.CompletedProcess:
    env = os.environ | {"LABTUI_HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env, preexec_fn=preexec,
                          timeout=120)


@pytest.fixture(scope="module")
def baseline(disk_dir, tmp_path_factory):
    """A saved quick-sanity run on a real disk, marked as the baseline of that disk."""
    home = tmp_path_factory.mktemp("check-home")
    out = labtui(home, "run", "-p", "quick-sanity", "-t", str(disk_dir), "--duration", "1s",
                 "--file-size", "64M", "--json", "--yes")
    assert out.returncode == 0, out.stderr
    result_id = json.loads(out.stdout)["id"]
    marked = labtui(home, "baseline", result_id)
    assert marked.returncode == 0, marked.stderr
    return home, result_id


def test_an_immediate_check_against_the_marked_baseline_passes(baseline, disk_dir):
    home, result_id = baseline
    out = labtui(home, "check", "-t", str(disk_dir), "-p", "quick-sanity", "--tolerance", "1000", "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"baseline {result_id}, marked for quick-sanity on" in out.stderr  # says which one it used
    lines = [line for line in out.stdout.splitlines() if line.rstrip().endswith(("PASS", "FAIL", "INFO"))]
    assert len(lines) == 10 and not any(line.rstrip().endswith("FAIL") for line in lines)
    assert "PASS: no metric of 2 steps regressed" in out.stdout
    # The re-run used the baseline's stored profile, quick-trial overrides included.
    store = Store(home)
    rerun = next(r for r in store.load_results()[0] if "check" in r.tags)
    assert rerun.profile.file_size == 64 * 1024**2 and {s.step.duration for s in rerun.steps} == {1.0}
    assert not list(disk_dir.glob("labtui-*.dat"))


@contextlib.contextmanager
def throttled_cgroup(disk: str, iops: int):
    """A cgroup whose processes get at most `iops` reads and writes per second on `disk`."""
    major_minor = Path(f"/sys/block/{disk}/dev").read_text().strip()
    name = f"labtui-test-{os.getpid()}"
    v1 = Path("/sys/fs/cgroup/blkio")
    group: Path | None = None
    try:
        if (v1 / "blkio.throttle.read_iops_device").exists():
            group = v1 / name
            group.mkdir()
            (group / "blkio.throttle.read_iops_device").write_text(f"{major_minor} {iops}")
            (group / "blkio.throttle.write_iops_device").write_text(f"{major_minor} {iops}")
        else:
            root = Path("/sys/fs/cgroup")
            if "io" not in (root / "cgroup.controllers").read_text().split():
                raise OSError("no io controller")
            (root / "cgroup.subtree_control").write_text("+io")
            group = root / name
            group.mkdir()
            (group / "io.max").write_text(f"{major_minor} riops={iops} wiops={iops}")
    except OSError as exc:
        if group is not None:
            with contextlib.suppress(OSError):
                group.rmdir()
        pytest.skip(f"cannot throttle {disk} with a cgroup here ({exc})")
    try:
        yield group
    finally:
        # Processes still in the group (a worker on its way out) go back to the parent group first.
        parent_procs = group.parent / "cgroup.procs"
        for _ in range(50):
            with contextlib.suppress(OSError):
                for pid in (group / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        parent_procs.write_text(pid)
                group.rmdir()
                break
            time.sleep(0.1)


def test_a_check_on_a_throttled_disk_fails_with_the_figures(baseline, disk_dir):
    if os.geteuid() != 0:
        pytest.skip("throttling a disk with a cgroup needs root")
    home, result_id = baseline
    disk = devices.target_info(disk_dir).disk
    if not disk:
        pytest.skip(f"no block device under {disk_dir}")
    with throttled_cgroup(disk, THROTTLE_IOPS) as group:
        def join() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        out = labtui(home, "check", "--baseline", result_id, "-t", str(disk_dir), "--tolerance", "50",
                     "--confirm", "1", "--json", "--yes", preexec=join)
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["passed"] is False and report["summary"].startswith("FAIL")
    assert len(report["runs"]) == 2 and "confirming with 1 more pass" in out.stderr  # it reproduced
    by_metric = {(line["step"], line["metric"]): line for line in report["lines"]}
    for step in ("Read 64K random", "Write 64K random"):
        iops = by_metric[(step, "iops")]
        assert iops["outcome"] == "FAIL" and iops["current"] < THROTTLE_IOPS * 1.5 < iops["baseline"] / 2
        assert iops["verdict"] == "worse"
        assert by_metric[(step, "latency_mean_ms")]["outcome"] == "FAIL"
        assert by_metric[(step, "cpu_percent")]["outcome"] == "INFO"


def test_repeats_keep_every_repetition_and_report_mean_sd_and_interval(disk_dir, tmp_path):
    home = tmp_path / "home"
    profile = tmp_path / "one-step.toml"
    profile.write_text(
        'name = "one-step"\nfile_size = "32MiB"\nfree_space_margin = "0"\nrepeat = 3\n'
        '[[steps]]\nname = "Read 64K random"\nblock_size = "64K"\nthreads = 2\noutstanding = 4\n'
        'duration = "1s"\nwarmup = "0s"\n'
    )
    out = labtui(home, "run", "-p", str(profile), "-t", str(disk_dir), "--json", "--yes")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [s["repetition"] for s in data["steps"]] == [1, 2, 3]
    per_rep = [s["total"]["iops"] for s in data["steps"]]
    [group] = data["statistics"]
    iops = next(m for m in group["metrics"] if m["metric"] == "iops")
    assert iops["n"] == 3 and iops["values"] == per_rep
    assert iops["mean"] == pytest.approx(statistics.fmean(per_rep))
    assert iops["stdev"] == pytest.approx(statistics.stdev(per_rep))
    half = 4.302652729749462 * iops["stdev"] / 3**0.5  # t(0.975, 2 df)
    assert (iops["ci_low"], iops["ci_high"]) == (pytest.approx(iops["mean"] - half), pytest.approx(iops["mean"] + half))
    shown = labtui(home, "show", data["id"])
    assert "Statistics (95% confidence intervals)" in shown.stdout and "3 repetitions" in shown.stdout
