"""Real fio, slow to exit: its final report is out and its output closed, its exit not yet seen.

As a fio slow to tear down its jobs or files is. A test points fio_path at the wrapper and learns
the moment labtui has read fio's whole output and waits for its exit (`ExitWatch`): a cancel then
lands there however loaded the machine, with nothing left to read and the run unable to end first.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path

from labtui.engine import subproc

# Job runs (not `fio --version`) are counted; from the one the hold file names on, fio's end is held until
# labtui stops the wrapper (the bound is only a safety net for a labtui that never does).
SLOW_TO_EXIT = """#!/bin/sh
job=0
case "$*" in *--runtime=*) echo job >> "{runs}"; job=$(wc -l < "{runs}") ;; esac
"{fio}" "$@"
status=$?
if [ "$job" -gt 0 ] && [ "$job" -ge "$(cat "{hold}")" ]; then
    exec 1>&-
    touch "{reported}"
    sleep 300
fi
exit $status
"""


@dataclass(frozen=True)
class SlowFio:
    wrapper: Path  # the fio_path to give
    reported: Path  # made once a held fio's output is closed


def slow_fio(directory: Path, *, held_from: int = 1) -> SlowFio:
    """The wrapper in `directory`: fio's job runs from the `held_from`th on (counting from 1) are slow to exit."""
    found = SlowFio(directory / "fio-slow-to-exit", directory / "reported")
    hold, runs = directory / "fio-held-from", directory / "fio-runs"
    hold.write_text(f"{held_from}\n")
    found.wrapper.write_text(SLOW_TO_EXIT.format(fio=shutil.which("fio"), hold=hold, runs=runs,
                                                 reported=found.reported))
    found.wrapper.chmod(0o755)
    return found


class ExitWatch:
    """Says when the engine process started last is first waited for: labtui has read all its output by then."""

    def __init__(self, monkeypatch) -> None:
        self.waiting = asyncio.Event()
        real_spawn = subproc.spawn
        watch = self

        async def spawn(*args, **kwargs):
            proc = await real_spawn(*args, **kwargs)
            watch.waiting.clear()
            real_wait = proc.wait

            async def wait():
                watch.waiting.set()
                return await real_wait()

            proc.wait = wait
            return proc

        monkeypatch.setattr(subproc, "spawn", spawn)
