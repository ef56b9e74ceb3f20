"""The hosts file (`--hosts FILE`): which lab hosts to run on, and the `ssh` command that reaches each.

```toml
[[hosts]]
name = "bench-01"                 # how labtui names the host (unique in the file)
ssh = "lab@bench-01.lab"          # the destination, as `ssh` takes it (a ~/.ssh/config alias works)
port = 2222                       # optional
ssh_options = ["-J", "jump.lab"]  # optional: more `ssh` arguments (-i KEY, -J JUMP, -o Option=value)
target = "/mnt/nvme/labtui"       # optional: the directory to test there (-t gives it for every host)
labtui = "~/.local/bin/labtui"    # optional: the command that starts labtui there (default: labtui)
env = { LABTUI_HOME = "/srv/labtui" }   # optional: environment variables for it
fio_server = "bench-01.lab:8765"  # optional: a `fio --server` there, driven by `-e fio` (labtui.fleet.fio_client)
```

An entry needs `ssh`, or `fio_server` (host[:port], port 8765 by default), or both. fio's
client/server protocol has no authentication: labtui only talks to servers a lab already runs.

labtui runs the system `ssh`, so keys, agents, `~/.ssh/config`, ProxyJump and known_hosts work
as they do for the person. It always adds `-T` and `BatchMode=yes` (a password prompt would hang
a run with no one to answer it), and keep-alives that notice a dead link within about 15 s.

`ssh_options` are taken where labtui knows what they do (labtui.fleet.ssh_options says which, and
why): what makes ssh run a command, load code, write, bind or delete files here, or hand this machine's
credentials to the host is refused unless the entry says `allow_local_commands = true`, and what
would stop labtui's session (-t, -N, RemoteCommand ...) always, however it is spelt (`-oProxyCommand=x`,
`-o "proxycommand x"`, `-vo ProxyCommand=x`). ProxyJump (-J) stays allowed: ssh reaches the jump
host by running itself, never a command of the file's choosing; its [user@]host[:port] is checked to
be a host name, as newer ssh checks it (older ones put it into the shell line they run unchecked).
As root, a hosts file that another user owns or that group or others may write is refused: whoever
can write it chooses what root runs.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labtui.errors import LabtuiError, ValidationError
from labtui.fleet import ssh_options
from labtui.machine import programs
from labtui.machine.checked_read import Unreadable, read_checked
from labtui.printable import path_text, printable
from labtui.results.files import loads_toml

KEYS = ("name", "ssh", "port", "ssh_options", "target", "labtui", "env", "fio_server", "allow_local_commands")
FIO_PORT = 8765  # fio's own default for --server
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_HOSTS = 256
MAX_FILE_BYTES = 1024 * 1024
# ssh options labtui sets first (the first value of an option wins in ssh, so nobody can turn
# BatchMode off by mistake), then the person's, then defaults they may override.
FORCED_OPTIONS = ("-T", "-o", "BatchMode=yes")  # BatchMode: no prompt, so no SSH_ASKPASS program runs either
# What ssh gets of labtui's environment as root (Host.ssh_env; docs/safety.md says why): where it runs and in which
# language, SHELL and PATH for a ProxyJump, a Kerberos ticket cache, and an agent that is root's or sudo's caller's.
ROOT_SSH_ENV = frozenset(("HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "PATH", "SHELL",
                          "KRB5CCNAME", "SSH_AUTH_SOCK"))
DEFAULT_OPTIONS = ("-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o", "ConnectTimeout=15")
# A destination as ssh takes it: nothing a shell would read (ssh hands it, as %h, to a
# ProxyCommand of the person's own ~/.ssh/config).
_DESTINATION = re.compile(r"[\w.@:%\[\]/+~-]+")


@dataclass(frozen=True)
class Host:
    name: str
    ssh: str  # "" when the host is reached through its fio server only
    port: int | None = None
    ssh_options: tuple[str, ...] = ()
    target: str | None = None
    labtui: str = "labtui"
    env: dict[str, str] = field(default_factory=dict)
    fio_server: tuple[str, int] | None = None  # (address, port) of a `fio --server` on the host
    allow_local_commands: bool = False  # its ssh_options may run commands on this machine (ProxyCommand ...)

    def remote_command(self, *args: str) -> str:
        """The command line the host's shell runs: the environment, labtui, its arguments."""
        words = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
        # Exported, not `env K=V` before it: `labtui` may be a shell line of its own ("cd /opt/lab &&
        # ./venv/bin/labtui"), and `env` would give the variables to its first command only.
        prefix = f"export {' '.join(words)}; " if words else ""
        # `labtui` is the person's own command line ("~/venv/bin/python -m labtui"): not quoted.
        return prefix + self.labtui + "".join(f" {shlex.quote(a)}" for a in args)

    def ssh_argv(self, *args: str, ssh: str = "ssh") -> list[str]:
        """`ssh` with labtui's options and the person's, reaching this host to run labtui with `args`."""
        # A known-hosts file the entry names is only read (labtui.fleet.ssh_options).
        argv = [ssh, *FORCED_OPTIONS, *self.ssh_options,
                *ssh_options.read_only_known_hosts(self.ssh_options, self.allow_local_commands), *DEFAULT_OPTIONS]
        if self.port is not None:
            argv += ["-p", str(self.port)]
        return [*argv, "--", self.ssh, self.remote_command(*args)]

    def ssh_env(self) -> dict[str, str]:
        """ssh's environment. ssh reaches a ProxyJump host by running `$SHELL -c "ssh -W ..."`, the `ssh` found
        on PATH: as root, a PATH without the directories another user can write, and /bin/sh for a SHELL
        another user could change (labtui.machine.programs). As root, only what ssh needs to connect
        (ROOT_SSH_ENV, the locale's LC_*, and an agent of root's or of whoever ran sudo): a root shell, or
        `sudo -E`, carries a user's environment, in which ssh would load SSH_SK_PROVIDER's library as root."""
        env = {**os.environ, "PATH": programs.safe_path()}
        if os.geteuid() == 0:
            env = {key: value for key, value in env.items() if key in ROOT_SSH_ENV or key.startswith("LC_")}
            if not _own_agent(os.environ.get("SSH_AUTH_SOCK")):
                env.pop("SSH_AUTH_SOCK", None)
        shell = env.get("SHELL")
        if shell and (not os.path.isabs(shell) or programs.file_refusal(shell) is not None):
            env["SHELL"] = "/bin/sh"
        return env

    def jump(self) -> str | None:
        """The jump host its ssh_options name (-J or ProxyJump: the first hop), if any."""
        words = iter(self.ssh_options)
        for word in words:
            value = None
            if word.startswith("-J"):
                value = word[2:] or next(words, None)
            elif word.startswith("-o"):
                match = ssh_options.KEYWORD.fullmatch(word[2:] or next(words, ""))
                if match is not None and match.group(1).lower() == "proxyjump":
                    value = match.group(2)
            value = (value or "").strip().strip('"')
            if value and value.lower() != "none":
                return value.split(",")[0].removeprefix("ssh://")
        return None

    def where(self) -> str:
        if not self.ssh and self.fio_server is not None:
            return self.fio_where()
        return f"{self.ssh}:{self.port}" if self.port is not None else self.ssh

    def fio_where(self) -> str:
        """The fio server as the person wrote it: "bench-01.lab:8765", "[fd00::5]:8765"."""
        assert self.fio_server is not None
        address, port = self.fio_server
        return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _own_agent(socket: str | None) -> bool:
    """Whether ssh, as root, may authenticate with the agent at `socket`: a socket of root's, or of the person whose
    sudo this is (SUDO_UID: `sudo -E` keeps their SSH_AUTH_SOCK, and they may become root anyway). Any other
    user's agent would choose the keys root offers and see every host root signs in to."""
    if not socket or not os.path.isabs(socket):
        return False
    try:
        info = os.stat(socket)
    except OSError:
        return False
    lender = os.environ.get("SUDO_UID", "")
    return stat.S_ISSOCK(info.st_mode) and (info.st_uid == 0 or (lender.isdigit() and info.st_uid == int(lender)))


