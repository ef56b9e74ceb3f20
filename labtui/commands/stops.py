"""The stop signals over a whole headless command that measures: its runs, the time between them, its report.

SIGINT, SIGTERM and SIGHUP mean "stop". While a run measures, the first one stops it (the runner
saves what it measured as aborted). Outside a run (between a check's passes, between the volumes of a
sweep, while the results are judged, added to a baseline or printed) nothing is left to stop but
labtui itself: a first signal is noted, no further run starts, and the command finishes what it was
doing, so its results stay saved and its report comes out whole; a second one ends labtui at once (a
reader that never reads must not keep it alive). Left to their defaults there, the signals killed
labtui with a report half-written or not at all (a check's verdict, a sweep's results, --json).

One handler serves the command from its first run to its exit, so there is no moment at which a
signal meets the default: during a run it hands the signal to the run's event loop (woken through the
loop's own reader, as asyncio's own signal handling does), where the run's front end stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

from labtui.run.signals import STOP_SIGNALS, detach_from_terminal


class Stops:
    """The stop signals a command has received (`received`, their names in order), and its handler.

    `with Stops() as stops:` then `stops.hold()` once the command starts its first run (not before:
    Ctrl+C at a "Go ahead?" prompt still interrupts, exit 130); leaving the block gives the signals
    back to whatever had them.
    """

    def __init__(self) -> None:
        self.received: list[str] = []
        self._previous: dict[int, Any] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._during: Callable[[str], None] | None = None
        self._detach: Callable[[], None] | None = None

    def __enter__(self) -> Stops:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for number, handler in self._previous.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(number, handler)
        self._previous.clear()

    def hold(self) -> None:
        """From now until the block ends, the signals come here (a no-op outside the main thread)."""
        for sig in STOP_SIGNALS:
            with contextlib.suppress(OSError, ValueError):  # ValueError: not the main thread
                previous = signal.signal(sig, self._handle)
                self._previous.setdefault(sig, previous)

    def note(self, name: str) -> None:
        """A stop that came some other way than a signal here (a fleet agent's link said stop): as a
        first signal between runs is, it is noted and no further run starts."""
        self.received.append(name)

    @property
    def stopped_by(self) -> str | None:
        """The first signal received, if any: what stopped the command (or came as it ended)."""
        return self.received[0] if self.received else None

    def since(self, count: int) -> str | None:
        """The first signal received after the first `count` ones (None: none came since)."""
        return self.received[count] if len(self.received) > count else None

    @contextlib.contextmanager
    def during(self, on_signal: Callable[[str], None], detach: Callable[[], None] | None = None) -> Iterator[None]:
        """While a run goes on in the running event loop, each signal calls `on_signal(name)` in that
        loop; `detach()` is called at once on a hang-up (the live display lets go of the terminal)."""
        loop = asyncio.get_running_loop()
        # A signal that reaches another thread (rich's refresh, an executor's) still wakes the loop:
        # the C handler writes to this socket, and its reader gives the Python handler its turn.
        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        try:
            previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread: no signal comes here anyway
            previous_fd = None
        loop.add_reader(reader.fileno(), _drain, reader)
        self._loop, self._during, self._detach = loop, on_signal, detach
        try:
            yield
        finally:
            self._loop = self._during = self._detach = None
            loop.remove_reader(reader.fileno())
            if previous_fd is not None:
                with contextlib.suppress(ValueError):
                    signal.set_wakeup_fd(previous_fd)
            reader.close()
            writer.close()

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if signum == signal.SIGHUP:
            # The terminal is gone: further writes to it would fail or block.
            detach_from_terminal()
        self.received.append(name)
        if self._loop is not None and self._during is not None:
            # In the loop, not here: this handler may have cut into the display's own drawing.
            if signum == signal.SIGHUP and self._detach is not None:
                self._loop.call_soon_threadsafe(self._detach)
            self._loop.call_soon_threadsafe(self._during, name)
            return
        # Nothing measures now: this one is noted and the command finishes; the next ends it at once.
        for sig in STOP_SIGNALS:
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_DFL)


def _drain(reader: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while reader.recv(4096):
            pass
