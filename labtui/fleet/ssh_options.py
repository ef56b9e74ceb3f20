"""What a hosts file's `ssh_options` may make `ssh` do on this machine (as root, when labtui runs as root).

Options are read as ssh's getopt reads them and taken only where labtui knows what they do (an allow-list):
- **taken as they are**: choices of how ssh connects and authenticates to the host (-4 -6 -C -q -v -c -m -b -B
  -e -P -i, -o Ciphers, ServerAliveInterval, IdentityFile, PreferredAuthentications ...), and values checked
  first: -J/ProxyJump a [user@]host[:port], -l/User a user name, HostName and HostKeyAlias a host name,
  -p/Port a port. A key or known-hosts file (-i, IdentityFile, CertificateFile, with its .pub and -cert.pub)
  that is not a regular file (a FIFO would hang ssh) is refused, and as root a key another user can change. A
  known-hosts file (UserKnownHostsFile, GlobalKnownHostsFile, RevokedHostKeys) decides which hosts ssh trusts:
  as root, one another user can change is refused; ssh never writes into one the entry names (labtui adds
  StrictHostKeyChecking=yes and UpdateHostKeys=no after the entry's options, and refuses accept-new, no and
  UpdateHostKeys=yes beside it), so it cannot name /etc/passwd.
- **taken where the entry says `allow_local_commands = true`**: what runs a command or loads code here
  (ProxyCommand, LocalCommand, KnownHostsCommand, XAuthLocation, PKCS11Provider/-I, SecurityKeyProvider,
  -F FILE), writes, binds or deletes files and sockets here (-E, ControlPath/-S, ControlMaster/-M,
  forwardings -L -R -D -w and StreamLocalBindUnlink, which unlinks any path first), or hands this
  machine's credentials to the host (-A/ForwardAgent, -X/-Y, -K, SendEnv, IdentityAgent, AddKeysToAgent);
  and any -o keyword labtui does not know.
- **never taken**: what stops labtui's own session (-t, -n, -N, -f, -s, -G, -V, -W, -O, -Q, RemoteCommand,
  RequestTTY, SessionType, StdinNull, ForkAfterAuthentication): labtui talks to its agent over ssh's input
  and output.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from labtui.errors import ValidationError
from labtui.machine.checked_read import kind_of
from labtui.machine.writers import others_can_write
from labtui.printable import shown

# ssh's short options as its getopt reads them (OpenSSH 9; -P takes a tag since 9.6): those before
# a ':' take a value, in the same word ("-J jump" or "-Jjump"); the others may be run together ("-vvA").
FLAGS = set("1246AaCfGgKkMNnqsTtVvXxYy")
VALUED = set("BbcDEeFIiJLlmOoPpQRSWw")
_TRUSTED_LETTERS = {
    "A": "-A hands this machine's ssh agent to the host, which could log in wherever its keys open",
    "X": "-X hands this machine's X display to the host", "Y": "-Y hands this machine's X display to the host",
    "K": "-K hands this machine's Kerberos credentials to the host",
    "g": "-g lets other machines connect to ports forwarded here", "M": "-M makes a control socket on this machine",
    "E": "-E writes ssh's log into a file on this machine", "S": "-S makes or uses a control socket on this machine",
    "L": "-L binds a port or socket on this machine", "R": "-R opens connections from this machine",
    "D": "-D binds a port on this machine", "w": "-w makes a tunnel device on this machine",
    "I": "-I loads a PKCS#11 library into ssh on this machine",
}
_SESSION_LETTERS = set("1fNnstGVWOQ")
# The others are taken: -2 -4 -6 -a -C -k -q -T -v -x -y, -b -B -c -e -m -P, and -i -J -l -p -o -F with their values checked.
_SAFE_KEYWORDS = {k.lower() for k in """
    AddressFamily BatchMode BindAddress BindInterface CanonicalDomains CanonicalizeFallbackLocal
    CanonicalizeHostname CanonicalizeMaxDots CanonicalizePermittedCNAMEs CASignatureAlgorithms
    CertificateFile ChallengeResponseAuthentication ChannelTimeout CheckHostIP Ciphers ClearAllForwardings
    Compression ConnectionAttempts ConnectTimeout EnableEscapeCommandline EscapeChar ExitOnForwardFailure
    FingerprintHash GSSAPIAuthentication HashKnownHosts HostbasedAcceptedAlgorithms HostbasedAuthentication
    HostKeyAlgorithms IdentitiesOnly IdentityFile IgnoreUnknown IPQoS KbdInteractiveAuthentication
    KbdInteractiveDevices KexAlgorithms LogLevel LogVerbose MACs NoHostAuthenticationForLocalhost
    NumberOfPasswordPrompts ObscureKeystrokeTiming PasswordAuthentication PreferredAuthentications
    ProxyUseFdpass PubkeyAcceptedAlgorithms PubkeyAcceptedKeyTypes PubkeyAuthentication RekeyLimit
    RequiredRSASize ServerAliveCountMax ServerAliveInterval SetEnv StrictHostKeyChecking Tag TCPKeepAlive
    UpdateHostKeys VerifyHostKeyDNS VisualHostKey WarnWeakCrypto
    ProxyJump User HostName HostKeyAlias Port UserKnownHostsFile GlobalKnownHostsFile RevokedHostKeys
