"""The hosts file: what it accepts, the one-line reason for what it refuses, and the ssh command it makes."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest

from factories import LAB
from labtui.errors import LabtuiError
from labtui.fleet.hosts import parse_hosts


def test_a_small_lab_reads_in_order_with_its_defaults():
    one, two = parse_hosts(LAB)
    assert (one.name, one.ssh, one.port, one.target, one.labtui, one.env) == (
        "bench-01", "lab@bench-01.lab", None, None, "labtui", {})
    assert two.port == 2222 and two.ssh_options == ("-J", "jump.lab", "-o", "ServerAliveInterval=2")


def test_the_ssh_command_keeps_batch_mode_first_and_quotes_the_environment():
    two = parse_hosts(LAB)[1]
    argv = two.ssh_argv("agent")
    # BatchMode first: ssh takes an option's first value, so no ssh_options can turn it off.
    assert argv[:4] == ["ssh", "-T", "-o", "BatchMode=yes"]
    assert argv.index("-J") < argv.index("ServerAliveInterval=5"), "the person's options come before the defaults"
    assert argv[-4:-1] == ["2222", "--", "bench-02"]
    remote = argv[-1]
    assert remote == "export LABTUI_HOME='/srv/lab tui' TZ=UTC; ~/venv/bin/python -m labtui agent"
    assert shlex.split(remote)[1] == "LABTUI_HOME=/srv/lab tui"


def test_the_environment_reaches_every_command_of_a_labtui_that_is_a_shell_line():
    # `env K=V cd /tmp && labtui` gave K to `cd` alone: the fleet's greeting host ran labtui without
    # its LABTUI_LOCK_DIR, and a person's "cd /opt/lab && ./labtui" would run without LABTUI_HOME.
    host = parse_hosts('''
[[hosts]]
name = "a"
ssh = "a"
labtui = "cd / && echo greeting; sh -c 'echo \\"$LABTUI_HOME|$TZ\\"'"
env = { LABTUI_HOME = "/srv/lab tui", TZ = "UTC" }
''')[0]
    out = subprocess.run(["sh", "-c", host.remote_command()], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.splitlines() == ["greeting", "/srv/lab tui|UTC"], out


@pytest.mark.parametrize(("text", "says"), [
    ("", "no [[hosts]] entries"),
    ("hosts = 3", "no [[hosts]] entries"),
    ("[[host]]\nname = 'a'", "unknown key 'host'"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\nport = 0", "hosts[1] (a).port: must be a port number"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\nuser = 'root'", "unknown key 'user'"),
    ("[[hosts]]\nname = 'a b'\nssh = 'a'", "hosts[1].name: needs a name"),
    ("[[hosts]]\nname = 'a'\nssh = '-oProxyCommand=x'", ".ssh: needs the destination"),
    # An entry with no ssh key at all said "(got None)": Python's word, not the file's
    ("[[hosts]]\nname = 'a'", "hosts[1] (a).ssh: needs the destination as ssh takes it, e.g. \"user@host\" (it has "
                              "none), or give fio_server"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\n[[hosts]]\nname = 'a'\nssh = 'b'", "the name 'a' is used twice"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\nssh_options = '-J x'", "ssh_options: must be a list"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\nenv = { 'A-B' = 'x' }", "'A-B' is not a variable name"),
    ("[[hosts]]\nname = 'a'\nssh = 'a'\nenv = { A = 1 }", "env.A: must be a string"),
    ("[[hosts]\n", "not valid TOML"),
])
def test_a_bad_hosts_file_is_refused_with_the_entry_and_reason(text, says):
    with pytest.raises(LabtuiError) as caught:
        parse_hosts(text, "lab.toml")
    assert str(caught.value).startswith("lab.toml") and says in str(caught.value)


def test_the_manuals_lab_is_a_hosts_file_labtui_reads():
    import re

    from manual import page

    text = re.search(r"```toml\n(.*?)```", page("many-hosts.md"), re.DOTALL).group(1)
    hosts = parse_hosts(text, "docs/many-hosts.md")
    assert [h.name for h in hosts] == ["bench-01", "bench-02", "bench-03"]
    jump = hosts[2].ssh_argv("agent")
    assert jump[jump.index("-J") + 1] == "lab@gateway.example.org"
    assert hosts[1].remote_command("agent") == "export LABTUI_HOME=/srv/labtui; /home/lab/.local/bin/labtui agent"
    # The manual's host that may run a ProxyCommand here says so; without its allow_local_commands it is refused.
    (allowed,) = [t for t in re.findall(r"```toml\n(.*?)```", page("many-hosts.md"), re.DOTALL) if "ProxyCommand" in t]
    assert parse_hosts(allowed)[0].allow_local_commands
    with pytest.raises(LabtuiError, match="ProxyCommand runs a command on this machine"):
        parse_hosts(allowed.replace("allow_local_commands = true", ""))


def _entry(**values) -> str:
    import tomli_w

    return tomli_w.dumps({"hosts": [{"name": "a", "ssh": "lab@a"} | values]})


@pytest.mark.parametrize("options", [
    ["-oProxyCommand=touch /tmp/x"], ["-o", "ProxyCommand=touch /tmp/x"], ["-o", "proxycommand touch /tmp/x"],
    ["-o", '"ProxyCommand" touch /tmp/x'], ["-o", "=ProxyCommand=touch"], ["-vo", "ProxyCommand=x"], ["-4vvoProxyCommand=x"],
    ["-o", "LocalCommand=x"], ["-oPermitLocalCommand=yes"], ["-o", "KnownHostsCommand /bin/x"],
    ["-o", "PKCS11Provider=/tmp/x.so"], ["-I", "/tmp/x.so"], ["-oSecurityKeyProvider=/tmp/x.so"],
    ["-F", "/tmp/ssh_config"], ["-F/tmp/ssh_config"], ["-qF", "/tmp/ssh_config"],
], ids=lambda o: " ".join(o))
def test_ssh_options_that_run_local_commands_are_refused_unless_the_host_allows_them(options):
    with pytest.raises(LabtuiError) as caught:
        parse_hosts(_entry(ssh_options=options), "lab.toml")
    said = str(caught.value)
    assert said.startswith("lab.toml: hosts[1] (a).ssh_options: -") and said.endswith(
        "on this machine, as root: refused unless the host's entry says allow_local_commands = true" if os.geteuid() == 0
        else "on this machine: refused unless the host's entry says allow_local_commands = true"), said
    assert parse_hosts(_entry(ssh_options=options, allow_local_commands=True))[0].ssh_options == tuple(options)


@pytest.mark.parametrize("options", [
    ["-J", "lab@gateway.example.org:2222"], ["-Jjump1,jump2"], ["-o", "ProxyJump=lab@[fd00::5]:22"],
    ["-F", "/dev/null"], ["-F", "none"], ["-o", "ProxyCommand=none"], ["-i", "~/.ssh/lab", "-vvC", "-o", "Port=22"],
], ids=lambda o: " ".join(o))
def test_proxyjump_and_options_that_run_nothing_here_are_taken_as_they_are(options):
    # ProxyJump runs ssh itself to the jump host: no command of the file's choosing (its host is checked).
    assert parse_hosts(_entry(ssh_options=options))[0].ssh_options == tuple(options)


@pytest.mark.parametrize(("options", "says"), [
    (["-J", "gw;touch /tmp/x"], "the jump host 'gw;touch /tmp/x' is not [user@]host[:port]"),
    (["-o", "ProxyJump=x`id`@gw"], "the jump host 'x`id`@gw' is not [user@]host[:port]"),
    (["otherhost"], "'otherhost' is not an ssh option"),
    (["--", "otherhost"], "'--' is not an ssh option"),
    (["-Z"], "-Z is not an option of ssh"),
    (["-o"], "-o needs its value after it"),
    (["-o", "ProxyCommand\x1b[2J"], "holds the control character '\\x1b'"),
], ids=lambda o: str(o)[:30])
def test_what_is_not_an_ssh_option_or_hides_a_command_is_refused_in_one_line(options, says):
    with pytest.raises(LabtuiError) as caught:
        parse_hosts(_entry(ssh_options=options, allow_local_commands=True), "lab.toml")
    assert says in str(caught.value) and "\n" not in str(caught.value) and "\x1b" not in str(caught.value)


def test_a_destination_a_shell_would_read_is_refused():
    for dest in ("a$(touch /tmp/x)", "a;b", "a b", "`id`@host"):
        with pytest.raises(LabtuiError, match="needs the destination"):
            parse_hosts(_entry(ssh=dest))
    assert parse_hosts(_entry(ssh="ssh://lab@[fd00::5]:22"))[0].ssh == "ssh://lab@[fd00::5]:22"


def test_as_root_a_hosts_file_others_can_write_is_refused(tmp_path):
    from labtui.fleet.hosts import load_hosts

    if os.geteuid() != 0:
        pytest.skip("the check is root's")
    path = tmp_path / "lab.toml"
    path.write_text(_entry())
    assert load_hosts(path)[0].name == "a"
    for mode, who in ((0o666, "its group and everyone may write it"), (0o620, "its group may write it"),
                      (0o602, "everyone may write it")):
        path.chmod(mode)
        with pytest.raises(LabtuiError, match=f"^{path}: refused as root: {who}"):
            load_hosts(path)
    path.chmod(0o644)
    os.chown(path, 65534, -1)  # another user's file (nobody's): they could change what root runs
    with pytest.raises(LabtuiError, match=rf"^{path}: refused as root: it belongs to (user \w+|uid 65534)"):
        load_hosts(path)


def test_the_jump_host_is_read_from_any_spelling_of_it():
    from labtui.fleet.hosts import Host

    def jump(*options: str) -> str | None:
        return Host("h", "h", ssh_options=options).jump()

    assert jump("-J", "lab@jump.lab:2222") == "lab@jump.lab:2222"
    assert jump("-Jfirst.lab,second.lab") == "first.lab"
    assert jump("-o", "ProxyJump=ssh://jump.lab") == "jump.lab"
    assert jump("-oproxyjump jump.lab") == "jump.lab"
    assert jump("-o", "ProxyJump=none") is None
    assert jump("-i", "key", "-o", "ServerAliveInterval=2") is None


async def test_as_root_ssh_gets_only_what_it_needs_of_the_environment_and_an_agent_of_root_or_sudos_caller(
        tmp_path, monkeypatch):
    """`sudo -E` or a root shell carries a user's environment: ssh ran as root with all of it (SSH_SK_PROVIDER names
    a library ssh loads; BASH_ENV a file the ProxyJump shell runs). The environment a real process started as ssh
    gets, as root: the allow-list, and SSH_AUTH_SOCK only for an agent of root's or of whoever ran sudo."""
    import json
    import socket
    import sys

    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet
    from labtui.results.store import Store

    if os.geteuid() != 0:
        pytest.skip("the allow-list is root's: a user's environment is their own")
    agent = tmp_path / "agent.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(agent))
    os.chown(agent, 4242, 4242)  # another user's agent
    seen = tmp_path / "env.json"
    script = tmp_path / "ssh"
    script.write_text(f"#!{sys.executable}\nimport json, os\nopen({str(seen)!r}, 'w').write(json.dumps(dict(os.environ)))\n")
    script.chmod(0o755)
    for key, value in {"SSH_SK_PROVIDER": "/home/alice/evil.so", "BASH_ENV": "/home/alice/rc", "SSH_ASKPASS": "/x",
                       "LD_PRELOAD": "/home/alice/x.so", "LANG": "C.UTF-8", "LC_TIME": "C", "KRB5CCNAME": "FILE:/tmp/k",
                       "SSH_AUTH_SOCK": str(agent), "SUDO_UID": "1000"}.items():
        monkeypatch.setenv(key, value)
    try:
        await Fleet([Host("beta", "beta")], lambda _host: {"type": "run"}, Store(tmp_path), ssh=str(script)).run()
        env = json.loads(seen.read_text())
        assert not {"SSH_SK_PROVIDER", "BASH_ENV", "SSH_ASKPASS", "LD_PRELOAD", "SUDO_UID", "SSH_AUTH_SOCK"} & set(env)
        assert (env["LANG"], env["LC_TIME"], env["KRB5CCNAME"]) == ("C.UTF-8", "C", "FILE:/tmp/k")
        monkeypatch.setenv("SUDO_UID", "4242")  # the agent of the person who ran `sudo -E`: theirs to lend
        assert Host("beta", "beta").ssh_env()["SSH_AUTH_SOCK"] == str(agent)
        os.chown(agent, 0, 0)
        monkeypatch.delenv("SUDO_UID")
        assert Host("beta", "beta").ssh_env()["SSH_AUTH_SOCK"] == str(agent)
    finally:
        sock.close()
