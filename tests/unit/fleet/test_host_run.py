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


def test_a_host_waiting_for_a_connection_or_trying_again_says_so():
    from labtui.fleet.host_run import HostRun
    from labtui.fleet.hosts import Host

    host = Host("node-07", "root@10.0.0.7")
    assert HostRun(host).state_text() == "connecting"
    assert HostRun(host, queued=True).state_text() == "queued"
    assert HostRun(host, retries=2).state_text() == "connecting (try 3)"
