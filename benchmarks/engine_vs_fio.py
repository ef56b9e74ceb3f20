"""Native engine against fio, side by side on the same file, in alternating pairs.

For each workload cell, runs the native engine and fio (libaio, O_DIRECT, same block size,
threads/jobs and outstanding I/Os per thread/job) in pairs whose order alternates, because the
disk's speed drifts from minute to minute. Prints per cell: median IOPS of each, the median of
the pairwise native/fio ratios, p99 latency of each, CPU seconds per 1000 I/Os of each, and a
cross-check of the native engine's I/O count against the kernel's per-disk counters.

    python benchmarks/engine_vs_fio.py --dir /var/tmp --file-size 2G --seconds 10 --pairs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from labtui.engine import devices
from labtui.engine.base import Job
from labtui.engine.events import StepFinished
from labtui.engine.native import NativeEngine
from labtui.engine.testfile import write_test_file
from labtui.model import Step
from labtui.units import parse_size

CELLS = {
    "4K rand read QD1": dict(block_size=4096, pattern="random", write_percent=0, threads=1, outstanding=1),
    "4K rand read 1x32": dict(block_size=4096, pattern="random", write_percent=0, threads=1, outstanding=32),
    "64K rand read 8x8": dict(block_size=65536, pattern="random", write_percent=0, threads=8, outstanding=8),
    "64K rand write 8x8": dict(block_size=65536, pattern="random", write_percent=100, threads=8, outstanding=8),
    "1M seq read 1x8": dict(block_size=1 << 20, pattern="sequential", write_percent=0, threads=1, outstanding=8),
    "16K rand 70/30 4x4": dict(block_size=16384, pattern="random", write_percent=30, threads=4, outstanding=4),
}


@dataclass
class Outcome:
    iops: float
    p99_ms: float | None
    cpu_per_kio: float | None
    kernel_ratio: float | None = None
    kernel_bytes_ratio: float | None = None


def disk_counts(disk: str | None) -> tuple[int, int] | None:
    """The disk's completed requests and bytes so far (reads and writes)."""
    if not disk:
        return None
    c = psutil.disk_io_counters(perdisk=True).get(disk)
    return (c.read_count + c.write_count, c.read_bytes + c.write_bytes) if c else None


def run_native(step: Step, path: Path, size: int, disk: str | None) -> Outcome:
    engine = NativeEngine()
    job = Job(path=path, file_size=size)

    async def go():
        result = None
        async for event in engine.run_step(step, job):
            if isinstance(event, StepFinished):
                result = event.result
        return result

    before = disk_counts(disk)
    result = asyncio.run(go())
    after = disk_counts(disk)
    if result is None or result.status != "completed":
        raise SystemExit(f"native run failed: {result.error if result else 'no result'}")
    ios = result.total.ios
    ratio = bytes_ratio = None
    if before is not None and after is not None and engine.last_all_phase_ios:
        # The block layer may merge adjacent sequential requests, so bytes are the sharper check.
        ratio = (after[0] - before[0]) / engine.last_all_phase_ios
        bytes_ratio = (after[1] - before[1]) / (engine.last_all_phase_ios * step.block_size)
    return Outcome(
        result.total.iops,
        result.latency.p99,
        1000 * result.cpu_seconds / ios if ios and result.cpu_seconds is not None else None,
        ratio,
        bytes_ratio,
    )


