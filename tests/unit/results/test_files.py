"""Writing labtui's files (labtui/results/files.py): whole or not at all, never over another file; broken
files as plain records."""

import os
from pathlib import Path

import pytest

from labtui.results import store as store_module
from labtui.results.files import BrokenFile, atomic_write


def hidden_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text("theme = 'old'\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, "theme = 'new'\n")
    assert path.read_text() == "theme = 'old'\n" and hidden_files(tmp_path) == []


def test_broken_file_is_a_plain_record():
    assert BrokenFile(Path("/x.toml"), "empty file") == BrokenFile(Path("/x.toml"), "empty file")
    assert store_module.MAX_FILE_BYTES >= 16 * 1024**2
