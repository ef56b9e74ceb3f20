"""What verifying costs: 4K random reads, verified and not, by the native engine and by fio (verify=crc32c).

On a RAM-backed disk (`--ram`, root) the engines' own CPU per I/O is the limit, so the cost of
checking every block read (the native engine's header and XXH3-64 per 4 KiB; fio's header and
CRC-32C) shows whole. Each engine reads a file it wrote itself with its own headers: the native
engine's by a verified sequential write step (checked afterwards to cover the file), fio's by a
sequential write with verify=crc32c. Then, in rounds whose order alternates, four runs of the
same cell (4 KiB random reads, 1 thread x 32 in flight, O_DIRECT): native, native verified,
fio, fio verified. fio's verified read reads the file once (its verify ends a time-based
job after one pass), so it is not time-based; the others run `--seconds`.

Prints per variant the median IOPS and CPU per 1,000 I/Os, then the ratios the issue asks
for: verified native against unverified native, and against fio's verified run (target >= 0.9).

    python benchmarks/verify_cost.py --ram --file-size 1G --seconds 5 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from engine_vs_fio import Outcome, commit, load, median, ram_disk, run_fio  # beside this script
from labtui.engine.base import Job
from labtui.engine.events import StepFinished
from labtui.engine.native.engine import NativeEngine
from labtui.engine.testfile import write_test_file
from labtui.engine.verify import CHECKSUM
from labtui.model.profile import Step
from labtui.model.result import StepResult
from labtui.units import parse_size

RUN_ID = "verify-cost-bench"  # one run: the reads check the tag the write put there
READ = Step("4K rand read 1x32", block_size=4096, pattern="random", threads=1, outstanding=32, warmup=1.0)


def native(step: Step, path: Path, size: int, tries: int = 2) -> StepResult:
    """One native step; tried again once where it failed (said on stderr: at a load of 9 and more a
    worker now and then exited cleanly without handing its counts back)."""
    for attempt in range(tries):
        try:
            return native_once(step, path, size)
        except SystemExit as exc:
            if attempt + 1 == tries:
                raise
            print(f"{exc} (tried again)", file=sys.stderr)
    raise AssertionError("unreachable")


def native_once(step: Step, path: Path, size: int) -> StepResult:
    engine = NativeEngine()
    job = Job(path=path, file_size=size, run_id=RUN_ID)

    async def go() -> StepResult | None:
        async for event in engine.run_step(step, job):
            if isinstance(event, StepFinished):
                return event.result
        return None

    result = asyncio.run(go())
    if result is None or result.status != "completed":
        raise SystemExit(f"native {step.name} failed: {result.error if result else 'no result'}")
    return result


def outcome(result: StepResult) -> Outcome:
    ios = result.total.ios
    return Outcome(result.total.iops, result.latency.p99,
                   1000 * result.cpu_seconds / ios if ios and result.cpu_seconds is not None else None,
                   backend=result.backend, cpu_bound=bool(result.engine_bound))


def fio_json(args: list[str]) -> dict:
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"fio failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout[out.stdout.index("{"):])


def fio_verified(path: Path, size: int) -> Outcome:
    """fio's 4K random reads of `path`, every block checked against its crc32c header: one pass."""
    report = fio_json(["fio", "--name=verify", f"--filename={path}", f"--size={size}", "--rw=randread", "--bs=4096",
                       "--ioengine=libaio", "--direct=1", "--iodepth=32", "--norandommap", "--randrepeat=0",
                       "--verify=crc32c", "--verify_state_save=0", "--output-format=json"])
    job = report["jobs"][0]
    ios, seconds = job["read"]["total_ios"], job["read"]["runtime"] / 1000
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * seconds
    return Outcome(ios / seconds if seconds else 0.0, None, 1000 * cpu / ios if ios else None, backend="libaio")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ram", action="store_true", help="a RAM-backed disk (root), removed afterwards")
    parser.add_argument("--dir", type=Path, help="a directory on the disk to measure instead")
    parser.add_argument("--file-size", default="1G")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    size = parse_size(args.file_size)
    print(f"verify_cost: commit {commit()}, load {load():.2f} at the start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if args.ram:
        with ram_disk(size, "verify-bench") as mount:
            return bench(args, size, mount)
    if args.dir is None:
        raise SystemExit("--ram or --dir DIR")
    return bench(args, size, args.dir)


def bench(args: argparse.Namespace, size: int, directory: Path) -> int:
    mine, theirs = directory / "verify-bench-native.dat", directory / "verify-bench-fio.dat"
    try:
        write_test_file(mine, size, direct=True)
        seconds = max(2.0, size / (300 << 20))
        for _ in range(4):  # until one verified write covers the file (a loaded machine writes slower)
            write = Step("write", block_size=1 << 20, pattern="sequential", write_percent=100, outstanding=4,
                         duration=seconds, warmup=0.0, verify=True)
            native(write, mine, size)
            whole = native(replace(write, name="read all", write_percent=0), mine, size)
            assert whole.verify is not None
            if whole.verify.mismatched:
                raise SystemExit(f"the native file did not read back as written: {whole.verify.summary()}")
            if whole.verify.covered_bytes == size:
                break
            seconds *= 2
        else:
            raise SystemExit(f"the native file was not written whole: {whole.verify.summary()}")
        fio_json(["fio", "--name=prep", f"--filename={theirs}", f"--size={size}", "--rw=write", "--bs=4096",
                  "--ioengine=libaio", "--direct=1", "--iodepth=8", "--verify=crc32c", "--do_verify=0",
                  "--verify_state_save=0", "--output-format=json"])
        step = replace(READ, duration=args.seconds)
        runs: dict[str, list[Outcome]] = {"native": [], "native verified": [], "fio": [], "fio verified": []}
        loads = []
        variants = [
            ("native", lambda: outcome(native(step, mine, size))),
            ("native verified", lambda: outcome(native(replace(step, verify=True), mine, size))),
            ("fio", lambda: run_fio(step, theirs, size)),
            ("fio verified", lambda: fio_verified(theirs, size)),
        ]
        for r in range(args.rounds):
            order = variants if r % 2 == 0 else variants[::-1]
            for name, run in order:
                runs[name].append(run())
            loads.append(load())
            print(f"round {r + 1}: " + ", ".join(f"{n} {runs[n][-1].iops:,.0f}" for n in runs) + f" (load {loads[-1]:.2f})",
                  file=sys.stderr)
    finally:
        for f in (mine, theirs):
            f.unlink(missing_ok=True)
    iops = {n: median([o.iops for o in v]) for n, v in runs.items()}
    cpu = {n: median([o.cpu_per_kio for o in v]) for n, v in runs.items()}
    print(f"\n4 KiB random reads, 1 x 32, O_DIRECT, {args.file_size} file, {args.rounds} rounds "
          f"(load {min(loads):.2f}-{max(loads):.2f}); native checksum {CHECKSUM}, fio crc32c\n")
    print("| variant | IOPS (median) | CPU µs per I/O (median) |")
    print("|---|---:|---:|")
    for n in runs:
        print(f"| {n} | {iops[n]:,.0f} | {cpu[n] * 1000:.2f} |" if cpu[n] is not None else f"| {n} | {iops[n]:,.0f} | - |")
    print()
    print(f"native verified / native: {iops['native verified'] / iops['native']:.2f}")
    print(f"fio verified / fio: {iops['fio verified'] / iops['fio']:.2f}")
    print(f"native verified / fio verified: {iops['native verified'] / iops['fio verified']:.2f} (target >= 0.9)")
    if cpu["native verified"] and cpu["native"] and cpu["fio verified"]:
        print(f"CPU per I/O, native verified / native: {cpu['native verified'] / cpu['native']:.2f}; "
              f"/ fio verified: {cpu['native verified'] / cpu['fio verified']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
