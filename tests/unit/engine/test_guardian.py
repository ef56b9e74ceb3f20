"""The guardian (labtui.engine.guardian), a real process: it leaves everything alone when labtui says goodbye, and
kills what labtui started and removes what it made when labtui goes without a word. A real SIGKILL of a real
run: tests/system/test_killed_parent.py."""

from __future__ import annotations

import signal
import subprocess

from labtui.engine.guardian import Guardian


def test_the_guardian_acts_only_when_labtui_goes_without_a_word(tmp_path):
    for says_bye in (True, False):
        sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
        kept = tmp_path / f"file-{says_bye}.dat"
        kept.write_bytes(b"x")
        guardian = Guardian.start()
        try:
            guardian.watch_group(sleeper.pid)
            guardian.watch_file(kept)
            if says_bye:
                guardian.close()
            else:
                guardian.abandon()  # what a SIGKILL of labtui does to the pipe
            guardian.process.wait(timeout=5)
            if says_bye:
                assert sleeper.poll() is None and kept.exists()
            else:
                assert sleeper.wait(timeout=5) == -signal.SIGKILL
                assert not kept.exists()
        finally:
            if sleeper.poll() is None:
                sleeper.kill()
                sleeper.wait()


def test_what_a_child_started_in_a_session_of_its_own_is_found_by_its_token_and_killed():
    """fio's job processes call setsid(): no group of labtui's holds them, the token in their environment does."""
    import os
    import secrets

    from labtui.engine.guardian import TOKEN_ENV, kill_orphans

    token = secrets.token_hex(8)
    job = subprocess.Popen(["sleep", "60"], start_new_session=True, env=os.environ | {TOKEN_ENV: token})
    other = subprocess.Popen(["sleep", "60"], start_new_session=True, env=os.environ | {TOKEN_ENV: "another run's"})
    try:
        kill_orphans({token})
        assert job.wait(timeout=5) == -signal.SIGKILL
        assert other.poll() is None  # another run's child is not this run's to kill
    finally:
        for proc in (job, other):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
