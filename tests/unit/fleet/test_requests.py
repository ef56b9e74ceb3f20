"""What the local side asks each host (labtui/fleet/requests.py): a run or check request as the agent reads it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest


def test_a_check_request_goes_to_a_host_as_the_agent_has_always_read_it_and_comes_back_the_same():
    """What `labtui check --hosts` sends each host: the fields and texts the agent reads (typed as the person
    typed them), and read there into a request equal to the one parsed here."""
    from labtui.cli import build_parser
    from labtui.commands import agent, check
    from labtui.errors import LabtuiError
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import check_request
    from labtui.run.request import CheckRequest, Overrides, RunRequest

    asked = check.parse(build_parser().parse_args([
        "check", "-p", "cdm-nvme", "-e", "fio", "--tolerance", "20", "--repeat", "4", "--confirm", "0",
        "--fail-on", "P99,cpu", "--duration", "1.5m", "--file-size", "16M", "--param", "archive=/a b",
        "--hosts", "lab.toml", "--one-at-a-time"]))
    hosts = [Host("h1", ssh="h1", target="/srv/h1"), Host("h2", ssh="h2")]
    with pytest.raises(LabtuiError, match="no target for h2"):
        check_request(hosts, asked)  # no -t, and h2 has no target of its own
    asked = replace(asked, run=replace(asked.run, target="/data"))
    message = check_request(hosts, asked)(hosts[1])
    assert message == {"type": "check", "target": "/data", "profile": "cdm-nvme", "engine": "fio", "tolerance": 20.0,
                       "repeat": 4, "confirm": 0, "fail_on": ["p99", "cpu"], "duration": "1.5m", "file_size": "16M",
                       "params": ["archive=/a b"]}
    assert json.loads(json.dumps(message)) == message
    there = agent.check_request(json.loads(json.dumps(message)))
    assert there == replace(asked, run=replace(asked.run, hosts=None, one_at_a_time=False))
    # Made elsewhere than the command line (no texts as typed): the values travel as texts the agent reads.
    typed = CheckRequest(run=RunRequest(target="/t", overrides=Overrides(0.25, 3 * 2**20, None)), confirm=2)
    message = check_request(hosts, typed)(hosts[0])
    assert (message["duration"], message["file_size"], message["repeat"]) == ("0.25s", "3145728", None)
    assert agent.check_request(message) == typed


def test_a_run_request_goes_to_each_host_as_the_agent_reads_it_with_the_profile_as_overridden_here():
    from labtui.cli import build_parser
    from labtui.commands import run as run_command
    from labtui.fleet.hosts import Host
    from labtui.fleet.requests import run_request
    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import parse_profile_text

    asked = run_command.parse(build_parser().parse_args([
        "run", "-p", "p", "--hosts", "lab.toml", "-e", "fio", "--tag", "nightly", "--param", "n=1",
        "--interval", "500ms", "--keep-file", "--duration", "2s"]))
    profile = asked.overrides.apply(Profile("p", file_size=1024**2, steps=(Step("Read", duration=10.0, warmup=0.0),)))
    hosts = [Host("h1", ssh="h1", target="/srv/h1"), Host("h2", ssh="h2", target="/srv/h2")]
    send = run_request(hosts, asked, profile)
    message = send(hosts[1])
    assert {k: v for k, v in message.items() if k != "profile"} == {
        "type": "run", "target": "/srv/h2", "engine": "fio", "tags": ["nightly"], "params": {"n": "1"},
        "interval": 0.5, "keep_file": True}
    assert parse_profile_text(message["profile"], "sent", origin="fleet").steps[0].duration == 2.0
    assert send(hosts[0])["target"] == "/srv/h1" and json.loads(json.dumps(message)) == message
