"""The native engine's I/O loops head to head: alternating short runs in one process, on one file.

Run the worker's loops (labtui.engine.native.worker.work) directly, round after round, each loop
for a short window in turn (the order reversed every other round), and add up what each did: its
I/Os, its thread's CPU seconds over all phases, its mean latency, and the spread of its runs'
IOPS. Alternating chunks of a fraction of a second in one process make a loaded machine's swings
hit every loop alike, so CPU per I/O tells loops apart where separate runs a minute apart cannot.

On the RAM device at queue depth 1 the runs' IOPS are bimodal (about 75,000, or 15,000-40,000, on
the development VM), with where the kernel runs the loop device's worker threads against the
submitting process; fio's runs swing as much. The quartiles show it, and so does the IPI/IO
column: the function-call and rescheduling interrupts (one CPU waking a task on another) per I/O,
each an exit to the host in a VM. The last line splits every run at the median of those: at
queue depth 1 the runs with fewer are the fast ones, whichever loop or fio engine made them.

The io_uring loop can run with several submission chunk sizes (`--submit-chunks 0,1,4,8`: 0
resubmits a whole reaped batch in one call), and fio's engines can join the rounds (`--fio
libaio,io_uring`, each run a fio process of the same length on the same file), which is how the
loop's chunks were chosen: at 1 worker x 32 whole batches reached 0.79-0.84 of fio's IOPS on
the virtio disk, chunks of 4 0.94-0.96, chunks of 2 0.99 once a batch was counted after its
slots went back (`--tally before,after`). `--count-calls` counts the io_uring loop's system calls:
per I/O, and the I/Os each call that waited brought back (where a process's CPU is the limit, its
cost per I/O is mostly its cost per wait divided by that). The "at disk" and "disk us" columns read the disk's own
counters: how many requests it had in flight while busy and its mean time per request.

    sudo python benchmarks/native_loops.py --ram --outstanding 1 sync io_uring aio
    python benchmarks/native_loops.py --dir /mnt/x --outstanding 32 --rounds 40 io_uring aio
    python benchmarks/native_loops.py --outstanding 32 --rounds 8 --chunk 2 --submit-chunks 2,4 --tally after \
        --fio libaio io_uring
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

from engine_vs_fio import fio_args, fio_report  # beside this script
from labtui.engine.native import common as nc, uring_loop as native_uring, worker as native_worker
from labtui.engine.native.plan import BACKENDS, missing_backends
from labtui.engine.testfile import write_test_file
from labtui.model.profile import Step
from labtui.units import parse_size
from ramdisk import ram_disk  # beside this script


def disk_of(path: Path) -> str | None:
    """The kernel's name for the block device holding path (vda, loop3), if it has one."""
    dev = os.stat(path).st_dev
    try:
        return Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}").resolve().name
    except OSError:
        return None


def queue_ms(disk: str | None) -> tuple[int, int, int]:
    """The disk's completed requests, time busy and weighted time doing I/O so far (/proc/diskstats
    fields 1 + 5, 10 and 11; times in ms). The weighted time sums every request's time from its arrival at the block layer to its
    completion; over the time busy it is the mean number of the disk's requests in flight while
    it had any, the same measure for every engine (a fio process's start costs it nothing)."""
    if disk:
        with open("/proc/diskstats") as f:
            for line in f:
                parts = line.split()
                if parts[2] == disk:
                    return int(parts[3]) + int(parts[7]), int(parts[12]), int(parts[13])
    return 0, 0, 0


def wakeup_ipis() -> int:
    """Function-call and rescheduling interrupts on every CPU so far (/proc/interrupts CAL + RES).

    One CPU waking a task on another, idle one sends one: in a VM each costs an exit to the host.
    """
    total = 0
    with open("/proc/interrupts") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in ("CAL:", "RES:"):
                total += sum(int(p) for p in parts[1:] if p.isdigit())
    return total


