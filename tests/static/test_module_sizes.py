"""A module a newcomer can read: none in labtui/ over MAX_LINES lines, no screen over SCREEN_LINES, the Run
screen's under RUN_SCREEN_LINES (issue 40).

A module that grows past it is split by what it holds (fio keeps one file per engine, Posting's screens
compose widgets), not trimmed of its comments.
"""

from __future__ import annotations

from conftest import REPO

MAX_LINES = 600
RUN_SCREEN_LINES = 400
SCREEN_LINES = 420  # a screen composes widgets and names its keys; what it holds beyond that has its own module


def lines(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_the_limit():
    over = sorted((lines(p), p.relative_to(REPO).as_posix()) for p in (REPO / "labtui").rglob("*.py")
                  if "__pycache__" not in p.parts and lines(p) > MAX_LINES)
    assert not over, f"modules over {MAX_LINES} lines: {over}; split them by what they hold"


def test_the_run_screen_composes_widgets():
    assert lines(REPO / "labtui" / "screens" / "run.py") < RUN_SCREEN_LINES


def test_no_screen_is_over_the_limit():
    over = sorted((lines(p), p.name) for p in (REPO / "labtui" / "screens").glob("*.py") if lines(p) > SCREEN_LINES)
    assert not over, f"screens over {SCREEN_LINES} lines: {over}; move a widget or helper out, named for what it holds"
