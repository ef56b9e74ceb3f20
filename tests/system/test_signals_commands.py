"""Stop signals in the headless commands that measure more than one run or report after it: `check`
(and its second pass), `baseline --more`, `run --all-volumes`. Real processes, real signals.

A signal that comes once the measuring is over (while the outcome is printed) lets the report out
whole; one that comes between a check's passes (or a sweep's volumes) starts nothing more and ends
the command as stopped, its runs kept, and never with a PASS or FAIL drawn from part of the check.

To send a signal while labtui prints its report, the test hands it a stdout pipe already full: its
first write there blocks, after every run has ended, until the test reads.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import labtui_cmd
from full_pipe import full_pipe, signalled, signalled_at, signalled_while_reporting, wait_blocked_writing
from labtui.results.store import Store
from synthetic import READ, WRITE, run_result

SIGNALS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]


def fast_baseline(home: Path) -> str:
    """A baseline no real run here comes near (9 million IOPS): every re-run's first pass looks worse."""
    # No warm-up: the re-runs are short (--duration), and six warm-ups of 2 s made each check ~16 s.
    # One worker each: four per step made every step start four processes (most of the check's CPU).
    read, write = (replace(step, warmup=0.0, threads=1, outstanding=4) for step in (READ, WRITE))
    base = run_result("20261101-120000-fast", {read: [9.0e6, 9.1e6, 9.2e6], write: [8.0e6, 8.1e6, 8.2e6]})
    Store(home).save_result(base)
    return base.id


def quick_check(disk_dir: Path, home: Path, name: str, *options: str) -> tuple[list[str], Path, str]:
    """`labtui check` of a 1 MiB re-run in a directory of its own against fast_baseline: (command, target, baseline id)."""
    target = disk_dir / name
    target.mkdir()
    base = fast_baseline(home)
    return labtui_cmd("check", "-b", base, "-t", str(target), "--file-size", "1M", "--yes", *options), target, base


def saved(home: Path) -> dict[str, str]:
    """The results saved in the store: id -> status."""
    results, broken = Store(home).load_results()
    assert not broken
    return {r.id: r.status for r in results}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_a_check_prints_its_outcome_lets_it_out_whole(disk_dir, labtui_home, tmp_path, signum):
    check, target, _ = quick_check(disk_dir, labtui_home, f"check-late-{signum.name}", "--duration", "0.3s",
                                   "--confirm", "0", "--json")
    code, out, err = signalled_while_reporting(check, signum, tmp_path / "err")
    assert code == 1, err  # the FAIL it decided, not a death by signal
    report = json.loads(out)
    assert report["outcome"] == "fail" and report["run_status"] == "completed"
    (run,) = report["runs"]
    assert saved(labtui_home)[run] == "completed"
    assert not list(target.iterdir())
    if signum != signal.SIGHUP:  # after a hang-up nothing more goes to the terminal (here a file)
        assert f"{signum.name} came after the check had ended" in " ".join(err.split())


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_between_a_checks_passes_ends_it_aborted_without_a_verdict(disk_dir, labtui_home, signum):
    """The first pass looked worse and the second is about to start: a signal then starts nothing more
    (or stops the second pass at once) and the check is ABORTED, exit 1: the first pass decides nothing."""
    check, target, base = quick_check(disk_dir, labtui_home, f"check-between-{signum.name}", "--duration", "0.3s",
                                      "--confirm", "2", "--json")
    # Said as the first pass ends, before the second.
    code, out, stderr = signalled_at(check, "confirming with 2 fresh runs", signum)
    assert code == 1, stderr
    report = json.loads(out)
    assert report["outcome"] == "aborted" and not report["passed"] and report["stopped_by"] == signum.name
    assert report["summary"].startswith(f"ABORTED: the check was stopped by {signum.name} ")
    assert "lines" not in report  # no line's verdict is the check's
    first, *second = report["runs"]
    statuses = saved(labtui_home)
    assert statuses[first] == "completed"
    assert [statuses[r] for r in second] in ([], ["aborted"])  # stopped before it began, or as it began
    assert set(statuses) == {base, *report["runs"]}
    assert [p["decides"] for p in report["passes"]] == [False]
    assert not list(target.iterdir())


def test_a_signal_in_a_checks_second_pass_keeps_both_and_decides_nothing(disk_dir, labtui_home):
    check, target, _ = quick_check(disk_dir, labtui_home, "check-second", "--duration", "0.5s", "--confirm", "2")
    code, out, _ = signalled_at(check, "step 2/4: ", signal.SIGTERM)  # the second pass (2 runs of 2 steps) measures
    assert code == 1
    outcome = [line for line in out.splitlines() if line.startswith(("PASS:", "FAIL:", "CANNOT TELL:", "ABORTED:"))]
    assert len(outcome) == 1 and outcome[0].startswith(
        "ABORTED: the check was stopped by SIGTERM during its second pass: no verdict"), out
    statuses = saved(labtui_home)
    assert sorted(statuses.values()) == ["aborted", "completed", "completed"]  # the baseline, both passes
    assert "Pass 1 of 2 (complete, but pass 2 was stopped: it decides nothing alone)" in out
    assert not list(target.iterdir())


