"""Native engine against fio, side by side on the same file, in alternating pairs.

For each workload cell, runs the native engine and fio (libaio, and io_uring with --uring;
O_DIRECT, same block size, threads/jobs and outstanding I/Os per thread/job) in pairs whose
order alternates, because a disk's speed drifts from minute to minute. Prints per cell: the
median IOPS of each, the median of the pairwise native/fio ratios with their spread (lowest
and highest pair), p99 latency of each, CPU seconds per 1,000 I/Os of each, which I/O loop
the native engine ran, whether it was CPU-bound, and its I/O requests and bytes against the
kernel's per-disk counters. A cell with one I/O in flight per thread also runs fio's psync
engine in each pair (one blocking pread/pwrite per I/O, as the native loop there) and says how
the native engine does against it after the table. Then the test file's preparation against
fio's sequential write of a new file of the same size, in three times as many alternating pairs
(each takes a fraction of a second).

`--ram` (root) measures the engines' own cost: it builds a RAM-backed disk (a loop device over
a file in /dev/shm, ext4, mounted under /mnt/engine-bench-<pid>; `--ram NAME` names it after NAME
instead, on a machine several people share) and removes it afterwards. `--workers per-thread`
runs the native engine with a process per thread (native_workers), as DiskSpd and fio do.

    python benchmarks/engine_vs_fio.py --ram --file-size 1G --seconds 5 --pairs 5 --uring
    python benchmarks/engine_vs_fio.py --dir /var/tmp --file-size 2G --seconds 10 --pairs 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import psutil

from labtui.engine.base import Job
from labtui.engine.events import StepFinished
from labtui.engine.native.engine import NativeEngine
from labtui.engine.testfile import write_test_file
from labtui.machine import devices
from labtui.model.profile import Step
from labtui.settings import EngineSettings
from labtui.units import parse_size
from ramdisk import ram_disk as _ram_disk  # beside this script

CELLS = {
    "4K rand read QD1": dict(block_size=4096, pattern="random", write_percent=0, threads=1, outstanding=1),
    "4K rand read 1x32": dict(block_size=4096, pattern="random", write_percent=0, threads=1, outstanding=32),
    "4K rand read 4x32": dict(block_size=4096, pattern="random", write_percent=0, threads=4, outstanding=32),
    "4K rand 70/30 1x32": dict(block_size=4096, pattern="random", write_percent=30, threads=1, outstanding=32),
    "16K rand 70/30 4x4": dict(block_size=16384, pattern="random", write_percent=30, threads=4, outstanding=4),
    "64K rand read 8x8": dict(block_size=65536, pattern="random", write_percent=0, threads=8, outstanding=8),
    "64K rand write 8x8": dict(block_size=65536, pattern="random", write_percent=100, threads=8, outstanding=8),
    "1M seq read 1x8": dict(block_size=1 << 20, pattern="sequential", write_percent=0, threads=1, outstanding=8),
    # Several workers per CPU, each with few I/Os in flight (a 2-CPU machine; CrystalDiskMark's
    # Q32T16 and the ConfigMgr script's 8-32 threads run inside lab VMs of 2-4 vCPUs).
    "4K rand 50/50 4x8": dict(block_size=4096, pattern="random", write_percent=50, threads=4, outstanding=8),
    "4K rand read 8x4": dict(block_size=4096, pattern="random", write_percent=0, threads=8, outstanding=4),
    "8K rand 70/30 8x2": dict(block_size=8192, pattern="random", write_percent=30, threads=8, outstanding=2),
    "32K rand read 16x2": dict(block_size=32768, pattern="random", write_percent=0, threads=16, outstanding=2),
}
PREPARE = "preparation"  # the test file's writing against fio's sequential write


@dataclass
class Outcome:
    iops: float
    p99_ms: float | None
    cpu_per_kio: float | None
    kernel_ratio: float | None = None
    kernel_bytes_ratio: float | None = None
    backend: str | None = None
    cpu_bound: bool = False
    processes: int | None = None  # the native engine's: how many carried its logical workers


def disk_counts(disk: str | None) -> tuple[int, int] | None:
    """The disk's completed requests and bytes so far (reads and writes)."""
    if not disk:
        return None
    c = psutil.disk_io_counters(perdisk=True).get(disk)
    return (c.read_count + c.write_count, c.read_bytes + c.write_bytes) if c else None