class EnterCalls:
    """Counts the io_uring loop's io_uring_enter calls, and those that waited for a completion."""

    def __init__(self) -> None:
        self.calls = self.waits = 0
        self.real = native_uring.uring._syscall

    def install(self) -> None:
        syscall = self.real()

        def counted(number, *args):
            if number == native_uring.uring.SYS_ENTER:
                self.calls += 1
                self.waits += bool(args[2])
            return syscall(number, *args)

        native_uring.uring._syscall = lambda: counted


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
    parser.add_argument("--threads", type=int, default=1,
                        help="logical workers the one process carries (fio: as many jobs)")
    parser.add_argument("--write-percent", type=int, default=0)
    parser.add_argument("--chunk", type=float, default=0.2, help="seconds each loop runs per round")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--submit-chunks", default="",
                        help="io_uring only: submission chunk sizes to compare, e.g. 0,4 (0: a whole batch per call)")
    parser.add_argument("--tally", default="",
                        help="io_uring only: when a reaped batch is counted, to compare: before,after its slots go back")
    parser.add_argument("--count-calls", action="store_true",
                        help="io_uring only: count the loop's io_uring_enter calls (each through a Python wrapper, "
                             "which adds its own cost to the CPU figures): calls per I/O and I/Os per call that waited")
    parser.add_argument("--fio", default="", help="fio engines to run in the same rounds, e.g. libaio,io_uring; "
                        "fio options after + (libaio+norandommap=1)")
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


def run_fio(spec: str, args, path: Path, size: int) -> tuple[int, float, int]:
    """(I/Os, CPU seconds, total latency ns) of one fio run of the same cell and length.

    spec is an engine, optionally followed by fio options joined with "+" (libaio+norandommap=1):
    one of fio's own choices changed, everything else as the native engine's fio job.
    """
    engine, *options = spec.split("+")
    step = Step(name="loops", block_size=args.block_size, pattern="random", write_percent=args.write_percent,
                threads=args.threads, outstanding=args.outstanding, duration=args.chunk, warmup=0.05)
    ios = lat = 0
    cpu = 0.0
    for job in fio_report(fio_args(step, path, size, engine) + [f"--{o}" for o in options])["jobs"]:
        for d in ("read", "write"):
            ios += job[d]["total_ios"]
            lat += int(job[d]["lat_ns"]["mean"] * job[d]["total_ios"])
        cpu += (job["usr_cpu"] + job["sys_cpu"]) / 100 * args.chunk
    return ios, cpu, lat


def variants(args) -> list[tuple[str, str, int | None, bool | None]]:
    """(label, loop or fio engine, io_uring submission chunk, io_uring count after submission) of
    every contender."""
    chunks: list[int | None] = [int(c) for c in args.submit_chunks.split(",") if c.strip()] or [None]
    orders: list[bool | None] = [o.strip() == "after" for o in args.tally.split(",") if o.strip()] or [None]
    out: list[tuple[str, str, int | None, bool | None]] = []
    for loop in args.loops:
        if loop == "io_uring":
            for c in chunks:
                for after in orders:
                    label = loop + ("" if c is None else f"/{c or 'batch'}")
                    label += "" if after is None else "/count-after" if after else "/count-before"
                    out.append((label, loop, c, after))
        else:
            out.append((loop, loop, None, None))
    out += [(f"fio-{e}", f"fio-{e}", None, None) for e in args.fio.split(",") if e.strip()]
    return out


