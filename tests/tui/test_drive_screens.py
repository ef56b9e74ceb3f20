"""The drive outside the screens: `labtui disks --json` (commands/disks.py) and a run refused before writing
on a drive that reports a critical warning (run/preflight.py; --force measures anyway). Their screens'
tests are in test_disk_detail.py and test_drive_gauge.py; these two go to their modules' test modules."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.machine.drive import DriveReader, forget_refusals
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

FIXTURE = FIXTURES / "smartctl-json" / "SAMSUNG_MZVL21T0HCLR-00B00_23.json"


def test_labtui_disks_json_gives_each_disk_its_health_and_why_smartctl_said_nothing(labtui_home):
    out = subprocess.run(labtui_cmd("disks", "--json"), capture_output=True, text=True, timeout=60,
                         env=os.environ | {"LABTUI_HOME": str(labtui_home)})
    assert out.returncode == 0, out.stderr
    disks = json.loads(out.stdout)["disks"]
    assert disks and all("health" in d for d in disks)
    # Here: a virtio disk Debian's smartctl cannot identify, and no hwmon or AER in the VM's sysfs.
    for d in disks:
        health = d["health"]
        assert health["facts"] is not None or health["smartctl_problem"]


def smartctl_with_warning(folder: Path) -> str:
    data = json.loads(FIXTURE.read_text())
    data["nvme_smart_health_information_log"]["critical_warning"] = 1
    data["smart_status"] = {"passed": False, "nvme": {"value": 1, "spare_below_threshold": True}}
    (folder / "answer.json").write_text(json.dumps(data))
    script = folder / "smartctl"
    script.write_text(f'#!/bin/sh\ncat "{folder / "answer.json"}"\n')
    script.chmod(0o755)
    return str(script)


def test_a_critical_warning_refuses_the_run_before_writing_and_force_measures_anyway(tmp_path):
    program = smartctl_with_warning(tmp_path)
    forget_refusals()
    target = tmp_path / "target"
    target.mkdir()
    profile = Profile(name="p", file_size=1024 * 1024, free_space_margin=0,
                      steps=(Step(name="r", block_size=65536, duration=0.2, warmup=0.0),))

    def options(force: bool) -> RunOptions:
        return RunOptions(force=force, drive=lambda disk: DriveReader(disk, smartctl_path=program))

    if not devices.target_info(target).disk:
        pytest.skip("no disk under the temporary directory")
    runner = Runner(profile, target, Store(tmp_path / "home"), options(False))
    with pytest.raises(LabtuiError, match="reports a critical warning: available spare below its threshold "
                                          r"\(smartctl.*nothing was written.*--force measures it anyway"):
        runner.preflight()
    assert list(target.iterdir()) == []
    forced = Runner(profile, target, Store(tmp_path / "home"), options(True))
    forced.preflight()
    forced.close()
    assert any("measured anyway (--force)" in w for w in forced._warnings)
    forget_refusals()
