"""`labtui` with no argument opens the TUI in a real terminal; `labtui --help` never loads Textual."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid

from conftest import require_tool
from tmux_terminal import kill_server


def test_help_does_not_import_textual():
    code = (
        "import sys\n"
        "from labtui.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "opens the terminal UI" in out.stdout


def _tmux(socket: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    # A server of its own (-L), started without anyone's ~/.tmux.conf (-f): nothing of the
    # machine's tmux (its sessions, options or environment) reaches the terminal under test.
    return subprocess.run(["tmux", "-L", socket, "-f", os.devnull, *args], capture_output=True, text=True, check=check)


def _capture(session: str) -> str:
    return _tmux(session, "capture-pane", "-p", "-t", session, check=False).stdout


def _wait_for(session: str, needle: str, seconds: float = 15) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        screen = _capture(session)
        assert "Traceback" not in screen, screen
        if needle in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} not on screen:\n{_capture(session)}")


def test_labtui_opens_the_tui_in_a_real_terminal_and_q_quits(labtui_home):
    require_tool("tmux")
    session = f"labtui-test-{uuid.uuid4().hex[:8]}"
    labtui = shutil.which("labtui", path=os.path.dirname(sys.executable)) or f"{sys.executable} -m labtui"
    command = (f"env -u COLUMNS -u LINES LABTUI_HOME={labtui_home} TERM=xterm-256color {labtui}; "
               "echo EXITED=$?; sleep 30")
    _tmux(session, "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    try:
        _wait_for(session, "Disks and volumes")
        _wait_for(session, "read at")  # this machine's devices, read in the background
        _tmux(session, "send-keys", "-t", session, "w")
        _wait_for(session, "labtui · Workload")
        _wait_for(session, " configmgr-sql-quick")  # the profile list
        _tmux(session, "send-keys", "-t", session, "q")
        _wait_for(session, "EXITED=0")
    finally:
        kill_server("tmux", session)


def test_json_output_is_whole_when_python_runs_unbuffered():
    # PYTHONUNBUFFERED (set on some machines) makes stdout's text layer write straight to the pipe;
    # a signal with a handler during a large write to a full pipe then cut the output at 64 KiB.
    code = (
        "import os, signal, sys, time\n"
        "from labtui.cli import whole_stdout\n"
        "whole_stdout()\n"
        "signal.signal(signal.SIGUSR1, lambda *a: None)\n"
        "parent = os.getpid()\n"
        "if os.fork() == 0:\n"
        "    time.sleep(0.3); os.kill(parent, signal.SIGUSR1); os._exit(0)\n"
        "sys.stdout.write('x' * 1_000_000 + '\\n')\n"
        "sys.stdout.flush()\n"
    )
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env) as proc:
        time.sleep(0.8)  # the pipe fills and the writer waits on it when the signal comes
        out = proc.stdout.read()
    assert proc.returncode == 0
    assert len(out) == 1_000_001
