"""How fast History is with 2,000 results: opening it, and filtering as you type, in a real terminal.

Fills a scratch LABTUI_HOME with N result files (default 2,000; several profiles, disks, hosts
and engines, each step with its per-second samples, like real runs), then measures:

- reading the listing: every file parsed (no summary index yet), then from the index;
- History in labtui in tmux (120x35): from the `h` key until the newest rows are on screen,
  first with no index (a first start after an upgrade), then with it (every later start);
- filtering: a filter typed key by key at 8 keys a second (a fast typist); per key, the time
  until the screen shows what that prefix matches. "Keeps up" means each key's answer is on
  screen before the next key is typed.

    python benchmarks/history_open.py [--results 2000] [--runs 3]
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
from datetime import UTC, datetime, timedelta
from pathlib import Path

from labtui.model.result import DirectionStats, EngineInfo, HostInfo, LatencySummary, RunResult, Sample, StepResult, TargetInfo
from labtui.results.store import Store, builtin_profiles
from labtui.results.summaries import cache_path

DISKS = [
    TargetInfo(path="/mnt/nvme/labtui", device="/dev/nvme0n1p1", disk="nvme0n1", kind="NVMe",
               model="Samsung SSD 980 PRO 1TB", serial="S5GXNF0R123456", firmware="5B2QGXA7", filesystem="ext4",
               mount_point="/mnt/nvme", pcie_speed="8.0 GT/s PCIe", pcie_width=4),
    TargetInfo(path="/data/labtui", device="/dev/sda1", disk="sda", kind="SATA SSD", model="CT500MX500SSD1",
               serial="2027E2912345", firmware="M3CR033", filesystem="xfs", mount_point="/data"),
    TargetInfo(path="/mnt/wd/labtui", device="/dev/nvme1n1p1", disk="nvme1n1", kind="NVMe",
               model="WD_BLACK SN850X 4000GB", serial="23000A800001", firmware="620361WD", filesystem="ext4",
               mount_point="/mnt/wd", pcie_speed="16.0 GT/s PCIe", pcie_width=4),
]
HOSTS = ["labbox", "z8-lab", "win-lab7", "hp-g4"]
ENGINES = [EngineInfo("native", "0.1.0"), EngineInfo("fio", "3.33"), EngineInfo("diskspd", "2.2")]


def fake_result(i: int, started: datetime) -> RunResult:
    profiles = [p for p in builtin_profiles() if p.name in ("quick-sanity", "cdm-standard", "configmgr-sql-quick")]
    profile = profiles[i % len(profiles)]
    steps = []
    for n, step in enumerate(profile.steps):
        seconds = max(1, int(min(step.duration, 30)))
        iops = 2000 + (i * 37 + n * 911) % 50_000
        samples = tuple(
            Sample(t=k + 1.0, seconds=1.0, read_ios=0 if step.writes else iops + k,
                   read_bytes=0 if step.writes else (iops + k) * step.block_size,
                   write_ios=iops + k if step.writes else 0,
                   write_bytes=(iops + k) * step.block_size if step.writes else 0,
                   read_lat_mean_ms=None if step.writes else 0.5, read_lat_p99_ms=None if step.writes else 2.0,
                   write_lat_mean_ms=0.7 if step.writes else None, write_lat_p99_ms=3.0 if step.writes else None,
                   cpu_percent=10.0)
            for k in range(seconds)
        )
        stats = DirectionStats(iops * seconds, iops * seconds * step.block_size, float(seconds))
        latency = LatencySummary(mean=0.6, min=0.05, max=9.0, p50=0.5, p90=1.0, p95=1.4, p99=2.5, p999=5.0,
                                 p9999=8.0)
        steps.append(StepResult(step=step, read=DirectionStats() if step.writes else stats,
                                write=stats if step.writes else DirectionStats(), latency=latency,
                                cpu_percent=10.0, command_line="native: benchmark data", samples=samples))
    return RunResult(
        id=f"{started.strftime('%Y%m%d-%H%M%S')}-{i:04x}", status="completed" if i % 23 else "aborted",
        started=started, ended=started + timedelta(minutes=2),
        host=HostInfo(name=HOSTS[i % len(HOSTS)], os="Debian GNU/Linux 12", kernel="6.1.0", cpu_count=8),
        target=DISKS[i % len(DISKS)], engine=ENGINES[i % 7 % len(ENGINES)], profile=profile, steps=tuple(steps),
        tags=(("hp-adapter",) if i % 5 == 0 else ()) + (("after-swap",) if i % 11 == 0 else ()),
    )


def fill(home: Path, count: int) -> None:
    store = Store(home)
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for i in range(count):
        store.save_result(fake_result(i, base + timedelta(hours=3 * i)))


def time_listing(home: Path) -> tuple[float, float, float]:
    """(every file parsed, summaries without the index, summaries with the index) in seconds."""
    store = Store(home)
    cache_path(store).unlink(missing_ok=True)
    started = time.perf_counter()
    store.load_results()
    parsed = time.perf_counter() - started
    started = time.perf_counter()
    store.summaries()
    cold = time.perf_counter() - started
    started = time.perf_counter()
    store.summaries()
    warm = time.perf_counter() - started
    return parsed, cold, warm


class Terminal:
    def __init__(self, home: Path) -> None:
        self.session = f"labtui-bench-{uuid.uuid4().hex[:8]}"
        labtui = Path(sys.executable).parent / "labtui"
        command = f"env -u COLUMNS -u LINES LABTUI_HOME={home} TERM=xterm-256color {labtui}"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", "120", "-y", "35", command], check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.session], capture_output=True,
                              text=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.session, *(["-l"] if literal else []), *keys], check=True)

    def wait(self, test, timeout: float = 30.0, poll: float = 0.005) -> float:
        """Seconds until `test(screen)` holds."""
        started = time.perf_counter()
        while time.perf_counter() - started < timeout:
            if test(self.screen()):
                return time.perf_counter() - started
            time.sleep(poll)
        raise RuntimeError(f"timed out; the screen:\n{self.screen()}")

    def close(self) -> None:
        self.keys("q")
        time.sleep(0.3)
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)


def time_history(home: Path, count: int, cold: bool) -> float:
    if cold:
        cache_path(Store(home)).unlink(missing_ok=True)
    term = Terminal(home)
    try:
        term.wait(lambda s: "read at" in s)  # started, disks shown
        time.sleep(0.5)
        started = time.perf_counter()
        term.keys("h")
        term.wait(lambda s: f"{count} results" in s and "quick-sanity" in s)
        return time.perf_counter() - started
    finally:
        term.close()


def time_filter(home: Path, count: int, text: str, rows: Store) -> list[float]:
    """Seconds from each key of `text` to the screen showing what that prefix matches."""
    summaries, _ = rows.summaries()
    searches = [s.search_text() for s in summaries]
    term = Terminal(home)
    try:
        term.wait(lambda s: "read at" in s)
        term.keys("h")
        term.wait(lambda s: f"{count} results" in s)
        term.keys("/")
        time.sleep(0.3)
        delays = []
        for n in range(1, len(text) + 1):
            prefix = text[:n]
            words = prefix.lower().split()
            matches = sum(all(w in s for w in words) for s in searches)
            expected = f"{matches} of {count}" if matches != count else f"{count} results"
            sent = time.perf_counter()
            term.keys(text[n - 1], literal=True)
            term.wait(lambda s, expected=expected: expected in s, timeout=10, poll=0.002)
            delays.append(time.perf_counter() - sent)
            time.sleep(max(0.0, 0.125 - (time.perf_counter() - sent)))  # 8 keys a second
        return delays
    finally:
        term.close()


def describe(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):.0f} ms (range {ms[0]:.0f}–{ms[-1]:.0f} ms, {len(ms)} runs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--filter", default="samsung hp-adapter")
    args = parser.parse_args()
    if not shutil.which("tmux"):
        print("tmux is needed (apt-get install tmux)", file=sys.stderr)
        return 2
    home = Path(tempfile.mkdtemp(prefix="labtui-history-bench-"))
    try:
        started = time.perf_counter()
        fill(home, args.results)
        size = sum(p.stat().st_size for p in (home / "results").iterdir())
        print(f"{args.results} result files ({size / 2**20:.0f} MiB) written in {time.perf_counter() - started:.0f} s")
        parsed, cold, warm = zip(*(time_listing(home) for _ in range(args.runs)))
        print(f"every file parsed:              {describe(list(parsed))}")
        print(f"summaries, building the index:  {describe(list(cold))}")
        print(f"summaries from the index:       {describe(list(warm))}")
        cold_open = [time_history(home, args.results, cold=True) for _ in range(args.runs)]
        warm_open = [time_history(home, args.results, cold=False) for _ in range(args.runs)]
        print(f"History on screen, no index:    {describe(cold_open)}")
        print(f"History on screen, with index:  {describe(warm_open)}")
        delays = time_filter(home, args.results, args.filter, Store(home))
        late = sum(d > 0.125 for d in delays)
        print(f"filter {args.filter!r} typed at 8 keys/s: per key {describe(delays)}; "
              f"{late} of {len(delays)} keys answered after the next key was due")
        print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
