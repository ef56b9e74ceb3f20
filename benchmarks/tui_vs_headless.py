"""What watching a run in the TUI costs it, and how fast the TUI answers keys while the workers run.

The same native-engine step (4 KiB random reads, cache off: the CPUs, not the device, are the limit
on a fast target) runs N times in pairs whose order alternates: once watched in labtui's TUI in a
real terminal (tmux, 120x35, the Run screen on show with its live charts) and once headless
(`labtui run --json`). Per pair it prints both runs' IOPS, their ratio, and the CPU seconds the
labtui process itself spent per second of the step's measured time, the window whose I/Os the
result counts (its engine workers are other processes and are not counted; the test file's
preparation and drawing the finished run come before and after it), and how often the TUI's
threads were woken in it.

After each pair a third run, in the TUI with workers enough to saturate every CPU (2 per CPU by
default), measures key latency: `x` is sent through tmux and the time taken until the screen
shows "Stop the run?", then `n` until the question is gone, again and again at irregular gaps
through the measured part of the step; its last probe confirms a cancel (`x`, `y`) and times
until the screen says the run was aborted. The screen is read through one tmux control-mode
client (no process started per look), every few milliseconds.

`--ram` (root) builds the target itself (benchmarks/ramdisk.py: ext4 on a loop device over a
file in /dev/shm, both named tui-bench-<pid>), so the device never drifts and the CPUs are the
limit; it is removed afterwards. Without it, `--target` names a directory on the disk to test.
At the end a Markdown table of the medians, for docs/performance.md.

    python benchmarks/tui_vs_headless.py --ram [--pairs 4] [--duration 5s]
    python benchmarks/tui_vs_headless.py --target /var/tmp [--pairs 4] [--duration 5s]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from labtui.results.store import Store
from labtui.settings import Settings
from labtui.units import parse_duration
from ramdisk import ram_disk  # beside this script

PROFILE = """schema = 1
name = "{name}"
title = "TUI against headless"
file_size = "256MiB"
free_space_margin = "0B"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
pattern = "random"
threads = {threads}
outstanding = {outstanding}
duration = "{duration}"
warmup = "{warmup:g}s"
cache = "off"
"""
QUESTION = "Stop the run?"
WARMUP_SECONDS = 1.0  # the profile's warm-up
RAM_IMAGE_BYTES = 1 << 30  # the 256 MiB test file with room to spare


LABTUI = [str(Path(sys.executable).parent / "labtui")]  # --labtui measures another build


def labtui() -> str:
    return LABTUI[0]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (not its children), also readable while it is a zombie."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid: int) -> int:
    """How often the process's threads have gone to sleep and been woken (voluntary switches)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