def run_native(step: Step, path: Path, size: int, disk: str | None, settings: EngineSettings) -> Outcome:
    seen: list = []  # the engine's StepObservation: every I/O of the step, warm-up and drain included
    engine = NativeEngine(replace(settings, observe=seen.append))
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
    all_phase_ios = seen[-1].all_phase_ios if seen else 0
    if before is not None and after is not None and all_phase_ios:
        # The block layer may merge adjacent sequential requests, so bytes are the sharper check.
        ratio = (after[0] - before[0]) / all_phase_ios
        bytes_ratio = (after[1] - before[1]) / (all_phase_ios * step.block_size)
    return Outcome(
        result.total.iops,
        result.latency.p99,
        1000 * result.cpu_seconds / ios if ios and result.cpu_seconds is not None else None,
        ratio,
        bytes_ratio,
        result.backend,
        bool(result.engine_bound),
        result.processes,
    )


def fio_args(step: Step, path: Path, size: int, ioengine: str) -> list[str]:
    rw = {("random", 0): "randread", ("random", 100): "randwrite", ("sequential", 0): "read",
          ("sequential", 100): "write"}.get((step.pattern, step.write_percent))
    if rw is None:
        rw = "randrw" if step.pattern == "random" else "rw"
    args = [
        "fio", "--name=bench", f"--filename={path}", f"--size={size}", f"--rw={rw}", f"--bs={step.block_size}",
        f"--ioengine={ioengine}", "--direct=1", f"--iodepth={step.outstanding}", f"--numjobs={step.threads}",
        "--time_based", f"--runtime={round(step.duration * 1000)}ms", f"--ramp_time={round(step.warmup * 1000)}ms",
        "--norandommap",
        "--randrepeat=0", "--refill_buffers", "--lat_percentiles=1", "--output-format=json",
    ]
    if rw in ("randrw", "rw"):
        args.append(f"--rwmixread={100 - step.write_percent}")
    if step.pattern == "sequential" and step.threads > 1:
        region = (size // step.threads) // step.block_size * step.block_size
        args += [f"--size={region}", f"--offset_increment={region}"]
    return args


def fio_report(args: list[str]) -> dict:
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout[out.stdout.index("{"):])


def run_fio(step: Step, path: Path, size: int, ioengine: str = "libaio") -> Outcome:
    report = fio_report(fio_args(step, path, size, ioengine))
    ios = 0
    runtime_ms = 0
    cpu_seconds = 0.0
    p99s = []
    for job in report["jobs"]:
        for d in ("read", "write"):
            ios += job[d]["total_ios"]
            # lat (submission + completion), which is what the native engine measures; fio's
            # clat alone would leave out the time the submission takes.
            pct = job[d].get("lat_ns", {}).get("percentile", {})
            if job[d]["total_ios"] and "99.000000" in pct:
                p99s.append((job[d]["total_ios"], pct["99.000000"] / 1e6))
        runtime_ms = max(runtime_ms, job["read"]["runtime"], job["write"]["runtime"])
        job_runtime = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000
        cpu_seconds += (job["usr_cpu"] + job["sys_cpu"]) / 100 * job_runtime
    iops = ios / (runtime_ms / 1000) if runtime_ms else 0.0
    # With several jobs, the I/O-weighted mean of their p99s stands in for the group's p99.
    p99 = sum(n * v for n, v in p99s) / sum(n for n, _ in p99s) if p99s else None
    return Outcome(iops, p99, 1000 * cpu_seconds / ios if ios else None, backend=ioengine)


