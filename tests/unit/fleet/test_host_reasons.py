"""Why a host of a fleet run ended, in the words its row and the report show (labtui/fleet/host_reasons.py)."""

from __future__ import annotations

from labtui.fleet.host_reasons import MAX_TEXT, refused_handshake, said, why_ended, why_no_hello
from labtui.fleet.host_run import HostRun
from labtui.fleet.hosts import Host


def test_a_refused_handshake_names_the_jump_host_when_it_is_the_one_refusing():
    """Through -J, ssh's connection to the jump host reports its failed handshake and so does the one to
    the host (two lines); a host that refuses behind a jump that let it through gives one."""
    host = Host("node-07", "root@10.0.0.7", ssh_options=("-J", "root@jump.lab"))
    closed = "kex_exchange_identification: Connection closed by remote host"
    by_jump = HostRun(host, retries=4)
    by_jump.stderr.extend([closed, closed])
    reason = why_no_hello(by_jump, 255)
    assert "the jump host root@jump.lab refused the connection before its handshake, 5 tries" in reason, reason
    assert "MaxStartups" in reason and "fleet_connections" in reason
    by_host = HostRun(host, retries=4)
    by_host.stderr.append(closed)
    reason = why_no_hello(by_host, 255)
    assert "root@10.0.0.7 refused the connection (through root@jump.lab)" in reason, reason
    # A host that is simply not there is not retried.
    down = HostRun(host)
    down.stderr.append("ssh: connect to host 10.0.0.7 port 22: Connection refused")
    assert not refused_handshake(down, 255)
    assert refused_handshake(by_host, 255) and not refused_handshake(by_host, 1)


def test_a_stream_that_ended_says_how_the_stop_or_the_link_or_labtui_there_ended_it():
    host = Host("node-07", "root@10.0.0.7")
    dropped = HostRun(host)
    dropped.stderr.append("Connection to 10.0.0.7 closed by remote host.")
    assert why_ended(dropped, 255, "mid-run", None) == ("the link to root@10.0.0.7 dropped mid-run: "
                                                         "Connection to 10.0.0.7 closed by remote host.")
    assert why_ended(HostRun(host), 1, "", None) == "labtui there ended without its result (exit status 1)"
    assert why_ended(dropped, 255, "mid-run", "SIGINT").startswith("stopped by SIGINT (the host did not report its end")
    assert why_ended(HostRun(host, broke_protocol="line too long"), 255, "mid-run", "SIGINT") == "line too long"
    assert "install labtui on it" in why_no_hello(HostRun(host), 127)


def test_a_host_s_words_are_kept_up_to_a_cap_that_says_how_long_they_were():
    assert said("short") == "short"
    long = said("x" * (MAX_TEXT + 500))
    assert long.startswith("x" * MAX_TEXT) and long.endswith(f"… ({MAX_TEXT + 500:,} characters)")
