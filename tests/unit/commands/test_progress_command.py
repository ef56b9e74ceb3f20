"""The headless progress shows what the TUI shows: the step, its phase and the run's ETA come from
the same LiveRun fold of the event stream (labtui.run.live), on an injected clock."""

import fcntl
import io
import os
import re
import struct
import subprocess
import termios
import threading

import pytest
from rich.console import Console

from conftest import brief_profile, labtui_cmd
from labtui.commands.progress import _Display
from labtui.engine.events import PrepareProgress, RunStarted, SampleTaken, StepFinished, StepStarted
from labtui.model.profile import Profile, Step
from labtui.model.result import EngineInfo, Sample, StepResult, TargetInfo
from labtui.run.live import LiveRun
from labtui.units import human_duration

MIB = 1024 * 1024


def shown(display: _Display) -> str:
    screen = Console(file=io.StringIO(), width=200, record=True)
    screen.print(display.render())
    return screen.export_text()


def test_the_headless_eta_is_the_live_runs_through_preparation_and_steps():
    now = [100.0]
    clock = lambda: now[0]  # noqa: E731 - the injected clock
    read = Step(name="read", block_size=65536, duration=10, warmup=2)
    write = Step(name="write", block_size=65536, write_percent=100, duration=10, warmup=2)
    profile = Profile(name="p", file_size=64 * MIB, steps=(read, write))
    display = _Display(Console(file=io.StringIO(), width=200), clock=clock)
    display.live_mode = False
    twin = LiveRun(clock=clock)  # what the TUI's Run screen would hold after the same events

    def feed(event):
        display.handle(event)
        twin.handle(event)

    feed(RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo(name="native"), 2, profile.planned_seconds))
    now[0] += 0.5
    feed(PrepareProgress(16 * MIB, 64 * MIB, 0.5))  # 32 MiB/s: 1.5 s of preparation left
    text = shown(display)
    assert "preparing test file: 16.0 MiB of 64.0 MiB at 32 MiB/s (25%)" in text
    assert f"run ETA {human_duration(twin.eta_seconds())}" in text and twin.eta_seconds() is not None

    now[0] += 1.5
    feed(StepStarted(0, 2, read, 1, None))
    now[0] += 3.0
    feed(SampleTaken(0, "measure", Sample(t=1.0, seconds=1.0, read_ios=1000, read_bytes=1000 * 65536)))
    text = shown(display)
    assert "step 1/2: read [measure]  0:03 of 0:12" in text
    assert f"run ETA {human_duration(twin.eta_seconds())}" in text
    # 9 s of this step and its start-up, then the next one's 12 s and start-up.
    assert 21.0 < twin.eta_seconds() < 23.0

    now[0] += 9.0
    feed(StepFinished(0, StepResult(step=read)))
    feed(StepStarted(1, 2, write, 1, None))
    assert "step 2/2: write [starting]  0:00 of 0:12" in shown(display)
    assert f"run ETA {human_duration(twin.eta_seconds())}" in shown(display)


def test_a_command_step_has_no_eta_headless_as_in_the_tui():
    now = [0.0]
    clock = lambda: now[0]  # noqa: E731 - the injected clock
    tar = Step(name="tar", kind="command", command="true")
    profile = Profile(name="c", steps=(tar,))
    display = _Display(Console(file=io.StringIO(), width=200), clock=clock)
    display.live_mode = False
    display.handle(RunStarted("r", profile, TargetInfo(path="/x"), EngineInfo(name="native"), 1, 0.0))
    display.handle(StepStarted(0, 1, tar, 1, None))
    now[0] += 4
    assert "step 1/1: tar [running]  0:04 (time limit 1:00:00)" in shown(display)


def test_a_run_whose_progress_output_is_closed_goes_on_and_its_report_says_so(labtui_home, disk_dir):
    """`labtui run ... 2> >(head -1)`: the reader goes and the next progress line cannot be written. The
    run stopped there (rich's SystemExit), its result "aborted"; the progress is what is lost, not the run:
    it completes, is saved, and its report on stdout ends with a line saying progress was dropped."""
    import subprocess

    from conftest import labtui_cmd
    from labtui.results.store import Store

    profile = disk_dir / "walk-pipe.toml"
    profile.write_text('name = "walk-pipe"\nfile_size = "1M"\n[[steps]]\nname = "r"\nblock_size = "4K"\n'
                       'duration = "1s"\nwarmup = "0s"\n[[steps]]\nname = "w"\nblock_size = "4K"\n'
                       'write_percent = 100\nduration = "1s"\nwarmup = "0s"\n')
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(profile), "-t", str(disk_dir), "--yes"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    assert proc.stderr.readline().startswith("labtui: walk-pipe on ")
    proc.stderr.close()  # as head does after its line
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    results, _ = Store(labtui_home).load_results()
    assert [r.status for r in results] == ["completed"]
    assert f"result {results[0].id} (completed) saved to" in out
    assert "the progress output (stderr) was closed at" in out and "the run went on" in out
    assert not list(disk_dir.glob("labtui-*"))  # the test file, and the run's own directory it was in


# The start of every line `labtui run` writes on stderr when it is not a terminal: a line that
# starts otherwise is the tail of a folded one.
LINE_STARTS = ("labtui: ", "preparing ", "prepared ", "step ", "  ", "warning: ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@pytest.fixture
def long_target(disk_dir, request):
    """A directory whose path alone is longer than 80 columns."""
    path = disk_dir / request.node.name / ("a-directory-with-a-rather-long-name-" * 3).rstrip("-")
    path.mkdir(parents=True)
    assert len(str(path)) > 100
    return path


def run_args(target) -> list[str]:
    # quick-sanity's steps, short and with a short warm-up: every kind of progress line, in 1.4 s.
    profile = brief_profile(target.parent, duration="200ms", warmup="500ms")
    return labtui_cmd("run", "-p", str(profile), "-t", str(target), "--yes")


def assert_whole_lines(text: str, target) -> None:
    lines = [line for line in text.splitlines() if line]
    assert lines, "nothing was written"
    folded = [line for line in lines if not line.startswith(LINE_STARTS)]
    assert not folded, f"lines folded in two: {folded}"
    assert any(f"brief on {target} with native" in line for line in lines), lines


@pytest.mark.parametrize("into", ["file", "pipe"])
def test_progress_into_a_file_or_a_pipe_keeps_its_lines_whole(labtui_home, long_target, tmp_path, into):
    if into == "file":
        log = tmp_path / "progress.log"
        with open(log, "w") as handle:
            proc = subprocess.run(run_args(long_target), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=handle, text=True, timeout=120)
        err = log.read_text()
    else:
        proc = subprocess.run(run_args(long_target), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)
        err = proc.stderr
    assert proc.returncode == 0, err
    assert_whole_lines(err, long_target)
    # The saved-to line on stdout names the whole path too.
    assert any(line.startswith("result ") and line.endswith(".toml") for line in proc.stdout.splitlines()), proc.stdout


def test_progress_on_a_terminal_is_folded_to_its_width(labtui_home, long_target):
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 60, 0, 0))
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.run(run_args(long_target), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=follower, timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    assert proc.returncode == 0
    shown = ANSI.sub("", b"".join(chunks).decode(errors="replace"))
    lines = [line for line in re.split(r"[\r\n]+", shown) if line.strip()]
    assert lines and max(len(line) for line in lines) <= 60, b"".join(chunks)[:600]
    assert "brief on" in shown and not any(str(long_target) in line for line in lines)
