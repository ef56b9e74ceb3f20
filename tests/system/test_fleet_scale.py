"""A lab of many hosts on real sshd (tests/support/sshlab.py): a closed progress output, a jump host's MaxStartups.

One module-scoped lab of two sshd: a jump host and a target. Each "host" of a hosts file is an entry
of its own on the target (its own LABTUI_HOME, test directory and lock directory), so 16 hosts cost
16 labtui agents, not 16 sshd.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import pytest

from conftest import labtui_cmd
from sshlab import ssh_lab

pytestmark = pytest.mark.slow

PROFILE = """\
name = "fleet-tiny"
file_size = "1MiB"
free_space_margin = "0"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
pattern = "random"
duration = "{duration}"
warmup = "0s"

[[steps]]
name = "Write 4K random"
block_size = "4KiB"
pattern = "random"
write_percent = 100
duration = "{duration}"
warmup = "0s"
"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory, disk_dir):
    tmp = tmp_path_factory.mktemp("fleet-scale")
    with ssh_lab(tmp, disk_dir) as lab:
        lab.add("jump", "127.0.0.40")
        lab.add("target", "127.0.0.41")
        yield lab


def _hosts(lab, tmp_path: Path, count: int, *, jump: bool) -> Path:
    """`count` hosts on the lab's target sshd, each a labtui of its own; through the jump host if `jump`."""
    jump_host, target = lab.hosts
    entries = []
    for i in range(1, count + 1):
        name = f"lab-host-{i:02d}"
        home, directory = tmp_path / name / "home", lab.target_root / tmp_path.name / name
        home.mkdir(parents=True)
        directory.mkdir(parents=True)
        entry = lab.entry(target, target=str(directory), env={"LABTUI_HOME": str(home),
                                                              "LABTUI_LOCK_DIR": str(home / "locks")})
        entry["name"] = name
        if jump:
            entry |= {"ssh_options": lab.jump_options(jump_host), "allow_local_commands": True}
        entries.append(entry)
    return lab.hosts_file(entries, name=f"{tmp_path.name}.toml")


def _profile(tmp_path: Path, duration: str) -> Path:
    path = tmp_path / "fleet-tiny.toml"
    path.write_text(PROFILE.format(duration=duration))
    return path


def _local_results(labtui_home: Path) -> list[dict]:
    out = subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["results"]


def test_a_closed_progress_output_mid_run_keeps_every_hosts_result_and_the_report(lab, tmp_path, labtui_home):
    """`labtui run --hosts H 2> >(timeout 1.5 cat)`: the reader of stderr goes mid-run. rich's SystemExit
    unwound the event loop and every host ended "without its result (exit status 1)", stdout empty."""
    hosts = _hosts(lab, tmp_path, 2, jump=False)
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(_profile(tmp_path, "1s")), "--hosts", str(hosts)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        while "step 1/2" not in proc.stderr.readline():  # a host is measuring: its progress is still to come
            assert proc.poll() is None, "labtui ended before a host started"
        proc.stderr.close()
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "lab-host-01" in out and "lab-host-02" in out and "Across the hosts" in out
    assert "the progress output (stderr) was closed at" in out
    results = _local_results(labtui_home)
    assert sorted(r["status"] for r in results) == ["completed", "completed"]


