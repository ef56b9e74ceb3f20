"""labtui's pictures for the README and the manual, made by labtui itself.

Drives the TUI with Textual's Pilot at 120x35 on a made-up lab and saves every screen as an SVG in
docs/screenshots/: the tests' fake machine (its disks, volumes and engines: tests/support/tui_support.py),
synthetic results of known figures (tests/support/synthetic.py) and, for the Run and Fleet screens, typed
events replayed in place of an engine and of ssh. Nothing is read from this machine: the clock,
the host, the paths and the devices are fixed, so a picture comes out the same wherever it is made,
and tests/docs/test_docs_screenshots.py re-makes one and fails when the checked-in picture is stale.

    python docs/make_screenshots.py              # every picture
    python docs/make_screenshots.py run-live     # one (the names: python docs/make_screenshots.py --list)

The story the pictures tell: a lab box with a Samsung 980 PRO in a PCIe 3.0 slot. A quick-sanity
baseline (3 runs) before the adapter was swapped; after the swap the link trained at x2, and reads
and writes dropped by about half, at 90 % of the narrower link.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "screenshots"
SIZE = (120, 35)
sys.path[:0] = [str(REPO), str(REPO / "tests" / "support")]  # the tests' fake machine and synthetic results

from labtui.engine.events import (  # noqa: E402
    Event,
    PrepareProgress,
    RunFinished,
    RunStarted,
    SampleTaken,
    StepFinished,
    StepStarted,
)
from labtui.model.profile import Profile, Step  # noqa: E402
from labtui.model.result import (  # noqa: E402
    DirectionStats,
    EngineInfo,
    HostInfo,
    LatencySummary,
    RunResult,
    Sample,
    StepResult,
    TargetInfo,
)
from labtui.results.store import Store, builtin_profiles  # noqa: E402
from labtui.settings import Settings  # noqa: E402

# ---------------------------------------------------------------------------------------------- the lab

# The fake machine's clock reads local time; the pictures are made with local time = UTC.
NOW = datetime(2026, 12, 1, 10, 20, 0)  # noqa: DTZ001
HOST = HostInfo(name="lab-07", os="Debian GNU/Linux 12", kernel="6.1.0-28-amd64", cpu_model="Intel Xeon W-2245",
                cpu_count=16, ram_bytes=64 * 1024**3)
GEN3, GEN4 = "8.0 GT/s PCIe", "16.0 GT/s PCIe"
# The tests' fake Samsung 980 PRO (nvme0n1, in a PCIe 3.0 slot), its root volume holding /home/lab.
NVME = TargetInfo(path="/home/lab", device="/dev/nvme0n1p2", disk="nvme0n1", kind="NVMe",
                  model="Samsung SSD 980 PRO 1TB", serial="S5GXNX0T123456", firmware="5B2QGXA7", transport="nvme",
                  rotational=False, size_bytes=1000 * 1000**3, pcie_speed=GEN3, pcie_width=4, pcie_max_speed=GEN4,
                  pcie_max_width=4, pcie_port_max_speed=GEN3, pcie_port_max_width=16, filesystem="ext4",
                  mount_point="/")
NVME_X2 = replace(NVME, pcie_width=2)  # after the swap: the new adapter trained the link at two lanes
SATA = TargetInfo(path="/data/labtui", device="/dev/sda1", disk="sda", kind="SATA SSD", model="CT500MX500SSD1",
                  serial="2027E2912345", firmware="M3CR033", transport="sata", rotational=False,
                  size_bytes=500 * 1000**3, sata_speed="6.0 Gbps", sata_max_speed="6.0 Gbps", filesystem="xfs",
                  mount_point="/data")


def profile(name: str) -> Profile:
    return next(p for p in builtin_profiles() if p.name == name)


def wobble(i: int, seed: int, size: float) -> float:
    """A fixed, irregular-looking wiggle around 1 (no random numbers: the same on every machine)."""
    return 1 + size * (0.6 * math.sin(1.7 * i + seed) + 0.3 * math.sin(0.43 * i + 2 * seed) + 0.1 * math.sin(5.1 * i))


def samples(step: Step, iops_at: Callable[[int], float], seconds: int, *, cpu: float = 9.0,
            start: int = 1, seed: int = 0) -> list[Sample]:
    """One-second intervals t = start .. seconds; latency by Little's law (the I/Os in flight / IOPS)."""
    out = []
    for t in range(start, seconds + 1):
        iops = iops_at(t)
        ios = round(iops)
        reads = round(ios * (100 - step.write_percent) / 100)
        writes = ios - reads
        lat = step.queue_depth / iops * 1000
        out.append(Sample(t=float(t), seconds=1.0, read_ios=reads, read_bytes=reads * step.block_size,
                          write_ios=writes, write_bytes=writes * step.block_size,
                          read_lat_mean_ms=lat if reads else None, read_lat_p99_ms=2.6 * lat if reads else None,
                          write_lat_mean_ms=lat if writes else None, write_lat_p99_ms=3.1 * lat if writes else None,
                          cpu_percent=cpu * wobble(t + 11 * seed, 3, 0.15)))
    return out


