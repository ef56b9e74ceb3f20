"""Shell completion: `labtui completion bash|zsh|fish`, and what Tab offers (result ids, profiles, tags ...).

The end-to-end test types into a real bash in tmux, as a person would after adding the line the
manual gives to ~/.bashrc."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from conftest import REPO, require_tool
from tmux_terminal import kill_server


def test_bash_completes_a_result_id_prefix_typed_in_a_real_terminal(completion_store, labtui_home, tmp_path):
    """The manual's line in ~/.bashrc, then `labtui show 2026<Tab>` completes the id, as it does a profile."""
    tmux, bash = require_tool("tmux"), require_tool("bash")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "labtui").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m labtui "$@"\n')
    (bin_dir / "labtui").chmod(0o755)
    rc = tmp_path / "bashrc"
    rc.write_text('eval "$(labtui completion bash)"\nPS1="ready> "\n')
    socket = f"labtui-test-completion-{os.getpid()}"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LABTUI_HOME": str(labtui_home), "PYTHONPATH": str(REPO),
           "HOME": str(tmp_path), "TERM": "xterm-256color", "LABTUI_LOCK_DIR": os.environ["LABTUI_LOCK_DIR"]}
    command = "env -i " + " ".join(f"{k}='{v}'" for k, v in env.items()) + f" {bash} --noprofile --rcfile {rc} -i"

    def run(*args: str) -> str:
        return subprocess.run([tmux, "-L", socket, "-f", os.devnull, *args], capture_output=True, text=True,
                              check=True).stdout

    def screen_shows(text: str) -> str:
        deadline = time.monotonic() + 30
        while True:
            shown = run("capture-pane", "-p", "-t", "t")
            if text in shown:
                return shown
            assert time.monotonic() < deadline, f"timed out waiting for {text!r}; the screen:\n{shown}"
            time.sleep(0.1)

    run("new-session", "-d", "-s", "t", "-x", "120", "-y", "35", command)
    try:
        screen_shows("ready>")
        run("send-keys", "-t", "t", "-l", "labtui show 2026")
        run("send-keys", "-t", "t", "Tab")
        screen_shows("ready> labtui show 20261130-142835-5d1e")
        run("send-keys", "-t", "t", "C-u")
        run("send-keys", "-t", "t", "-l", "labtui run -p nvme-s")
        run("send-keys", "-t", "t", "Tab")
        screen_shows("ready> labtui run -p nvme-sweep")
    finally:
        kill_server(tmux, socket)