def load_hosts(path: str | os.PathLike) -> list[Host]:
    """The hosts of a hosts file, in its order; ValidationError naming the file and entry otherwise."""
    where = path_text(path)  # one line: the Fleet screen's status line names it
    file = Path(path).expanduser()
    try:  # one checked descriptor (labtui.machine.checked_read): a FIFO planted there must not hang us
        data, _ = read_checked(file, MAX_FILE_BYTES, check=lambda info: _trusted(info, where))
    except Unreadable as exc:
        if exc.kind == "missing":
            raise LabtuiError(f"no hosts file {where}") from None
        if exc.kind in ("directory", "special"):
            raise LabtuiError(f"{where} is not a file") from None
        if exc.kind == "large":
            raise LabtuiError(f"{where}: too large for a hosts file (at most {MAX_FILE_BYTES:,} bytes)") from None
        raise LabtuiError(f"{where}: cannot read: {exc.reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LabtuiError(f"{where}: not UTF-8 text") from None
    return parse_hosts(text, where)


def _trusted(info: os.stat_result, where: str) -> None:
    """As root, refuse a hosts file someone else may write: it chooses what root runs (its ssh_options,
    its labtui command lines)."""
    if os.geteuid() != 0:
        return
    if info.st_uid != 0:
        raise LabtuiError(f"{where}: refused as root: it belongs to {_user(info.st_uid)}, who could change what root "
                          "runs on every host (chown root it, or run labtui as that user)")
    if info.st_mode & 0o022:
        who = "its group and everyone" if info.st_mode & 0o022 == 0o022 else (
            "its group" if info.st_mode & 0o020 else "everyone")
        raise LabtuiError(f"{where}: refused as root: {who} may write it, and could change what root runs on every "
                          f"host (chmod go-w {where})")


def _user(uid: int) -> str:
    import pwd

    try:
        return f"user {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f"uid {uid}"


def parse_hosts(text: str, where: str = "hosts file") -> list[Host]:
    try:
        data = loads_toml(text)
    except ValueError as exc:
        raise ValidationError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"hosts"})
    if unknown:
        raise ValidationError(f"{where}: unknown key {unknown[0]!r} (a hosts file holds [[hosts]] tables)")
    entries = data.get("hosts")
    if not isinstance(entries, list) or not entries:
        raise ValidationError(f"{where}: no [[hosts]] entries")
    if len(entries) > MAX_HOSTS:
        raise ValidationError(f"{where}: {len(entries)} hosts, at most {MAX_HOSTS}")
    hosts = [_host(entry, f"{where}: hosts[{i + 1}]") for i, entry in enumerate(entries)]
    seen: set[str] = set()
    for i, host in enumerate(hosts):
        if host.name in seen:
            raise ValidationError(f"{where}: hosts[{i + 1}]: the name {host.name!r} is used twice")
        seen.add(host.name)
    return hosts


