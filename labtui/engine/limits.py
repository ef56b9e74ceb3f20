"""What one step may ask of the machine, checked before anything is written.

A step that cannot start must be refused by preflight, with what to change, not fail after its
test file is written. Two limits matter:
- Threads. Where every I/O in flight needs a thread (or fio job) of its own — the page cache on,
  or blocking calls — threads x outstanding of them start at once: 256 x 1024 would be 262,144.
  labtui starts at most MAX_IO_THREADS for a step (fio itself stops at 4,096 jobs, and a few
  thousand threads already measure the scheduler more than the disk).
- Kernel AIO events. Linux AIO (fio's libaio, the native aio loop) reserves one event per I/O in
  flight from a system-wide pool of fs.aio-max-nr (65,536 by default), shared with every other
  program; when it is exhausted io_setup fails with EAGAIN.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labtui.errors import LabtuiError

MAX_IO_THREADS = 1024
AIO_MAX_NR = Path("/proc/sys/fs/aio-max-nr")
AIO_NR = Path("/proc/sys/fs/aio-nr")


@dataclass(frozen=True)
class StepNeeds:
    """What an engine starts for one step: threads or processes, and kernel AIO events."""

    threads: int
    aio_events: int = 0
    why_threads: str = ""  # what makes it that many ("one per I/O in flight with the page cache on")


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def check(needs: StepNeeds, step_name: str, threads: int, outstanding: int,
          aio_max: Path | None = None, aio_now: Path | None = None) -> None:
    """Raise LabtuiError naming the limit and what to change if the step cannot start here."""
    aio_max, aio_now = aio_max or AIO_MAX_NR, aio_now or AIO_NR
    shape = f"{threads} thread{'s' if threads != 1 else ''} x {outstanding} outstanding"
    if needs.threads > MAX_IO_THREADS:
        raise LabtuiError(
            f"step {step_name!r} would start {needs.threads:,} threads ({shape}, {needs.why_threads}); labtui starts "
            f"at most {MAX_IO_THREADS:,} for a step: lower threads or outstanding"
            + (", or run it with cache off" if "page cache" in needs.why_threads else "")
        )
    if needs.aio_events:
        limit, used = _read_int(aio_max), _read_int(aio_now)
        if limit is None:
            return
        free = limit - (used or 0)
        if needs.aio_events > free:
            raise LabtuiError(
                f"step {step_name!r} needs {needs.aio_events:,} kernel AIO events ({shape}) but fs.aio-max-nr is "
                f"{limit:,} with {max(free, 0):,} free: lower threads or outstanding, or raise the limit "
                f"(sysctl -w fs.aio-max-nr={_enough(needs.aio_events + (used or 0))})"
            )


def _enough(events: int) -> int:
    """The next power of two that holds `events`: a round figure to suggest."""
    size = 65536
    while size < events:
        size *= 2
    return size
