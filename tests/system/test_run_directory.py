"""A run writes only where it checked, through a directory only it can write (issue 37, items 2 and 3).

Played by a real unprivileged user on real loop devices, against labtui as root: the user can write
the target's directory, and re-points names there while labtui runs (a link to another disk in
place of the test file as fio starts, or of the target directory itself at "Go ahead?"). The
run's own directory (0700, root's) and the descriptors the engines are handed make both swaps
redirect nothing: the other disk is never touched, and the run measures the directory it checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from conftest import require_tool
from hostile_user import hostile_user, mounted_disks, open_to_all, shared_place
from labtui.engine import subproc
from labtui.engine.events import SampleTaken
from labtui.errors import LabtuiError
from labtui.machine import devices
from labtui.model.profile import Profile, Step
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def lab():
    """(a disk labtui measures, another disk, a user who may write a directory on the first)."""
    with shared_place() as place, mounted_disks(place, 2) as (ours, other), hostile_user("swap") as user:
        yield ours, other, user


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def quick(*steps: Step) -> Profile:
    return Profile(name="swap", title="swap", file_size=4 * MIB, free_space_margin=0, steps=steps)


READ = Step(name="read", block_size=65536, threads=1, outstanding=2, duration=0.3, warmup=0.0, cache="on")
WRITE = Step(name="write", block_size=65536, write_percent=100, threads=1, outstanding=2, duration=0.5, warmup=0.0,
             cache="on")

# As the user: put a link to the other disk in place of every labtui-* entry of the directory (a test file:
# a link to a file there of its name; a directory: a link to a directory there holding such a file).
SWAP = """cd "$1" && for e in labtui-*; do
  [ -e "$e" ] || continue
  mv "$e" ".aside-$e"
  if [ -d ".aside-$e" ]; then ln -s "$2" "$e"; else ln -s "$2/$e" "$e"; fi
done"""
RESTORE = """cd "$1" && for e in .aside-*; do [ -e "$e" ] || continue; rm -f "${e#.aside-}"; mv "$e" "${e#.aside-}"; done"""


async def opened(name: str, timeout: float = 20.0) -> None:
    """Wait until a fio process holds a file called `name` open (wherever it is)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in psutil.process_iter(["name"]):
            if proc.info["name"] != "fio":
                continue
            with contextlib.suppress(psutil.Error):
                if any(Path(f.path).name == name for f in proc.open_files()):
                    return
        await asyncio.sleep(0.02)
    raise AssertionError(f"fio never opened {name}")


