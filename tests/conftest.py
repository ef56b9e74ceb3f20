"""Shared fixtures: an isolated LABTUI_HOME per test, and the rule for missing real tools."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def labtui_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "labtui-home"
    home.mkdir()
    monkeypatch.setenv("LABTUI_HOME", str(home))
    return home


def require_tool(name: str) -> str:
    """The path of a real tool the test drives; skip without it, except in CI where it must exist."""
    path = shutil.which(name)
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed, and CI must run this test (apt-get install {name})")
    pytest.skip(f"{name} is not installed")


def labtui_cmd(*args: str) -> list[str]:
    """The command line of the installed CLI, via this interpreter (works in any venv)."""
    return [sys.executable, "-m", "labtui", *args]