ENGINE_CPU_PER_IO = 27e-6  # seconds of the engine's CPU per I/O, whatever the link lets through


def step_result(step: Step, per_second: list[Sample], repetition: int = 1) -> StepResult:
    """The step's totals from its intervals, as a run adds them up."""
    reads = sum(s.read_ios for s in per_second)
    writes = sum(s.write_ios for s in per_second)
    seconds = sum(s.seconds for s in per_second)
    lat = step.queue_depth * seconds / (reads + writes) * 1000
    summary = LatencySummary(mean=lat, min=lat / 6, max=lat * 9, p50=lat * 0.92, p90=lat * 1.6, p95=lat * 1.9,
                             p99=lat * 2.7, p999=lat * 4.2, p9999=lat * 6.5)
    cpu = sum(s.cpu_percent or 0 for s in per_second) / len(per_second)
    return StepResult(step=step, read=DirectionStats(reads, reads * step.block_size, seconds),
                      write=DirectionStats(writes, writes * step.block_size, seconds), latency=summary,
                      read_latency=summary if reads else LatencySummary(),
                      write_latency=summary if writes else LatencySummary(), cpu_percent=cpu,
                      cpu_seconds=(reads + writes) * ENGINE_CPU_PER_IO * wobble(repetition, reads % 7, 0.01),
                      repetition=repetition,
                      command_line=f"native: {step.threads} workers x {step.outstanding} outstanding, io_uring, O_DIRECT",
                      samples=tuple(per_second))


def quick_sanity(rid: str, started: datetime, target: TargetInfo, iops: tuple[float, float], *,
                 tags: tuple[str, ...] = (), host: HostInfo = HOST, seed: int = 0) -> RunResult:
    """quick-sanity's three runs of its 64K random read and write, at about `iops` (read, write), 1-2 % apart."""
    qs = profile("quick-sanity")
    steps = []
    for rep in range(1, qs.repeat + 1):
        for step, base in zip(qs.steps, iops):
            level = base * wobble(rep, seed + 7 * rep, 0.015)
            steps.append(step_result(step, samples(step, lambda t, lv=level, r=rep: lv * wobble(t, seed + r, 0.02),
                                                   int(step.duration), seed=seed + rep), rep))
    return RunResult(id=rid, status="completed", started=started, ended=started + timedelta(seconds=84),
                     host=host, target=target, engine=EngineInfo("native", "0.1.0"), profile=qs, steps=tuple(steps),
                     tags=tags)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# The figures the pictures show. 64 KiB reads: a PCIe 3.0 x4 link carries at most 3,938 MB/s, x2 1,969.
BEFORE = quick_sanity("20261130-142835-5d1e", utc(2026, 11, 30, 14, 28, 35), NVME, (52_400, 44_800),
                      tags=("startech-adapter",), seed=1)
