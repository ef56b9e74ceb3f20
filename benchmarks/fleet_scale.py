"""A fleet run's local cost by number of hosts: time to the shared start, CPU and memory here.

Starts one real sshd per host on loopback addresses (tests/support/sshlab.py: keys and known_hosts of its
own; run as root), each "host" a labtui with its own LABTUI_HOME and test directory, then runs
`labtui run -p PROFILE --hosts FILE --json` for each number of hosts and prints a Markdown row per
run: the time from the command's start to the hosts' shared start instant, how far apart the hosts'
own `started` are, the CPU seconds of the local labtui and of its ssh clients, the local labtui's
peak memory (RSS), and whether every host completed. The hosts run on this machine too: their
agents' start-up (a Python interpreter each) competes with the local side for its CPUs, so the
time to start is an upper bound of a real lab's, whose hosts start their agents on their own CPUs.

    python benchmarks/fleet_scale.py --hosts 1,8,16,32 --address-base 127.0.0.50
    LABTUI_TEST_SSH_PORTS=24000-24999 python benchmarks/fleet_scale.py ...   (a shared machine's range)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from sshlab import SshLab  # noqa: E402  (tests/support is not a package: its path first)

PROFILE = """\
name = "fleet-scale"
file_size = "1MiB"
free_space_margin = "0"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
pattern = "random"
duration = "{seconds}s"
warmup = "0s"
"""


def measure(lab: SshLab, count: int, root: Path, profile: Path) -> dict:
    entries = []
    for host in lab.hosts[:count]:
        entries.append(lab.entry(host))
    hosts_file = lab.hosts_file(entries, name=f"hosts-{count}.toml")
    home = root / f"local-{count}"
    home.mkdir()
    env = os.environ | {"LABTUI_HOME": str(home)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    # Into files, not pipes: the hosts' results (--json) are more than a pipe holds while this polls.
    out_file, err_file = (root / f"out-{count}.json").open("w+"), (root / f"err-{count}.txt").open("w+")
    proc = subprocess.Popen([sys.executable, "-m", "labtui", "run", "-p", str(profile), "--hosts", str(hosts_file),
                             "--json"], stdout=out_file, stderr=err_file, text=True, env=env)
    me = psutil.Process(proc.pid)
    peak_rss, own_cpu, ssh_rss = 0, 0.0, 0
    while proc.poll() is None:
        try:
            peak_rss = max(peak_rss, me.memory_info().rss)
            times = me.cpu_times()
            own_cpu = times.user + times.system
            ssh_rss = max(ssh_rss, sum(c.memory_info().rss for c in me.children() if c.name() == "ssh"))
        except psutil.Error:
            pass
        time.sleep(0.05)
    proc.wait()
    out_file.seek(0)
    err_file.seek(0)
    out, err = out_file.read(), err_file.read()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(out) if out.strip() else []
    starts = [datetime.fromisoformat(h["result"]["started"]).timestamp() for h in report if h.get("result")]
    completed = sum(1 for h in report if h["status"] == "completed")
    if completed != count:
        print(err, file=sys.stderr)
    return {"hosts": count, "to_start": (min(starts) - t0) if starts else None,
            "apart_ms": (max(starts) - min(starts)) * 1000 if starts else None, "labtui_cpu": own_cpu,
            "ssh_cpu": max(0.0, total_cpu - own_cpu), "peak_rss": peak_rss / 2**20, "ssh_rss": ssh_rss / 2**20,
            "completed": completed, "code": proc.returncode}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", default="1,8,16,32", help="numbers of hosts, comma-separated")
    parser.add_argument("--address-base", default="127.0.0.50", help="the first host's loopback address")
    parser.add_argument("--seconds", type=float, default=1.0, help="the profile's one step")
    parser.add_argument("--dir", default="/var/tmp", help="where the hosts' test directories go (O_DIRECT works)")
    args = parser.parse_args()
    counts = [int(c) for c in args.hosts.split(",")]
    root = Path(tempfile.mkdtemp(prefix="fleet-scale-"))
    targets = Path(tempfile.mkdtemp(prefix="fleet-scale-", dir=args.dir))
    base = args.address_base.rsplit(".", 1)
    lab = SshLab(root / "lab", targets)
    try:
        for i in range(max(counts)):
            lab.add(f"host-{i + 1:02d}", f"{base[0]}.{int(base[1]) + i}")
        profile = root / "fleet-scale.toml"
        profile.write_text(PROFILE.format(seconds=args.seconds))
        load = os.getloadavg()
        print(f"# {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, {os.cpu_count()} CPUs, load {load[0]:.1f} "
              f"{load[1]:.1f} {load[2]:.1f}, a {args.seconds:g} s step")
        print("| hosts | to the shared start | starts within | local labtui CPU | ssh clients CPU | "
              "labtui peak memory | ssh clients' memory | completed |")
        print("|---|---|---|---|---|---|---|---|")
        for count in counts:
            m = measure(lab, count, root, profile)
            started = f"{m['to_start']:.1f} s | {m['apart_ms']:.0f} ms" if m["to_start"] is not None else "- | -"
            print(f"| {m['hosts']} | {started} | {m['labtui_cpu']:.2f} s | "
                  f"{m['ssh_cpu']:.2f} s | {m['peak_rss']:.0f} MiB | {m['ssh_rss']:.0f} MiB | "
                  f"{m['completed']}/{count} |", flush=True)
        load = os.getloadavg()
        print(f"# load after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    finally:
        lab.close()
        shutil.rmtree(targets, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
