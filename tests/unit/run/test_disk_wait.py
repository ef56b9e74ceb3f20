"""Waiting for a busy disk (labtui.run.disk_wait): the run's checks are made again once the other run has let the
disk go, the person told why it waits only when that changes, and a stop ends the wait. Real flocks in this
process (each test has a lock directory of its own); the whole `labtui run --wait`: test_target_lock.py."""

from __future__ import annotations

import threading
import time

from labtui.run import target_lock
from labtui.run.disk_wait import disk_free, preflight_when_free, waiting_words
from labtui.run.target_lock import TargetBusy


def test_the_wait_ends_once_the_holder_lets_go_and_looking_takes_the_disk_only_for_an_instant(tmp_path):
    lock, problem = target_lock.hold(tmp_path)
    assert lock is not None, problem
    stop, said = threading.Event(), {}
    waiter = threading.Thread(target=lambda: said.setdefault("free", disk_free(tmp_path, stop, poll=0.02)))
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive(), "the disk is still held: it waits"
    lock.release()
    waiter.join(timeout=10)
    assert said == {"free": True}
    again, _ = target_lock.hold(tmp_path)  # the look let it go at once
    assert again is not None
    again.release()


def test_a_stop_ends_the_wait_without_the_disk(tmp_path):
    lock, _ = target_lock.hold(tmp_path)
    assert lock is not None
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    began = time.monotonic()
    assert disk_free(tmp_path, stop, poll=0.05) is False
    assert time.monotonic() - began < 5
    lock.release()


class Busy:
    """A runner whose preflight finds the disk busy, for the reasons given in turn, then plans."""

    def __init__(self, target, reasons: list[str]) -> None:
        self.target_arg = target
        self.reasons = reasons
        self.preflights = 0

    def preflight(self):
        self.preflights += 1
        if self.reasons:
            raise TargetBusy(self.reasons.pop(0))
        return "planned"


def test_the_checks_are_made_again_each_time_and_why_it_waits_is_told_only_when_it_changes(tmp_path):
    first = "another labtui run (pid 4242, since 10:02, -t /data) is measuring vda: wait for it to end"
    third = "another labtui run (pid 5151, since 10:09, -t /data) is measuring vda: wait for it to end"
    runner = Busy(tmp_path, [first, first, third])
    told: list[str] = []
    assert preflight_when_free(runner, threading.Event(), told.append, poll=0.01) == "planned"
    assert runner.preflights == 4 and told == [first, third]
    assert waiting_words(first) == "another labtui run (pid 4242, since 10:02, -t /data) is measuring vda"
    stopped = threading.Event()
    stopped.set()
    assert preflight_when_free(Busy(tmp_path, [first]), stopped, told.append) is None
