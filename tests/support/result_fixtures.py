"""Fixtures of saved results that several test modules share (a plugin: tests/conftest.py's pytest_plugins)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from factories import make_result
from labtui.results.store import Store
from synthetic import READ, WRITE, run_result


@pytest.fixture
def saved(labtui_home):
    """Two results in the store: an older completed one and a newer aborted one, tagged."""
    store = Store()
    older = store.save_result(make_result("20240501-103005-aaaa"))[0]
    newer = store.save_result(make_result("20240501-113005-bbbb", minutes=60, tags=("hp-adapter",),
                                          status="aborted", error="cancelled by the user"))[0]
    return older, newer


@pytest.fixture
def completion_store(labtui_home):
    """Two results of 2026 and 2025, tagged, and a user profile: what shell completion offers."""
    store = Store(labtui_home)
    for rid, tag in (("20261130-142835-5d1e", "before-swap"), ("20250614-090000-aaaa", "hp-adapter")):
        result = run_result(rid, {READ: [1000], WRITE: [900]}, tags=(tag,))
        store.save_result(replace(result, started=result.started.replace(year=int(rid[:4]), month=int(rid[4:6]),
                                                                          day=int(rid[6:8]))))
    (labtui_home / "profiles").mkdir(exist_ok=True)
    (labtui_home / "profiles" / "nvme-sweep.toml").write_text('name = "nvme-sweep"\n[[steps]]\nname = "a"\n')
    return store
