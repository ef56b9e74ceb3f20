"""Fixtures of saved results that several test modules share (a plugin: tests/conftest.py's pytest_plugins)."""

from __future__ import annotations

import pytest

from factories import make_result
from labtui.results.store import Store


@pytest.fixture
def saved(labtui_home):
    """Two results in the store: an older completed one and a newer aborted one, tagged."""
    store = Store()
    older = store.save_result(make_result("20240501-103005-aaaa"))[0]
    newer = store.save_result(make_result("20240501-113005-bbbb", minutes=60, tags=("hp-adapter",),
                                          status="aborted", error="cancelled by the user"))[0]
    return older, newer
