"""Where the suite's time goes: each test's wall and CPU seconds, kept when LABTUI_TEST_CLOCK is set.

Wall time on a shared 2-CPU machine says as much about the neighbours as about the test; CPU time
(the worker's own plus its reaped children's: labtui subprocesses, fio, zpaq, sshd) is steadier
and is what a change to a test should lower. Daemons that detach (a tmux server) are not counted.

    LABTUI_TEST_CLOCK=/tmp/clock CI=true .venv/bin/python -m pytest -q -n 3
    .venv/bin/python tests/support/suite_clock.py /tmp/clock            # by kind, then the dearest files
    .venv/bin/python tests/support/suite_clock.py /tmp/clock --tests 40  # the dearest tests

A module-scoped fixture's cost lands on the first test that uses it (its teardown on the last).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

CLOCK_DIR = os.environ.get("LABTUI_TEST_CLOCK")

# What a test drives, read from its module's source, dearest first: a test is counted under the
# first kind its module uses (a Pilot test that also starts sshd is an ssh test).
KINDS = (
    ("static", re.compile(r"\b(mypy|ruff|lint-imports|importlinter)\b")),
    ("tmux", re.compile(r"\btmux\b")),
    ("ssh", re.compile(r"\bsshlab\b|\bsshd\b")),
    ("loop device", re.compile(r"\bloopdev\b|\blosetup\b")),
    ("Pilot", re.compile(r"\brun_test\(|\btui_support\b|\bsnap_compare\b")),
    ("engine or CLI", re.compile(r"\bdisk_dir\b|\bfio\b|\bzpaq\b|labtui_cmd\(|\brun_profile\(")),
)


@functools.cache
def kind_of(path: Path) -> str:
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        source = ""
    return next((name for name, pattern in KINDS if pattern.search(source)), "unit")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not CLOCK_DIR:
        yield
        return
    own0, children0 = _cpu()
    start = time.monotonic()
    yield
    wall = time.monotonic() - start
    own1, children1 = _cpu()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    row = {"test": item.nodeid, "kind": kind_of(Path(str(item.path))), "worker": worker, "start": start,
           "wall": round(wall, 3), "cpu": round(own1 - own0, 3), "children": round(children1 - children0, 3)}
    Path(CLOCK_DIR).mkdir(parents=True, exist_ok=True)
    with open(Path(CLOCK_DIR) / f"{worker}.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")


def read(directory: Path) -> list[dict]:
    return [json.loads(line) for file in sorted(directory.glob("*.jsonl")) for line in file.read_text().splitlines()]


def folder_of(row: dict) -> str:
    """The tests' folder a test lives in: "unit", "tui", "system", "docs", "static", "hostile"."""
    parts = row["test"].split("::")[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0]


def report(rows: list[dict], tests: int) -> str:
    lines = []
    total_wall = sum(r["wall"] for r in rows)
    total_cpu = sum(r["cpu"] + r["children"] for r in rows)
    lines.append(f"{len(rows)} tests, {total_wall:.0f} worker-seconds of wall time, {total_cpu:.0f} CPU-seconds")
    ends = {w: max(r["start"] + r["wall"] for r in rows if r["worker"] == w) for w in {r["worker"] for r in rows}}
    if len(ends) > 1:
        first = min(r["start"] for r in rows)
        lines.append("workers ended at " + ", ".join(f"{w} +{end - first:.0f} s" for w, end in sorted(ends.items()))
                     + f": the last {max(ends.values()) - min(ends.values()):.0f} s with one worker idle")
    # By the folder a test lives in (tests/unit, tests/tui, tests/system ...), then by what it drives.
    for title, key in (("folder", folder_of), ("kind", lambda r: r["kind"])):
        lines.append("")
        lines.append(f"{title:<12} {'tests':>6} {'wall s':>8} {'cpu s':>8} {'wall %':>7}")
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        for name, group in sorted(groups.items(), key=lambda kv: -sum(r["wall"] for r in kv[1])):
            wall = sum(r["wall"] for r in group)
            cpu = sum(r["cpu"] + r["children"] for r in group)
            lines.append(f"{name:<12} {len(group):>6} {wall:>8.0f} {cpu:>8.0f} {100 * wall / total_wall:>6.0f}%")
    lines.append("")
    by_file: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_file[r["test"].split("::")[0]].append(r)
    lines.append(f"{'file':<44} {'tests':>5} {'wall s':>7} {'cpu s':>7}")
    for name, group in sorted(by_file.items(), key=lambda kv: -sum(r["wall"] for r in kv[1]))[:30]:
        lines.append(f"{name:<44} {len(group):>5} {sum(r['wall'] for r in group):>7.1f} "
                     f"{sum(r['cpu'] + r['children'] for r in group):>7.1f}")
    if tests:
        lines.append("")
        lines.append(f"{'wall s':>7} {'cpu s':>7}  test")
        for r in sorted(rows, key=lambda r: -r["wall"])[:tests]:
            lines.append(f"{r['wall']:>7.2f} {r['cpu'] + r['children']:>7.2f}  {r['test']}")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Where the suite's time went (from LABTUI_TEST_CLOCK's files)")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--tests", type=int, default=0, help="also list this many of the slowest tests")
    options = parser.parse_args()
    print(report(read(options.directory), options.tests))
