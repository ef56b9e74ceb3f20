"""Does watching a run in the TUI cost IOPS? The same native run under the TUI and headless, side by side.

Runs a short profile (4 KiB random reads, cache off) N times in pairs: once in labtui's TUI in a
real terminal (tmux, 120x35, the Run screen on show with its live charts) and once headless
(`labtui run --json`), alternating which goes first, on the same target directory. Prints each
pair's IOPS and their ratio, the median ratio, and the geometric mean of the ratios for each
order and over both (which cancels an effect of going first or second). The disk under test
drifts from run to run, so the pairs, not single runs, are what to read; other programs running
at the same time on the machine shift both runs of a pair alike only if they stay steady.

    python benchmarks/tui_vs_headless.py [--pairs 6] [--duration 5s] [--target /var/tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psutil

from labtui.store import Store

PROFILE = """schema = 1
name = "tui-bench"
title = "TUI against headless"
file_size = "256MiB"
free_space_margin = "0B"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
pattern = "random"
threads = 2
outstanding = 16
duration = "{duration}"
warmup = "1s"
cache = "off"
"""


def labtui() -> str:
    return str(Path(sys.executable).parent / "labtui")


def own_cpu_seconds(process: psutil.Process) -> float:
    """CPU time of the labtui process itself (its engine workers are other processes, not counted)."""
    times = process.cpu_times()
    return times.user + times.system


def headless(home: Path, target: Path) -> tuple[float, float]:
    """(IOPS, CPU seconds the labtui process itself used)."""
    env = {**os.environ, "LABTUI_HOME": str(home)}
    proc = subprocess.Popen([labtui(), "run", "-p", "tui-bench", "-t", str(target), "--yes", "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    watched = psutil.Process(proc.pid)
    cpu = 0.0
    while proc.poll() is None:
        try:
            cpu = own_cpu_seconds(watched)
        except psutil.Error:
            break
        time.sleep(0.1)
    out, _ = proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"labtui run failed with exit code {proc.returncode}")
    return json.loads(out)["steps"][0]["total"]["iops"], cpu


def screen(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def wait(session: str, text: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = screen(session)
        if "Traceback" in shown:
            raise RuntimeError(shown)
        if text in shown:
            return
        time.sleep(0.2)
    raise RuntimeError(f"timed out waiting for {text!r}:\n{screen(session)}")


def under_tui(home: Path, target: Path, timeout: float) -> tuple[float, float]:
    """(IOPS, CPU seconds the labtui process itself used from the start of the run to its end)."""
    Store(home).save_settings({"profile": "tui-bench", "profile_origin": "user", "target": str(target)})
    before_files = {p.name for p in Store(home).result_files()}
    session = f"labtui-bench-{uuid.uuid4().hex[:8]}"
    command = f"env -u COLUMNS -u LINES LABTUI_HOME={home} TERM=xterm-256color {labtui()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "35", command], check=True)
    try:
        wait(session, "read at", 30)
        subprocess.run(["tmux", "send-keys", "-t", session, "r"], check=True)
        wait(session, "[native]", 30)
        pane = int(subprocess.run(["tmux", "display-message", "-p", "-t", session, "#{pane_pid}"],
                                  capture_output=True, text=True, check=True).stdout)
        shell = psutil.Process(pane)  # the shell running the command, or labtui itself (sh execs it)
        (process,) = [p for p in [shell, *shell.children(recursive=True)]
                      if p.cmdline()[1:2] and p.cmdline()[1].endswith("labtui")]
        before = own_cpu_seconds(process)
        subprocess.run(["tmux", "send-keys", "-t", session, "s"], check=True)
        wait(session, "Completed: tui-bench", timeout)
        cpu = own_cpu_seconds(process) - before
    finally:
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], capture_output=True)
        time.sleep(0.5)
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    store = Store(home)
    (new,) = [p for p in store.result_files() if p.name not in before_files]
    return store.read_result(new).steps[0].total.iops, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--duration", default="5s")
    parser.add_argument("--target", default="/var/tmp", help="a directory on the disk to test")
    args = parser.parse_args()
    if not shutil.which("tmux"):
        print("tmux is needed (apt-get install tmux)", file=sys.stderr)
        return 2
    home = Path(tempfile.mkdtemp(prefix="labtui-tui-bench-"))
    target = Path(args.target) / f"labtui-tui-bench-{uuid.uuid4().hex[:6]}"
    (home / "profiles").mkdir()
    (home / "profiles" / "tui-bench.toml").write_text(PROFILE.format(duration=args.duration))
    ratios = []
    cpu = {"TUI": [], "headless": []}
    try:
        print("pair  first     TUI IOPS  headless IOPS  TUI/headless  labtui CPU s (TUI/headless)  load")
        for pair in range(args.pairs):
            tui_first = pair % 2 == 0
            if tui_first:
                tui, tui_cpu = under_tui(home, target, 120)
                plain, plain_cpu = headless(home, target)
            else:
                plain, plain_cpu = headless(home, target)
                tui, tui_cpu = under_tui(home, target, 120)
            ratios.append(tui / plain)
            cpu["TUI"].append(tui_cpu)
            cpu["headless"].append(plain_cpu)
            print(f"{pair + 1:>4}  {'TUI' if tui_first else 'headless':<8} {tui:>10,.0f}  {plain:>13,.0f}  "
                  f"{tui / plain:>12.3f}  {tui_cpu:>14.2f} / {plain_cpu:<10.2f}  {os.getloadavg()[0]:.1f}")
        print(f"median TUI/headless ratio {statistics.median(ratios):.3f} "
              f"(range {min(ratios):.3f}–{max(ratios):.3f}, {len(ratios)} pairs, {os.cpu_count()} CPUs)")
        # Whichever runs second in a pair may meet a warmer (or more tired) disk: alternating the
        # order and taking the geometric mean over both orders cancels that, the median does not.
        print(f"geometric mean ratio {statistics.geometric_mean(ratios):.3f}; "
              f"TUI first {statistics.geometric_mean(ratios[0::2]):.3f}, "
              f"headless first {statistics.geometric_mean(ratios[1::2]) if len(ratios) > 1 else float('nan'):.3f}")
        print(f"the labtui process's own CPU per run, median: TUI {statistics.median(cpu['TUI']):.2f} s, "
              f"headless {statistics.median(cpu['headless']):.2f} s (the engine's workers not counted)")
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(target, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