""".split()}
_TRUSTED_KEYWORDS = {k.lower(): (k, what) for k, what in (
    ("ProxyCommand", "runs a command"), ("LocalCommand", "runs a command"), ("PermitLocalCommand", "runs a command"),
    ("KnownHostsCommand", "runs a command"), ("XAuthLocation", "runs a program"),
    ("PKCS11Provider", "loads a library into ssh"), ("SecurityKeyProvider", "loads a library into ssh"),
    ("ControlMaster", "makes a control socket"), ("ControlPath", "makes or uses a control socket"),
    ("ControlPersist", "leaves ssh running"), ("LocalForward", "binds a port or socket"),
    ("RemoteForward", "opens connections from this machine for the host and binds sockets"),
    ("DynamicForward", "binds a port"), ("GatewayPorts", "opens forwarded ports to other machines"),
    ("StreamLocalBindUnlink", "deletes a file before binding a socket there"),
    ("StreamLocalBindMask", "sets who may use sockets it binds"), ("PermitRemoteOpen", "opens connections"),
    ("Tunnel", "makes a tunnel device"), ("TunnelDevice", "makes a tunnel device"),
    ("ForwardAgent", "hands this machine's ssh agent to the host"),
    ("ForwardX11", "hands this machine's X display to the host"),
    ("ForwardX11Trusted", "hands this machine's X display to the host"),
    ("ForwardX11Timeout", "hands this machine's X display to the host"),
    ("GSSAPIDelegateCredentials", "hands this machine's Kerberos credentials to the host"),
    ("SendEnv", "sends this machine's environment to the host"),
    ("IdentityAgent", "authenticates with another ssh agent"), ("AddKeysToAgent", "adds keys to the ssh agent"),
)}
_SESSION_KEYWORDS = {k.lower(): k for k in ("RemoteCommand", "RequestTTY", "SessionType", "StdinNull",
                                            "ForkAfterAuthentication")}
_OFF = {"none", "no"}  # a trusted keyword turned off does nothing here (ProxyCommand=none, ForwardAgent=no)
_KNOWN_HOSTS = {"userknownhostsfile", "globalknownhostsfile", "revokedhostkeys"}
_WRITES_KNOWN_HOSTS = {"stricthostkeychecking": {"accept-new", "no", "off"}, "updatehostkeys": {"yes", "ask"}}
READ_ONLY_KNOWN_HOSTS = ("-o", "StrictHostKeyChecking=yes", "-o", "UpdateHostKeys=no")
NO_CONFIG = ("none", "/dev/null")  # -F values that read no configuration file
KEYWORD = re.compile(r'[\s=]*"?([A-Za-z0-9]+)"?(?:\s*=\s*|\s+|$)(.*)', re.DOTALL)
# One jump of ProxyJump: [ssh://][user@]host[:port], host a name or [an IPv6 address].
_JUMP = re.compile(r"(?:ssh://)?(?:[A-Za-z0-9._%+-]+@)?(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
# What ssh hands, as %r and %h, to a ProxyCommand of the person's own ~/.ssh/config: nothing a shell reads.
_USER = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.@+-]*")
_HOST = re.compile(r"[A-Za-z0-9_.%][A-Za-z0-9_.%-]*|\[?[0-9A-Fa-f:.]+\]?")
_PORT = re.compile(r"[0-9]{1,5}")


def _words(options: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """(letter, value or None) for each option of `options` as ssh's getopt reads them; ValueError for a
    word that is no ssh option."""
    words = iter(options)
    for word in words:
        if word == "--" or not word.startswith("-") or len(word) < 2:
            raise ValueError(f"{word!r} is not an ssh option (write each option, then its value: [\"-J\", \"jump.lab\"]; "
                             "labtui gives the destination and the command itself)")
        for i, letter in enumerate(word[1:], 1):
            if letter in FLAGS:
                yield letter, None
                continue
            if letter not in VALUED:
                raise ValueError(f"{word!r}: -{letter} is not an option of ssh")
            value = word[i + 1:] or next(words, None)
            if value is None:
                raise ValueError(f"-{letter} needs its value after it")
            yield letter, value
            break


def keyword_lines(options: Sequence[str]) -> list[tuple[str, str]]:
    """The (keyword in lower case, argument) of each -o line of `options` (well-formed ones)."""
    found = []
    try:
        for letter, value in _words(options):
            match = KEYWORD.fullmatch(value or "") if letter == "o" else None
            if match is not None:
                found.append((match.group(1).lower(), match.group(2).strip().strip('"')))
    except ValueError:
        pass
    return found


def check(options: Sequence[str], allow_local: bool, where: str) -> None:
    """Refuse, in one line naming `where`, an option ssh would read otherwise, one that stops labtui's session,
    and (unless `allow_local`) one that acts on this machine beyond connecting."""
    try:
        words = list(_words(options))
    except ValueError as exc:
        raise ValidationError(f"{where}: {exc}") from None
    lines = []
    for letter, value in words:
        if letter in _SESSION_LETTERS:
            _session(f"-{letter}", where)
        if letter in _TRUSTED_LETTERS:
            _trusted(_TRUSTED_LETTERS[letter], allow_local, where)
        elif letter == "o":
            lines.append(_keyword(value or "", allow_local, where))
        elif letter == "F" and value not in NO_CONFIG:
            _trusted(f"-F {value} reads a config file, which may run commands (ProxyCommand, LocalCommand, Match exec "
                     "...) on this machine", allow_local, where)
        elif letter in "iJlp":
            _value(letter, {"i": "identityfile", "J": "proxyjump", "l": "user", "p": "port"}[letter], value or "", where)
    if not allow_local and any(k == "userknownhostsfile" and v.lower() != "none" for k, v in lines):
        for keyword, argument in lines:
            if argument.lower() in _WRITES_KNOWN_HOSTS.get(keyword, ()):
                _trusted(f"-o {keyword}={argument} writes into the known-hosts file the entry names, on this machine",
                         False, where)


def read_only_known_hosts(options: Sequence[str], allow_local: bool) -> tuple[str, ...]:
    """What labtui adds after the entry's options so that ssh writes nothing into a known-hosts file the entry
    names (ssh takes an option's first value: the entry's own, checked by `check`, or these)."""
    named = any(k == "userknownhostsfile" and v.lower() != "none" for k, v in keyword_lines(options))
    return READ_ONLY_KNOWN_HOSTS if named and not allow_local else ()


def _keyword(value: str, allow_local: bool, where: str) -> tuple[str, str]:
    match = KEYWORD.fullmatch(value)
    if match is None:
        raise ValidationError(f"{where}: -o {value!r} is not an ssh option line (Keyword=value)")
    keyword, argument = match.group(1).lower(), match.group(2).strip().strip('"')
    if keyword in _SESSION_KEYWORDS:
        if not (keyword == "requesttty" and argument.lower() == "no"):  # no tty: what -T, first, says already
            _session(f"-o {_SESSION_KEYWORDS[keyword]}", where)
    elif keyword in _TRUSTED_KEYWORDS:
        if argument.lower() not in _OFF:
            name, what = _TRUSTED_KEYWORDS[keyword]
            said = what if "host" in what or "machine" in what else f"{what} on this machine"
            _trusted(f"-o {name} {said}", allow_local, where)
    elif keyword not in _SAFE_KEYWORDS:
        _trusted(f"-o {match.group(1)} is not an ssh option labtui knows to do nothing on this machine", allow_local,
                 where)
    else:
        _value("o", keyword, argument, where)
    return keyword, argument


def _value(letter: str, keyword: str, argument: str, where: str) -> None:
    """The values labtui checks: a host, a user, a port, a known-hosts file."""
    said = f"-{letter} {argument!r}" if letter != "o" else f"-o {keyword} {argument!r}"
    if keyword == "proxyjump":
        _check_jumps(argument, where)
    elif keyword == "user" and not _USER.fullmatch(argument):
        raise ValidationError(f"{where}: {said} is not a user name")
    elif keyword in ("hostname", "hostkeyalias") and not _HOST.fullmatch(argument):
        raise ValidationError(f"{where}: {said} is not a host name")
    elif keyword == "port" and not (_PORT.fullmatch(argument) and 1 <= int(argument) <= 65535):
        raise ValidationError(f"{where}: {said} is not a port number 1..65535")
    elif keyword in ("identityfile", "certificatefile"):
        _check_key(said, argument, where)
    elif keyword in _KNOWN_HOSTS:
        for name in argument.split():
            if name.lower() == "none":
                continue
            if "%" in name or "$" in name:
                if os.geteuid() != 0:
                    continue
                raise ValidationError(f"{where}: {said}: as root labtui checks the known-hosts file ssh trusts, and "
                                      f"cannot with {shown(name)} (give the file's path)")
            _regular_or_absent(_as_ssh_expands(name), said, "a known-hosts file", where)
            problem = others_can_write(_as_ssh_expands(name)) if os.geteuid() == 0 else None
            if problem is not None:
                raise ValidationError(f"{where}: {said}: {problem}, who could choose which hosts ssh trusts as root "
                                      f"(chown root and chmod go-w it)")


def _regular_or_absent(path: Path, said: str, what: str, where: str) -> None:
    """ssh opens the files it is named with a blocking open: a FIFO there hung it (and the host's run) with no word."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # ssh passes over a file that is not there
    if not stat.S_ISREG(mode):
        raise ValidationError(f"{where}: {said}: {shown(path)} is {kind_of(mode)}, not {what} (ssh would wait on it, "
                              "or fail)")


def _check_key(said: str, name: str, where: str) -> None:
    """A key file (-i, IdentityFile, CertificateFile) ssh will open, with its `.pub` and `-cert.pub` beside it:
    ssh opens them blocking, so a FIFO there hung it (and the host's run) with no word; as root, a key another
    user can change or put in place chooses whom root logs in as. Refused in one line when the hosts file is read."""
    if name.lower() == "none":
        return
    if "%" in name or "$" in name:
        if os.geteuid() == 0:
            raise ValidationError(f"{where}: {said}: as root labtui checks the key files ssh opens, and cannot with "
                                  f"{shown(name)} (give the file's path)")
        return
    path = _as_ssh_expands(name)
    for item in (path, path.with_name(path.name + ".pub"), path.with_name(path.name + "-cert.pub")):
        _regular_or_absent(item, said, "a key file", where)
    if os.geteuid() == 0:
        problem = others_can_write(path)
        if problem is not None:
            raise ValidationError(f"{where}: {said}: {problem}, who could choose the key root logs in with (chown root "
                                  "and chmod go-w it)")


def _as_ssh_expands(name: str) -> Path:
    """A file name of an ssh option as ssh reads it: `~/` is the home directory of the user ssh runs as, from the
    password database (as ssh takes it), never $HOME (which `sudo -E` leaves pointing at the invoking user's)."""
    if name == "~" or name.startswith("~/"):
        import pwd

        return Path(pwd.getpwuid(os.geteuid()).pw_dir + name[1:])
    return Path(os.path.expanduser(name))


def _check_jumps(value: str, where: str) -> None:
    jumps = value.strip().strip('"')
    if jumps.lower() == "none":
        return
    for jump in jumps.split(","):
        if not _JUMP.fullmatch(jump):
            raise ValidationError(f"{where}: the jump host {jump!r} is not [user@]host[:port]")


def _session(what: str, where: str) -> None:
    raise ValidationError(f"{where}: {what} changes how ssh runs labtui's command, which talks to labtui over ssh's "
                          "input and output: refused (labtui sets these itself)")


def _trusted(what: str, allow_local: bool, where: str) -> None:
    if allow_local:
        return
    raise ValidationError(f"{where}: {what}{', as root' if os.geteuid() == 0 else ''}: refused unless the host's entry "
                          "says allow_local_commands = true")
