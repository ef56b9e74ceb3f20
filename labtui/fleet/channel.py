"""The agent's side of the ssh link: wire messages in on stdin, out on stdout, and "stop" however it comes.

stdin and stdout belong to the wire alone: the agent keeps private copies of them, points fd 1
at stderr (anything printed by mistake cannot corrupt the stream) and fd 0 at /dev/null (a
command step's shell must not read the local side's messages). A thread reads stdin; a "stop"
message, end of file, or a line that is not the wire format all mean stop, as does a failed
write (the link is gone: nobody is watching the run) and SILENCE_SECONDS without a word from
the local side, which pings every PING_SECONDS (a link cut without a reset ends no read).
`why` keeps which of them it was, for the aborted result's error.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from labtui.fleet import wire
from labtui.fleet.wire import MAX_LINE_BYTES, SILENCE_SECONDS, WireError, dumps, loads


class Channel:
    def __init__(self, incoming: BinaryIO, out_fd: int, silence: float | None = SILENCE_SECONDS) -> None:
        self._in = incoming
        self._out = out_fd
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._callback: Callable[[], None] | None = None
        self._send_lock = threading.Lock()
        self.broken = False  # a write failed: the other end is gone
        self.silent = False  # the local side said nothing for `silence` seconds
        self.silence = silence
        self.heard = time.monotonic()  # when the local side last said anything (its pings included)
        self.why: str | None = None  # why the run must stop, once it must (the first reason wins)
        self._reader = threading.Thread(target=self._read, name="labtui-agent-stdin", daemon=True)
        self._reader.start()
        if silence is not None:
            threading.Thread(target=self._watch, name="labtui-agent-silence", daemon=True).start()

    @classmethod
    def standard(cls) -> Channel:
        incoming = os.fdopen(os.dup(0), "rb", buffering=0)
        out_fd = os.dup(1)
        os.dup2(2, 1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        return cls(incoming, out_fd, wire.SILENCE_SECONDS)  # read now, as the local side reads wire.PING_SECONDS

    # ------------------------------------------------------------------ in

    def _read(self) -> None:
        try:
            while True:
                line = self._in.readline(MAX_LINE_BYTES)
                if not line:
                    self._because("the link to the local labtui closed (ssh gone, or the local labtui ended)")
                    break
                self.heard = time.monotonic()
                if not line.strip():
                    continue
                try:
                    message = loads(line)
                except WireError as exc:
                    # not the local labtui: stop rather than guess
                    self._because(f"the local side sent a line that is not labtui's wire format ({exc})")
                    break
                if message["type"] == "stop":
                    by = message.get("by")
                    self._because(f"stopped by {by[:200]} on the local labtui" if isinstance(by, str) and by
                                  else "stopped by the local labtui")
                    break
                if message["type"] != "ping":
                    self._messages.put(message)
        except (OSError, ValueError) as exc:
            self._because(f"the link to the local labtui failed ({exc})")
        self._stop()

    def _watch(self) -> None:
        # A link that stops carrying anything (a network cut with no reset, a local labtui frozen or
        # gone without closing) ends no read: the local side's silence is the sign.
        assert self.silence is not None
        while not self._stopped.wait(1.0):
            if time.monotonic() - self.heard > self.silence:
                self.silent = True
                self._because(f"nothing heard from the local labtui for {self.silence:g} s (the link is gone?)")
                self._stop()
                return

    def _because(self, why: str) -> None:
        with self._lock:
            if self.why is None:
                self.why = why

    def _stop(self) -> None:
        with self._lock:
            self._stopped.set()
            callback = self._callback
        self._messages.put(None)
        if callback is not None:
            callback()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def on_stop(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` (from another thread) when the run must stop; at once if it already must."""
        with self._lock:
            self._callback = callback
            now = callback is not None and self._stopped.is_set()
        if now and callback is not None:
            callback()

    def receive(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next message; None once stopped (or after `timeout` seconds without one)."""
        if self._stopped.is_set() and self._messages.empty():
            return None
        try:
            return self._messages.get(timeout=timeout)
        except queue.Empty:
            return None

    def wait_for_start(self) -> float | None:
        """The delay a "start" message gives (seconds, at least 0); None if the run is not to start."""
        while True:
            message = self.receive()
            if message is None:
                return None
            if message["type"] == "start":
                delay = message.get("delay", 0)
                if isinstance(delay, bool) or not isinstance(delay, (int, float)):
                    return None
                return max(0.0, min(float(delay), 3600.0))

    def sleep(self, seconds: float) -> bool:
        """Wait `seconds`; False if a stop came first."""
        return not self._stopped.wait(seconds)

    # ------------------------------------------------------------------ out

    def send(self, message: dict[str, Any]) -> bool:
        """Write one message; False (and stop) if the other end is gone."""
        data = dumps(message)
        with self._send_lock:
            if self.broken:
                return False
            try:
                view = memoryview(data)
                while view:
                    written = os.write(self._out, view)
                    view = view[written:]
            except OSError:
                self.broken = True
        if self.broken:
            self._because("the link to the local labtui broke (a write to it failed)")
            self._stop()
            return False
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._out)
