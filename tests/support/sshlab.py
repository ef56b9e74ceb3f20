"""Real `sshd` lab hosts for the fleet tests: one sshd per loopback address, keys and known_hosts of the test's own.

Each host is an sshd (run as root, as sshd must be) with its own config, port, host key and
PidFile, listening on an address of its own (127.0.0.2, 127.0.0.3 ...: all of 127/8 is
loopback on Linux). One client key is authorized on all; the client uses BatchMode, the
test's known_hosts (StrictHostKeyChecking=yes) and `-F /dev/null`, so nothing of the machine's
own ssh setup takes part. The "remote" labtui is this checkout's interpreter with a LABTUI_HOME
of the host's own, passed through the hosts file's `env`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

SSHD_PATHS = ("/usr/sbin/sshd", "/usr/local/sbin/sshd")


def require_sshd() -> str:
    """sshd and ssh, and root to run sshd; skip without them, except in CI where they must exist."""
    sshd = next((p for p in SSHD_PATHS if os.access(p, os.X_OK)), None) or shutil.which("sshd")
    missing = [name for name, path in (("openssh-server (sshd)", sshd), ("ssh", shutil.which("ssh")),
                                       ("ssh-keygen", shutil.which("ssh-keygen"))) if path is None]
    if missing or os.geteuid() != 0:
        why = f"{', '.join(missing)} not installed" if missing else "sshd must run as root"
        if os.environ.get("CI"):
            pytest.fail(f"the fleet tests need real sshd instances: {why} (CI installs openssh-server, runs as root)")
        pytest.skip(why)
    return sshd


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "labtui-test", "-f", str(path)],
                   check=True, capture_output=True)


def _free_port(address: str) -> int:
    """A free port on `address`: the kernel's choice, or one of LABTUI_TEST_SSH_PORTS ("24000-24999")
    where a shared machine gives each person a range of their own."""
    low, _, high = os.environ.get("LABTUI_TEST_SSH_PORTS", "").partition("-")
    candidates = range(int(low), int(high) + 1) if low.isdigit() and high.isdigit() else [0]
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind((address, port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"no free port on {address} in LABTUI_TEST_SSH_PORTS")


@dataclass
class LabHost:
    name: str
    address: str
    port: int
    home: Path  # its LABTUI_HOME
    target: Path  # the directory its runs write in
    process: subprocess.Popen | None = None  # its sshd

    def sessions(self) -> list[psutil.Process]:
        """Everything sshd started for connections: the per-connection sshd and what runs under it."""
        if self.process is None:
            return []
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def agents(self) -> list[psutil.Process]:
        """The labtui processes running on this host (and theirs), alive."""
        found = []
        for p in self.sessions():
            with contextlib.suppress(psutil.Error):
                if p.status() != psutil.STATUS_ZOMBIE and "sshd" not in p.name():
                    found.append(p)
        return found

    def cut_link(self) -> None:
        """Kill the connections' sshd processes, not what they run: the link is gone, the host is not."""
        for p in self.sessions():
            with contextlib.suppress(psutil.Error):
                if "sshd" in p.name():
                    p.kill()

    def kill_labtui(self) -> None:
        """SIGKILL the labtui agent itself (as the OOM killer would): only its guardian can clean up."""
        for p in self.agents():
            with contextlib.suppress(psutil.Error):
                if "agent" in p.cmdline() and "labtui" in p.cmdline():
                    p.kill()

    def result_files(self) -> list[Path]:
        return sorted((self.home / "results").glob("*.toml"))


@contextlib.contextmanager
def ssh_lab(tmp_path: Path, disk_dir: Path):
    """An SshLab whose hosts' targets are on a disk where O_DIRECT works; every sshd stopped after."""
    targets = Path(disk_dir) / tmp_path.name
    targets.mkdir()
    lab = SshLab(tmp_path / "lab", targets)
    try:
        yield lab
    finally:
        lab.close()
        shutil.rmtree(targets, ignore_errors=True)


