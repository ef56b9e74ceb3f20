"""Plain, realistic results, and broken result files, for tests (hypothesis strategies: strategies.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from labtui.model.profile import Profile, Step
from labtui.model.result import DirectionStats, EngineInfo, HostInfo, LatencySummary, RunResult, Sample, StepResult, TargetInfo
from labtui.results.result_file import result_to_toml
from labtui.results.store import builtin_profiles

MIB = 1024 * 1024


# A hosts file of two lab machines (the manual's shape): the first with no target of its own.
LAB = """
[[hosts]]
name = "bench-01"
ssh = "lab@bench-01.lab"

[[hosts]]
name = "bench-02"
ssh = "bench-02"
port = 2222
ssh_options = ["-J", "jump.lab", "-o", "ServerAliveInterval=2"]
target = "/mnt/nvme/labtui"
labtui = "~/venv/bin/python -m labtui"
env = { LABTUI_HOME = "/srv/lab tui", TZ = "UTC" }
"""

def make_result(result_id: str = "20240501-103005-beef", *, minutes: int = 0, **changes) -> RunResult:
    """A completed one-run quick-sanity on an NVMe disk: two steps, three samples each."""
    profile = replace(next(p for p in builtin_profiles() if p.name == "quick-sanity"), repeat=1)
    started = datetime(2024, 5, 1, 10, 30, 5, 123456, tzinfo=UTC) + timedelta(minutes=minutes)
    steps = []
    for index, step in enumerate(profile.steps):
        ios = 30_000 + index
        stats = DirectionStats(ios=ios, bytes=ios * step.block_size, seconds=10.0)
        samples = tuple(
            Sample(t=i + 1.0, seconds=1.0, read_ios=0 if step.writes else 3000, read_bytes=0 if step.writes else 3000 * 65536,
                   write_ios=3000 if step.writes else 0, write_bytes=3000 * 65536 if step.writes else 0,
                   read_lat_mean_ms=None if step.writes else 0.8, read_lat_p99_ms=None if step.writes else 2.5,
                   write_lat_mean_ms=1.1 if step.writes else None, write_lat_p99_ms=3.0 if step.writes else None,
                   cpu_percent=12.5)
            for i in range(3)
        )
        latency = LatencySummary(mean=0.9, min=0.05, max=12.0, p50=0.7, p90=1.5, p95=2.0, p99=2.5, p999=6.0, p9999=11.0)
        steps.append(StepResult(
            step=step,
            read=DirectionStats() if step.writes else stats,
            write=stats if step.writes else DirectionStats(),
            latency=latency,
            read_latency=LatencySummary() if step.writes else latency,
            write_latency=latency if step.writes else LatencySummary(),
            cpu_percent=12.5,
            cpu_seconds=3.25,
            command_line="native: 4 threads x 8 outstanding, O_DIRECT",
            samples=samples,
        ))
    result = RunResult(
        id=result_id,
        status="completed",
        started=started,
        ended=started + timedelta(seconds=30),
        host=HostInfo(name="labbox", os="Debian GNU/Linux 12", kernel="6.1.0", cpu_model="Xeon", cpu_count=8,
                      ram_bytes=32 * 1024**3),
        target=TargetInfo(path="/mnt/nvme/labtui", device="/dev/nvme0n1p1", disk="nvme0n1", kind="NVMe",
                          model="Samsung SSD 980 PRO 1TB", serial="S5GXNF0R123456", firmware="5B2QGXA7",
                          transport="nvme", rotational=False, size_bytes=1000204886016,
                          pcie_speed="8.0 GT/s PCIe", pcie_width=4, pcie_max_speed="16.0 GT/s PCIe",
                          pcie_max_width=4, filesystem="ext4", mount_point="/mnt/nvme"),
        engine=EngineInfo(name="native", version="0.1.0"),
        profile=profile,
        steps=tuple(steps),
        tags=("startech-adapter",),
    )
    return replace(result, **changes)


def configmgr_sql_result(result_id: str, mount: str, minutes: int = 0) -> RunResult:
    """A configmgr-sql result: its four steps, with the figures of make_result's two."""
    from labtui.machine.volume_sweep import volume_tag
    from volumes import vol

    sql = next(p for p in builtin_profiles() if p.name == "configmgr-sql")
    base = make_result(result_id, minutes=minutes)
    read, write = base.steps
    steps = tuple(replace(read if not s.writes else write, step=s) for s in sql.steps)
    return replace(base, profile=sql, steps=steps, tags=(volume_tag(vol(mount)),),
                   target=replace(base.target, mount_point=mount, path=f"{mount}/labtui"))