def run_prepare_native(path: Path, size: int) -> Outcome:
    """MiB/s of labtui's test-file preparation (a new file, written in full, flushed)."""
    # The process's CPU clock (every thread, to the nanosecond): psutil's cpu_times() counts in
    # 10 ms ticks, a twentieth of a 1 GiB preparation on the RAM device.
    cpu0 = time.process_time()
    t0 = time.monotonic()
    write_test_file(path, size, direct=True)
    seconds = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    path.unlink()
    ios = size / (4 << 20)
    return Outcome(size / seconds / (1 << 20), None, 1000 * cpu / ios)


def run_prepare_fio(path: Path, size: int) -> Outcome:
    """MiB/s of fio writing a new file of the same size sequentially (4 MiB blocks, 4 in flight)."""
    args = ["fio", "--name=prep", f"--filename={path}", f"--size={size}", "--rw=write", "--bs=4M",
            "--ioengine=libaio", "--direct=1", "--iodepth=4", "--end_fsync=1", "--fallocate=none",
            "--output-format=json"]
    report = fio_report(args)
    path.unlink()
    job = report["jobs"][0]
    seconds = job["job_runtime"] / 1000
    ios = job["write"]["total_ios"]
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * seconds
    return Outcome(job["write"]["io_bytes"] / seconds / (1 << 20), None, 1000 * cpu / ios if ios else None,
                   backend="libaio")


def load() -> float:
    """The machine's 1-minute load average: a cell measured while other work ran says so."""
    return os.getloadavg()[0]


def commit() -> str:
    """The labtui checkout's commit, "+changes" where its files differ from it."""
    here = Path(__file__).resolve().parent
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here, capture_output=True,
                           text=True)
    return (head.stdout.strip() or "unknown") + ("+changes" if dirty.stdout.strip() else "")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, spec):
    return format(value, spec) if value is not None else "-"


@contextlib.contextmanager
def ram_disk(size: int, name: str):
    """A RAM-backed ext4 file system for the test file, the preparation's, and ext4's own blocks."""
    with _ram_disk(2 * size + (512 << 20), name) as (mount, _loop):
        yield mount


def pairs(count: int, first, second) -> list[tuple]:
    """`count` pairs (a, b), the order of each run alternating: a b, b a, a b ..."""
    out = []
    for pair in range(count):
        if pair % 2 == 0:
            a = first()
            b = second()
        else:
            b = second()
            a = first()
        out.append((a, b))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/var/tmp", help="directory on the disk to test")
    parser.add_argument("--ram", nargs="?", const="engine-bench", metavar="NAME",
                        help="build a RAM-backed disk and test on it (root): /dev/shm/NAME-<pid>.img, "
                             "mounted at /mnt/NAME-<pid> (NAME: engine-bench unless given)")
    parser.add_argument("--file-size", default="2G")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--uring", action="store_true", help="also run fio's io_uring engine (the moonshot)")
    parser.add_argument("--backend", default="auto", help="the native engine's I/O loop (native_backend)")
    parser.add_argument("--workers", default="auto", choices=("auto", "per-thread"),
                        help="how the native engine carries the threads (native_workers)")
    parser.add_argument("--cells", nargs="*", help="subset of cells (substring match; 'preparation' included)")
    args = parser.parse_args()
    if not shutil.which("fio"):
        print("fio is not installed (apt-get install fio)", file=sys.stderr)
        return 2
    if args.pairs < 5:
        print(f"note: {args.pairs} pairs: figures for docs/performance.md need at least 5", file=sys.stderr)
    size = parse_size(args.file_size)
    with ram_disk(size, args.ram) if args.ram else contextlib.nullcontext(Path(args.dir)) as directory:
        return bench(args, size, Path(directory))


