"""The native engine's I/O loops head to head: alternating short runs in one process, on one file.

Run the worker's loops (labtui.engine.native_worker.work) directly, round after round, each loop
for a short window in turn (the order reversed every other round), and add up what each did: its
I/Os, its thread's CPU seconds over all phases, its mean latency, and the spread of its runs'
IOPS. Alternating chunks of a fraction of a second in one process make a loaded machine's swings
hit every loop alike, so CPU per I/O tells loops apart where separate runs a minute apart cannot.

On the RAM device at queue depth 1 the runs' IOPS are bimodal (about 75,000, or 15,000-40,000, on
the development VM), with where the kernel runs the loop device's worker threads against the
submitting process; fio's runs swing as much. The quartiles show it.

    sudo python benchmarks/native_loops.py --ram --outstanding 1 sync io_uring aio
    python benchmarks/native_loops.py --dir /mnt/x --outstanding 32 --rounds 40 io_uring aio
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import statistics
import sys
import time
from pathlib import Path

from labtui.engine import native_common as nc
from labtui.engine import native_worker
from labtui.engine.native import BACKENDS, missing_backends
from labtui.engine.testfile import write_test_file
from labtui.units import parse_size
from ramdisk import ram_disk  # beside this script


def one_run(cfg: dict, seconds: float) -> tuple[int, int, float, int]:
    """(measured I/Os, all I/Os, thread CPU seconds, measured latency ns) of one short run."""
    control = memoryview(bytearray(nc.CONTROL_BYTES)).cast("d")
    live = memoryview(bytearray(nc.LIVE_BYTES)).cast("q")
    start = time.monotonic() + 0.02
    control[nc.C_MEASURE] = start
    control[nc.C_END] = start + seconds
    control[nc.C_GO] = 1.0
    cpu0 = time.thread_time()
    result = native_worker.work(cfg, control, live)
    cpu = time.thread_time() - cpu0
    if result.get("error"):
        raise SystemExit(f"{cfg['backend']}: {result['error']}")
    ios = result["r_ios"] + result["w_ios"]
    return ios, live[nc.R_IOS] + live[nc.W_IOS], cpu, result["r_lat_ns"] + result["w_lat_ns"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loops", nargs="+", choices=BACKENDS)
    parser.add_argument("--dir", default="/var/tmp", help="directory on the disk to test")
    parser.add_argument("--ram", action="store_true", help="build a RAM-backed disk and test on it (root)")
    parser.add_argument("--file-size", default="1G")
    parser.add_argument("--block-size", type=int, default=4096)
    parser.add_argument("--outstanding", type=int, default=1)
    parser.add_argument("--write-percent", type=int, default=0)
    parser.add_argument("--chunk", type=float, default=0.2, help="seconds each loop runs per round")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    missing = missing_backends()
    for loop in args.loops:
        if loop in missing:
            print(f"the {loop} loop cannot run here: {missing[loop]}", file=sys.stderr)
            return 2
    size = parse_size(args.file_size)
    place = ram_disk(size + (512 << 20), "native-loops") if args.ram else contextlib.nullcontext((Path(args.dir), None))
    with place as (directory, _):
        path = Path(directory) / f"labtui-loops-{os.getpid()}.dat"
        try:
            write_test_file(path, size, direct=True)
            return compare(args, path, size)
        finally:
            path.unlink(missing_ok=True)


def compare(args, path: Path, size: int) -> int:
    gc.disable()  # as in a worker: no collector pause inside a loop
    totals = {loop: [0, 0, 0.0, 0] for loop in args.loops}
    iops: dict[str, list[float]] = {loop: [] for loop in args.loops}
    print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')} {args.rounds} rounds of {args.chunk:g} s per loop, "
          f"{args.block_size} B, {args.outstanding} in flight, {args.write_percent} % writes, {path}; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    for r in range(args.rounds):
        for loop in args.loops if r % 2 == 0 else args.loops[::-1]:
            cfg = {"path": str(path), "file_size": size, "block_size": args.block_size, "pattern": "random",
                   "write_percent": args.write_percent, "outstanding": args.outstanding, "direct": True,
                   "latency": True, "worker": 0, "workers": 1, "seed": 7919 * r + 1, "backend": loop, "trace": 0}
            ios, all_ios, cpu, lat = one_run(cfg, args.chunk)
            t = totals[loop]
            t[0] += ios
            t[1] += all_ios
            t[2] += cpu
            t[3] += lat
            iops[loop].append(ios / args.chunk)
    print(f"{'loop':<9} {'IOPS':>9} {'CPU us/IO':>9} {'lat us':>7}  run IOPS quartiles")
    for loop, (ios, all_ios, cpu, lat) in totals.items():
        q = statistics.quantiles(iops[loop], n=4) if len(iops[loop]) > 1 else iops[loop] * 3
        print(f"{loop:<9} {ios / (args.chunk * args.rounds):>9,.0f} {1e6 * cpu / max(all_ios, 1):>9.2f} "
              f"{lat / max(ios, 1) / 1e3:>7.1f}  {' / '.join(f'{v:,.0f}' for v in q)}")
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
