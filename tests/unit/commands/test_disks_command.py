"""`labtui disks` (labtui/commands/disks.py): the volumes and their disks, as a table and as JSON."""

import json
import os
import subprocess

from cli_calls import cli, run
from conftest import labtui_cmd


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


def test_disks_json_shows_the_root_volume(labtui_home):
    out = run("disks", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    root = [v for v in data["volumes"] if v["mount_point"] == "/"]
    assert root and root[0]["size_bytes"] > 0 and root[0]["free_bytes"] > 0 and root[0]["filesystem"]
    table = run("disks")
    assert table.returncode == 0 and "Volumes" in table.stdout


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
