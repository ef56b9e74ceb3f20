"""How fast labtui starts: `labtui --help`, and the TUI's first paint in a real terminal (tmux).

Runs each measurement several times and prints the median and the range. The TUI is started in
a detached tmux session at 80x24; the screen is polled with `tmux capture-pane` every 10 ms:
"first paint" is when labtui's title bar appears, "disks shown" when this machine's disk list
has been read and drawn (discovery runs in the background after the first paint).

    python benchmarks/tui_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path


def labtui_command() -> list[str]:
    script = Path(sys.executable).parent / "labtui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "labtui"]


def time_help() -> float:
    started = time.perf_counter()
    subprocess.run([*labtui_command(), "--help"], check=True, capture_output=True)
    return time.perf_counter() - started


def time_tui(home: str) -> tuple[float, float]:
    """(seconds to the first paint, seconds until the disk list is on screen)."""
    session = f"labtui-bench-{uuid.uuid4().hex[:8]}"
    command = " ".join([f"LABTUI_HOME={home}", "TERM=xterm-256color", *labtui_command()])
    started = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True)
    first = None
    try:
        while time.perf_counter() - started < 20:
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                                    capture_output=True, text=True).stdout
            now = time.perf_counter() - started
            if first is None and "labtui · Disks" in screen:
                first = now
            if "read at" in screen:  # the table's title once the devices have been read
                return first or now, now
            time.sleep(0.01)
        raise RuntimeError(f"labtui did not show the disks within 20 s:\n{screen}")
    finally:
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], capture_output=True)
        time.sleep(0.3)
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def summary(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{name:<28} median {statistics.median(ms):6.0f} ms   (min {min(ms):.0f}, max {max(ms):.0f}, n={len(ms)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    if not shutil.which("tmux"):
        print("tmux is needed (apt-get install tmux)", file=sys.stderr)
        return 2
    helps = [time_help() for _ in range(args.runs)]
    firsts, disks = [], []
    with tempfile.TemporaryDirectory(prefix="labtui-bench-") as home:
        time_tui(home)  # warm the file cache and the .pyc files once, not counted
        for _ in range(args.runs):
            first, shown = time_tui(home)
            firsts.append(first)
            disks.append(shown)
    print(f"labtui start-up on {os.uname().nodename} ({os.cpu_count()} CPUs), {time.strftime('%Y-%m-%d')}")
    print(summary("labtui --help", helps))
    print(summary("TUI first paint (80x24)", firsts))
    print(summary("TUI disks shown (80x24)", disks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
