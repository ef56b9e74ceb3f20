"""Synthetic results with known figures, for comparison, export and baseline tests (no engine run)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from labtui.model.profile import Profile, Step
from labtui.model.result import DirectionStats, EngineInfo, HostInfo, LatencySummary, RunResult, Sample, StepResult, TargetInfo

if TYPE_CHECKING:
    from labtui.fleet.session import Fleet

READ = Step("Read 64K random", block_size=65536, pattern="random", write_percent=0, threads=4, outstanding=8,
            duration=10.0, warmup=2.0)
WRITE = replace(READ, name="Write 64K random", write_percent=100)
MIXED = replace(READ, name="Mixed 70/30", write_percent=30)
BASE_TIME = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
TARGET = TargetInfo(path="/mnt/lab", device="/dev/nvme0n1p1", disk="nvme0n1", kind="NVMe",
                    model="WD_BLACK SN850X 4000GB", serial="23000A800001", firmware="620361WD",
                    transport="nvme", pcie_speed="8.0 GT/s PCIe", pcie_width=4, filesystem="ext4",
                    mount_point="/mnt/lab")
HOST = HostInfo(name="z8-lab", os="Debian GNU/Linux 12", kernel="6.1.0", cpu_model="Xeon", cpu_count=16)


def step_result(step: Step, iops: float, repetition: int = 1, *, seconds: float | None = None,
                latency_ms: float | None = None, cpu: float | None = 20.0,
                interval_iops: Sequence[float] = (), status: str = "completed") -> StepResult:
    """A step that did `iops` over `seconds`; latency by Little's law unless given."""
    seconds = step.duration if seconds is None else seconds
    ios = round(iops * seconds)
    reads = round(ios * (100 - step.write_percent) / 100)
    read = DirectionStats(reads, reads * step.block_size, seconds)
    write = DirectionStats(ios - reads, (ios - reads) * step.block_size, seconds)
    lat = latency_ms if latency_ms is not None else (step.queue_depth / iops * 1000 if iops else None)
    summary = LatencySummary(mean=lat, min=lat / 4, max=lat * 5, p50=lat, p90=lat * 1.5, p95=lat * 1.7,
                             p99=lat * 2, p999=lat * 3, p9999=lat * 4) if lat else LatencySummary()
    samples = tuple(
        Sample(t=float(i + 1), seconds=1.0,
               read_ios=round(v * (100 - step.write_percent) / 100),
               read_bytes=round(v * (100 - step.write_percent) / 100) * step.block_size,
               write_ios=round(v) - round(v * (100 - step.write_percent) / 100),
               write_bytes=(round(v) - round(v * (100 - step.write_percent) / 100)) * step.block_size,
               read_lat_mean_ms=step.queue_depth / v * 1000 if step.write_percent < 100 else None,
               write_lat_mean_ms=step.queue_depth / v * 1000 if step.write_percent > 0 else None,
               cpu_percent=cpu)
        for i, v in enumerate(interval_iops)
    )
    return StepResult(step=step, status=status, read=read, write=write, latency=summary,
                      read_latency=summary if reads else LatencySummary(),
                      write_latency=summary if ios - reads else LatencySummary(),
                      cpu_percent=cpu, repetition=repetition, command_line="synthetic", samples=samples)


def run_result(rid: str, figures: dict[Step, Sequence[float]], *, engine: str = "native", minutes: int = 0,
               target: TargetInfo = TARGET, host: HostInfo = HOST, order: Sequence[Step] | None = None,
               status: str = "completed", profile_name: str = "quick-sanity", tags: Sequence[str] = (),
               intervals: dict[Step, Sequence[Sequence[float]]] | None = None, **step_kw) -> RunResult:
    """A result whose steps (in `order`, default the dict's) did the given IOPS, one value per repetition."""
    order = list(order or figures)
    repeat = max(len(v) for v in figures.values())
    steps = []
    for rep in range(repeat):
        for step in order:
            values = figures[step]
            if rep < len(values):
                ivals = (intervals or {}).get(step, [()] * len(values))[rep]
                steps.append(step_result(step, values[rep], rep + 1, interval_iops=ivals, **step_kw))
    profile = Profile(profile_name, title="Synthetic", file_size=1024**3, repeat=repeat, steps=tuple(order))
    started = BASE_TIME + timedelta(minutes=minutes)
    return RunResult(id=rid, status=status, started=started, ended=started + timedelta(minutes=1), host=host,
                     target=target, engine=EngineInfo(engine, "1.0"), profile=profile, steps=tuple(steps),
                     tags=tuple(tags))