def test_engines_write_what_labtui_made_though_a_user_swaps_its_names_as_they_start(lab, tmp_path, monkeypatch):
    """fio (the issue's case) and a command step writing into {scratch}: each started with the names swapped."""
    require_tool("fio")
    ours, other, user = lab
    shared = open_to_all(ours / "shared-fio")
    victims = other / "victims-fio"
    victims.mkdir()
    profile = quick(READ, WRITE, Step(name="copy", kind="command", command="printf copied > {scratch}/out", sync=False))
    runner = Runner(profile, shared, Store(tmp_path / "home"), RunOptions(engine="fio", interval=0.25))
    precious: dict[Path, str] = {}
    swaps: list[str] = []
    inside: list[int] = []
    real_spawn = subproc.spawn

    async def spawn(argv, *args, **kwargs):
        writer = argv[0].endswith("fio") and "--rw=randwrite" in argv or argv[0] == "/bin/sh"
        if writer and not any(p.name == f"labtui-{runner.run_id}.dat" for p in precious):
            victim = victims / f"labtui-{runner.run_id}.dat"
            victim.write_bytes(b"precious " * (MIB // 2))
            precious[victim] = digest(victim)
        if writer:
            # Right between labtui's last check and the engine's start: links to the other disk under the
            # names labtui made in the shared directory.
            user.sh(f"set -- '{shared}' '{victims}'\n{SWAP}")
            swaps.append(argv[0])
            # Inside the run's own directory the user can do nothing at all.
            inside.append(user.sh(f"ls '{shared}/.aside-labtui-{runner.run_id}'", check=False).returncode)
        proc = await real_spawn(argv, *args, **kwargs)
        if writer:
            # As the user did: the names put back once the engine has what it opens (fio the
            # file, the shell its output), before labtui looks at them again after the step.
            await (opened(f"labtui-{runner.run_id}.dat") if argv[0].endswith("fio") else proc.wait())
            user.sh(f"set -- '{shared}'\n{RESTORE}")
        return proc

    monkeypatch.setattr(subproc, "spawn", spawn)

    async def go():
        async for _event in runner.events():
            pass

    asyncio.run(go())
    result = runner.result
    for path, before in precious.items():
        assert digest(path) == before, f"{path} on the other disk was written"
    assert sorted(p.name for p in victims.iterdir()) == [f"labtui-{result.id}.dat"], "something was made there"
    assert swaps == [swaps[0], "/bin/sh"] and swaps[0].endswith("fio")
    assert result.status == "completed", result.error
    assert [s.status for s in result.steps] == ["completed"] * 3 and result.steps[1].write.ios > 0
    assert inside and all(code != 0 for code in inside), "the user could look into the run's own directory"
    assert list(shared.iterdir()) == [], "the run's own directory went with it"


def test_a_target_a_user_swaps_at_the_prompt_is_measured_where_it_was_checked(lab, tmp_path):
    ours, other, user = lab
    parent = open_to_all(ours / "shared-prompt")
    target = parent / "t"
    target.mkdir()
    elsewhere = other / "elsewhere"
    elsewhere.mkdir()
    os.chmod(elsewhere, 0o777)
    runner = Runner(quick(READ), target, Store(tmp_path / "home"))
    plan = runner.preflight()  # what "Go ahead?" shows
    user.sh(f"mv '{target}' '{parent}/t.orig' && ln -s '{elsewhere}' '{target}'")
    during: list[tuple[list[str], list[str]]] = []

    async def go():
        async for event in runner.events():
            if isinstance(event, SampleTaken) and not during:
                during.append((os.listdir(elsewhere), os.listdir(parent / "t.orig")))

    asyncio.run(go())
    result = runner.result
    assert result.status == "completed", result.error
    ((where_linked, where_checked),) = during
    assert where_linked == [] and where_checked == [f"labtui-{result.id}"], during
    assert result.target.device == plan.target.device == devices.target_info(ours).device
    assert any(f"{target} changed after it was checked" in w and "not where its name leads now" in w
               for w in result.warnings), result.warnings
    assert os.listdir(parent / "t.orig") == [] and os.listdir(elsewhere) == []


def test_a_target_swapped_while_preflight_checks_it_is_refused(lab, tmp_path, monkeypatch):
    ours, other, user = lab
    parent = open_to_all(ours / "shared-preflight")
    target = parent / "t"
    target.mkdir()
    real = devices.target_info

    def swapped_meanwhile(path, *args, **kwargs):
        user.sh(f"mv '{target}' '{parent}/t.orig' && ln -s '{other}' '{target}'")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(devices, "target_info", swapped_meanwhile)
    runner = Runner(quick(READ), target, Store(tmp_path / "home"))
    with pytest.raises(LabtuiError, match="changed while labtui checked it .another directory now has its name"):
        runner.preflight()
    assert os.listdir(parent / "t.orig") == []


def test_diskspd_is_handed_the_test_file_through_the_run_directory(tmp_path):
    """DiskSpd (a stand-in here: there is none for Linux in Debian) opens what the run made, by descriptor."""
    from labtui.engine.base import Job
    from labtui.engine.diskspd.engine import DiskSpdEngine
    from labtui.engine.rundir import RunDirectory, TargetDir
    from labtui.engine.testfile import TestFile
    from labtui.settings import EngineSettings

    argv = tmp_path / "argv"
    fake = tmp_path / "diskspd"
    fake.write_text(f"#!/bin/sh\nfor a; do f=$a; done\nprintf '%s' \"$f\" > {argv}\nexit 3\n")
    fake.chmod(0o755)
    (tmp_path / "t").mkdir()
    target = TargetDir.open(tmp_path / "t")
    run_dir = RunDirectory.create(target, "labtui-x")
    made = TestFile.create(run_dir.path / "labtui-x.dat", dir_fd=run_dir.fd)
    try:
        job = Job(path=made.path, file_size=MIB, hold=made, open_path=made.bound_path, run_dir=run_dir)

        async def go():
            with contextlib.suppress(Exception):
                async for _ in DiskSpdEngine(EngineSettings(diskspd_path=str(fake))).run_step(READ, job):
                    pass

        asyncio.run(go())
        given = argv.read_text()
        assert given == f"/proc/{os.getpid()}/fd/{made.dir_fd}/labtui-x.dat", given  # the run directory, held
        assert os.stat(given).st_ino == made.ino
    finally:
        made.close()
        run_dir.close()
        target.close()


def test_a_file_a_command_step_is_handed_is_the_one_checked_though_a_user_swaps_its_name(lab, tmp_path):
    """zpaq's archive (a file parameter) in a directory the user can write, swapped at "Go ahead?" for a link
    to another archive: real zpaq extracts the one that was checked (its name still ends in .zpaq)."""
    from labtui.params import Param

    require_tool("zpaq")
    ours, other, user = lab
    shared = open_to_all(ours / "shared-param")
    for where, inside in ((shared, "checked.txt"), (other, "elsewhere.txt")):
        (tmp_path / inside).write_text(inside)
        subprocess.run(["zpaq", "a", str(where / "a.zpaq"), inside], cwd=tmp_path, check=True, capture_output=True)
    os.chmod(shared / "a.zpaq", 0o644)
    step = Step(name="extract", kind="command", command="zpaq x {archive} -to {scratch} && test -f {scratch}/checked.txt",
                sync=False)
    profile = Profile(name="zx", title="zx", free_space_margin=0, params=(Param("archive", type="file"),),
                      steps=(step,))
    target = ours / "zx"
    target.mkdir()
    runner = Runner(profile, target, Store(tmp_path / "home"), RunOptions(params={"archive": str(shared / "a.zpaq")}))
    runner.preflight()  # what "Go ahead?" shows
    user.sh(f"cd '{shared}' && mv a.zpaq a.orig && ln -s '{other}/a.zpaq' a.zpaq")

    async def go():
        async for _event in runner.events():
            pass

    asyncio.run(go())
    result = runner.result
    assert result.status == "completed", (result.error, result.steps[0].error)
    assert f"zpaq x {shared / 'a.zpaq'} -to " in result.steps[0].command_line  # the name the person gave
    assert list(target.iterdir()) == [], "the run's directory and the links in it went"
