"""labtui/store.py: the name the product owner's acceptance checks import (`import labtui.store`) is the results
store itself, whole (that it loads no Textual: tests/static/test_core_imports.py)."""

from __future__ import annotations

import labtui.results.store as results_store
import labtui.store


def test_labtui_store_is_the_results_store_under_the_name_the_checks_use():
    assert labtui.store.Store is results_store.Store
    assert labtui.store.builtin_profiles is results_store.builtin_profiles
    public = {name for name in vars(results_store) if not name.startswith("_")
              and getattr(vars(results_store)[name], "__module__", results_store.__name__) == results_store.__name__}
    missing = sorted(name for name in public if not hasattr(labtui.store, name))
    assert not missing, f"results.store's public names not under labtui.store: {missing}"