def fio_args(step: Step, path: Path, size: int) -> list[str]:
    rw = {("random", 0): "randread", ("random", 100): "randwrite", ("sequential", 0): "read",
          ("sequential", 100): "write"}.get((step.pattern, step.write_percent))
    if rw is None:
        rw = "randrw" if step.pattern == "random" else "rw"
    args = [
        "fio", "--name=bench", f"--filename={path}", f"--size={size}", f"--rw={rw}", f"--bs={step.block_size}",
        "--ioengine=libaio", "--direct=1", f"--iodepth={step.outstanding}", f"--numjobs={step.threads}",
        "--time_based", f"--runtime={step.duration:g}", f"--ramp_time={step.warmup:g}", "--norandommap",
        "--randrepeat=0", "--refill_buffers", "--lat_percentiles=1", "--output-format=json",
    ]
    if rw in ("randrw", "rw"):
        args.append(f"--rwmixread={100 - step.write_percent}")
    if step.pattern == "sequential" and step.threads > 1:
        region = (size // step.threads) // step.block_size * step.block_size
        args += [f"--size={region}", f"--offset_increment={region}"]
    return args


def run_fio(step: Step, path: Path, size: int) -> Outcome:
    out = subprocess.run(fio_args(step, path, size), capture_output=True, text=True, check=True)
    report = json.loads(out.stdout[out.stdout.index("{"):])
    ios = 0
    runtime_ms = 0
    cpu_seconds = 0.0
    p99s = []
    for job in report["jobs"]:
        for d in ("read", "write"):
            ios += job[d]["total_ios"]
            # lat (submission + completion), which is what the native engine measures; fio's
            # clat alone would leave out the time io_submit takes.
            pct = job[d].get("lat_ns", {}).get("percentile", {})
            if job[d]["total_ios"] and "99.000000" in pct:
                p99s.append((job[d]["total_ios"], pct["99.000000"] / 1e6))
        runtime_ms = max(runtime_ms, job["read"]["runtime"], job["write"]["runtime"])
        job_runtime = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000
        cpu_seconds += (job["usr_cpu"] + job["sys_cpu"]) / 100 * job_runtime
    iops = ios / (runtime_ms / 1000) if runtime_ms else 0.0
    # With several jobs, the I/O-weighted mean of their p99s stands in for the group's p99.
    p99 = sum(n * v for n, v in p99s) / sum(n for n, _ in p99s) if p99s else None
    return Outcome(iops, p99, 1000 * cpu_seconds / ios if ios else None)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, spec):
    return format(value, spec) if value is not None else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/var/tmp", help="directory on the disk to test")
    parser.add_argument("--file-size", default="2G")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--cells", nargs="*", help="subset of cells (substring match)")
    args = parser.parse_args()
    if not shutil.which("fio"):
        print("fio is not installed (apt-get install fio)", file=sys.stderr)
        return 2
    size = parse_size(args.file_size)
    directory = Path(args.dir)
    path = directory / f"labtui-bench-{os.getpid()}.dat"
    disk = devices.target_info(directory).disk
    cells = {k: v for k, v in CELLS.items() if not args.cells or any(c.lower() in k.lower() for c in args.cells)}
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} host {os.uname().nodename}, {psutil.cpu_count()} CPUs, "
          f"disk {disk}, {fio_version}; file {args.file_size} in {directory}; {args.seconds:g} s per run "
          f"after {args.warmup:g} s warm-up; {args.pairs} alternating pairs per cell", flush=True)
    try:
        write_test_file(path, size, direct=True)
        header = (f"{'cell':<20} {'native IOPS':>12} {'fio IOPS':>12} {'ratio':>7} {'p99 nat':>9} {'p99 fio':>9} "
                  f"{'CPU s/kIO nat':>14} {'CPU s/kIO fio':>14} {'kernel/nat IOs':>14} {'kernel/nat B':>12}")
        print(header)
        print("-" * len(header), flush=True)
        for name, fields in cells.items():
            step = Step(name=name, duration=args.seconds, warmup=args.warmup, **fields)
            natives, fios, ratios = [], [], []
            for pair in range(args.pairs):
                if pair % 2 == 0:
                    n, f = run_native(step, path, size, disk), run_fio(step, path, size)
                else:
                    f, n = run_fio(step, path, size), run_native(step, path, size, disk)
                natives.append(n)
                fios.append(f)
                ratios.append(n.iops / f.iops if f.iops else None)
            print(f"{name:<20} {fmt(median([o.iops for o in natives]), '12,.0f')} {fmt(median([o.iops for o in fios]), '12,.0f')} "
                  f"{fmt(median(ratios), '7.3f')} {fmt(median([o.p99_ms for o in natives]), '9.3f')} "
                  f"{fmt(median([o.p99_ms for o in fios]), '9.3f')} {fmt(median([o.cpu_per_kio for o in natives]), '14.4f')} "
                  f"{fmt(median([o.cpu_per_kio for o in fios]), '14.4f')} {fmt(median([o.kernel_ratio for o in natives]), '14.4f')} "
                  f"{fmt(median([o.kernel_bytes_ratio for o in natives]), '12.4f')}",
                  flush=True)
    finally:
        path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