class Meter:
    """The CPU time and wake-ups of one process, sampled every 50 ms, to be read over any window."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self.samples.append((time.monotonic(), cpu_seconds(self.pid), wakeups(self.pid)))
            except (OSError, ValueError):
                return  # the process is gone (reaped)
            if self._stop.wait(0.05):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _at(self, t: float) -> tuple[float, float]:
        """CPU seconds and wake-ups at `t`, interpolated between the samples around it."""
        before = max((s for s in self.samples if s[0] <= t), default=self.samples[0])
        after = min((s for s in self.samples if s[0] >= t), default=self.samples[-1])
        if after[0] == before[0]:
            return before[1], before[2]
        f = (t - before[0]) / (after[0] - before[0])
        return before[1] + f * (after[1] - before[1]), before[2] + f * (after[2] - before[2])

    def rates(self, start: float, end: float) -> tuple[float, float]:
        """(CPU seconds, wake-ups) per second between `start` and `end`."""
        (cpu0, woken0), (cpu1, woken1) = self._at(start), self._at(end)
        return (cpu1 - cpu0) / (end - start), (woken1 - woken0) / (end - start)


@dataclass
class Outcome:
    iops: float
    workers_cpu_per_kio: float | None  # the engine's workers' CPU seconds per 1,000 I/Os
    cpu_per_second: float  # the labtui process's CPU seconds per second of the measured window
    wakeups_per_second: float  # its threads woken per second of the measured window
    terminal_cpu_per_second: float | None = None  # the tmux server's, drawing what the TUI writes
    latencies: list[float | None] = field(default_factory=list)  # key -> answer on screen, s (None: never)
    cancel_seconds: float | None = None  # `y` confirmed -> the run's end on screen (None: never asked)
    status: str = "completed"


# --------------------------------------------------------------------------- the terminal


class Tmux:
    """A tmux server of our own, and one control-mode client to talk to it without a process per command."""

    def __init__(self, width: int, height: int, command: str) -> None:
        self.socket = f"labtui-bench-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        # No ~/.tmux.conf: a person's key table or options must not change what is measured.
        subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "app", "-x",
                        str(width), "-y", str(height), command], check=True)
        # `no-output`: the client is not sent what the program writes, only what we ask for.
        self.client = subprocess.Popen(["tmux", "-L", self.socket, "-C", "attach-session", "-t", "app",
                                        "-f", "no-output"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True, bufsize=1)
        # Attaching answers with a block of its own: read up to a marker, so that from here on
        # every command's answer is the next block (otherwise each reply would be the one before).
        marker = f"labtui-bench-ready-{uuid.uuid4().hex}"
        self._send(f"display-message -p {marker}")
        while marker not in self._block():
            pass

    def _send(self, line: str) -> None:
        assert self.client.stdin is not None
        self.client.stdin.write(line + "\n")
        self.client.stdin.flush()

    def _block(self) -> list[str]:
        """The next %begin ... %end block's lines (notifications between blocks are skipped)."""
        assert self.client.stdout is not None
        out: list[str] = []
        inside = False
        while True:
            text = self.client.stdout.readline()
            if not text:
                raise RuntimeError("the tmux control client went away")
            text = text.rstrip("\n")
            if text.startswith("%begin"):
                inside, out = True, []
            elif inside and text.startswith(("%end", "%error")):
                if text.startswith("%error"):
                    raise RuntimeError(f"tmux: {' '.join(out)}")
                return out
            elif inside:
                out.append(text)

    def command(self, line: str) -> list[str]:
        """Run one tmux command; its output lines."""
        self._send(line)
        return self._block()

    def screen(self) -> str:
        return "\n".join(self.command("capture-pane -p -t app"))

    def keys(self, *keys: str) -> None:
        self.command("send-keys -t app " + " ".join(keys))

    def wait(self, test, timeout: float, poll: float = 0.1) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if "Traceback" in shown:
                raise RuntimeError(shown)
            if test(shown):
                return shown
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for the screen:\n{shown}")
            time.sleep(poll)

    def answered(self, key: str, test, timeout: float = 10.0) -> float | None:
        """Send `key` and time until `test(screen)` holds (polled every 2 ms); None if it never did."""
        sent = time.monotonic()
        self.keys(key)
        try:
            self.wait(test, timeout, poll=0.002)
        except RuntimeError:
            return None
        return time.monotonic() - sent

    def pane_pid(self) -> int:
        return int(self._format("#{pane_pid}"))

    def server_pid(self) -> int:
        return int(self._format("#{pid}"))

    def _format(self, fmt: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "display-message", "-p", "-t", "app", fmt],
                              capture_output=True, text=True, check=True).stdout

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.kill()
            self.client.wait(5)
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        # A killed server leaves its socket file behind: remove it, by its name.
        sockets = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}"
        (sockets / self.socket).unlink(missing_ok=True)


def labtui_pid(term: Tmux) -> int:
    shell = psutil.Process(term.pane_pid())  # the shell running the command, or labtui itself (sh execs it)
    (process,) = [p for p in [shell, *shell.children(recursive=True)]
                  if p.cmdline()[1:2] and p.cmdline()[1].endswith("labtui")]
    return process.pid