AFTER = quick_sanity("20261201-100512-a7c3", utc(2026, 12, 1, 10, 5, 12), NVME_X2, (27_100, 26_400),
                     tags=("hp-adapter",), seed=2)
SATA_RUN = quick_sanity("20261129-163002-0b44", utc(2026, 11, 29, 16, 30, 2), SATA, (8_450, 4_900), seed=3)


def imported() -> RunResult:
    """An old DiskSpd run from a Windows box, as `labtui import` keeps it."""
    run = quick_sanity("20261120-091500-e1f0", utc(2026, 11, 20, 9, 15), replace(NVME, path="D:\\", mount_point="D:\\",
                       filesystem="NTFS", device=None, disk=None, pcie_speed=None, pcie_width=None,
                       pcie_max_speed=None, pcie_max_width=None, pcie_port_max_speed=None, pcie_port_max_width=None),
                       (51_900, 44_100), host=replace(HOST, name="win-lab7", os="Windows 11", kernel=None), seed=4)
    return replace(run, source="import", source_file="lab7-diskspd.xml", engine=EngineInfo("diskspd", "2.2"),
                   steps=run.steps[:2], profile=replace(run.profile, repeat=1))


def history() -> list[RunResult]:
    return [BEFORE, AFTER, SATA_RUN, imported()]


# ------------------------------------------------------------------------------------ a run, replayed


class Clock:
    """The app's clock: fixed, moved by the replayed run as a real one would move it."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


class ReplayedRunner:
    """Stands in for the engine's runner on the Run screen: typed events, each at its moment on the clock."""

    def __init__(self, clock: Clock, events: list[tuple[float, Event]], result: RunResult | None,
                 saved_path: Path | None = None) -> None:
        self.clock = clock
        self.script = events
        self.final = result
        self.engine = SimpleNamespace(name="native")
        self.result: RunResult | None = None
        self.saved_path = saved_path

    async def events(self) -> AsyncIterator[Event]:
        began = self.clock.now
        for at, event in self.script:
            self.clock.now = began + timedelta(seconds=at)
            yield event
        if self.final is None:
            await asyncio.Event().wait()  # mid-run: the picture is taken while it waits
        self.result = self.final