def broken_files(results_dir: Path) -> dict[str, Path]:
    """Every kind of file a results folder can hold that is not a labtui result."""
    good_text = result_to_toml(make_result("template"))
    results_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "empty": b"",
        "truncated": good_text.encode()[: len(good_text) // 2],
        "garbage": bytes(range(256)) * 4,
        "non-utf8": good_text.replace("labbox", "labb\u00f6x").encode("latin-1"),
        "wrong-schema": good_text.replace("schema = 1", "schema = 99", 1).encode(),
        "missing-schema": good_text.replace("schema = 1\n", "", 1).encode(),
        "foreign": b'[project]\nname = "something-else"\nversion = "1.0"\n',
        "unknown-key": good_text.replace('status = "completed"', 'status = "completed"\nmood = "happy"', 1).encode(),
        "bad-status": good_text.replace('status = "completed"', 'status = "great"', 1).encode(),
        "wrong-type": good_text.replace("cpu_count = 8", 'cpu_count = "eight"', 1).encode(),
        "missing-key": re.sub(r'\n(status|ended) = [^\n]*', "", good_text).encode(),
    }
    paths = {}
    for name, data in files.items():
        path = results_dir / f"{name}.toml"
        path.write_bytes(data)
        paths[name] = path
    folder = results_dir / "directory.toml"
    folder.mkdir()
    (folder / "inside.txt").write_text("a directory that happens to end in .toml")
    paths["directory"] = folder
    return paths


def results_and_broken(home: Path, results: int, broken: int = 40) -> None:
    """`results` whole results in the store at `home`, and `broken` copies of one cut short at 40 lengths."""
    from labtui.results.store import Store

    store = Store(home)
    for minutes in range(results):
        store.save_result(make_result(f"20240501-10300{minutes}-0001", minutes=minutes))
    text = result_to_toml(make_result()).encode()
    for number in range(broken):
        (home / "results" / f"broken-{number:02d}.toml").write_bytes(text[: 100 + number * 50])

def cut_off_host(tmp_path, finished_first: bool = False):
    """A host that sent two measured intervals of a step, then its link dropped: its session's view."""
    from labtui.engine.events import RunStarted, SampleTaken, StepFinished, StepStarted
    from labtui.fleet import wire
    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet
    from labtui.results.store import Store

    result = make_result()
    step = result.steps[0]
    fleet = Fleet([Host("beta", "beta")], lambda _host: {}, Store(tmp_path))
    beta = fleet.runs[0]
    index = 1 if finished_first else 0
    arrived = [
        RunStarted(result.id, result.profile, result.target, result.engine, 2, 24.8),
        *([StepStarted(0, 2, step.step, 1, step.command_line), StepFinished(0, step)] if finished_first else []),
        StepStarted(index, 2, step.step, 1, step.command_line),
        SampleTaken(index, "measure", Sample(t=1.0, seconds=1.0, read_ios=1000, read_bytes=65_536_000,
                                         read_lat_mean_ms=0.5, read_lat_p99_ms=2.0)),
        SampleTaken(index, "measure", Sample(t=2.0, seconds=1.0, read_ios=3000, read_bytes=196_608_000,
                                         read_lat_mean_ms=0.1, read_lat_p99_ms=1.0)),
    ]
    for event in arrived:  # as they came over the wire
        fleet._handle(beta, wire.loads(wire.dumps(wire.event_to_wire(event))))
    fleet._cut_off(beta, 255)
    return beta


def write_profile(**overrides) -> Profile:
    steps = (Step(name="write", block_size=65536, write_percent=100, threads=1, outstanding=4, duration=0.5,
                  warmup=0.0),)
    return Profile(**({"name": "w", "title": "w", "file_size": 16 * MIB, "free_space_margin": 0, "steps": steps} | overrides))
