"""labtui's command line as a user runs it, for the tests of what a command prints: a real subprocess."""

from __future__ import annotations

import subprocess
from typing import Any

from conftest import labtui_cmd
from labtui.cli import main


def run(*args: str, env: dict[str, str] | None = None, timeout: float | None = None,
        **kwargs: Any) -> subprocess.CompletedProcess:
    """`labtui ARGS` in a process of its own (`python -m labtui`), its output captured as text (`kwargs`: cwd ...)."""
    return subprocess.run(labtui_cmd(*args), capture_output=True, text=True, env=env, timeout=timeout, **kwargs)


def one_line_error(out: subprocess.CompletedProcess) -> str:
    """The error of a refused command: exit 2, one line, no traceback."""
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "internal error" not in out.stderr and "Traceback" not in out.stderr
    return out.stderr


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Run the CLI in this process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def refusal(out: subprocess.CompletedProcess) -> str:
    """The line a refused command said: exit 2, one line on stderr, no traceback."""
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    return out.stderr.strip()