def _host(entry: Any, where: str) -> Host:
    if not isinstance(entry, dict):
        raise ValidationError(f"{where}: must be a table")
    for key in entry:
        if key not in KEYS:
            raise ValidationError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValidationError(f"{where}.name: needs a name of letters, digits, '.', '_' and '-' (got {name!r})")
    where = f"{where} ({name})"
    _no_control_characters(entry, where)
    fio_server = _fio_server(entry["fio_server"], where) if "fio_server" in entry else None
    dest = entry.get("ssh")
    if dest is None and fio_server is not None:
        dest = ""
    elif not isinstance(dest, str) or dest.startswith("-") or not _DESTINATION.fullmatch(dest):
        got = "it has none" if dest is None else f"got {dest!r}"  # "(got None)" is Python's word, not the file's
        raise ValidationError(f"{where}.ssh: needs the destination as ssh takes it, e.g. \"user@host\" ({got}), "
                              "or give fio_server")
    port = entry.get("port")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        raise ValidationError(f"{where}.port: must be a port number 1..65535 (got {port!r})")
    options = entry.get("ssh_options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise ValidationError(f"{where}.ssh_options: must be a list of ssh arguments, e.g. [\"-J\", \"jump\"]")
    allow_local = entry.get("allow_local_commands", False)
    if not isinstance(allow_local, bool):
        raise ValidationError(f"{where}.allow_local_commands: must be true or false (got {allow_local!r})")
    ssh_options.check(options, allow_local, f"{where}.ssh_options")
    target = entry.get("target")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise ValidationError(f"{where}.target: must be a directory (got {target!r})")
    labtui = entry.get("labtui", "labtui")
    if not isinstance(labtui, str) or not labtui.strip():
        raise ValidationError(f"{where}.labtui: must be the command that starts labtui there (got {labtui!r})")
    env = entry.get("env", {})
    if not isinstance(env, dict):
        raise ValidationError(f"{where}.env: must be a table, e.g. {{ LABTUI_HOME = \"/srv/labtui\" }}")
    for key, value in env.items():
        if not _ENV_NAME.match(key):
            raise ValidationError(f"{where}.env: {key!r} is not a variable name")
        if not isinstance(value, str):
            raise ValidationError(f"{where}.env.{key}: must be a string (got {value!r})")
    return Host(name=name, ssh=dest, port=port, ssh_options=tuple(options), target=target, labtui=labtui.strip(),
                env=dict(env), fio_server=fio_server, allow_local_commands=allow_local)


def _no_control_characters(entry: dict[str, Any], where: str) -> None:
    """Refuse a value holding a control character (an escape sequence, a newline): each one is an
    argument or a command line, and each is shown in reasons and tables."""
    for key, value in entry.items():
        texts = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else [value]
        for text in texts:
            bad = next((c for c in text if not c.isprintable() and c != " "), None) if isinstance(text, str) else None
            if bad is not None:
                raise ValidationError(f"{where}.{key}: holds the control character {bad!r}: {printable(text)!r}")


_FIO_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$")


def _fio_server(value: Any, where: str) -> tuple[str, int]:
    """"host[:port]" or "[v6 address][:port]" as (address, port)."""
    hint = f"{where}.fio_server: needs host[:port] of a `fio --server`, e.g. \"bench-01.lab:8765\" (got {value!r})"
    if not isinstance(value, str):
        raise ValidationError(hint)
    text = value.strip()
    # ASCII digits: int() reads a port written "８７６５" as 8765, which ssh and fio would not.
    match = (re.fullmatch(r"\[([0-9A-Fa-f:.]+)\](?::(\d+))?", text, re.ASCII)
             or re.fullmatch(r"([^:\[\]]+)(?::(\d+))?", text, re.ASCII))
    if match is None:
        raise ValidationError(hint)
    address, port_text = match.group(1), match.group(2)
    if ":" not in address and not _FIO_HOST.match(address):
        raise ValidationError(hint)
    port = int(port_text) if port_text else FIO_PORT
    if not 1 <= port <= 65535:
        raise ValidationError(f"{where}.fio_server: the port must be 1..65535 (got {port})")
    return address, port
