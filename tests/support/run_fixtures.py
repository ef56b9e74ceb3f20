"""Fixtures of the TUI's run tests that several test modules share (a plugin: tests/conftest.py's pytest_plugins)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def target(disk_dir: Path, request: pytest.FixtureRequest) -> Path:
    """A directory of the test's own on `disk_dir`: the chosen target of the TUI's run tests."""
    path = disk_dir / request.node.name.replace("[", "-").replace("]", "")
    path.mkdir()
    return path
