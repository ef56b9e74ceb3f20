"""labtui.machine.programs: every program labtui runs is found in one place, and as root refused where another
user could change what runs (the program, its directory, or a PATH entry before it).

A root shell that kept a user's PATH (`sudo -E`, `su` without `-`) had /home/alice/bin before /usr/sbin: alice's
`smartctl` ran as root every time a disk was read, her `blkid` before a raw disk was written, her `ssh` for
--hosts, her `zpaq` in a command step. Played by a real unprivileged user owning those programs.
"""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from hostile_user import hostile_user, shared_place
from labtui.engine import subproc
from labtui.engine.base import EngineUnavailable
from labtui.engine.command.engine import missing_program
from labtui.engine.fio.engine import FioEngine
from labtui.errors import LabtuiError
from labtui.fleet.requests import ssh_program
from labtui.machine import drive, guard, programs, smartctl

NAMES = ("smartctl", "blkid", "ssh", "fio", "zpaq")
SYSTEM = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture(scope="module")
def alices_bin():
    """alice's own bin directory holding a program of every name labtui runs (each leaves a mark if run),
    and a root-owned directory every user can write (a lab's shared tools directory)."""
    with shared_place() as place, hostile_user("path", prefix="lt-guard3") as alice:
        home = place / "alice"
        home.mkdir()
        os.chown(home, alice.uid, alice.gid)
        marks = place / "marks"
        marks.mkdir(mode=0o777)
        marks.chmod(0o777)
        for name in NAMES:
            alice.sh(f"mkdir -p {home}/bin && printf '#!/bin/sh\\ntouch {marks}/{name}\\n' > {home}/bin/{name} "
                     f"&& chmod 755 {home}/bin/{name}")
        shared = place / "tools"
        shared.mkdir()
        shared.chmod(0o777)
        yield alice, home / "bin", shared, marks


def test_as_root_a_program_another_user_can_change_or_shadow_is_refused_in_one_line(alices_bin, tmp_path):
    alice, theirs, shared, marks = alices_bin
    first = f"{theirs}:{SYSTEM}"
    with pytest.raises(programs.ProgramRefused) as refused:
        programs.find("smartctl", path_env=first)
    assert str(refused.value) == (f"smartctl refused: {theirs}/smartctl belongs to {alice.name}, who "
                                  "could change what it runs as root: as root labtui runs no program another user can "
                                  "change (chown root and chmod go-w it, or install the program)")
    # A directory others can write, before the real program, is where theirs would go next.
    with pytest.raises(programs.ProgramRefused, match=rf"^smartctl refused: {shared} can be written by every user "
                                                      r"\(mode 0777\), and comes before /usr/sbin/smartctl on the PATH: "
                                                      rf"another user could put their own smartctl there to run as root "
                                                      rf"\(take {shared} out of root's PATH\)$"):
        programs.find("smartctl", path_env=f"{shared}:{SYSTEM}")
    # After the real one, or given as a root-owned path, it is never reached: the system's program runs.
    assert programs.find("smartctl", path_env=f"{SYSTEM}:{theirs}:{shared}") == "/usr/sbin/smartctl"
    assert programs.find("/usr/sbin/smartctl") == "/usr/sbin/smartctl"
    assert programs.find("no-such-program-lt", path_env=first) is None
    with pytest.raises(programs.ProgramRefused, match=rf"^fio refused: {theirs}/fio belongs to"):
        programs.find(str(theirs / "fio"))
    # Root's own link to her program (/usr/local/bin/fio -> /home/alice/bin/fio) leads to what she can change.
    roots = tmp_path / "local-bin"
    roots.mkdir()
    (roots / "fio").symlink_to(theirs / "fio")
    with pytest.raises(programs.ProgramRefused, match=rf"^fio refused: {roots}/fio: {theirs}/fio belongs to {alice.name}"):
        programs.find("fio", path_env=f"{roots}:{SYSTEM}")
    # The programs labtui starts as root look only where nobody else can put one.
    assert programs.safe_path(f"{theirs}:{shared}:relative:{SYSTEM}") == SYSTEM
    assert programs.is_executable(sys.executable) and not programs.is_executable(str(theirs))


def test_every_program_labtui_runs_as_root_goes_through_the_one_refusal(alices_bin, monkeypatch, tmp_path):
    alice, theirs, shared, marks = alices_bin
    monkeypatch.setenv("PATH", f"{theirs}:{SYSTEM}")
    drive.forget_refusals()
    # The drive's facts say why smartctl said nothing, instead of a drive with no SMART data.
    reader = drive.DriveReader("sda", sys_root=tmp_path)
    reader.facts()
    assert reader.smartctl_problem is not None and reader.smartctl_problem.startswith(
        f"smartctl refused: {theirs}/smartctl belongs to {alice.name}"), reader.smartctl_problem
    with pytest.raises(smartctl.SmartctlError, match=r"^smartctl refused: "):
        smartctl.ask("/dev/sda")
    # The raw-device guard falls back on its own scan and says why blkid was not asked.
    found, why = guard._blkid("/dev/null")
    assert found == [] and why.startswith(f"blkid refused: {theirs}/blkid") and why.endswith(
        "only labtui's own scan looked"), why
    assert guard.DeviceFacts("/dev/x", "x", 1, unprobed=why).describe().endswith(f"found ({why})")
    # A command step's program, the fio engine, ssh for --hosts: one line each, nothing run.
    assert missing_program("zpaq").startswith(f"zpaq refused: {theirs}/zpaq")
    with pytest.raises(EngineUnavailable, match=rf"^fio refused: {theirs}/fio"):
        FioEngine().check_available()
    assert FioEngine().version() is None
    with pytest.raises(LabtuiError, match=rf"^ssh refused: {theirs}/ssh"):
        ssh_program()
    # What a command step's shell runs is looked up on a PATH without her directory.

    async def shell_path() -> str:
        proc = await subproc.spawn(["/bin/sh", "-c", 'echo "$PATH"; zpaq'], merge_output=True)
        out, _ = await proc.communicate()
        return out.decode()

    said = asyncio.run(shell_path())
    assert said.splitlines()[0] == SYSTEM, said
    drive.forget_refusals()
    assert sorted(p.name for p in marks.iterdir()) == [], "a program of hers ran as root"
