"""labtui.fleet.ssh_options: what a hosts file's ssh_options may make ssh do on this machine (as root).

Before, only the options that run a command were refused: `-E /etc/passwd` appended ssh's log to any file as
root, `-L /etc/shadow:h:22 -o StreamLocalBindUnlink=yes` deleted any file, `UserKnownHostsFile=/etc/passwd`
with `StrictHostKeyChecking=accept-new` wrote a host key into it, `-A` handed root's agent to a host labtui
treats as hostile, and `-t` or `-o RemoteCommand` broke labtui's own session with no clear word.
(The command-running options and the jump host are tested in test_fleet_hosts.py.)
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest
import tomli_w

from labtui.errors import LabtuiError
from labtui.fleet import ssh_options
from labtui.fleet.hosts import DEFAULT_OPTIONS, parse_hosts

ALLOW = "refused unless the host's entry says allow_local_commands = true"


def _hosts(options: list[str], **values):
    return parse_hosts(tomli_w.dumps({"hosts": [{"name": "a", "ssh": "lab@a", "ssh_options": options} | values]}),
                       "lab.toml")


@pytest.mark.parametrize(("options", "says"), [
    (["-E", "/etc/passwd"], "-E writes ssh's log into a file on this machine"),
    (["-L", "/etc/shadow:h:22", "-o", "StreamLocalBindUnlink=yes"], "-L binds a port or socket on this machine"),
    (["-o", "StreamLocalBindUnlink=yes"], "-o StreamLocalBindUnlink deletes a file before binding a socket there on "
                                          "this machine"),
    (["-o", "LocalForward=/etc/shadow h:22"], "-o LocalForward binds a port or socket on this machine"),
    (["-S", "/tmp/ctl"], "-S makes or uses a control socket"), (["-qM"], "-M makes a control socket"),
    (["-o", "ControlPath=/tmp/ctl"], "-o ControlPath makes or uses a control socket"),
    (["-D", "1080"], "-D binds a port"), (["-R", "9000:localhost:22"], "-R opens connections"),
    (["-w", "0:0"], "-w makes a tunnel device"), (["-o", "XAuthLocation=/tmp/x"], "-o XAuthLocation runs a program"),
    (["-vA"], "-A hands this machine's ssh agent to the host"), (["-oForwardAgent=yes"], "-o ForwardAgent hands"),
    (["-Y"], "-Y hands this machine's X display"), (["-o", "SendEnv=*"], "-o SendEnv sends this machine's environment"),
    (["-o", "IdentityAgent=/tmp/alice.sock"], "-o IdentityAgent authenticates with another ssh agent"),
    (["-o", "FutureOption=x"], "-o FutureOption is not an ssh option labtui knows to do nothing on this machine"),
    (["-o", "UserKnownHostsFile=/etc/passwd", "-o", "StrictHostKeyChecking=accept-new"],
     "-o stricthostkeychecking=accept-new writes into the known-hosts file the entry names"),
    (["-o", "UpdateHostKeys=yes", "-o", "UserKnownHostsFile /etc/passwd"], "-o updatehostkeys=yes writes into"),
], ids=lambda o: " ".join(o) if isinstance(o, list) else None)
def test_options_that_write_bind_delete_or_hand_out_credentials_here_need_the_entrys_consent(options, says):
    with pytest.raises(LabtuiError) as caught:
        _hosts(options)
    said = str(caught.value)
    assert said.startswith(f"lab.toml: hosts[1] (a).ssh_options: {says}") and said.endswith(ALLOW), said
    assert _hosts(options, allow_local_commands=True)[0].ssh_options == tuple(options)


@pytest.mark.parametrize("options", [["-t"], ["-N"], ["-n"], ["-f"], ["-G"], ["-V"], ["-W", "h:22"], ["-O", "exit"],
                                     ["-Q", "cipher"], ["-o", "RemoteCommand=id"], ["-o", "RequestTTY=force"],
                                     ["-o", "SessionType=none"], ["-oStdinNull=yes"], ["-o", "ForkAfterAuthentication yes"]],
                         ids=" ".join)
def test_options_that_would_stop_labtuis_own_session_are_refused_always(options):
    with pytest.raises(LabtuiError, match=r"^lab.toml: hosts\[1\] \(a\).ssh_options: -. ?\w* ?changes how ssh runs "
                                          r"labtui's command, which talks to labtui over ssh's input and output: refused"):
        _hosts(options, allow_local_commands=True)


@pytest.mark.parametrize(("options", "says"), [
    (["-l", "x;touch /tmp/p"], "-l 'x;touch /tmp/p' is not a user name"),
    (["-l", "-oProxyCommand=x"], "-l '-oProxyCommand=x' is not a user name"),
    (["-o", "User=$(id)"], "-o user '$(id)' is not a user name"),
    (["-o", "HostName=a b"], "-o hostname 'a b' is not a host name"),
    (["-o", "HostKeyAlias=`id`"], "-o hostkeyalias '`id`' is not a host name"),
    (["-p", "0"], "-p '0' is not a port number"), (["-oPort=99999"], "-o port '99999' is not a port number"),
], ids=lambda o: " ".join(o) if isinstance(o, list) else None)
def test_a_user_host_or_port_a_shell_or_ssh_would_misread_is_refused(options, says):
    with pytest.raises(LabtuiError) as caught:
        _hosts(options, allow_local_commands=True)
    assert f"ssh_options: {says}" in str(caught.value), str(caught.value)


def test_what_only_shapes_the_connection_is_taken_and_a_named_known_hosts_file_is_only_read(tmp_path):
    known = tmp_path / "known_hosts"
    known.write_text("")
    options = ["-F", "/dev/null", "-i", str(tmp_path / "key"), "-o", f"UserKnownHostsFile={known}",
               "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR", "-4Cq", "-c", "aes128-ctr", "-o", "RequestTTY=no",
               "-o", "ForwardAgent=no", "-o", "ProxyCommand=none", "-l", "lab", "-o", "HostName=bench-01.lab",
               "-p", "2222", "-o", "ServerAliveInterval=2", "-o", "SetEnv=LANG=C"]
    (host,) = _hosts(options)
    argv = host.ssh_argv("agent")
    # ssh takes an option's first value: after the entry's own, labtui's keep ssh from writing into that file.
    at = argv.index("SetEnv=LANG=C") + 1
    assert argv[at:at + 4] == list(ssh_options.READ_ONLY_KNOWN_HOSTS) and argv[at + 4:at + 10] == list(DEFAULT_OPTIONS)
    assert ssh_options.read_only_known_hosts(options, allow_local=True) == ()
    assert ssh_options.read_only_known_hosts(["-C"], allow_local=False) == ()


def test_as_root_a_known_hosts_file_another_user_can_change_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the check is root's")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    for keyword in ("UserKnownHostsFile", "GlobalKnownHostsFile", "RevokedHostKeys"):
        with pytest.raises(LabtuiError, match=rf"-o {keyword.lower()} '{shared}/k': {shared} can be written by every "
                                              r"user \(mode 0777\), who could choose which hosts ssh trusts as root"):
            _hosts(["-o", f"{keyword}={shared}/k"], allow_local_commands=True)
    with pytest.raises(LabtuiError, match="cannot with ~/%h_hosts"):
        _hosts(["-o", "UserKnownHostsFile=~/%h_hosts"])


def test_as_root_ssh_finds_the_ssh_and_shell_of_a_proxyjump_only_where_nobody_else_can_change_them(tmp_path,
                                                                                                   monkeypatch):
    """ssh reaches a -J host by running `$SHELL -c "ssh -W ..."`: the shell and the `ssh` found on PATH ran as root."""
    if os.geteuid() != 0:
        pytest.skip("the check is root's")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("PATH", f"/usr/bin:{shared}:/bin")
    monkeypatch.setenv("SHELL", str(shared / "sh"))
    (host,) = _hosts(["-J", "lab@gateway"])
    env = host.ssh_env()
    assert env["PATH"] == "/usr/bin:/bin" and env["SHELL"] == "/bin/sh"
    monkeypatch.setenv("SHELL", "/bin/bash")
    assert host.ssh_env()["SHELL"] == "/bin/bash"


def test_a_key_file_ssh_would_hang_on_or_as_root_another_users_key_is_refused_when_the_hosts_file_is_read(tmp_path):
    """ssh opens -i's key, its .pub and -cert.pub with a blocking open: a FIFO there hung the host's run with no
    word. As root, a key another user owns (or could swap) chose whom root logs in as."""
    fifo = tmp_path / "fifo-key"
    os.mkfifo(fifo)
    with pytest.raises(LabtuiError, match=rf"^lab.toml: hosts\[1\] \(a\).ssh_options: -i '{fifo}': {fifo} is a FIFO, not a key "
                                          r"file \(ssh would wait on it, or fail\)$"):
        _hosts(["-i", str(fifo)])
    key = tmp_path / "key"
    key.write_text("")
    os.mkfifo(tmp_path / "key.pub")
    with pytest.raises(LabtuiError, match=rf"-o identityfile '{key}': {key}.pub is a FIFO"):
        _hosts(["-o", f"IdentityFile={key}"])
    (tmp_path / "key.pub").unlink()
    with pytest.raises(LabtuiError, match=rf"-o userknownhostsfile '{fifo}': {fifo} is a FIFO, not a known-hosts file"):
        _hosts(["-o", f"UserKnownHostsFile={fifo}"])
    assert _hosts(["-o", f"IdentityFile={key}", "-i", "none"])  # a plain key of one's own is taken
    if os.geteuid() != 0:
        return
    os.chown(key, 4242, 4242)
    with pytest.raises(LabtuiError, match=rf"-i '{key}': {key} belongs to .*4242.*, who could choose the key root logs "
                                          r"in with \(chown root and chmod go-w it\)$"):
        _hosts(["-i", str(key)])
    with pytest.raises(LabtuiError, match="as root labtui checks the key files ssh opens, and cannot with ~/.ssh/id_%h"):
        _hosts(["-o", "IdentityFile=~/.ssh/id_%h"])


def test_as_root_a_tilde_in_a_file_option_is_roots_home_as_ssh_reads_it_not_home_from_sudo_e(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("the check is root's")
    shared = tmp_path / "alice"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("HOME", str(shared))  # `sudo -E` keeps the invoking user's HOME; ssh reads root's from passwd
    assert ssh_options._as_ssh_expands("~/.ssh/k") == Path(pwd.getpwuid(0).pw_dir) / ".ssh/k"
    _hosts(["-o", "UserKnownHostsFile=~/.ssh/known_hosts_lab"], allow_local_commands=True)
