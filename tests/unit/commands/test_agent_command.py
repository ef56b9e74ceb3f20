"""`labtui agent` (labtui/commands/agent.py), the far end of a fleet run: it refuses a request it cannot run in
one line over its protocol, and holds its stop signals over its passes.

A fleet agent's stop signals over its passes (`check --hosts` runs several on a host): from its first
run on they are held, as `labtui check` holds them here. During a run one stops it; between runs it is
noted and no further run starts, so the check can report itself aborted (left to their default, the
signals ended the agent between passes with no report, and the local side saw a host cut off).

Each case is an agent's driver in a process of its own (a real signal, which before killed the
process), fed "start" on a real channel, running a command step (no test file: quick). The step
signals the agent once it has run a moment: a stop that lands while a step's process is being
started waits for that process's own end (labtui run here does the same; engine.subproc.spawn)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, os, signal, sys
from pathlib import Path
from labtui.commands.agent import _Driver
from labtui.commands.stops import Stops
from labtui.run.runner import Runner, RunOptions
from labtui.fleet.channel import Channel
from labtui.model.profile import Profile, Step
from labtui.results.store import Store

target, home, when = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def runner(command):
    step = Step(name="cmd", kind="command", command=command, timeout=30.0)
    profile = Profile(name="cmd", title="cmd", free_space_margin=0, steps=(step,))
    return Runner(profile, target, Store(home), RunOptions(interval=0.1))

read_end, write_end = os.pipe()
os.write(write_end, b'{"type": "start", "delay": 0}\n')  # the shared start, for the first pass
channel = Channel(os.fdopen(read_end, "rb", buffering=0), os.open(os.devnull, os.O_WRONLY), silence=None)
with Stops() as stops:
    driver = _Driver(channel, stops)
    if when == "during":  # the step itself signals the agent, mid-step (once it is under way: see below)
        first = driver(runner(f"sleep 0.2; kill -TERM {os.getpid()}; sleep 5"))
    else:
        first = driver(runner("true"))
        os.kill(os.getpid(), signal.SIGTERM)  # between the passes
    second = driver(runner("touch second-ran"))
    print(json.dumps({"first": first.status, "error": first.error, "second": second is not None,
                      "received": stops.received}))
"""


@pytest.mark.parametrize("when", ["during", "between"])
def test_a_signal_on_a_host_stops_its_pass_or_is_noted_between_passes_and_nothing_more_starts(
        tmp_path, labtui_home, when):
    target = tmp_path / "target"
    target.mkdir()
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(target), str(labtui_home), when],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr)  # not killed by the signal
    seen = json.loads(done.stdout)
    assert seen["received"] == ["SIGTERM"] and seen["second"] is False
    if when == "during":
        assert seen["first"] == "aborted" and seen["error"] == f"stopped by SIGTERM on {socket.gethostname()}"
    else:
        assert seen["first"] == "completed"
    assert not (target / "second-ran").exists()


def _request(kind: str, target) -> dict:
    """A well-formed run request (a one-step profile) or check request, as the local side sends them."""
    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import profile_to_text

    if kind == "check":
        return {"type": "check", "target": str(target), "profile": None, "engine": None, "tolerance": None,
                "repeat": None, "confirm": 0, "fail_on": [], "duration": None, "file_size": None, "params": []}
    profile = Profile("p", file_size=1024**2, steps=(Step("Read", duration=1.0, warmup=0.0),))
    return {"type": "run", "profile": profile_to_text(profile), "target": str(target), "engine": "native",
            "tags": [], "params": {}, "interval": None, "keep_file": False}


def _refusal(request, target, labtui_home) -> str:
    """What the real agent says to `request` on its stdin: refused in one line, exit 2, nothing written."""
    import subprocess

    from conftest import labtui_cmd

    done = subprocess.run(labtui_cmd("agent"), input=json.dumps(request) + "\n", capture_output=True, text=True,
                          timeout=60)
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m["type"] for m in messages] == ["hello", "refused", "bye"], done.stdout + done.stderr
    assert "\n" not in messages[1]["reason"]
    assert messages[2]["exit_code"] == 2 and done.returncode == 2 and "Traceback" not in done.stderr
    assert list(target.iterdir()) == [] and not (labtui_home / "results").exists()
    return messages[1]["reason"]


