"""Shell completion (labtui/commands/completion.py): what Tab offers (result ids, profiles, tags, engines,
parameters), nothing from a store it cannot read, and each shell's script."""

from __future__ import annotations

import io
import subprocess

import argcomplete
import argcomplete.io
import pytest

from conftest import labtui_cmd
from labtui.cli import build_parser
from labtui.commands import completion
from labtui.engine.registry import engine_names


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


def test_tab_offers_result_ids_profiles_tags_engines_and_params(completion_store, monkeypatch):
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
