"""Why a host of a fleet run ended where it did, in the words the table and the report show: no
agent answered, ssh could not reach it (a busy sshd or jump host refusing before its handshake, which
a later try gets through), or its stream ended mid-run. Also how much of a host's words are kept.

The Fleet (session.py) decides when a host ends; this module only says why, from what the host
left behind (its state, its last stderr lines, ssh's exit status).
"""

from __future__ import annotations

from labtui.fleet.host_run import HostRun, exit_words

MAX_TEXT = 2_000  # characters of a host's warning or stderr line kept (a line may be megabytes)
# What ssh says when sshd closes a connection before its handshake (MaxStartups, PerSourcePenalties).
REFUSED_HANDSHAKE = ("kex_exchange_identification", "banner exchange", "Connection reset by peer")


def said(text: object) -> str:
    """A host's words as kept and shown: at most MAX_TEXT characters (made printable as they arrived)."""
    words = str(text)
    return words if len(words) <= MAX_TEXT else f"{words[:MAX_TEXT]}… ({len(words):,} characters)"


def refused_handshake(host_run: HostRun, returncode: int | None) -> bool:
    """Whether ssh failed because an sshd closed the connection before its handshake: a busy
    sshd (MaxStartups) that a later try gets through, not a host that is not there."""
    if returncode != 255 or host_run.broke_protocol is not None:
        return False
    return any(sign in line for line in host_run.stderr for sign in REFUSED_HANDSHAKE)


def why_no_hello(host_run: HostRun, returncode: int | None) -> str:
    """Why no agent said hello: labtui not installed there, a refused handshake after every try, ssh's failure."""
    last = host_run.last_error()
    if returncode == 127 or (last and ("not found" in last or "No such file" in last)):
        return (f"{host_run.name}: `{host_run.host.labtui}` did not start there ({last or 'command not found'}): "
                "install labtui on it, or set `labtui` in the hosts file to the command that starts it")
    if returncode == 255 and host_run.retries and refused_handshake(host_run, returncode):
        jump = host_run.host.jump()
        # Through a jump host, ssh's -W connection to it reports its own failed handshake, then the
        # connection to the host does: two lines. One line: the jump host let it through, the host refused.
        refusals = sum("kex_exchange_identification" in line for line in host_run.stderr)
        who = (f"the jump host {jump} refused the connection" if jump is not None and refusals >= 2
               else f"{host_run.host.where()} refused the connection" + (f" (through {jump})" if jump else ""))
        return (f"{host_run.name}: unreachable: {who} before its handshake, {host_run.retries + 1} tries "
                f"({last}): too many connections at once for its sshd (MaxStartups)? fewer at once: "
                "fleet_connections in config.toml")
    if returncode == 255:
        return f"{host_run.name}: ssh {host_run.host.where()} failed: {last or 'no reason given'}"
    return f"{host_run.name}: no labtui agent answered ({exit_words(returncode)}{': ' + last if last else ''})"


def why_ended(host_run: HostRun, returncode: int | None, when: str, stopping: str | None) -> str:
    """Why a host's stream ended (`when`: "mid-run", "before it was ready" or ""), `stopping` the fleet's stop."""
    if host_run.broke_protocol is not None:
        return host_run.broke_protocol
    last = host_run.last_error()
    if stopping is not None:
        return f"stopped by {stopping}" + (f" (the host did not report its end: {last})" if when else "")
    what = f"the link to {host_run.host.where()} dropped" if returncode == 255 else (
        f"labtui there ended without its result ({exit_words(returncode)})")
    return f"{what}{' ' + when if when else ''}{': ' + last if last else ''}"
