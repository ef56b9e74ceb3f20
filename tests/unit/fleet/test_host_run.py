"""One host's run as the local side sees it (labtui/fleet/host_run.py): a host cut off keeps what arrived and
its live view ends; what it says while it connects."""

from __future__ import annotations

import pytest

from factories import cut_off_host


def test_a_host_cut_off_mid_step_keeps_the_mean_latency_of_the_intervals_that_arrived(tmp_path):
    beta = cut_off_host(tmp_path)
    cut = beta.result.steps[-1]
    assert cut.status == "aborted" and cut.total.ios == 4000
    # The mean of all 4000 timed I/Os: each interval's mean weighted by its I/Os.
    assert cut.latency.mean == pytest.approx(0.2) and cut.read_latency.mean == pytest.approx(0.2)
    # No p99 is made up from the intervals' p99s; the step says what its latency is.
    assert cut.latency.p99 is None and cut.read_latency.p99 is None
    assert "weighted by each interval's I/Os; no percentiles" in cut.error and "2.000 ms" in cut.error


@pytest.mark.parametrize("finished_first", [False, True], ids=["first step", "after a finished step"])
def test_a_host_cut_off_mid_run_ends_its_live_view_with_its_partial_result(tmp_path, finished_first):
    # The Fleet host screen draws beta.live: without a RunFinished it stayed a run in progress,
    # measuring, its clock running, though the host was long gone.
    beta = cut_off_host(tmp_path, finished_first)
    live = beta.live
    assert beta.state == "aborted" and beta.result.status == "aborted"
    assert live.finished is not None and live.result is beta.result
    assert live.finished.path is not None and str(live.finished.path) == beta.saved[-1]
    assert live.eta_seconds() == 0.0
    # The step it was measuring ends with the partial step the result keeps (its mean latency, its note).
    step = live.current
    assert step.started.index == (1 if finished_first else 0) and len(live.steps) == (2 if finished_first else 1)
    assert step.ended is not None and step.phase == "aborted"
    assert step.result is beta.result.steps[-1] and step.result.latency.mean == pytest.approx(0.2)
    assert "cut off mid-step" in step.result.error
    assert [s.status for s in beta.result.steps] == (["completed", "aborted"] if finished_first else ["aborted"])


def test_a_refused_handshake_names_the_jump_host_when_it_is_the_one_refusing(tmp_path):
    """Through -J, ssh's connection to the jump host reports its failed handshake and so does the one to
    the host (two lines); a host that refuses behind a jump that let it through gives one."""
    from labtui.fleet.host_run import HostRun
    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet
    from labtui.results.store import Store

    host = Host("node-07", "root@10.0.0.7", ssh_options=("-J", "root@jump.lab"))
    fleet = Fleet([host], lambda _h: {}, Store(tmp_path))
    closed = "kex_exchange_identification: Connection closed by remote host"
    by_jump = HostRun(host, retries=4)
    by_jump.stderr.extend([closed, closed])
    reason = fleet._why_no_hello(by_jump, 255)
    assert "the jump host root@jump.lab refused the connection before its handshake, 5 tries" in reason, reason
    assert "MaxStartups" in reason and "fleet_connections" in reason
    by_host = HostRun(host, retries=4)
    by_host.stderr.append(closed)
    reason = fleet._why_no_hello(by_host, 255)
    assert "root@10.0.0.7 refused the connection (through root@jump.lab)" in reason, reason
    # A host that is simply not there is not retried.
    down = HostRun(host)
    down.stderr.append("ssh: connect to host 10.0.0.7 port 22: Connection refused")
    assert not fleet._refused_handshake(down, 255)
    assert fleet._refused_handshake(by_host, 255) and not fleet._refused_handshake(by_host, 1)


def test_a_host_waiting_for_a_connection_or_trying_again_says_so():
    from labtui.fleet.host_run import HostRun
    from labtui.fleet.hosts import Host

    host = Host("node-07", "root@10.0.0.7")
    assert HostRun(host).state_text() == "connecting"
    assert HostRun(host, queued=True).state_text() == "queued"
    assert HostRun(host, retries=2).state_text() == "connecting (try 3)"