def bench(args, size: int, directory: Path) -> int:
    path = directory / f"labtui-bench-{os.getpid()}.dat"
    prep_path = directory / f"labtui-bench-prep-{os.getpid()}.dat"
    disk = devices.target_info(directory).disk
    wanted = lambda name: not args.cells or any(c.lower() in name.lower() for c in args.cells)  # noqa: E731
    cells = {k: v for k, v in CELLS.items() if wanted(k)}
    settings = EngineSettings(native_backend=args.backend, native_workers=args.workers)
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    cpu_model = devices.host_info().cpu_model or "unknown CPU"
    print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')} host {os.uname().nodename} ({cpu_model}, {psutil.cpu_count()} CPUs), "
          f"kernel {os.uname().release}, disk {disk}{' (RAM-backed loop device)' if args.ram else ''}, {fio_version}; "
          f"file {args.file_size} in {directory}; {args.seconds:g} s per run after {args.warmup:g} s warm-up; "
          f"{args.pairs} alternating pairs per cell; labtui at {commit()}, native_workers {args.workers}; "
          f"load average {load():.1f} at the start", flush=True)
    rows = []
    try:
        if cells:
            write_test_file(path, size, direct=True)
        header = (f"{'cell':<20} {'loop x procs':>11} {'native IOPS':>12} {'fio IOPS':>12} {'ratio':>7} {'spread':>13} "
                  f"{'p99 nat':>8} {'p99 fio':>8} {'CPU/kIO nat':>11} {'CPU/kIO fio':>11} {'CPU ratio':>9} "
                  f"{'bound':>5} {'kern IOs':>8} {'kern B':>7}"
                  + (f" {'uring IOPS':>11} {'/uring':>7} {'CPU/kIO ur':>10}" if args.uring else "") + f" {'load':>5}")
        print(header)
        print("-" * len(header), flush=True)
        for name, fields in cells.items():
            step = Step(name=name, duration=args.seconds, warmup=args.warmup, **fields)
            # fio's engines run back to back in each pair: libaio (the target's), io_uring with
            # --uring, and psync where one I/O is in flight (the blocking loop's own kind).
            engines = ["libaio"] + (["io_uring"] if args.uring else []) + (["psync"] if step.outstanding == 1 else [])
            runs = pairs(args.pairs, lambda step=step: run_native(step, path, size, disk, settings),
                         lambda step=step, engines=engines: {e: run_fio(step, path, size, e) for e in engines})
            natives = [n for n, _ in runs]
            fios = [f["libaio"] for _, f in runs]
            urings = [f["io_uring"] for _, f in runs if "io_uring" in f]
            row = report_row(name, natives, fios, urings)
            psyncs = [f["psync"] for _, f in runs if "psync" in f]
            if psyncs:
                row["psync"] = psync_note(name, natives, psyncs)
                print(row["psync"], flush=True)
            rows.append(row)
        if wanted(PREPARE):
            # Three times the pairs: a preparation takes a fifth of a second on the RAM device,
            # where one scheduling hiccup moves a pair by a third.
            runs = pairs(3 * args.pairs, lambda: run_prepare_native(prep_path, size),
                         lambda: run_prepare_fio(prep_path, size))
            rows.append(report_row(PREPARE, [n for n, _ in runs], [f for _, f in runs], [], unit="MiB/s"))
    finally:
        path.unlink(missing_ok=True)
        prep_path.unlink(missing_ok=True)
    print()
    print_markdown(rows, args.uring)
    notes = [r["psync"] for r in rows if r.get("psync")]
    if notes:
        print()
        for note in notes:
            print(f"- {note}")
    return 0


def psync_note(name: str, natives: list[Outcome], psyncs: list[Outcome]) -> str:
    """The native engine against fio's psync engine (one blocking call per I/O) in the same pairs."""
    ratios = [n.iops / p.iops for n, p in zip(natives, psyncs) if p.iops]
    cpu_n = median([o.cpu_per_kio for o in natives])
    cpu_p = median([o.cpu_per_kio for o in psyncs])
    cpu_ratio = cpu_n / cpu_p if cpu_n and cpu_p else None
    return (f"{name} against fio's psync engine in the same pairs: {fmt(median([o.iops for o in psyncs]), ',.0f')} IOPS, "
            f"native/psync {fmt(median(ratios), '.3f')} ({fmt(min(ratios) if ratios else None, '.3f')}-"
            f"{fmt(max(ratios) if ratios else None, '.3f')}), CPU s/kIO psync {fmt(cpu_p, '.4f')} "
            f"(native/psync {fmt(cpu_ratio, '.3f')})")


