"""Stylesheets hold no colour of their own: every colour comes from the theme's variables."""

from __future__ import annotations

import re

from textual._color_constants import COLOR_NAME_TO_RGB

from conftest import REPO

PACKAGE = REPO / "labtui"
HEX = re.compile(r"#[0-9a-fA-F]{3,8}\b")
FUNCTION = re.compile(r"\b(rgba?|hsla?)\s*\(", re.I)
WORD = re.compile(r"(?<![$\w-])([a-z][a-z0-9_]*)(?![\w-])")


def _declarations(text: str):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for line_number, line in enumerate(text.splitlines(), 1):
        if ":" in line and line.strip().endswith(";"):
            value = line.split(":", 1)[1]
            yield line_number, value


def colour_literals(text: str) -> list[str]:
    found = []
    for line_number, value in _declarations(text):
        found += [f"line {line_number}: {m.group(0)}" for m in HEX.finditer(value)]
        found += [f"line {line_number}: {m.group(0)}" for m in FUNCTION.finditer(value)]
        found += [f"line {line_number}: {w}" for w in WORD.findall(value) if w in COLOR_NAME_TO_RGB]
    return found


def test_the_check_catches_each_kind_of_literal():
    sample = "A {\n color: #fff;\n background: rgb(1,2,3);\n border: solid red;\n tint: $primary 10%;\n}\n"
    assert colour_literals(sample) == ["line 2: #fff", "line 3: rgb(", "line 4: red"]


def test_no_colour_literal_in_any_stylesheet():
    sheets = sorted(PACKAGE.rglob("*.tcss"))
    assert len(sheets) >= 8
    problems = {str(p.relative_to(REPO)): colour_literals(p.read_text()) for p in sheets}
    assert {k: v for k, v in problems.items() if v} == {}


def test_no_stylesheet_hides_in_python_code():
    # DEFAULT_CSS / CSS strings would escape the check above: rules live in .tcss files only.
    offenders = [str(p.relative_to(REPO)) for p in PACKAGE.rglob("*.py")
                 if re.search(r"^\s*(DEFAULT_CSS|CSS)\s*=", p.read_text(), re.M)]
    assert offenders == []
