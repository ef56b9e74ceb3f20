"""The manual's pictures are labtui's own screens as they are now (docs/make_screenshots.py makes them)."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys

from conftest import REPO
from manual import pages

SHOTS = REPO / "docs" / "screenshots"


def _script():
    if "make_screenshots" in sys.modules:
        return sys.modules["make_screenshots"]
    spec = importlib.util.spec_from_file_location("make_screenshots", REPO / "docs" / "make_screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_screenshots"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_readme_picture_is_not_stale(tmp_path):
    """The Run screen mid-run, re-made from the script's replayed events: the checked-in SVG must be the same.
    (One picture only, to keep the suite quick: the others are made the same way.)"""
    made = asyncio.run(_script().make("run-live", tmp_path)).read_text()
    assert made == (SHOTS / "run-live.svg").read_text(), (
        "docs/screenshots/run-live.svg is stale: the Run screen draws differently now. Re-make the pictures with "
        "`python docs/make_screenshots.py` and look at them before committing.")


def test_every_picture_is_shown_and_every_picture_shown_exists():
    shown = {m for text in pages().values() for m in re.findall(r"screenshots/([\w-]+\.svg)", text)}
    made = {p.name for p in SHOTS.glob("*.svg")}
    assert shown == made, (f"made but not shown: {sorted(made - shown)}; shown but not made: {sorted(shown - made)}")
    assert "run-live.svg" in set(re.findall(r"screenshots/([\w-]+\.svg)", pages()["README.md"]))
    names = set(_script().SHOTS) | {"compare-export"}
    assert {n.removesuffix(".svg") for n in made} == names, "a picture the script no longer makes is still here"
