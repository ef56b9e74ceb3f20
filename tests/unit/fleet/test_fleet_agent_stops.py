"""A fleet agent's stop signals over its passes (`check --hosts` runs several on a host): from its first
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