# The seed post's drive: a PCIe 4.0 x4 SN850X held at 8 GT/s by the PCIe 3.0 adapters it was tried on.
GEN3, GEN4 = "8.0 GT/s PCIe", "16.0 GT/s PCIe"
SEED_TARGET = replace(TARGET, pcie_speed=GEN3, pcie_width=4, pcie_max_speed=GEN4, pcie_max_width=4)


def iops_for(mib_s: float, step: Step = READ) -> float:
    return mib_s * 1024 * 1024 / step.block_size


def seed_pair(target_a: TargetInfo = SEED_TARGET, target_b: TargetInfo = SEED_TARGET) -> tuple[RunResult, RunResult]:
    """The post's two adapters: StarTech and HP, their 64K reads and writes in MiB/s as it printed them."""
    a = run_result("startech", {READ: [iops_for(3366)], WRITE: [iops_for(3270, WRITE)]}, target=target_a)
    b = run_result("hp", {READ: [iops_for(3393)], WRITE: [iops_for(3270, WRITE)]}, target=target_b)
    return a, b


def runs(mean: float, sd: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [mean * rng.lognormvariate(0.0, sd) for _ in range(n)]


def pair(read_b: float = 50_000, *, sd: float = 0.01, n: int = 3, **b_changes):
    """A and B: B's runs scatter as A's do (other draws), its reads moved to `read_b` on average."""
    reads, writes = runs(50_000, sd, n, 1), runs(40_000, sd, n, 2)
    a = run_result("a", {READ: reads, WRITE: writes})
    shift = read_b / 50_000
    b = run_result("b", {READ: [v * shift for v in runs(50_000, sd, n, 3)], WRITE: runs(40_000, sd, n, 1)},
                   minutes=5, **b_changes)
    return a, b


def completed_fleet(count: int, slow: int = 5) -> Fleet:
    """`count` hosts that completed, three runs each; host number `slow` + 1 writes at half speed."""
    from labtui.fleet.host_run import COMPLETED
    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet

    fleet = Fleet([Host(f"lab-node-{i:02d}", f"lab@192.0.2.{i}") for i in range(1, count + 1)], lambda _h: {},
                  None)  # type: ignore[arg-type]  # nothing is stored
    for i, r in enumerate(fleet.runs):
        write = [400, 402, 398] if i == slow else [800 + 11 * i, 805 + 11 * i, 795 + 11 * i]
        result = run_result(f"20240501-1000{i:02d}-beef", {READ: [1000 + 37 * i, 1010 + 37 * i, 990 + 37 * i],
                                                          WRITE: write})
        r.results.append(result)
        r.state = COMPLETED
        r.saved.append(f"/root/.local/share/labtui/results/{result.id}.toml")
    fleet.start_instant = 1.0
    return fleet


def sample(t: float, reads: int, writes: int = 0, *, seconds: float = 1.0, lat: float = 1.0, cpu: float = 10.0,
           p99: float = 3.0) -> Sample:
    """One interval of `reads` and `writes` 4 KiB I/Os, their latencies given only where there were any."""
    return Sample(t=t, seconds=seconds, read_ios=reads, read_bytes=reads * 4096, write_ios=writes,
                  write_bytes=writes * 4096, read_lat_mean_ms=lat if reads else None,
                  read_lat_p99_ms=p99 if reads else None, write_lat_mean_ms=2 * lat if writes else None,
                  write_lat_p99_ms=2 * p99 if writes else None, cpu_percent=cpu)
