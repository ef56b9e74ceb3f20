"""The DiskSpd engine on Linux. No real DiskSpd can exist here (Microsoft's DiskSpd is Windows-only
and the Linux port is not packaged), so the run path is driven by a stand-in `diskspd` script
that records its arguments and prints a real report from tests/fixtures: it checks the
subprocess handling, the live view from the disk's kernel counters, the parsing of what DiskSpd
prints, cancellation and failures — not DiskSpd's numbers, which are the fixture's."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, labtui_cmd
from labtui.engine.base import EngineUnavailable
from labtui.engine.diskspd.engine import DiskSpdEngine
from labtui.engine.events import RunFinished, RunWarning, SampleTaken, StepFinished
from labtui.model.profile import Profile, Step
from labtui.results.files import dumps_toml
from labtui.results.store import Store
from labtui.run.runner import Runner, RunOptions

LINUX_REPORT = FIXTURES / "diskspd-text/diskspd-linux-port-rnd64k-read-F4-o128-reconstructed.txt"


def fake_diskspd(tmp_path, *, seconds: float = 1.2, exit_code: int = 0, report=LINUX_REPORT, message: str = ""):
    script = tmp_path / "diskspd"
    args_file = tmp_path / "argv.txt"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, time\n"
        "if sys.argv[1:] == ['-?']:\n"
        "    sys.exit(print('Usage: diskspd [options] target1 [ target2 [ target3 ...] ]'))\n"
        f"open({str(args_file)!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
        f"time.sleep({seconds})\n"
        f"sys.stdout.write(open({str(report)!r}).read())\n"
        f"sys.stderr.write({message!r})\n"
        f"sys.exit({exit_code})\n"
    )
    script.chmod(0o755)
    return script, args_file


def configure(home, script) -> None:
    (home / "config.toml").write_text(dumps_toml({"diskspd_path": str(script)}))


def _profile(**step) -> Profile:
    settings = dict(name="rnd", block_size=64 * 1024, duration=1.0, warmup=0.0, threads=2, outstanding=4)
    settings.update(step)
    return Profile(name="diskspd-test", file_size=8 * 1024**2, free_space_margin=0, steps=(Step(**settings),))


async def _run(runner):
    events = []
    async for event in runner.events():
        events.append((time.monotonic(), event))
        if isinstance(event, RunFinished):
            break
    return events


def _target(tmp_path: Path) -> Path:
    """The directory a run writes its test file in: made here, as a person names one that exists."""
    target = tmp_path / "target"
    target.mkdir(exist_ok=True)
    return target


def test_not_installed_is_one_clear_line(labtui_home, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineUnavailable, match="DiskSpd is not installed: put diskspd on the PATH"):
        DiskSpdEngine().check_available()
    target = tmp_path / "target"
    out = subprocess.run(labtui_cmd("run", "-e", "diskspd", "-t", str(target), "--yes"),
                         capture_output=True, text=True, env=dict(os.environ, PATH=str(tmp_path)))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "diskspd_path" in out.stderr
    assert not target.exists() and not (labtui_home / "results").exists()


def test_a_wrong_diskspd_path_setting_is_named(labtui_home, tmp_path):
    configure(labtui_home, tmp_path / "no-such-diskspd")
    out = subprocess.run(labtui_cmd("run", "-e", "diskspd", "-t", str(tmp_path / "t"), "--yes"),
                         capture_output=True, text=True)
    assert out.returncode == 2 and "diskspd_path" in out.stderr and "no-such-diskspd" in out.stderr


def test_run_through_the_stand_in(labtui_home, tmp_path):
    script, args_file = fake_diskspd(tmp_path)
    configure(labtui_home, script)  # found through the store's settings, as a user would set it
    target = _target(tmp_path)
    runner = Runner(_profile(), target, Store(labtui_home), RunOptions(engine="diskspd"))
    events = asyncio.run(_run(runner))
    (step,) = [e.result for _, e in events if isinstance(e, StepFinished)]
    assert step.status == "completed", step.error
    # What DiskSpd printed is the result: the fixture's total: lines.
    assert (step.read.ios, step.read.bytes, step.read.seconds) == (747070, 48959979520, 30.0)
    assert step.write.ios == 0 and step.cpu_percent == 2.01
    argv = args_file.read_text().splitlines()
    # DiskSpd opened the test file through the run directory's descriptor; the command line kept names it.
    assert re.fullmatch(r"/proc/\d+/fd/\d+/labtui-[0-9a-f-]+\.dat", argv[-1]), argv[-1]
    test_file = shlex.split(step.command_line)[-1]
    assert step.command_line == shlex.join([str(script), *argv[:-1], test_file])
    assert test_file.startswith(str(target)) and not any(a.startswith("-c") for a in argv)  # runner made the file
    assert argv[:8] == ["-b64K", "-d1", "-W0", "-t2", "-o4", "-w0", "-r64K", "-Sd"]  # O_DIRECT, no write-through
    warnings = [e.message for _, e in events if isinstance(e, RunWarning)]
    samples = [e for _, e in events if isinstance(e, SampleTaken)]
    if runner.plan.target.disk:  # the live view comes from the disk's kernel counters
        assert any("kernel's counters" in w for w in warnings)
        assert samples and step.samples and all(s.seconds > 0 for s in step.samples)
    assert runner.result.status == "completed" and list(target.iterdir()) == []


def test_failure_keeps_diskspd_s_message(labtui_home, tmp_path):
    script, _ = fake_diskspd(tmp_path, seconds=0.1, exit_code=1, message="Error opening file: access denied\n")
    configure(labtui_home, script)
    runner = Runner(_profile(), _target(tmp_path), Store(labtui_home), RunOptions(engine="diskspd"))
    asyncio.run(_run(runner))
    assert runner.result.status == "failed" and "access denied" in runner.result.error


def test_unreadable_output_fails_the_step(labtui_home, tmp_path):
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("Usage: diskspd [options] target\n")
    script, _ = fake_diskspd(tmp_path, seconds=0.1, report=garbage)
    configure(labtui_home, script)
    runner = Runner(_profile(), _target(tmp_path), Store(labtui_home), RunOptions(engine="diskspd"))
    asyncio.run(_run(runner))
    assert runner.result.status == "failed" and "could not be read" in runner.result.error


def test_cancel_kills_diskspd_within_two_seconds(labtui_home, tmp_path):
    script, args_file = fake_diskspd(tmp_path, seconds=60)
    configure(labtui_home, script)
    runner = Runner(_profile(duration=60.0), _target(tmp_path), Store(labtui_home), RunOptions(engine="diskspd"))

    async def main():
        task = asyncio.create_task(_run(runner))
        while not args_file.exists():
            # A run that ended before starting DiskSpd (a preflight refusal) fails here, not hangs.
            assert not task.done(), f"the run ended before DiskSpd started: {task.exception() or runner.result}"
            await asyncio.sleep(0.05)
        began = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - began

    assert asyncio.run(main()) < 2.0
    assert runner.result.status == "aborted"
    alive = subprocess.run(["pgrep", "-f", str(script)], capture_output=True, text=True).stdout.split()
    assert not alive


def _rounds_stand_in(tmp_path, reports):
    """A stand-in that appends each invocation's arguments as a line and prints the reports in turn."""
    script = tmp_path / "diskspd"
    calls = tmp_path / "calls.txt"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, time\n"
        "if sys.argv[1:] == ['-?']:\n"
        "    sys.exit(print('Usage: diskspd [options] target1 [ target2 [ target3 ...] ]'))\n"
        f"calls = open({str(calls)!r}, 'a+')\n"
        "calls.seek(0)\n"
        "n = len(calls.read().splitlines())\n"
        "calls.write(' '.join(sys.argv[1:]) + '\\n')\n"
        "calls.close()\n"
        "time.sleep(0.1)\n"
        f"reports = {[str(r) for r in reports]!r}\n"
        "sys.stdout.write(open(reports[n % len(reports)]).read())\n"
    )
    script.chmod(0o755)
    return script, calls


