"""Real runs of `labtui check` on a loop device: a 3-run baseline, an unchanged re-check that passes, a
check on the device throttled to 30 IOPS by a blkio (or io) cgroup that fails and is confirmed,
and `run --repeat` statistics. Short runs: 1 s steps on small files.

The loop device's image lives in RAM (/dev/shm) where there is one, and a cgroup limits it to
1,800 IOPS for the baseline and the unchanged re-check, so its figures hold steady however busy
the machine is (the tolerance is 20 %); the regression is the same device limited to 30 IOPS.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import subprocess
import time
from pathlib import Path

import pytest

from conftest import labtui_cmd
from labtui.machine import devices
from labtui.results.store import Store
from loopdev import mounted_ext4

pytestmark = pytest.mark.slow
# The RAM-backed loop device is so fast that the engine's CPU limits it, and a busy machine makes
# its figures vary many times over; limited to STEADY_IOPS by a cgroup it is a steady disk whatever
# else runs. THROTTLE_IOPS is the regression: 60 times slower.
STEADY_IOPS = 1800
THROTTLE_IOPS = 30
PROFILE = """name = "check-real"
file_size = "32MiB"
free_space_margin = "0"
repeat = 3
[[steps]]
name = "Read 64K random"
block_size = "64K"
threads = 2
outstanding = 4
duration = "1s"
warmup = "500ms"
[[steps]]
name = "Write 64K random"
block_size = "64K"
write_percent = 100
threads = 2
outstanding = 4
duration = "1s"
warmup = "500ms"
"""


@pytest.fixture(scope="module")
def loop_dir(tmp_path_factory):
    """A mounted ext4 file system on a fresh loop device (RAM-backed where /dev/shm exists)."""
    mount = tmp_path_factory.mktemp("check-mnt")
    with mounted_ext4("check", 256, mount):
        yield mount


def labtui(home: Path, *args: str, preexec=None) -> subprocess.CompletedProcess:
    env = os.environ | {"LABTUI_HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env, preexec_fn=preexec,
                          timeout=120)


@pytest.fixture(scope="module")
def steady(loop_dir):
    """Join a cgroup that limits the loop device to STEADY_IOPS (for a subprocess's preexec_fn)."""
    disk = devices.target_info(loop_dir).disk
    if not disk:
        pytest.skip(f"no block device under {loop_dir}")
    with throttled_cgroup(disk, STEADY_IOPS) as group:
        yield lambda: (group / "cgroup.procs").write_text(str(os.getpid()))


@pytest.fixture(scope="module")
def baseline(loop_dir, steady, tmp_path_factory):
    """A saved 3-run result on the loop device, marked as the baseline of that disk."""
    home = tmp_path_factory.mktemp("check-home")
    profile = home / "check-real.toml"
    profile.write_text(PROFILE)
    out = labtui(home, "run", "-p", str(profile), "-t", str(loop_dir), "--json", "--yes", preexec=steady)
    assert out.returncode == 0, out.stderr
    result_id = json.loads(out.stdout)["id"]
    marked = labtui(home, "baseline", result_id)
    assert marked.returncode == 0, marked.stderr
    assert "3 runs per step" in marked.stdout and "--more" not in marked.stdout  # enough runs: no advice
    return home, result_id


def test_an_unchanged_recheck_against_the_marked_baseline_passes(baseline, loop_dir, steady):
    home, result_id = baseline
    out = labtui(home, "check", "-t", str(loop_dir), "-p", "check-real", "--tolerance", "20", "--file-size", "16M",
                 "--yes", preexec=steady)
    assert f"baseline {result_id}, marked for check-real on" in out.stderr  # says which one it used
    assert "3 runs per step; tolerance ±20 %" in out.stderr
    assert "the plan: run each of check-real's " in out.stderr and " steps 3 times (one result) on " in out.stderr
    assert "a quick check: a 16M test file instead of the baseline's" in out.stderr
    # An unchanged disk never FAILs. It PASSes; only when the machine starves the engine (the whole
    # suite at once on 2 CPUs: a 1 s step now and then runs at a tenth of the rate) can the check
    # honestly say it cannot tell, with the noise it measured.
    assert out.returncode in (0, 3), out.stdout + out.stderr
    if out.returncode == 3:
        assert "CANNOT TELL: too noisy" in out.stdout and "from run to run" in out.stdout
        return
    # On a busy machine the first pass may look worse and be confirmed, or be too noisy and be
    # extended: either way the last table, titled "...: this decides", decides.
    last = out.stdout.split("this decides")[-1]
    lines = [line for line in last.splitlines() if ("↑" in line or "↓" in line) and
             (" PASS " in line or " FAIL " in line or " INFO " in line)]
    assert len(lines) == 10 and not any(" FAIL " in line for line in lines)  # the machine's CPU has no arrow
    assert sum(" PASS " in line for line in lines) == 2  # IOPS decides each step; the rest is shown
    assert out.stdout.startswith("Passed: no step is slower than the baseline beyond the ±20 % tolerance")
    assert "PASS: no line regressed beyond the ±20 % tolerance; 3 vs " in out.stdout  # the verdict line closes it
    assert "Holm" not in out.stdout  # the method is for --explain
    store = Store(home)
    rerun = next(r for r in store.load_results()[0] if "check" in r.tags)
    assert rerun.profile.file_size == 16 * 1024**2 and {s.repetition for s in rerun.steps} == {1, 2, 3}
    assert not list(loop_dir.glob("labtui-[0-9]*"))


@contextlib.contextmanager
def throttled_cgroup(disk: str, iops: int):
    """A cgroup whose processes get at most `iops` reads and writes per second on `disk`."""
    major_minor = Path(f"/sys/block/{disk}/dev").read_text().strip()
    name = f"labtui-test-{os.getpid()}-{iops}"
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


def test_a_check_on_a_throttled_disk_fails_and_the_confirmation_decides(baseline, loop_dir):
    home, result_id = baseline
    disk = devices.target_info(loop_dir).disk
    if not disk:
        pytest.skip(f"no block device under {loop_dir}")
    with throttled_cgroup(disk, THROTTLE_IOPS) as group:
        def join() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        # A quick check (500 ms steps, a 16M file: at 30 IOPS the 1 s steps and the 32M file's
        # preparation were most of this test's time); 15 I/Os a step still measure 30 IOPS.
        out = labtui(home, "check", "--baseline", result_id, "-t", str(loop_dir), "--tolerance", "50",
                     "--repeat", "3", "--confirm", "3", "--duration", "500ms", "--file-size", "16M", "--json",
                     "--yes", preexec=join)
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    shown = json.dumps([{k: l[k] for k in ("step", "metric", "baseline", "current", "outcome", "reason")}
                        for l in report["lines"] if l["gating"]], indent=1)
    assert report["passed"] is False and report["outcome"] == "fail" and report["summary"].startswith("FAIL"), shown
    assert len(report["runs"]) == 2 and "confirming with 3 fresh runs, judged on their own" in out.stderr
    assert report["result"] == report["runs"][1] and report["runs"] == [p["result"] for p in report["passes"]]
    assert report["passes"][0]["outcome"] == "fail"  # the first pass asked for it; the second decided
    by_metric = {(line["step"], line["metric"]): line for line in report["lines"]}
    for step in ("Read 64K random", "Write 64K random"):
        iops = by_metric[(step, "iops")]
        assert iops["outcome"] == "FAIL" and iops["current"] < THROTTLE_IOPS * 1.5 < iops["baseline"] / 2, shown
        assert iops["verdict"] == "worse" and iops["p_adjusted"] < 0.005
        assert "3 vs 3 runs, t-test" in iops["reason"]
        assert by_metric[(step, "latency_mean_ms")]["outcome"] == "INFO"  # worse, but only --fail-on counts it
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
    logs = [math.log(v) for v in per_rep]  # a rate's interval is of its log figures, mapped back
    half = 4.302652729749462 * statistics.stdev(logs) / 3**0.5  # t(0.975, 2 df)
    assert (iops["ci_low"], iops["ci_high"]) == (pytest.approx(math.exp(statistics.fmean(logs) - half)),
                                                 pytest.approx(math.exp(statistics.fmean(logs) + half)))
    shown = labtui(home, "show", data["id"])
    assert "Statistics (95% confidence intervals)" in shown.stdout and "steadiness" in shown.stdout
    assert iops["noise_pct"] == pytest.approx(100 * math.sqrt(math.expm1(statistics.variance(math.log(v) for v in per_rep))))