def run_events(result: RunResult, live: list[tuple[Step, list[Sample], list[Sample]]] = ()) -> list[tuple[float, Event]]:
    """The events of `result`'s run, at their seconds since it began; `live` steps then run on unfinished
    (warm-up and measured intervals as they come), where a picture of a run going is wanted."""
    p = result.profile
    total = len(result.steps) + len(live)
    events: list[tuple[float, Event]] = [(0.0, RunStarted(result.id, p, result.target, result.engine, total,
                                                          p.planned_seconds))]
    at = 0.0
    for done in range(1, 5):
        at += 0.5
        events.append((at, PrepareProgress(p.file_size * done // 4, p.file_size, at)))
    for index, s in enumerate(result.steps):
        events.append((at, StepStarted(index, total, s.step, s.repetition, s.command_line)))
        at += s.step.warmup
        for sample in s.samples:
            events.append((at + sample.t, SampleTaken(index, "measure", sample)))
        at += s.step.duration + 0.4
        events.append((at, StepFinished(index, s)))
    for offset, (step, warmup, measured) in enumerate(live):
        index = len(result.steps) + offset
        events.append((at, StepStarted(index, total, step, 1, measured[0] and _command(step))))
        for sample in warmup:
            events.append((at + step.warmup + sample.t, SampleTaken(index, "warmup", sample)))
        at += step.warmup
        for sample in measured:
            events.append((at + sample.t, SampleTaken(index, "measure", sample)))
    if not live:
        events.append((at, RunFinished(result, None)))
    return events


def _command(step: Step) -> str:
    return f"native: {step.threads} workers x {step.outstanding} outstanding, io_uring, O_DIRECT, O_DSYNC"


def live_write_run() -> tuple[RunResult, list[tuple[Step, list[Sample], list[Sample]]]]:
    """configmgr-sql-quick going on the 980 PRO: its 60 s read done, the write 48 s in, past the drive's
    write cache (about 41,000 IOPS for 22 s, then about 24,500)."""
    cq = profile("configmgr-sql-quick")
    read, write = cq.steps
    read_done = step_result(read, samples(read, lambda t: 52_900 * wobble(t, 5, 0.012), int(read.duration), cpu=11))

    def write_iops(t: int) -> float:
        fall = 1 / (1 + math.exp(t - 22))  # the cache fills over a few seconds
        return (24_500 + 16_500 * fall) * wobble(t, 9, 0.02)

    warmup = [replace(s, t=s.t - write.warmup - 1) for s in samples(write, lambda t: 41_000 * wobble(t, 2, 0.02),
                                                                   int(write.warmup), cpu=8)]
    measured = samples(write, write_iops, 48, cpu=8)
    started = utc(2026, 12, 1, 10, 18, 3)
    result = RunResult(id="20261201-101803-c4d2", status="completed", started=started, ended=started, host=HOST,
                       target=NVME, engine=EngineInfo("native", "0.1.0"), profile=cq, steps=(read_done,))
    return result, [(write, warmup, measured)]


# ---------------------------------------------------------------------------------------- the Fleet


def fleet_results() -> dict[str, RunResult]:
    """quick-sanity on four lab hosts at one instant: bench-03's drive sits in a slot whose link trained at x2."""
    started = utc(2026, 12, 1, 9, 0, 2)
    out = {}
    for n, (read, write) in enumerate([(52_400, 44_800), (51_800, 44_200), (27_000, 26_300), (52_900, 45_100)], 1):
        name = f"bench-0{n}"
        target = NVME_X2 if n == 3 else NVME
        host = replace(HOST, name=name)
        out[name] = quick_sanity(f"20261201-090002-{n:04x}", started, replace(target, path="/mnt/nvme/labtui",
                                 mount_point="/mnt/nvme"), (read, write), host=host, seed=10 + n)
    return out


HOSTS_FILE = "".join(f'[[hosts]]\nname = "bench-0{n}"\nssh = "lab@bench-0{n}.lab"\ntarget = "/mnt/nvme/labtui"\n\n'
                     for n in range(1, 5))


def replayed_fleet(results: dict[str, RunResult]) -> type:
    """labtui's Fleet, with each host's run replayed from its result instead of reached over ssh."""
    from labtui.fleet.host_run import COMPLETED
    from labtui.fleet.session import Fleet

    class ReplayedFleet(Fleet):
        async def run(self) -> list[Any]:
            for host_run in self.runs:
                result = results[host_run.name]
                for _, event in run_events(result):
                    if isinstance(event, RunFinished):
                        self._keep(host_run, result)
                    else:
                        self._apply(host_run, event)
                host_run.started = host_run.step = None
                self._end(host_run, COMPLETED, None)
            return self.runs

    return ReplayedFleet


# --------------------------------------------------------------------------------------- the pictures

Drive = Callable[[Any, Clock], Awaitable[None]]


@dataclass(frozen=True)
class Shot:
    caption: str
    drive: Drive  # from the app's start to the moment of the picture
    profile: str = "quick-sanity"  # the profile chosen (config.toml), as the top line shows it
    results: Callable[[], list[RunResult]] = list  # what the store holds when the app starts
    fleet: bool = False  # opened with the lab's hosts file, its hosts' runs replayed


SHOTS: dict[str, Shot] = {}


def shot(name: str, caption: str, **options: Any) -> Callable[[Drive], Drive]:
    def register(fn: Drive) -> Drive:
        SHOTS[name] = Shot(caption, fn, **options)
        return fn

    return register


async def _wait(pilot: Any, condition: Callable[[], object], what: str) -> None:
    from tui_support import wait_for

    await wait_for(pilot, condition, timeout=60, what=what)
    await pilot.pause(0.3)


async def _disks(pilot: Any) -> None:
    from tui_support import disks_ready

    await disks_ready(pilot)


async def _history(pilot: Any) -> Any:
    from labtui.screens.history import HistoryScreen

    await _disks(pilot)
    await pilot.press("h")
    await _wait(pilot, lambda: isinstance(pilot.app.screen, HistoryScreen) and pilot.app.screen.loaded, "History")
    return pilot.app.screen


async def _run_screen(pilot: Any) -> Any:
    from labtui.screens.run import RunScreen

    await _disks(pilot)
    await pilot.press("r")
    await _wait(pilot, lambda: isinstance(pilot.app.screen, RunScreen) and pilot.app.screen.engines, "the Run screen")
    return pilot.app.screen


@shot("disks", "Disks: every volume with its disk and link; the 980 PRO's PCIe 4.0 link held at 3.0 by its slot")
async def disks(pilot: Any, clock: Clock) -> None:
    await _disks(pilot)


@shot("workload", "Workload: a profile's steps, and the command line of each engine for the highlighted one",
      profile="configmgr-sql-quick")
async def workload(pilot: Any, clock: Clock) -> None:
    from tui_support import open_workload

    await _disks(pilot)
    await open_workload(pilot)
    await pilot.press("enter")  # into the profile's steps: the command lines follow the highlighted step
    await pilot.pause(0.3)


@shot("run-live", "Run, mid-run: the write step past the drive's write cache, live", profile="configmgr-sql-quick")
async def run_live(pilot: Any, clock: Clock) -> None:
    screen = await _run_screen(pilot)
    result, live = live_write_run()
    events = run_events(result, live)
    screen.begin(ReplayedRunner(clock, events, None))
    await _wait(pilot, lambda: screen.live is not None and screen.live.version >= len(events)
                and screen.live_view.drawn_version == screen.live.version, "the samples drawn")


@shot("run-done", "Run, at the end: the figures, what limited them, and the comparison with the run before",
      results=lambda: [BEFORE])
async def run_done(pilot: Any, clock: Clock) -> None:
    screen = await _run_screen(pilot)
    saved = Path("/home/lab/.local/share/labtui/results") / f"{AFTER.id}.toml"
    screen.begin(ReplayedRunner(clock, run_events(AFTER), AFTER, saved))
    await _wait(pilot, lambda: screen.state == "done" and screen.previous is not None, "the end and the comparison")


async def _before_and_after_marked(pilot: Any) -> None:
    """History, with the runs before and after the swap marked (Space), as for Compare."""
    from labtui.screens.history import ResultsTable

    table = (await _history(pilot)).query_one(ResultsTable)
    for rid in (BEFORE.id, AFTER.id):
        table.move_to(rid)
        await pilot.press("space")
    await pilot.pause(0.3)


@shot("history", "History: every result, runs and imports, filtered as you type; two marked for Compare", results=history)
async def history_shot(pilot: Any, clock: Clock) -> None:
    await _before_and_after_marked(pilot)


@shot("result", "Result: a step's charts, latency percentiles, command line and the hardware context", results=history)
async def result_shot(pilot: Any, clock: Clock) -> None:
    from labtui.screens.history import ResultsTable
    from labtui.screens.result import ResultScreen

    screen = await _history(pilot)
    screen.query_one(ResultsTable).move_to(BEFORE.id)
    await pilot.press("enter")
    await _wait(pilot, lambda: isinstance(pilot.app.screen, ResultScreen), "the result")


@shot("compare", "Compare: before and after the swap, the answer first (and why: the link), then a verdict per figure",
      results=history)
async def compare_shot(pilot: Any, clock: Clock) -> None:
    from labtui.screens.compare import CompareScreen

    await _before_and_after_marked(pilot)
    await pilot.press("c")
    await _wait(pilot, lambda: isinstance(pilot.app.screen, CompareScreen), "Compare")


@shot("fleet", "Fleet: quick-sanity on four hosts at once, each compared with the first", fleet=True)
async def fleet_shot(pilot: Any, clock: Clock) -> None:
    from labtui.screens.fleet import FleetScreen

    await _wait(pilot, lambda: isinstance(pilot.app.screen, FleetScreen) and pilot.app.screen.hosts, "the hosts")
    screen = pilot.app.screen
    await pilot.press("ctrl+s")  # it asks first (it writes to every host's disk): y starts it
    await _wait(pilot, lambda: pilot.app.screen is not screen, "Start's question")
    await pilot.press("y")
    await _wait(pilot, lambda: screen.summary is not None and not pilot.app.run_active, "the hosts' end")


# ------------------------------------------------------------------------------------------ making them


@contextlib.contextmanager
def fixed_world(home: Path, work: Path) -> Iterator[None]:
    """Local time UTC, a store of its own, no terminal settings of the shell, this directory as work; undone after."""
    from labtui.engine.native import uring

    saved_env = dict(os.environ)
    saved_cwd = Path.cwd()
    saved_probe = uring._probed
    for name in list(os.environ):
        if name.startswith(("LABTUI_", "TEXTUAL_")) or name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"):
            del os.environ[name]
    os.environ.update(TZ="UTC", TERM="xterm-256color", LABTUI_HOME=str(home), LABTUI_LOCK_DIR=str(work))
    time.tzset()
    uring._probed = None  # the native command lines name the io_uring loop, whatever this machine has
    os.chdir(work)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        uring._probed = saved_probe
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()


def prepared_store(home: Path, picture: Shot) -> Store:
    store = Store(home)
    store.save_settings(Settings(profile=picture.profile, profile_origin="builtin", target="/home/lab", engine="native"))
    for result in picture.results():
        store.save_result(result)
    return store


async def make(name: str, out: Path) -> Path:
    """Make the picture `name` in the directory `out`; its path."""
    from labtui.app import LabtuiApp
    from tui_support import FAKE_CWD, FAKE_HOME, fake_engines, fake_scan

    picture = SHOTS[name]
    with tempfile.TemporaryDirectory(prefix="labtui-shots-") as tmp, fixed_world(Path(tmp) / "home", Path(tmp)):
        store = prepared_store(Path(tmp) / "home", picture)
        hosts_file = None
        patched: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        if picture.fleet:
            Path(tmp, "lab.toml").write_text(HOSTS_FILE)
            hosts_file = "lab.toml"
            from unittest import mock

            patched = mock.patch("labtui.screens.fleet.Fleet", replayed_fleet(fleet_results()))
        clock = Clock()
        app = LabtuiApp(store=store, device_source=fake_scan, engine_check=fake_engines, clock=clock,
                        home=FAKE_HOME, cwd=FAKE_CWD, cursor_blink=False, plain_glyphs=False, hosts_file=hosts_file)
        with patched:
            async with app.run_test(size=SIZE) as pilot:
                await picture.drive(pilot, clock)
                svg = app.export_screenshot(title="labtui")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.svg"
    path.write_text(svg)
    return path


def comparison_export(out: Path) -> Path:
    """`labtui compare BEFORE AFTER --svg`'s own picture, for the comparing page."""
    from labtui.analysis.comparison import compare
    from labtui.render.comparison_svg import comparison_svg

    path = out / "compare-export.svg"
    path.write_text(comparison_svg(compare([BEFORE, AFTER])))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"pictures to make (default: all): {', '.join(SHOTS)}")
    parser.add_argument("--list", action="store_true", help="list the pictures and what each shows")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write them (default: docs/screenshots)")
    args = parser.parse_args(argv)
    if args.list:
        for name, picture in SHOTS.items():
            print(f"{name:12} {picture.caption}")
        return 0
    unknown = [n for n in args.names if n not in SHOTS and n != "compare-export"]
    if unknown:
        parser.error(f"no such picture: {', '.join(unknown)}")
    for name in args.names or [*SHOTS, "compare-export"]:
        path = comparison_export(args.out) if name == "compare-export" else asyncio.run(make(name, args.out))
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