def test_a_signal_in_a_checks_first_pass_shows_no_judgement_of_it(disk_dir, labtui_home):
    check, _, base = quick_check(disk_dir, labtui_home, "check-first", "--duration", "0.5s")
    code, out, _ = signalled_at(check, "step 2/6: ", signal.SIGINT)
    assert code == 1
    (aborted,) = [rid for rid, status in saved(labtui_home).items() if rid != base]
    assert saved(labtui_home)[aborted] == "aborted"
    assert out.splitlines()[0] == (f"ABORTED: the check was stopped by SIGINT during its first pass: no verdict, a "
                                   f"check cut short decides nothing; its runs are saved: {aborted} (aborted)")
    assert "regressed" not in out and "FAIL" not in out  # the partial pass is not judged at all


def test_a_signal_while_baseline_more_reports_adds_the_runs_and_lets_it_out(disk_dir, labtui_home, tmp_path):
    target = disk_dir / "baseline-more"
    target.mkdir()
    # One short step, no warm-up: the test is of the report after the runs, not of the runs.
    profile = tmp_path / "tiny.toml"
    profile.write_text('name = "tiny"\nfile_size = "1MiB"\nfree_space_margin = "0"\n[[steps]]\n'
                       'name = "Read 64K random"\nblock_size = "64K"\nduration = "300ms"\nwarmup = "0s"\n')
    first = subprocess.run(labtui_cmd("run", "-p", str(profile), "-t", str(target), "--yes", "--json"),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    marked = json.loads(first.stdout)["id"]
    code, out, err = signalled_while_reporting(labtui_cmd("baseline", marked, "--more", "1", "--yes", "--json"),
                                               signal.SIGTERM, tmp_path / "err")
    assert code == 0, err
    baseline = json.loads(out)["baseline"]
    (added,) = baseline["added"]
    assert baseline["result"] == marked and saved(labtui_home)[added] == "completed"
    assert "SIGTERM came after the runs had ended; they were added to the baseline" in " ".join(err.split())


SWEEP = """
import sys
from pathlib import Path
from labtui.commands.sweep import run_sweep
from labtui.machine.devices import Volume
from labtui.run.request import RunRequest
from labtui.model.profile import Profile, Step
from labtui.results.store import Store

# The volumes are the test's (two directories on one real disk): what the machine has is not the test's.
volumes = [Volume(mount_point=d, source="/dev/sda1", filesystem="ext4", device="/dev/sda1", disk="sda",
                  free_bytes=400 * 1024**3, size_bytes=900 * 1024**3, dev_id="fake:" + d) for d in sys.argv[1:]]
step = Step("Read 64K random", block_size=65536, threads=1, outstanding=2, duration=0.5,
            warmup=0.0)
profile = Profile("tiny", file_size=1024**2, free_space_margin=0, steps=(step,))
sys.exit(run_sweep(profile, Store(), RunRequest(interval=0.25, all_volumes=True), as_json=True, yes=True,
                   volumes=volumes, disks=[], home=Path("/nonexistent")))
"""


def _sweep_volumes(disk_dir: Path, name: str) -> list[str]:
    dirs = []
    for n in ("a", "b"):
        (disk_dir / name / n / "labtui").mkdir(parents=True)
        dirs.append(str(disk_dir / name / n))
    return dirs


def test_a_signal_between_a_sweeps_volumes_tests_no_more_and_reports_the_rest(disk_dir, labtui_home):
    a, b = _sweep_volumes(disk_dir, "sweep-between")
    # Said before the second volume is looked at.
    code, out, stderr = signalled_at([sys.executable, "-c", SWEEP, a, b], "labtui: volume 2 of 2", signal.SIGTERM)
    assert code == 1, stderr
    data = json.loads(out)
    assert data["stopped_by"] == "SIGTERM"
    first, *second = data["results"]
    assert first["volume"] == a and first["status"] == "completed"
    assert [r["status"] for r in second] in ([], ["aborted"])  # stopped before it began, or as it began
    if not second:
        assert f"stopped by SIGTERM between volumes: {b} not tested" in " ".join(stderr.split())
    assert not list(Path(a, "labtui").iterdir()) and not list(Path(b, "labtui").iterdir())


def test_a_signal_while_a_sweep_reports_lets_its_results_out_whole(disk_dir, labtui_home, tmp_path):
    a, b = _sweep_volumes(disk_dir, "sweep-late")
    code, out, stderr = signalled_while_reporting([sys.executable, "-c", SWEEP, a, b], signal.SIGINT,
                                                  tmp_path / "err")
    assert code == 0, stderr
    data = json.loads(out)
    assert [r["status"] for r in data["results"]] == ["completed", "completed"] and data["comparison"]
    assert data["stopped_by"] is None
    assert "SIGINT came after the sweep had ended; its results are saved and were printed whole" in " ".join(
        stderr.split())


def test_a_second_signal_while_a_check_reports_ends_it_at_once(disk_dir, labtui_home):
    check, _, _ = quick_check(disk_dir, labtui_home, "check-twice", "--duration", "0.3s", "--confirm", "0")
    read, write, _ = full_pipe()  # never read: only the second signal can end labtui
    proc = subprocess.Popen(check, stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        code = signalled(proc, lambda: wait_blocked_writing(proc), times=2)
    finally:
        os.close(read)
    assert code == -signal.SIGTERM