def under_tui(home: Path, target: Path, profile: str, measure_seconds: float, keys: bool, timeout: float) -> Outcome:
    """One run in the TUI; with `keys`, probing key latency while it runs, and ending with a confirmed cancel."""
    store = Store(home)
    store.save_settings(Settings(profile=profile, profile_origin="user", target=str(target)))
    before_files = {p.name for p in store.result_files()}
    term = Tmux(120, 35, f"env -u COLUMNS -u LINES LABTUI_HOME={home} TERM=xterm-256color {labtui()}")
    latencies: list[float] = []
    cancel = None
    try:
        term.wait(lambda s: "read at" in s or "[native]" in s, 30)
        term.keys("r")
        term.wait(lambda s: "[native]" in s, 30)
        meter, terminal = Meter(labtui_pid(term)), Meter(term.server_pid())
        term.keys("s")
        term.wait(lambda s: "measuring" in s, timeout, poll=0.02)
        measuring = time.monotonic()
        if keys:
            while True:
                # Irregular gaps, so the probes do not lock onto the screen's redraw timer.
                time.sleep(random.uniform(0.3, 0.7))
                if "measuring" not in (shown := term.screen()) or _seconds_left(shown) < 2.5:
                    break
                latencies.append(term.answered("x", lambda s: QUESTION in s))
                time.sleep(random.uniform(0.2, 0.4))
                latencies.append(term.answered("n", lambda s: QUESTION not in s))
                if None in latencies:
                    break  # a key went unanswered for 10 s: the run is over by now
            latencies.append(asked := term.answered("x", lambda s: QUESTION in s))
            measured = time.monotonic() - measuring  # the cancel ends the window
            if asked is not None:
                cancel = term.answered("y", lambda s: "Aborted:" in s or "Completed:" in s, timeout)
            term.wait(lambda s: "Aborted:" in s or "Completed:" in s, timeout, poll=0.05)
        else:
            term.wait(lambda s: "Completed:" in s, timeout, poll=0.05)
            measured = measure_seconds
        meter.stop()
        terminal.stop()
        cpu, woken = meter.rates(measuring, measuring + measured)
        drawing, _ = terminal.rates(measuring, measuring + measured)
    finally:
        term.close()
    result = new_result(store, before_files)
    return Outcome(*figures(result), cpu, woken, drawing, latencies, cancel, result.status)


def new_result(store: Store, before: set[str]):
    (new,) = [p for p in store.result_files() if p.name not in before]
    return store.read_result(new)


def figures(result) -> tuple[float, float | None]:
    """IOPS, and the workers' CPU seconds per 1,000 I/Os."""
    if not result.steps:
        return 0.0, None
    step = result.steps[0]
    ios = step.total.ios
    return step.total.iops, (1000 * step.cpu_seconds / ios if ios and step.cpu_seconds is not None else None)


def _seconds_left(screen: str) -> float:
    """Measured seconds left by the Run screen's status line ("measuring 0:03 of 0:10")."""
    found = re.search(r"measuring (\d+):(\d+) of (\d+):(\d+)", screen)
    if not found:
        return 0.0
    m1, s1, m2, s2 = map(int, found.groups())
    return (m2 * 60 + s2) - (m1 * 60 + s1)


