"""A scripted far end for `labtui run --hosts`: speaks labtui's wire format as a compromised lab host would.

The hosts file's `labtui` command runs it through a real sshd (tests/support/sshlab.py):
    python far_end.py SCENARIO RESULT_TOML HELLO_JSON
It says HELLO_JSON (this labtui's own versions), takes the request, says ready, waits for the
start, then sends what SCENARIO sends (a run's events, results, hostile text) and its bye.
RESULT_TOML is a real result file's text to send as the host's result. It imports nothing of
labtui: six of them start at once, and the suite's time is short.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from corpus import HOSTILE

out = sys.stdout.buffer


def send(message: dict) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def wait_for(kind: str) -> dict:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == kind:
            return message
    raise SystemExit(0)


def with_id(text: str, number: int) -> str:
    """The result with an id of its own (each of a flood is saved as another file)."""
    return text.replace('id = "20240501-103005-beef"', f'id = "20240501-103005-{number:04x}"', 1)


def main() -> None:
    scenario, result, hello = sys.argv[1], Path(sys.argv[2]).read_text(), json.loads(sys.argv[3])
    send(hello | {"host": {"name": f"far-{scenario}", "os": HOSTILE}})
    wait_for("run")
    send({"type": "ready", "target": {"path": "/far"}, "directory": "/far", "test_file": None,
          "planned_seconds": 1.0})
    wait_for("start")
    code = 0
    if scenario == "escapes":
        # A run whose step name and command line, a warning, a save error, a remote path and stderr
        # each hold every escape and markup.
        sys.stderr.write(f"stderr {HOSTILE}\n")
        sys.stderr.flush()
        data = tomllib.loads(result)
        send({"type": "run_started", "run_id": data["id"], "profile": data["profile"], "target": data["target"],
              "engine": data["engine"], "steps_total": 2, "planned_seconds": 1.0})
        step = data["steps"][0]["step"] | {"name": f"step {HOSTILE}"}
        send({"type": "step_started", "index": 0, "total": 2, "step": step, "repetition": 1,
              "command_line": f"fio {HOSTILE}"})
        send({"type": "warning", "message": f"warning {HOSTILE}"})
        send({"type": "run_finished", "result": result, "path": f"/far/{HOSTILE}.toml",
              "save_error": f"save_error {HOSTILE}"})
        code = 1
    elif scenario == "flood":
        # One run request, a thousand results (each would be saved as a file of its own).
        for number in range(1000):
            send({"type": "run_finished", "result": with_id(result, number), "path": None, "save_error": None})
    elif scenario == "big":
        # A result of 5 MB (labtui's largest is about 2 MB): its warnings padded out.
        padded = result.replace("tags = [", 'warnings = ["' + "x" * (5 * 1024 * 1024) + '"]\ntags = [', 1)
        send({"type": "run_finished", "result": padded, "path": None, "save_error": None})
    elif scenario == "long-line":
        # A line of 20 MB: far past what a message may be (a result is kilobytes).
        out.write(b'{"type": "warning", "message": "' + b"x" * 20_000_000 + b'"}\n')
        out.flush()
        send({"type": "run_finished", "result": result, "path": None, "save_error": None})
    elif scenario == "numbers":
        # A count no float holds (a 400-digit number): an OverflowError dropped the host's result, said as "ended
        # without its result (exit status 0)".
        out.write(b'{"type": "prepare", "bytes_done": 1, "bytes_total": 2, "seconds": 1' + b"0" * 400 + b"}\n")
        out.flush()
        send({"type": "run_finished", "result": result, "path": None, "save_error": None})
    elif scenario == "host-tag":
        # Its result claims to be another host's.
        tagged = result.replace("tags = [", 'tags = ["host:victimhost", "host:far-host-tag", ', 1)
        send({"type": "run_finished", "result": tagged, "path": None, "save_error": None})
    send({"type": "bye", "exit_code": code})


if __name__ == "__main__":
    main()
