"""Child processes the engines drive (labtui.engine.subproc), real ones: started in a group of their own, stopped
as a group (terminate, a grace, then kill), the child's own end not waiting for a job holding its pipe, its
output made printable, how it ended in words."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time

import psutil

from labtui.engine import subproc


def living(group: int) -> list[int]:
    """The processes of a process group that have not died (a zombie has: it waits for its parent to reap it)."""
    found = []
    for proc in psutil.process_iter(["status"]):
        with contextlib.suppress(OSError):
            if os.getpgid(proc.pid) == group and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
    return found


def test_how_a_child_ended_is_said_in_words():
    assert subproc.exit_text(0) == "exited with status 0" and subproc.exit_text(3) == "exited with status 3"
    assert subproc.exit_text(-9) == "was killed by SIGKILL (signal 9)"
    assert subproc.exit_text(-200) == "was killed by signal 200" and subproc.exit_text(None) == "could not be started"


def test_a_child_that_ignores_terminate_is_killed_with_its_group_after_the_grace():
    async def go() -> tuple[int | None, float, bool, list[str]]:
        # The shell ignores SIGTERM and leaves a sleeping job in its group.
        proc = await subproc.spawn(["/bin/sh", "-c", "trap '' TERM; sleep 30 & echo started; wait"])
        out: list[str] = []
        line = await proc.stdout.readline()
        out.append(line.decode())
        began = time.monotonic()
        code = await subproc.stop(proc, grace=0.3)
        took = time.monotonic() - began
        deadline = time.monotonic() + 5  # the killed job dies a moment later (reaped whenever its new parent does)
        while living(proc.pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return code, took, bool(living(proc.pid)), out

    code, took, alive, out = asyncio.run(go())
    assert out == ["started\n"] and code == -signal.SIGKILL and 0.25 < took < 5 and not alive


def test_the_childs_own_end_does_not_wait_for_a_job_that_holds_its_pipe_and_its_output_is_made_printable():
    async def go() -> tuple[int, list[str], bool]:
        proc = await subproc.spawn([sys.executable, "-c", "import sys; sys.stdout.write('a\\x1b[2Jb'); sys.exit(4)"])
        sink: list[str] = []
        await subproc.read_all(proc.stdout, sink)
        code = await subproc.wait_exit(proc)
        held = await subproc.spawn(["/bin/sh", "-c", "sleep 30 & exit 0"])  # the job keeps stdout open
        await asyncio.wait_for(subproc.wait_exit(held), timeout=10)
        alive = subproc.group_alive(held)
        await subproc.stop(held, grace=0.2)
        return code, sink, alive

    code, sink, job_alive = asyncio.run(go())
    assert code == 4 and "\x1b" not in "".join(sink) and "".join(sink).startswith("a") and "".join(sink).endswith("b")
    assert job_alive  # what was left in its group is seen (and stopped)


def test_a_short_commands_output_or_none_where_it_cannot_run(tmp_path):
    assert subproc.quick_output([sys.executable, "-c", "print('v1.2')"]) == "v1.2\n"
    assert subproc.quick_output([str(tmp_path / "no-such-tool")]) is None


def test_a_child_killed_by_a_signal_says_so():
    from labtui.engine.subproc import exit_text

    assert exit_text(-9) == "was killed by SIGKILL (signal 9)"
    assert exit_text(3) == "exited with status 3" and exit_text(None) == "could not be started"
