"""Reading a host's stdout a line at a time, where a line may be far too long: a compromised or
broken host's line is read to its end (kept nowhere) so its size can be said, up to MEASURE_BYTES."""

from __future__ import annotations

import asyncio


class LineTooLong(Exception):
    """A host sent a line past wire.MAX_LINE_BYTES: how long it was (whole: to its end)."""

    def __init__(self, size: int, whole: bool) -> None:
        super().__init__(size)
        self.size, self.whole = size, whole

    def size_text(self) -> str:
        return f"{self.size:,} bytes" if self.whole else f"more than {self.size:,} bytes"


MEASURE_BYTES = 1024 * 1024 * 1024  # how much of a line too long is read (and dropped) to say its size


async def read_host_line(proc: asyncio.subprocess.Process) -> bytes | None:
    """The next line of the host's stdout (None at its end); LineTooLong past wire.MAX_LINE_BYTES,
    once the line has been read to its end (kept nowhere) or MEASURE_BYTES of it."""
    stream = proc.stdout
    assert stream is not None  # every pipe is open (Fleet._session)
    try:
        return await stream.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        return exc.partial or None
    except asyncio.LimitOverrunError as exc:
        over = exc.consumed
    except ConnectionError:
        return None
    size = 0
    try:
        while size < MEASURE_BYTES:
            # The buffer holds `over` bytes of the line (all of it up to the newline, when that came).
            size += len(await stream.readexactly(over))
            try:
                size += len(await stream.readuntil(b"\n"))
                raise LineTooLong(size, whole=True)
            except asyncio.LimitOverrunError as exc:
                over = exc.consumed
    except asyncio.IncompleteReadError as exc:
        raise LineTooLong(size + len(exc.partial), whole=True) from None
    except ConnectionError:
        pass
    raise LineTooLong(size, whole=False)