def report_row(name: str, natives: list[Outcome], fios: list[Outcome], urings: list[Outcome], unit: str = "IOPS") -> dict:
    ratios = [n.iops / f.iops for n, f in zip(natives, fios) if f.iops]
    uring_ratios = [n.iops / u.iops for n, u in zip(natives, urings) if u.iops]
    row = {
        "cell": name,
        "unit": unit,
        "backend": "/".join(sorted({n.backend for n in natives if n.backend})) or "-",
        "processes": "/".join(str(p) for p in sorted({n.processes for n in natives if n.processes})) or "-",
        "load": load(),
        "native": median([o.iops for o in natives]),
        "fio": median([o.iops for o in fios]),
        "ratio": median(ratios),
        "low": min(ratios) if ratios else None,
        "high": max(ratios) if ratios else None,
        "p99_native": median([o.p99_ms for o in natives]),
        "p99_fio": median([o.p99_ms for o in fios]),
        "cpu_native": median([o.cpu_per_kio for o in natives]),
        "cpu_fio": median([o.cpu_per_kio for o in fios]),
        "bound": sum(o.cpu_bound for o in natives),
        "runs": len(natives),
        "kernel": median([o.kernel_ratio for o in natives]),
        "kernel_bytes": median([o.kernel_bytes_ratio for o in natives]),
        "uring": median([o.iops for o in urings]),
        "uring_ratio": median(uring_ratios),
        "cpu_uring": median([o.cpu_per_kio for o in urings]),
    }
    cpu_ratio = row["cpu_native"] / row["cpu_fio"] if row["cpu_native"] and row["cpu_fio"] else None
    row["cpu_ratio"] = cpu_ratio
    spread = f"{fmt(row['low'], '.3f')}-{fmt(row['high'], '.3f')}"
    loop = f"{row['backend']} x{row['processes']}" if row["processes"] != "-" else row["backend"]
    row["loop"] = loop
    line = (f"{name:<20} {loop:>11} {fmt(row['native'], '12,.0f')} {fmt(row['fio'], '12,.0f')} "
            f"{fmt(row['ratio'], '7.3f')} {spread:>13} {fmt(row['p99_native'], '8.3f')} {fmt(row['p99_fio'], '8.3f')} "
            f"{fmt(row['cpu_native'], '11.4f')} {fmt(row['cpu_fio'], '11.4f')} {fmt(cpu_ratio, '9.3f')} "
            f"{row['bound']:>2}/{row['runs']:<2} {fmt(row['kernel'], '8.4f')} {fmt(row['kernel_bytes'], '7.4f')}")
    if urings:
        line += f" {fmt(row['uring'], '11,.0f')} {fmt(row['uring_ratio'], '7.3f')} {fmt(row['cpu_uring'], '10.4f')}"
    line += f" {row['load']:>5.1f}"
    print(line, flush=True)
    return row


def print_markdown(rows: list[dict], uring: bool) -> None:
    """The same figures as a Markdown table, for docs/performance.md."""
    head = ["cell", "native loop x processes", "native", "fio (libaio)", "native/fio", "pair spread", "p99 ms native",
            "p99 ms fio", "CPU s/kIO native", "CPU s/kIO fio", "CPU native/fio", "CPU-bound runs"]
    if uring:
        head += ["fio io_uring", "native/fio io_uring"]
    head.append("load")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for r in rows:
        unit = "" if r["unit"] == "IOPS" else " MiB/s"
        cells = [r["cell"], r.get("loop", r["backend"]), fmt(r["native"], ",.0f") + unit, fmt(r["fio"], ",.0f") + unit,
                 fmt(r["ratio"], ".3f"), f"{fmt(r['low'], '.3f')}–{fmt(r['high'], '.3f')}",
                 fmt(r["p99_native"], ".3f"), fmt(r["p99_fio"], ".3f"), fmt(r["cpu_native"], ".4f"),
                 fmt(r["cpu_fio"], ".4f"), fmt(r["cpu_ratio"], ".3f"), f"{r['bound']} of {r['runs']}"]
        if uring:
            cells += [fmt(r["uring"], ",.0f"), fmt(r["uring_ratio"], ".3f")]
        cells.append(f"{r['load']:.1f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
