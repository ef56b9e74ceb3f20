"""Shell completion: `labtui completion bash|zsh|fish`, and what Tab offers (result ids, profiles, tags ...).

The end-to-end test types into a real bash in tmux, as a person would after adding the line the
manual gives to ~/.bashrc."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from dataclasses import replace

import argcomplete
import argcomplete.io
import pytest

from conftest import REPO, labtui_cmd, require_tool
from labtui.cli import build_parser
from labtui.commands import completion
from labtui.engine.registry import engine_names
from labtui.results.store import Store
from synthetic import READ, WRITE, run_result


@pytest.fixture
def store(labtui_home):
    store = Store(labtui_home)
    for rid, tag in (("20261130-142835-5d1e", "before-swap"), ("20250614-090000-aaaa", "hp-adapter")):
        result = run_result(rid, {READ: [1000], WRITE: [900]}, tags=(tag,))
        store.save_result(replace(result, started=result.started.replace(year=int(rid[:4]), month=int(rid[4:6]),
                                                                          day=int(rid[6:8]))))
    (labtui_home / "profiles").mkdir(exist_ok=True)
    (labtui_home / "profiles" / "nvme-sweep.toml").write_text('name = "nvme-sweep"\n[[steps]]\nname = "a"\n')
    return store


def _offered(line: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What Tab at the end of `line` offers, through the same path the shell's script takes."""
    out = io.StringIO()
    for name, value in {"_ARGCOMPLETE": "1", "_ARGCOMPLETE_SHELL": "bash", "COMP_LINE": line,
                        "COMP_POINT": str(len(line)), "_ARGCOMPLETE_SUPPRESS_SPACE": "0"}.items():
        monkeypatch.setenv(name, value)

    class Done(Exception):
        pass

    def stop(_code: int = 0) -> None:
        raise Done

    class Finder(argcomplete.CompletionFinder):
        def _init_debug_stream(self) -> None:  # argcomplete's own hook: fd 9 is pytest's, not a debug stream
            argcomplete.io.debug_stream = io.StringIO()

    parser = build_parser()
    completion.attach(parser)  # what completion.complete does before argcomplete's autocomplete(parser)
    with pytest.raises(Done):
        Finder()(parser, output_stream=out, exit_method=stop)
    return [word.strip() for word in out.getvalue().split("\013") if word.strip()]


def test_tab_offers_result_ids_profiles_tags_engines_and_params(store, monkeypatch):
    assert _offered("labtui show 2026", monkeypatch) == ["20261130-142835-5d1e"]
    assert _offered("labtui compare 2", monkeypatch) == ["20261130-142835-5d1e", "20250614-090000-aaaa"]  # newest first
    assert _offered("labtui check --baseline 2025", monkeypatch) == ["20250614-090000-aaaa"]
    assert "nvme-sweep" in _offered("labtui run -p ", monkeypatch) and "quick-sanity" in _offered("labtui run -p q",
                                                                                                    monkeypatch)
    assert _offered("labtui history --tag ", monkeypatch) == ["before-swap", "hp-adapter"]
    assert _offered("labtui run -e ", monkeypatch) == engine_names()  # the registry's, in its order
    assert _offered("labtui export --format c", monkeypatch) == ["csv", "configmgr-csv"]
    assert _offered("labtui run -p zpaq-extract --param ", monkeypatch) == ["archive="]
    assert _offered("labtui check --fail-on ", monkeypatch) == ["latency", "p99", "cpu"]
    assert "completion" in _offered("labtui ", monkeypatch)


def test_a_store_that_cannot_be_read_completes_nothing_and_says_nothing(tmp_path, monkeypatch):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    monkeypatch.setenv("LABTUI_HOME", str(not_a_dir))
    assert _offered("labtui show 2026", monkeypatch) == []


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_shells_script(shell):
    done = subprocess.run(labtui_cmd("completion", shell), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "labtui" in done.stdout and "_ARGCOMPLETE" in done.stdout, done.stderr
    refused = subprocess.run(labtui_cmd("completion", "tcsh"), capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1


def test_bash_completes_a_result_id_prefix_typed_in_a_real_terminal(store, labtui_home, tmp_path):
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
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True)
