"""The agent's channel to the local labtui (labtui/fleet/channel.py): why a run must stop, in words, and silence noticed."""

from __future__ import annotations

import os
import time

import pytest

from labtui.fleet.channel import Channel


def _channel(silence: float | None = None) -> tuple[Channel, int]:
    read_end, write_end = os.pipe()
    out_read, out_write = os.pipe()
    os.close(out_read)
    return Channel(os.fdopen(read_end, "rb", buffering=0), out_write, silence=silence), write_end


@pytest.mark.parametrize(("sent", "why"), [
    (b'{"type": "stop", "by": "SIGHUP"}\n', "stopped by SIGHUP on the local labtui"),
    (b'{"type": "stop"}\n', "stopped by the local labtui"),
    (b"", "the link to the local labtui closed (ssh gone, or the local labtui ended)"),
    (b"Welcome to the lab\n", "the local side sent a line that is not labtui's wire format (not a JSON line: "
                              "Expecting value: line 1 column 1 (char 0))"),
])
def test_the_agent_knows_why_its_run_must_stop(sent, why):
    channel, write_end = _channel()
    os.write(write_end, b'{"type": "ping"}\n' + sent)
    os.close(write_end)
    assert channel.receive(timeout=5) is None and channel.stopped
    assert channel.why == why
    channel.close()


def test_an_agent_that_hears_nothing_says_so():
    channel, write_end = _channel(silence=0.5)
    try:
        deadline = time.monotonic() + 10
        while not channel.stopped and time.monotonic() < deadline:
            time.sleep(0.05)
        assert channel.why == "nothing heard from the local labtui for 0.5 s (the link is gone?)"
    finally:
        os.close(write_end)
        channel.close()
