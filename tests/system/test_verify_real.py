"""Verified writes and reads on a real loop device: blocks changed in the device's backing file between
the verified write step and the verified read step are reported exactly, by offset and kind, and
nothing else; the same run without the change reports none.

The loop device's image lives in RAM (/dev/shm); between the steps a command step finds the test
file's extents with `filefrag -v` and changes, in the image itself, block 3 (16 bytes flipped),
block 7 (torn: its second half replaced), blocks 10 and 20 (swapped) and block 30 (zeroed: a lost
write). One run of each kind, 1 s
steps on a 4 MiB file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import labtui_cmd
from loopdev import mounted_ext4

pytestmark = pytest.mark.slow

BLOCK = 4096
CORRUPT = '''import glob, os, re, subprocess, sys
image, mode = sys.argv[1], sys.argv[2]
if mode == "none":
    sys.exit(0)
(path,) = glob.glob("labtui-*/labtui-*.dat")  # in the run's own directory (labtui.engine.rundir)
out = subprocess.run(["filefrag", "-v", path], capture_output=True, text=True, check=True).stdout
size = int(re.search(r"blocks of (\\d+) bytes", out).group(1))
extents = [tuple(map(int, m.groups())) for m in
           re.finditer(r"^\\s*\\d+:\\s+(\\d+)\\.\\.\\s*(\\d+):\\s+(\\d+)\\.\\.\\s*(\\d+):", out, re.M)]

def where(block):  # the file's 4 KiB block -> its byte offset in the image
    first = block * 4096 // size
    for l0, l1, p0, _p1 in extents:
        if l0 <= first <= l1:
            return (p0 + first - l0) * size
    raise SystemExit(f"block {block} is in no extent: {out}")

fd = os.open(image, os.O_RDWR)
read = lambda b: bytearray(os.pread(fd, 4096, where(b)))
write = lambda b, data: os.pwrite(fd, bytes(data), where(b))
d = read(3); d[1000:1016] = bytes(x ^ 0xFF for x in d[1000:1016]); write(3, d)
d = read(7); d[2048:] = os.urandom(2048); write(7, d)
a, b = read(10), read(20); write(10, b); write(20, a)
write(30, bytes(4096))  # a lost write: the block reads as zeros
os.fsync(fd)
'''


def profile(script: Path, image: Path) -> str:
    # 2 s steps: each must cover the whole 4 MiB file; at 1 s a loaded machine (load 16) read 1,002 of
    # its 1,024 blocks and the run without a change said 4,104,192 bytes checked.
    return f'''name = "verify-real"
file_size = "4MiB"
free_space_margin = "0"
[params.mode]
description = "none, or change blocks"
default = "none"
[[steps]]
name = "Verified write"
block_size = "4K"
pattern = "sequential"
write_percent = 100
outstanding = 4
duration = "2s"
warmup = "0s"
verify = true
[[steps]]
name = "Change blocks"
kind = "command"
command = "{sys.executable} {script} {image} {{mode}}"
sync = false
[[steps]]
name = "Verified read"
block_size = "4K"
pattern = "sequential"
outstanding = 4
duration = "2s"
warmup = "0s"
verify = true
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The run with blocks changed and the run without, as their --json."""
    if not shutil.which("filefrag"):
        pytest.skip("the test file's extents are found with filefrag")
    home = tmp_path_factory.mktemp("verify-home")
    mount = tmp_path_factory.mktemp("verify-mnt")
    with mounted_ext4("verify", 64, mount) as image:
        script = home / "corrupt.py"
        script.write_text(CORRUPT)
        (home / "verify-real.toml").write_text(profile(script, image))
        env = os.environ | {"LABTUI_HOME": str(home), "COLUMNS": "200"}
        found = {}
        for mode in ("change", "none"):
            found[mode] = subprocess.run(
                labtui_cmd("run", "-p", str(home / "verify-real.toml"), "-t", str(mount), "--json", "--yes",
                           "--param", f"mode={mode}"), capture_output=True, text=True, env=env, timeout=120)
        yield found


def test_blocks_changed_between_the_write_and_the_read_are_reported_exactly_with_their_offsets(runs):
    run = runs["change"]
    assert run.returncode != 0, run.stdout + run.stderr
    steps = json.loads(run.stdout)["steps"]
    write, read = steps[0], steps[2]
    assert write["status"] == "completed" and "verify" not in write  # it read nothing back
    check = read["verify"]
    assert read["status"] == "failed" and read["error"].startswith("5 blocks did not read back as written")
    assert check["mismatched"] == 5 and check["unwritten"] == 0, check
    kinds = {m["offset"] // BLOCK: (m["kind"], m["detail"]) for m in check["mismatches"]}
    assert set(kinds) == {3, 7, 10, 20, 30}
    assert kinds[3] == ("corrupted", "16 bytes differ from what was written, the first at +1000")
    assert kinds[7][0] == "torn" and "only its first 2048 bytes are this write's" in kinds[7][1]
    assert kinds[10] == ("misplaced", f"holds the block written for offset {20 * BLOCK}")
    assert kinds[20] == ("misplaced", f"holds the block written for offset {10 * BLOCK}")
    # Zeros where the verified write put a block: a lost write, not a block "not written by this run".
    assert kinds[30][0] == "corrupted" and kinds[30][1].startswith("no block of this run came back, though")
    # Every other block of the file was read and came back as written.
    assert check["covered_bytes"] == 4 * 1024**2 - 5 * BLOCK and check["checksum"] == "xxh3-64"
    assert "verified (xxh3-64 per 4 KiB, every read checked)" in read["command_line"]


def test_the_same_run_without_the_change_reports_none(runs):
    run = runs["none"]
    assert run.returncode == 0, run.stdout + run.stderr
    read = json.loads(run.stdout)["steps"][2]
    assert read["status"] == "completed" and read["verify"]["mismatched"] == 0
    assert read["verify"]["covered_bytes"] == 4 * 1024**2 and read["verify"]["unwritten"] == 0