def test_sixteen_hosts_through_one_jump_host_all_complete_and_their_report_fits_120_columns_as_rows(
        lab, tmp_path, labtui_home, monkeypatch):
    """All 16 connections at one instant through one sshd (MaxStartups 10:30:100, its default) lost some:
    "kex_exchange_identification: Connection closed". At most fleet_connections (8) connect at once, a
    refused handshake is tried again, and the hosts still start at one shared instant. The report of
    that many hosts was labtui compare's table, a result per three columns, lettered A-Z then R27: at
    120 columns it fell to key=value prose. It is a row per host under each step, the summary first."""
    hosts = _hosts(lab, tmp_path, 16, jump=True)
    monkeypatch.setenv("COLUMNS", "120")
    done = subprocess.run(labtui_cmd("run", "-p", str(_profile(tmp_path, "300ms")), "--hosts", str(hosts)),
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    results = _local_results(labtui_home)
    assert len(results) == 16 and {r["status"] for r in results} == {"completed"}
    # Connected 8 at a time, in waves, they still start at one instant: their own `started` times say so
    # (on a quiet machine within milliseconds; here 16 agents share 2 loaded CPUs with other tests).
    from datetime import datetime

    started = sorted(datetime.fromisoformat(r["started"]).timestamp() for r in results)
    assert started[-1] - started[0] < 1.0, f"the hosts started {started[-1] - started[0]:.3f} s apart"
    names = [f"lab-host-{i:02d}" for i in range(1, 17)]
    lines = done.stdout.splitlines()
    assert lines[0] == "16 of 16 hosts completed; they started together, at one shared instant.", lines[:3]
    assert max(len(line.rstrip()) for line in lines) <= 120, max(lines, key=len)
    summary = lines.index("Across the 16 hosts that completed (each against lab-host-01, the first):")
    assert lines[summary + 1].lstrip().startswith("Read 4K random:") and "fastest lab-host-" in lines[summary + 1]
    for step in ("Read 4K random", "Write 4K random"):  # a table per step, a row per host: name, figure, change
        title = next(i for i, line in enumerate(lines) if line.startswith(f"{step} (") and line.rstrip().endswith("↑"))
        rows = [line.split() for line in lines[title + 4:title + 20]]
        assert [row[0] for row in rows] == names, lines[title:title + 20]
        assert rows[0][-1] == "reference" and all(row[3].endswith("%") for row in rows[1:]), rows
    assert "R16" not in done.stdout and "P vs A" not in done.stdout
    assert not any(line.startswith("bottleneck:") and " B: " in line for line in lines), done.stdout
    warnings = [line for line in lines if line.startswith("warning:")]
    assert len(warnings) == len(set(warnings)), warnings  # each said once, with the hosts it applies to


def _closing_server(address: str):
    """A TCP server that closes every connection at once, as an sshd past its MaxStartups does."""
    import socket
    import threading

    server = socket.socket()
    server.bind((address, 0))
    server.listen(64)

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                connection.close()

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_a_refused_handshake_is_tried_again_and_names_the_jump_host_when_it_is_the_one_refusing(
        lab, tmp_path, monkeypatch):
    """Real ssh through the lab's jump sshd to a host that closes every connection before its handshake,
    and through a "jump host" that does: each is tried again, and the reason says who refused."""
    import asyncio

    from labtui.fleet import session
    from labtui.fleet.hosts import parse_hosts
    from labtui.results.store import Store

    monkeypatch.setattr(session, "BACKOFF", (0.05,))  # the tries, not the waits between them
    monkeypatch.setattr(session, "CONNECT_TRIES", 2)
    jump_host, target = lab.hosts
    refusing_host, refusing_jump = _closing_server("127.0.0.42"), _closing_server("127.0.0.43")
    try:
        behind = lab.entry(target) | {"name": "behind", "ssh": "root@127.0.0.42",
                                      "port": refusing_host.getsockname()[1],
                                      "ssh_options": lab.jump_options(jump_host), "allow_local_commands": True}
        options = lab.jump_options(jump_host)
        options[-1] = f"root@127.0.0.43:{refusing_jump.getsockname()[1]}"
        through = lab.entry(target) | {"name": "through", "ssh_options": options, "allow_local_commands": True}
        hosts = parse_hosts(lab.hosts_file([behind, through], name=f"{tmp_path.name}.toml").read_text())
        fleet = session.Fleet(hosts, lambda _h: {}, Store(tmp_path / "home"))
        runs = asyncio.run(fleet.run())
    finally:
        refusing_host.close()
        refusing_jump.close()
    assert [r.state for r in runs] == ["unreachable", "unreachable"]
    assert [r.retries for r in runs] == [1, 1]
    assert f"127.0.0.42:{behind['port']} refused the connection (through root@{jump_host.address}:" in runs[0].reason
    assert f"the jump host root@127.0.0.43:{options[-1].rsplit(':', 1)[1]} refused the connection" in runs[1].reason
    assert "2 tries" in runs[1].reason and "fleet_connections" in runs[1].reason
