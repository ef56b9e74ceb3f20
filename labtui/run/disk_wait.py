"""Waiting for a busy disk: a run starts when the other labtui run measuring that disk has ended.

A run is refused while another labtui run holds its disk's lock (target_lock.TargetBusy). It may
wait instead (`labtui run --wait`, the Run screen's waiting state): the lock is looked at once a
second, and once it is free the run's checks are made again from the start (another run's test
file, gone now, took free space). A third run that takes the disk first only makes it wait
longer. Nothing is written while it waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from labtui.errors import LabtuiError
from labtui.run import target_lock
from labtui.run.target_lock import TargetBusy

if TYPE_CHECKING:
    import os

    from labtui.run.runner import Plan, Runner

POLL_SECONDS = 1.0


def disk_free(target: str | os.PathLike, stop: threading.Event, poll: float = POLL_SECONDS) -> bool:
    """Wait until no other labtui run holds the lock of the disk `target` is on (True), or until
    `stop` is set (False). Looking takes the lock for an instant and lets it go."""
    while not stop.is_set():
        try:
            lock, _problem = target_lock.hold(target)
        except TargetBusy:
            stop.wait(poll)
            continue
        except LabtuiError:
            return True  # the target cannot be looked at now: the run's checks say why
        if lock is not None:
            lock.release()
        return True
    return False


def preflight_when_free(runner: Runner, stop: threading.Event, busy: Callable[[str], None],
                        poll: float = POLL_SECONDS) -> Plan | None:
    """`runner.preflight()`, made again each time the disk it found busy is free; `busy` is told why
    it waits (again only when that changes: another run took the disk). None once `stop` is set."""
    said = None
    while True:
        try:
            return runner.preflight()
        except TargetBusy as exc:
            if str(exc) != said:
                said = str(exc)
                busy(said)
            if not disk_free(runner.target_arg, stop, poll):
                return None


def waiting_words(refusal: str) -> str:
    """'another labtui run (pid 4242, since 10:02, -t /data) is measuring vda', from the refusal."""
    return refusal.removesuffix(": wait for it to end")