def headless(home: Path, target: Path, profile: str, measure_seconds: float) -> Outcome:
    env = {**os.environ, "LABTUI_HOME": str(home)}
    before_files = {p.name for p in Store(home).result_files()}
    # A session of its own, as the TUI has in its tmux pane: with the kernel's autogroups, CPU
    # time is shared between sessions first, so both runs meet other work on equal terms.
    proc = subprocess.Popen([labtui(), "run", "-p", profile, "-t", str(target), "--yes", "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stderr is not None and proc.stdout is not None
    meter = Meter(proc.pid)
    began: list[float] = []

    def progress() -> None:  # the step's start, from the progress lines on stderr
        for line in proc.stderr:
            if not began and line.startswith("step 1/"):
                began.append(time.monotonic())

    reader = threading.Thread(target=progress, daemon=True)
    reader.start()
    out = proc.stdout.read()
    # Wait for it to end without reaping it: the meter reads its last CPU time meanwhile.
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    time.sleep(0.1)
    meter.stop()
    reader.join(5)
    if proc.wait() or not began:
        raise RuntimeError(f"labtui run failed with exit code {proc.returncode}")
    measuring = began[0] + WARMUP_SECONDS
    cpu, woken = meter.rates(measuring, measuring + measure_seconds)
    json.loads(out)  # a whole result was printed
    return Outcome(*figures(new_result(Store(home), before_files)), cpu, woken)


# --------------------------------------------------------------------------- main


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--duration", default="5s", help="measured time per run")
    parser.add_argument("--ram", action="store_true", help="build a RAM-backed ext4 loop device as the target (root)")
    parser.add_argument("--target", default="/var/tmp", help="a directory on the disk to test (without --ram)")
    parser.add_argument("--threads", type=int, default=2, help="worker processes of the TUI/headless pairs")
    parser.add_argument("--outstanding", type=int, default=16)
    parser.add_argument("--key-threads", type=int, default=2 * (os.cpu_count() or 1),
                        help="worker processes of the key-latency runs (default: 2 per CPU)")
    parser.add_argument("--key-duration", default="12s", help="measured time of the key-latency runs")
    parser.add_argument("--no-keys", action="store_true", help="leave out the key-latency runs")
    parser.add_argument("--labtui", help="the labtui program to measure (default: this Python's), e.g. an older build")
    args = parser.parse_args()
    if args.labtui:
        LABTUI[0] = str(Path(args.labtui).absolute())
    if not shutil.which("tmux"):
        print("tmux is needed (apt-get install tmux)", file=sys.stderr)
        return 2
    if args.pairs < 4:
        print(f"note: {args.pairs} pairs: figures for docs/performance.md need at least 4", file=sys.stderr)
    home = Path(tempfile.mkdtemp(prefix="labtui-tui-bench-"))
    (home / "profiles").mkdir()
    (home / "profiles" / "tui-bench.toml").write_text(PROFILE.format(
        name="tui-bench", threads=args.threads, outstanding=args.outstanding, duration=args.duration,
        warmup=WARMUP_SECONDS))
    (home / "profiles" / "tui-keys.toml").write_text(PROFILE.format(
        name="tui-keys", threads=args.key_threads, outstanding=args.outstanding, duration=args.key_duration,
        warmup=WARMUP_SECONDS))
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, home, ignore_errors=True)
        if args.ram:
            directory, device = stack.enter_context(ram_disk(RAM_IMAGE_BYTES, "tui-bench"))
            where = f"RAM-backed loop device {device} (ext4)"
        else:
            directory, where = Path(args.target), args.target
        target = directory / f"labtui-tui-bench-{uuid.uuid4().hex[:6]}"
        target.mkdir()  # the Run screen asks for a directory that exists (it creates none)
        stack.callback(shutil.rmtree, target, ignore_errors=True)
        return bench(args, home, target, where)


def bench(args, home: Path, target: Path, where: str) -> int:
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {os.uname().nodename}, {os.cpu_count()} CPUs, kernel "
          f"{os.uname().release}, target {where}; pairs: 4 KiB random reads {args.threads}x{args.outstanding}, "
          f"{args.duration} after 1 s warm-up; key runs: {args.key_threads}x{args.outstanding}, {args.key_duration}",
          flush=True)
    print("pair  first     TUI IOPS  headless IOPS  TUI/headless  workers CPU s/kIO TUI/headless  "
          "labtui CPU s/s TUI  headless  tmux  TUI wake-ups/s  keys ms median/worst  cancel s  load", flush=True)
    ratios, cpu_tui, cpu_plain, woken, latencies, cancels, ends, per_io, tmux = [], [], [], [], [], [], [], [], []
    unanswered = 0
    seconds = parse_duration(args.duration)
    for pair in range(args.pairs):
        tui_first = pair % 2 == 0
        if tui_first:
            tui = under_tui(home, target, "tui-bench", seconds, False, 120)
            plain = headless(home, target, "tui-bench", seconds)
        else:
            plain = headless(home, target, "tui-bench", seconds)
            tui = under_tui(home, target, "tui-bench", seconds, False, 120)
        ratios.append(tui.iops / plain.iops)
        cpu_tui.append(tui.cpu_per_second)
        cpu_plain.append(plain.cpu_per_second)
        woken.append(tui.wakeups_per_second)
        tmux.append(tui.terminal_cpu_per_second)
        if tui.workers_cpu_per_kio and plain.workers_cpu_per_kio:
            per_io.append(tui.workers_cpu_per_kio / plain.workers_cpu_per_kio)
        work = (f"{tui.workers_cpu_per_kio:.4f} / {plain.workers_cpu_per_kio:.4f}"
                if tui.workers_cpu_per_kio and plain.workers_cpu_per_kio else "-")
        keys = ""
        if not args.no_keys:
            keyed = under_tui(home, target, "tui-keys", parse_duration(args.key_duration), True, 120)
            answered = [t for t in keyed.latencies if t is not None]
            unanswered += len(keyed.latencies) - len(answered)
            latencies += answered
            if keyed.cancel_seconds is not None:
                cancels.append(keyed.cancel_seconds)
            ends.append(keyed.status)
            worst = f"{1000 * max(answered):.0f}" if len(answered) == len(keyed.latencies) else ">10000"
            cancel = f"{keyed.cancel_seconds:.2f}" if keyed.cancel_seconds is not None else "-"
            keys = (f"{1000 * statistics.median(answered) if answered else float('nan'):>9.0f} / {worst:<7}"
                    f"  {cancel:>5} {keyed.status}")
        print(f"{pair + 1:>4}  {'TUI' if tui_first else 'headless':<8} {tui.iops:>10,.0f}  {plain.iops:>13,.0f}  "
              f"{tui.iops / plain.iops:>12.3f}  {work:>31}  {tui.cpu_per_second:>18.4f}  {plain.cpu_per_second:>8.4f}  "
              f"{tui.terminal_cpu_per_second:.4f}  "
              f"{tui.wakeups_per_second:>14.0f}  {keys:<30}  {os.getloadavg()[0]:>4.1f}", flush=True)
    ratio = statistics.median(ratios)
    print(f"median TUI/headless IOPS {ratio:.3f} (range {min(ratios):.3f}–{max(ratios):.3f}, {len(ratios)} pairs); "
          f"geometric mean {statistics.geometric_mean(ratios):.3f}")
    print(f"labtui process CPU seconds per second of the measured time, median: TUI {statistics.median(cpu_tui):.4f}, "
          f"headless {statistics.median(cpu_plain):.4f} (the engine's workers not counted); "
          f"the TUI's threads woken {statistics.median(woken):.0f} times a second; the terminal (tmux) drawing "
          f"what the TUI writes: {statistics.median(tmux):.4f} CPU-s/s")
    if per_io:
        print(f"the workers' CPU per I/O, TUI / headless: median {statistics.median(per_io):.3f} "
              f"(whether watching disturbs the workers beyond the CPU the TUI itself takes)")
    rows = [("TUI IOPS / headless IOPS, median of the pairs", f"{ratio:.3f} ({min(ratios):.3f}–{max(ratios):.3f})"),
            ("the workers' CPU per I/O, TUI / headless, median of the pairs",
             f"{statistics.median(per_io):.3f}" if per_io else "-"),
            ("labtui process, CPU-s per second of the measured time: TUI / headless",
             f"{statistics.median(cpu_tui):.4f} / {statistics.median(cpu_plain):.4f}"),
            ("the terminal (tmux server) drawing the TUI, CPU-s per second", f"{statistics.median(tmux):.4f}"),
            ("the TUI's threads woken per second", f"{statistics.median(woken):.0f}")]
    if latencies:
        worst = f"{1000 * max(latencies):.0f} ms" + (f", {unanswered} unanswered after 10 s" if unanswered else "")
        cancel = (f"median {statistics.median(cancels):.2f} s, worst {max(cancels):.2f} s" if cancels
                  else "never asked")
        print(f"keys answered during {args.key_threads}-worker runs: median {1000 * statistics.median(latencies):.0f} ms, "
              f"90th percentile {1000 * quantile(latencies, 0.9):.0f} ms, worst {worst} ({len(latencies)} keys); "
              f"y to the run's end on screen: {cancel}; {ends.count('aborted')} of {len(ends)} runs "
              f"cancelled with y ended aborted")
        rows += [(f"keys (x, n) answered with {args.key_threads} workers on {os.cpu_count()} CPUs: median / worst",
                  f"{1000 * statistics.median(latencies):.0f} ms / {worst} ({len(latencies)} keys)"),
                 ("y to the run's end on screen; runs cancelled that ended aborted",
                  f"{cancel}; {ends.count('aborted')} of {len(ends)}")]
    print("\n| measured | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
