"""The local side of a fleet run (labtui/fleet/session.py): each host's messages, results kept and refused, a stopped check."""

from __future__ import annotations

import pytest

from factories import make_result
from labtui.engine.events import (
    RunStarted,
)
from labtui.fleet import wire
from labtui.results.result_file import result_to_toml
from labtui.results.store import Store


def test_a_host_whose_check_was_stopped_between_its_passes_ends_aborted_not_completed(tmp_path):
    # Its first pass completed and the check reported itself aborted: the state said "completed"
    # (--json "status", the progress line) while its outcome said "aborted".
    from labtui.commands.fleet import _host_json
    from labtui.fleet.hosts import Host
    from labtui.fleet.session import Fleet

    result = make_result()
    fleet = Fleet([Host("beta", "beta")], lambda _host: {}, Store(tmp_path))
    beta = fleet.runs[0]
    summary = ("ABORTED: the check was stopped by SIGTERM before its second pass: no verdict, a check cut short "
               f"decides nothing; its runs are saved: {result.id} (completed)")
    arrived = [
        wire.event_to_wire(RunStarted(result.id, result.profile, result.target, result.engine, 2, 24.8)),
        wire.finished_message(result_to_toml(result), f"/srv/{result.id}.toml", None),
        {"type": "check_report", "report": {"passed": False, "outcome": "aborted", "summary": summary,
                                            "stopped_by": "SIGTERM", "run_status": "completed"}},
        {"type": "bye", "exit_code": 1},
    ]
    for message in arrived:  # as they came over the wire
        fleet._handle(beta, wire.loads(wire.dumps(message)))
    assert (beta.state, beta.outcome, beta.state_text()) == ("aborted", "aborted", "aborted")
    assert beta.reason == f"beta: {summary}"
    shown = _host_json(beta, None)
    assert (shown["status"], shown["outcome"]) == ("aborted", "aborted") and shown["result"]["id"] == result.id


@pytest.mark.parametrize(("request_", "kept"), [
    ({"type": "run"}, 1),
    ({"type": "check", "confirm": 8}, 2),  # a check's first pass and the one that confirms it
    ({"type": "check", "confirm": 0}, 1),  # --confirm 0 decides on the first pass
])
def test_a_host_gets_one_result_per_run_it_was_asked_for_the_rest_refused_naming_it(tmp_path, request_, kept):
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import results_allowed
    from labtui.fleet.session import Fleet

    fleet = Fleet([Host("beta", "beta")], lambda _host: request_, Store(tmp_path))
    beta = fleet.runs[0]
    beta.allowed_results = results_allowed(request_)
    for number in range(5):
        text = result_to_toml(make_result(f"20240501-103005-{number:04x}"))
        fleet._handle(beta, wire.host_message(wire.dumps(wire.finished_message(text, None, None))))
    fleet._handle(beta, wire.host_message(wire.dumps({"type": "bye", "exit_code": 0})))
    assert [r.id for r in beta.results] == [f"20240501-103005-{n:04x}" for n in range(kept)]
    assert len(list((tmp_path / "results").glob("*.toml"))) == kept
    assert beta.state == "failed" and beta.reason == (
        f"beta: it sent {5 - kept} results more than the {kept} its request asked for: refused, not kept (a host sends "
        "one result per run; a check, one per pass)")
