"""Headless progress and messages: whole lines into a file or a pipe, folded to a terminal's width on one."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import termios
import threading

import pytest

from conftest import brief_profile, labtui_cmd

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