def test_a_steady_state_step_is_one_diskspd_run_per_round(labtui_home, tmp_path):

    report = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-t32-o16-L-D.txt"  # 68813396 I/Os in 900.01 s, -L
    script, calls = _rounds_stand_in(tmp_path, [report])
    configure(labtui_home, script)
    profile = _profile(duration=2.0, warmup=3.0, steady_state="snia")
    runner = Runner(profile, _target(tmp_path), Store(labtui_home), RunOptions(engine="diskspd"))
    events = asyncio.run(_run(runner))
    (step,) = [e.result for _, e in events if isinstance(e, StepFinished)]
    assert step.status == "completed", step.error
    # The same report five times over: steady after five rounds (range and slope 0), and no sixth run.
    lines = calls.read_text().splitlines()
    assert len(lines) == 5
    assert lines[0].split()[:3] == ["-b64K", "-d2", "-W3"]
    assert all(line.split()[:3] == ["-b64K", "-d2", "-W0"] for line in lines[1:])  # warm-up before the first only
    state = step.steady_state
    assert state.attained and state.verdict == "steady after 5 rounds" and state.judged_by == "labtui"
    assert state.rounds == (68813396 / 900.01,) * 5
    assert [c.value for c in state.criteria] == [0.0, pytest.approx(0.0, abs=1e-9)]
    # The window's figures: its five runs' exact counts summed; the mean weighted by I/Os, the extremes
    # of theirs, and no percentiles (those of separate runs do not combine).
    assert step.total.ios == 5 * 68813396 and step.total.seconds == pytest.approx(5 * 900.01)
    assert (step.latency.mean, step.latency.min, step.latency.max) == (pytest.approx(6.696), 0.074, 159.27)
    assert step.latency.p99 is None


def test_a_never_steady_diskspd_step_stops_at_the_round_limit(labtui_home, tmp_path):

    other = FIXTURES / "diskspd-text/diskspd-2.0.21a-rnd8k-write-t32-o16-L-D.txt"
    script, calls = _rounds_stand_in(tmp_path, [LINUX_REPORT, other])
    configure(labtui_home, script)
    profile = _profile(steady_state="iops:1%", steady_window=2, steady_max_rounds=3)
    runner = Runner(profile, _target(tmp_path), Store(labtui_home), RunOptions(engine="diskspd"))
    events = asyncio.run(_run(runner))
    (step,) = [e.result for _, e in events if isinstance(e, StepFinished)]
    assert step.status == "completed", step.error
    assert len(calls.read_text().splitlines()) == 3
    assert step.steady_state.verdict == "not steady after 3 rounds" and not step.steady_state.attained
