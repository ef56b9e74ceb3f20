"""Two labtui processes saving results at once lose nothing.

Two runs measuring one disk at once are refused (test_target_lock.py): these two measure as if on
two disks, each with a lock directory of its own, to save at the same moment."""

from __future__ import annotations

import json
import os
import subprocess

from conftest import brief_profile, labtui_cmd


def test_two_runs_saving_concurrently_both_land(disk_dir, labtui_home, tmp_path):
    procs = []
    profile = brief_profile(tmp_path, duration="1s")
    for n in (1, 2):
        target = disk_dir / f"conc{n}"
        target.mkdir()
        procs.append(subprocess.Popen(
            labtui_cmd("run", "-p", str(profile), "-t", str(target), "--file-size", "32M", "--yes", "--json",
                       "--tag", f"proc{n}"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=os.environ | {"LABTUI_LOCK_DIR": str(tmp_path / f"locks{n}")},
        ))
    ids = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        ids.append(json.loads(out)["id"])
    assert len(set(ids)) == 2
    listed = json.loads(subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True,
                                       check=True).stdout)
    assert sorted(r["id"] for r in listed["results"]) == sorted(ids)
    assert sorted(t for r in listed["results"] for t in r["tags"]) == ["proc1", "proc2"]
    assert listed["broken"] == []