def compare(args, path: Path, size: int) -> int:
    gc.disable()  # as in a worker: no collector pause inside a loop
    contenders = variants(args)
    totals = {label: [0, 0, 0.0, 0, 0] for label, _, _, _ in contenders}
    calls = {label: [0, 0] for label, _, _, _ in contenders}  # io_uring_enter calls, those that waited
    counter = EnterCalls() if args.count_calls else None
    if counter:
        counter.install()
    disk = disk_of(path)
    at_disk = {label: [0, 0, 0] for label, _, _, _ in contenders}  # requests, ms busy, weighted ms
    runs: list[tuple[float, float]] = []  # (IOPS, wake-up IPIs per I/O) of every run
    iops: dict[str, list[float]] = {label: [] for label, _, _, _ in contenders}
    print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')} {args.rounds} rounds of {args.chunk:g} s per loop, "
          f"{args.block_size} B, {args.threads} x {args.outstanding} in flight, {args.write_percent} % writes, {path}; "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    defaults = native_uring.SUBMIT_CHUNK, native_uring.SHALLOW_CHUNK, native_uring.TALLY_AFTER_SUBMIT
    whole = native_uring.CARRIED_WHOLE
    for r in range(args.rounds):
        for label, loop, chunk, after in contenders if r % 2 == 0 else contenders[::-1]:
            ipis = wakeup_ipis()
            if counter:
                counter.calls = counter.waits = 0
            before = queue_ms(disk)
            if loop.startswith("fio-"):
                ios, cpu, lat = run_fio(loop[4:], args, path, size)
                all_ios = ios
            else:
                # 0: never split a batch (a chunk larger than anything in flight)
                if chunk is None:
                    native_uring.SUBMIT_CHUNK, native_uring.SHALLOW_CHUNK = defaults[:2]
                    native_uring.CARRIED_WHOLE = whole
                else:  # at any depth, however many workers the process carries
                    native_uring.SUBMIT_CHUNK = native_uring.SHALLOW_CHUNK = chunk or 1 << 30
                    native_uring.CARRIED_WHOLE = False
                native_uring.TALLY_AFTER_SUBMIT = defaults[2] if after is None else after
                cfg = {"path": str(path), "file_size": size, "block_size": args.block_size, "pattern": "random",
                       "write_percent": args.write_percent, "outstanding": args.outstanding, "direct": True,
                       "latency": True, "workers": list(range(args.threads)), "threads": args.threads,
                       "seed": 7919 * r + 1, "backend": loop, "trace": 0}
                ios, all_ios, cpu, lat = one_run(cfg, args.chunk)
            ipis = wakeup_ipis() - ipis  # a fio run's own start and exit included: a few hundred
            for i, (now, then) in enumerate(zip(queue_ms(disk), before)):
                at_disk[label][i] += now - then
            t = totals[label]
            t[0] += ios
            t[1] += all_ios
            t[2] += cpu
            t[3] += lat
            t[4] += ipis
            if counter and loop == "io_uring":
                calls[label][0] += counter.calls
                calls[label][1] += counter.waits
            iops[label].append(ios / args.chunk)
            runs.append((ios / args.chunk, ipis / max(all_ios, 1)))
    native_uring.SUBMIT_CHUNK, native_uring.SHALLOW_CHUNK, native_uring.TALLY_AFTER_SUBMIT = defaults
    native_uring.CARRIED_WHOLE = whole
    if counter:
        native_uring.uring._syscall = counter.real
    # In flight: the latency of every measured I/O over the time measured (Little's law), by the
    # loop's own clock (each engine starts and stops that clock at its own places), and at the disk
    # (the kernel's weighted I/O time over its time busy, the same for every engine): how full a
    # loop kept the queue it was given. And the disk's own mean time per request (the same counters):
    # what the disk made of the loop's requests, at that depth.
    width = max(14, *(len(label) + 1 for label in totals))
    print(f"{'loop':<{width}} {'IOPS':>9} {'CPU us/IO':>9} {'lat us':>7} {'in flight':>9} {'at disk':>7} "
          f"{'disk us':>7} {'IPI/IO':>6}" + (f" {'calls/IO':>8} {'IO/wait':>7}" if counter else "")
          + "  run IOPS quartiles")
    for label, (ios, all_ios, cpu, lat, ipis) in totals.items():
        q = statistics.quantiles(iops[label], n=4) if len(iops[label]) > 1 else iops[label] * 3
        seconds = args.chunk * args.rounds
        requests, busy_ms, weighted_ms = at_disk[label]
        print(f"{label:<{width}} {ios / seconds:>9,.0f} {1e6 * cpu / max(all_ios, 1):>9.2f} "
              f"{lat / max(ios, 1) / 1e3:>7.1f} {lat / 1e9 / seconds:>9.1f} {weighted_ms / max(busy_ms, 1):>7.1f} "
              f"{1e3 * weighted_ms / max(requests, 1):>7.1f} "
              f"{ipis / max(all_ios, 1):>6.2f}" + (called(calls[label], all_ios) if counter else "")
              + f"  {' / '.join(f'{v:,.0f}' for v in q)}")
    # Whatever the loop: how a run's IOPS go with how often a CPU had to wake another for it.
    cut = statistics.median(w for _, w in runs)
    few = [v for v, w in runs if w <= cut]
    many = [v for v, w in runs if w > cut]
    if few and many:
        print(f"# runs at or below the median {cut:.2f} wake-up IPIs per I/O: median {statistics.median(few):,.0f} IOPS "
              f"({len(few)} runs); above it: {statistics.median(many):,.0f} IOPS ({len(many)} runs)")
    print(f"# load average {os.getloadavg()[0]:.1f} at the end")
    return 0


def called(counts: list[int], ios: int) -> str:
    """The calls/IO and IO/wait columns of a loop (blank where its calls were not counted)."""
    enters, waits = counts
    if not enters:
        return f" {'-':>8} {'-':>7}"
    return f" {enters / max(ios, 1):>8.2f} {ios / max(waits, 1):>7.1f}"


if __name__ == "__main__":
    sys.exit(main())
