"""labtui in a real terminal: a tmux server of the test's own, keys sent, the screen read back."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

from conftest import REPO, require_tool


class Terminal:
    """One tmux server of our own (its own socket) with one window running a command."""

    def __init__(self, name: str, command: str, env: dict[str, str], size=(120, 35)) -> None:
        self.tmux = require_tool("tmux")
        self.socket = f"labtui-test-{name}-{os.getpid()}"
        environment = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        # COLUMNS and LINES, where the caller has them, would override the terminal's own size.
        self._run("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]),
                  f"env -u COLUMNS -u LINES {environment} {command}; echo LABTUI-EXITED $?; stty -a; sleep 120")

    def _run(self, *args: str) -> str:
        # -f: the server starts without anyone's ~/.tmux.conf (the machine's tmux options stay out).
        return subprocess.run([self.tmux, "-L", self.socket, "-f", os.devnull, *args], capture_output=True,
                              text=True, check=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._run("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)
        time.sleep(0.15)

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def wait_for(self, test, timeout: float = 30.0, what: str = "the screen") -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            assert "Traceback" not in text, text
            if (test(text) if callable(test) else test in text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{text}")
            time.sleep(0.2)

    def pane_pid(self) -> int:
        return int(self._run("display-message", "-p", "-t", "t", "#{pane_pid}").strip())

    def labtui_process(self) -> psutil.Process:
        for child in psutil.Process(self.pane_pid()).children(recursive=True):
            if "labtui" in " ".join(child.cmdline()):
                return child
        raise AssertionError("labtui is not running in the terminal")

    def kill(self) -> None:
        kill_server(self.tmux, self.socket)


def kill_server(tmux: str, socket: str) -> None:
    """End a tmux server of a test's own and remove its socket file, which kill-server leaves behind
    (a suite left hundreds in /tmp/tmux-UID)."""
    subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True)
    folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    (folder / socket).unlink(missing_ok=True)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def start(home: Path, name: str, size=(120, 35)) -> Terminal:
    env = {"LABTUI_HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
           "PYTHONPATH": str(REPO)}
    return Terminal(name, f"{_quote(sys.executable)} -m labtui", env, size)