@pytest.mark.parametrize("interval, says", [
    ("1s", "interval: must be a number of seconds or null, got '1s'"),
    (-1, "interval: a duration cannot be negative: '-1'"),
    # No labtui sends these: the line does not read, and the agent says so (labtui.fleet.wire.loads).
    (float("nan"), "the local side sent a line that is not labtui's wire format (NaN is no number labtui sends)"),
    (0, "interval: a duration must be greater than zero"),
    (10**50, "the local side sent a line that is not labtui's wire format (a number of 51 digits is past"),
    (1e9, "interval: '1000000000.0' is longer than a year"),
    (7200, "interval: must be from 100ms to 1s, got '2h' (step 'Read' lasts 1s)"),
    (0.05, "interval: must be from 100ms to 1s, got '50ms'"),
])
def test_an_agent_refuses_a_run_request_with_a_bad_interval_over_its_protocol(tmp_path, labtui_home, interval, says):
    # float(request.get("interval") or 1.0) ran -1 and 7200 (after "ready") and died on "1s" with no report.
    target = tmp_path / "target"
    target.mkdir()
    assert _refusal(_request("run", target) | {"interval": interval}, target, labtui_home).startswith(says)


@pytest.mark.parametrize("changes, says", [
    ({"params": ["size=1G"]}, "run request: params must be a table of NAME: VALUE texts"),
    ({"tags": "nightly"}, "run request: tags must be a list of texts, got 'nightly'"),
    ({"keep_file": "no"}, "run request: keep_file must be true or false, got 'no'"),
    ({"type": "check", "confirm": "two"}, "check request: confirm must be a count, got 'two'"),
    ({"type": "check", "tolerance": "5"}, "check request: tolerance must be a percentage, got '5'"),
    ({"type": "check", "repeat": True}, "check request: repeat must be a count, got True"),
    ({"type": "check", "fail_on": "p99"}, "check request: fail_on must be a list of texts, got 'p99'"),
    ({"type": "check", "params": {"size": "1G"}}, "check request: params must be a list of texts"),
])
def test_an_agent_refuses_a_request_whose_fields_have_the_wrong_type(tmp_path, labtui_home, changes, says):
    # They went on into the run or the check: params as a list died in .items() with a traceback and no
    # report, a tolerance of "5" in the check's comparisons, "p99" as fail_on became ["p", "9", "9"].
    target = tmp_path / "target"
    target.mkdir()
    request = _request(changes.get("type", "run"), target) | changes
    assert _refusal(request, target, labtui_home).startswith(says)


def test_an_agent_refused_for_room_says_how_to_make_room_as_labtui_run_does(tmp_path, labtui_home):
    # run --hosts printed the host's "not enough free space in DIR: ..." and stopped there, where `labtui run`
    # (and check --hosts, through check) said how to make room: the lead prints the agent's reason as it is.
    from labtui.model.profile import Profile, Step
    from labtui.results.profile_file import profile_to_text

    target = tmp_path / "target"
    target.mkdir()
    huge = Profile("p", file_size=900 * 1024**4, steps=(Step("Read", duration=1.0, warmup=0.0),))
    said = _refusal(_request("run", target) | {"profile": profile_to_text(huge)}, target, labtui_home)
    assert said.startswith(f"not enough free space in {target}: p needs "), said
    assert "Make room: a smaller test file (--file-size, at most " in said and "another target (-t DIR)" in said, said


def test_as_root_an_agent_refuses_a_target_through_another_users_link(labtui_home):
    # guard2: a fleet's run request naming alice's link went where she pointed it.
    import os

    from hostile_user import anothers_link

    if os.geteuid() != 0:
        pytest.skip("the rule is root's")
    with anothers_link("agent") as (alice, link, other):
        said = _refusal(_request("run", link), link, labtui_home)
        assert said.startswith(f"{link} is a link to {other} and {alice.name} made it")