class SshLab:
    def __init__(self, root: Path, target_root: Path) -> None:
        self.sshd = require_sshd()
        self.root = root
        self.target_root = target_root
        root.mkdir(parents=True, exist_ok=True)
        self.key = root / "id_client"
        _keygen(self.key)
        self.authorized = root / "authorized_keys"
        shutil.copy(self.key.with_suffix(".pub"), self.authorized)
        self.authorized.chmod(0o600)
        self.known_hosts = root / "known_hosts"
        self.known_hosts.write_text("")
        self.hosts: list[LabHost] = []
        # sshd refuses to start without its privilege separation directory (made by its package's
        # service, which nobody started here).
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)

    def add(self, name: str, address: str) -> LabHost:
        directory = self.root / name
        directory.mkdir()
        host_key = directory / "host_key"
        _keygen(host_key)
        target = self.target_root / name
        target.mkdir()
        host = LabHost(name, address, 0, directory / "labtui-home", target)
        host.home.mkdir()
        for _attempt in range(5):
            host.port = _free_port(address)
            config = directory / "sshd_config"
            config.write_text("\n".join([
                f"ListenAddress {address}:{host.port}",
                f"HostKey {host_key}",
                f"PidFile {directory / 'sshd.pid'}",
                f"AuthorizedKeysFile {self.authorized}",
                "StrictModes no",  # the test's tmp directories are not laid out as ~/.ssh is
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "PermitRootLogin prohibit-password",
                "LogLevel ERROR",
                "",
            ]))
            with open(directory / "sshd.log", "wb") as log:
                host.process = subprocess.Popen([self.sshd, "-D", "-e", "-f", str(config)], stdin=subprocess.DEVNULL,
                                                stdout=subprocess.DEVNULL, stderr=log)
            if self._listening(host):
                break
            host.process.kill()
            host.process.wait()
        else:
            raise RuntimeError(f"sshd for {name} did not start: {(directory / 'sshd.log').read_text()}")
        public = host_key.with_suffix(".pub").read_text().split()
        with self.known_hosts.open("a") as f:
            f.write(f"[{address}]:{host.port} {public[0]} {public[1]}\n")
        self.hosts.append(host)
        return host

    def _listening(self, host: LabHost) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if host.process.poll() is not None:
                return False
            with contextlib.suppress(OSError), socket.create_connection((host.address, host.port), timeout=0.5):
                return True
            time.sleep(0.05)
        return False

    def jump_options(self, jump: LabHost) -> list[str]:
        """ssh options reaching a host through `jump` (-J). ssh hands -J's own connection only its -F
        file, not -i or -o: the lab's settings go in a config file (an entry with these options needs
        allow_local_commands, as any -F FILE does)."""
        config = self.root / "ssh_config"
        config.write_text(f"Host *\n  IdentityFile {self.key}\n  IdentitiesOnly yes\n"
                          f"  UserKnownHostsFile {self.known_hosts}\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
        return ["-F", str(config), "-J", f"root@{jump.address}:{jump.port}"]

    def ssh_options(self) -> list[str]:
        return ["-F", "/dev/null", "-i", str(self.key), "-o", f"UserKnownHostsFile={self.known_hosts}",
                "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR"]

    def entry(self, host: LabHost, **extra) -> dict:
        labtui = f"{sys.executable} -m labtui"
        # A lock directory of its own: the lab's hosts are one machine, their targets on one disk,
        # and each measures as a host of its own would.
        env = {"LABTUI_HOME": str(host.home), "LABTUI_LOCK_DIR": str(host.home.parent / "locks")} | extra.pop("env", {})
        return {"name": host.name, "ssh": f"root@{host.address}", "port": host.port, "ssh_options": self.ssh_options(),
                "target": str(host.target), "labtui": labtui, "env": env} | extra

    def hosts_file(self, entries: list[dict], name: str = "hosts.toml") -> Path:
        import tomli_w

        path = self.root / name
        path.write_text(tomli_w.dumps({"hosts": entries}))
        return path

    def close(self) -> None:
        for host in self.hosts:
            if host.process is None:
                continue
            for p in host.sessions():
                with contextlib.suppress(psutil.Error):
                    p.kill()
            host.process.kill()
            host.process.wait()
