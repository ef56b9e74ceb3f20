"""`labtui run --hosts FILE -e fio` against real `fio --server` instances on loopback addresses.

Each server is the real fio 3.33 (`fio --server=ip:127.0.0.5,PORT`), started and killed by the
tests; labtui drives them with the local fio's client mode. Only the protocol-mismatch test
uses a stand-in: a socket that answers as a server of another fio protocol version would (a
second fio release cannot be installed here).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import labtui_cmd

PROFILE = """\
name = "fio-client-small"
file_size = "16MiB"
free_space_margin = "0"

[[steps]]
name = "Read 4K random"
block_size = "4KiB"
pattern = "random"
threads = 1
outstanding = 2
duration = "{duration}"
warmup = "0s"

[[steps]]
name = "Write 64K random"
block_size = "64KiB"
pattern = "random"
write_percent = 100
threads = 1
outstanding = 2
duration = "{duration}"
warmup = "0s"
"""


def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


class _Server:
    """A real `fio --server` on a loopback address; killed with its forked children (its own session)."""

    def __init__(self, address: str, tmp: Path) -> None:
        self.address = address
        self.port = _free_port(address)
        self.log = tmp / f"fio-server-{address}.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(["fio", f"--server=ip:{address},{self.port}"], stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((address, self.port), timeout=0.5):
                return
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"fio --server on {address} did not listen: {self.log.read_text()}")

    @property
    def entry(self) -> str:
        return f"{self.address}:{self.port}"

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture
def servers(tmp_path):
    started: list[_Server] = []

    def start(address: str) -> _Server:
        server = _Server(address, tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


@pytest.fixture
def pair(servers, tmp_path, disk_dir):
    """Two real fio servers, a target directory on a real disk for each, and their hosts file."""
    a, b = servers("127.0.0.5"), servers("127.0.0.6")
    ta, tb = _targets(disk_dir, "a", "b")
    return a, b, ta, tb, _hosts_file(tmp_path, [("alpha", a.entry, ta), ("beta", b.entry, tb)])


def _hosts_file(tmp_path: Path, entries: list[tuple[str, str, Path]]) -> Path:
    text = "".join(f'[[hosts]]\nname = "{n}"\nfio_server = "{s}"\ntarget = "{t}"\n\n' for n, s, t in entries)
    path = tmp_path / "hosts.toml"
    path.write_text(text)
    return path


def _profile(tmp_path: Path, duration: str = "1s", *, steps: int = 2) -> Path:
    path = tmp_path / "fio-client-small.toml"
    text = PROFILE.format(duration=duration)
    path.write_text(text if steps == 2 else text.split("\n[[steps]]\n", 2)[0] + "\n[[steps]]\n" +
                    text.split("\n[[steps]]\n", 2)[1])
    return path


def _targets(disk_dir: Path, *names: str) -> list[Path]:
    base = Path(tempfile.mkdtemp(prefix="fio-client-", dir=disk_dir))
    for name in names:
        (base / name).mkdir()
    return [base / name for name in names]


def _run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(labtui_cmd("run", *args), capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_two_fio_servers_run_together_and_their_results_come_home(pair, tmp_path, labtui_home):
    a, b, ta, tb, hosts = pair
    done = _run("-p", str(_profile(tmp_path)), "--hosts", str(hosts), "-e", "fio", "--json", "--tag", "bios-2.1")
    assert done.returncode == 0, done.stderr
    assert "no authentication" in done.stderr  # the opt-in's warning, every time
    report = json.loads(done.stdout)
    assert [h["host"] for h in report] == ["alpha", "beta"]
    for entry, target, server in zip(report, (ta, tb), (a, b)):
        assert entry["status"] == "completed", entry
        result = entry["result"]
        assert result["engine"]["name"] == "fio" and result["engine"]["version"] == "3.33"
        assert result["target"]["path"] == str(target)
        assert result["host"]["os"].startswith("Linux")
        assert set(result["tags"]) == {"bios-2.1", f"host:{entry['host']}"}
        assert [s["name"] for s in result["steps"]] == ["Read 4K random", "Write 64K random"]
        for step in result["steps"]:
            assert step["status"] == "completed" and step["total"]["ios"] > 0
            assert f"--client=ip:{server.address},{server.port}" in step["command_line"]
            assert f"directory={target}" in step["command_line"]
        assert list(target.iterdir()) == [], "the last step's unlink=1 removes the test file on the server"
        assert entry["comparison"]["hosts"] == ["alpha", "beta"]
    first, second = (e["result"] for e in report)
    assert first["started"] < second["ended"] and second["started"] < first["ended"]
    history = json.loads(subprocess.run(labtui_cmd("history", "--json"), capture_output=True, text=True,
                                        check=True).stdout)["results"]
    assert sorted(r["id"] for r in history) == sorted(e["result"]["id"] for e in report)
    # The saved copy holds fio's own counts and its interval samples, which add up to them.
    shown = json.loads(subprocess.run(labtui_cmd("show", first["id"], "--json"), capture_output=True, text=True,
                                      check=True).stdout)
    step = shown["steps"][0]
    assert step["total"]["ios"] == first["steps"][0]["total"]["ios"]


def _start(tmp_path: Path, hosts: Path, duration: str) -> tuple[subprocess.Popen, list[str]]:
    """`labtui run --hosts -e fio --json` started, its stderr's lines gathered as they come (a thread)."""
    proc = subprocess.Popen(labtui_cmd("run", "-p", str(_profile(tmp_path, duration)), "--hosts", str(hosts), "-e",
                                       "fio", "--json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True).start()
    return proc, lines


def _wait_for(condition, lines: list[str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "".join(lines)
        time.sleep(0.05)


@pytest.mark.slow
def test_a_server_killed_mid_run_is_aborted_with_its_partial_result_while_the_other_completes(
        pair, tmp_path, labtui_home):
    a, b, ta, tb, hosts = pair
    proc, lines = _start(tmp_path, hosts, "3s")
    _wait_for(lambda: any("[alpha] step 1/2" in line for line in lines) and any(ta.iterdir()), lines)
    time.sleep(2.5)  # the file is laid out: two interval reports in
    a.kill()
    out = proc.stdout.read()  # stderr stays the reader thread's
    proc.wait(timeout=60)
    assert proc.returncode == 1, "".join(lines)
    alpha, beta = json.loads(out)
    assert beta["status"] == "completed"
    assert alpha["status"] == "aborted", alpha
    assert "dropped the connection" in alpha["reason"]
    result = alpha["result"]
    assert result["status"] == "aborted"
    step = result["steps"][0]
    assert step["status"] == "aborted" and step["total"]["ios"] > 0, "the reports that arrived are kept"
    assert len(result["steps"]) == 1, "no later step runs on a dead server"
    assert any("[alpha] aborted" in line for line in lines), "".join(lines)
    # The dead server could not remove its file: the result says where it is.
    assert any(str(ta) in w for w in result["warnings"]), result["warnings"]
    assert list(tb.iterdir()) == []


@pytest.mark.slow
def test_ctrl_c_stops_every_server_keeps_the_partial_results_and_removes_the_test_files(
        pair, tmp_path, labtui_home):
    a, b, ta, tb, hosts = pair
    proc, lines = _start(tmp_path, hosts, "20s")
    _wait_for(lambda: all(any(f"[{n}] step 1/2" in line for line in lines) for n in ("alpha", "beta")), lines)
    time.sleep(2.5)
    assert any(ta.iterdir()) and any(tb.iterdir()), "the servers laid out their test files"
    stopped = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out = proc.stdout.read()
    proc.wait(timeout=30)
    assert time.monotonic() - stopped < 15
    assert proc.returncode == 1
    for entry in json.loads(out):
        assert entry["status"] == "aborted" and "SIGINT" in entry["reason"], entry
        step = entry["result"]["steps"][0]
        assert step["status"] == "aborted" and step["total"]["ios"] > 0
    assert list(ta.iterdir()) == [] and list(tb.iterdir()) == [], "no test file stays on a server"


@pytest.mark.slow
def test_one_at_a_time_runs_each_server_after_the_last_and_keep_file_keeps_it(pair, tmp_path, labtui_home):
    a, b, ta, tb, hosts = pair
    done = _run("-p", str(_profile(tmp_path, steps=1)), "--hosts", str(hosts), "-e", "fio", "--json", "--one-at-a-time",
                "--keep-file")
    assert done.returncode == 0, done.stderr
    first, second = (e["result"] for e in json.loads(done.stdout))
    assert first["ended"] <= second["started"]
    for target in (ta, tb):
        (kept,) = target.iterdir()
        assert kept.name.startswith("labtui-") and kept.stat().st_size == 16 * 2**20


def _other_protocol_server(address: str) -> tuple[int, socket.socket]:
    """A socket that answers fio's probe as a server of another protocol version would: a command
    header with version 98 (fio 3.33 speaks 97) and a valid CRC-16 over it."""
    def crc16(data: bytes) -> int:
        crc = 0
        for byte in data:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
        return crc

    listener = socket.socket()
    listener.bind((address, 0))
    listener.listen(4)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                # fio's first message can take seconds on a loaded machine (another test's fio, a
                # busy CI runner): waiting only 1 s closed the connection unanswered, and the host
                # read as unreachable instead of refused for its protocol.
                conn.settimeout(15.0)
                with contextlib.suppress(OSError):
                    if not conn.recv(65536):
                        continue
                    head = struct.pack("<HHIQI", 98, 7, 0, 0, 0)
                    conn.sendall(head + struct.pack("<HH", crc16(head), 0))
                    time.sleep(1.0)

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], listener


@pytest.mark.slow
def test_unreachable_mismatched_and_bad_target_servers_are_refused_while_the_other_runs(
        servers, tmp_path, disk_dir, labtui_home):
    a, b = servers("127.0.0.5"), servers("127.0.0.6")
    (ta,) = _targets(disk_dir, "a")
    port, listener = _other_protocol_server("127.0.0.7")
    try:
        hosts = _hosts_file(tmp_path, [
            ("alpha", a.entry, ta),
            ("nobody", f"127.0.0.8:{_free_port('127.0.0.8')}", ta),
            ("typo", b.entry, ta.parent / "no-such-dir"),
            ("newer", f"127.0.0.7:{port}", ta),
        ])
        done = _run("-p", str(_profile(tmp_path)), "--hosts", str(hosts), "-e", "fio", "--json")
    finally:
        listener.close()
    assert done.returncode == 1, done.stderr
    by_host = {e["host"]: e for e in json.loads(done.stdout)}
    assert by_host["alpha"]["status"] == "completed"
    assert by_host["nobody"]["status"] == "unreachable"
    assert "Connection refused" in by_host["nobody"]["reason"]
    assert by_host["typo"]["status"] == "refused"
    assert "is not a directory" in by_host["typo"]["reason"] and "no-such-dir" in by_host["typo"]["reason"]
    assert not (ta.parent / "no-such-dir").exists(), "fio's directory= refuses; nothing is created there"
    assert by_host["newer"]["status"] == "refused"
    assert "protocol version" in by_host["newer"]["reason"] and "98 != 97" in by_host["newer"]["reason"]
    for name in ("nobody", "typo", "newer"):
        assert by_host[name]["result"] is None
        assert sum(f"[{name}]" in line for line in done.stderr.splitlines()) == 1, done.stderr
    assert list(ta.iterdir()) == []


@pytest.mark.parametrize(("extra", "expected"), [
    ('[[steps]]\nname = "Build"\nkind = "command"\ncommand = "true"\n', "is a command step"),
    ('[[steps]]\nname = "Steady"\nblock_size = "4KiB"\nsteady_state = "snia"\nduration = "1s"\n', "steady-state"),
])
def test_steps_fio_client_cannot_express_are_refused_before_any_server_is_reached(tmp_path, labtui_home, extra,
                                                                                  expected):
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE.format(duration="1s") + extra)
    hosts = _hosts_file(tmp_path, [("alpha", "127.0.0.5:1", tmp_path)])
    done = _run("-p", str(profile), "--hosts", str(hosts), "-e", "fio")
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_raw_device_a_mixed_hosts_file_and_a_fio_only_host_elsewhere_are_refused(tmp_path, labtui_home):
    profile = _profile(tmp_path)
    raw = _hosts_file(tmp_path, [("alpha", "127.0.0.5:1", Path("/dev/sdz"))])
    done = _run("-p", str(profile), "--hosts", str(raw), "-e", "fio")
    assert done.returncode == 2 and "raw devices are not run through fio --client" in done.stderr, done.stderr
    mixed = tmp_path / "mixed.toml"
    mixed.write_text(f'[[hosts]]\nname = "a"\nfio_server = "127.0.0.5"\ntarget = "{tmp_path}"\n'
                     f'[[hosts]]\nname = "b"\nssh = "lab@b"\ntarget = "{tmp_path}"\n')
    done = _run("-p", str(profile), "--hosts", str(mixed), "-e", "fio")
    assert done.returncode == 2 and "b has no fio_server while others do" in done.stderr, done.stderr
    only = _hosts_file(tmp_path, [("alpha", "127.0.0.5:1", tmp_path)])
    done = _run("-p", str(profile), "--hosts", str(only))  # the native engine: over ssh only
    assert done.returncode == 2 and "alpha has no ssh entry, only fio_server" in done.stderr, done.stderr
