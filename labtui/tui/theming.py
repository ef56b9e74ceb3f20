"""Theme files: read, check and turn into Textual themes (the shipped ones and the user's own).

A theme file is TOML: Textual's theme colours plus a `[variables]` table holding Textual's own
variables and labtui's (`labtui-read`, `labtui-write`, ...). Every value is checked here, so a
broken file is reported with its path and reason and never reaches the stylesheet (where a bad
value would take the whole app down).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from labtui.errors import LabtuiError
from labtui.machine.checked_read import Unreadable, read_checked

DEFAULT_THEME = "labtui-dark"
# Used only if the shipped theme files are missing (a broken install): Textual's own.
LAST_RESORT_THEME = "textual-dark"

# labtui's own variables with their values for themes that do not set them (Textual's built-in
# themes, a user theme written for an older labtui). Colours here are data, not stylesheet rules.
LABTUI_VARIABLES = {
    "labtui-read": "#4fa8e8",
    "labtui-write": "#f0913a",
}

_COLOUR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
                "background", "surface", "panel", "boost")
_KNOWN_KEYS = {f.name for f in fields(Theme)}
_STYLE_WORDS = {"none", "not", "bold", "b", "dim", "d", "italic", "i", "underline", "u", "underline2",
                "uu", "reverse", "r", "strike", "s", "blink", "overline", "o"}
_PERCENT = re.compile(r"^\d+(\.\d+)?%$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class ThemeError(LabtuiError):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class ThemeProblem:
    path: Path
    reason: str


def _textual_variable_names() -> frozenset[str]:
    names = set(BUILTIN_THEMES["textual-dark"].to_color_system().generate())
    return frozenset(names | set(LABTUI_VARIABLES))


def _check_colour(value: Any, what: str) -> str:
    """A colour as Textual's stylesheet reads it: '#rrggbb', 'rgb(..)', 'auto 60%', '#fff 35%'."""
    if not isinstance(value, str) or not value.strip():
        raise ThemeError(f"{what} must be a colour such as \"#3d9bd9\", got {value!r}")
    words = value.split()
    if len(words) > 2 or (len(words) == 2 and not _PERCENT.match(words[1])):
        raise ThemeError(f"{what}: {value!r} is not a colour (a colour, optionally followed by a percentage)")
    if words[0] in ("auto", "transparent", "initial"):
        return value
    try:
        Color.parse(words[0])
    except ColorParseError:
        raise ThemeError(f"{what}: {value!r} is not a colour") from None
    return value


def _check_style(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.split() or any(w not in _STYLE_WORDS for w in value.split()):
        raise ThemeError(f"{what}: {value!r} is not a text style (words such as bold, underline, reverse, none)")
    return value


def parse_theme(data: dict[str, Any], where: str = "theme") -> Theme:
    """A checked Theme from a theme file's table; ThemeError naming the first problem."""
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ThemeError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KNOWN_KEYS))})")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ThemeError(f"{where}: needs a `name` of letters, digits, '-' and '_', got {name!r}")
    if "primary" not in data:
        raise ThemeError(f"{where}: needs a `primary` colour")
    values: dict[str, Any] = {"name": name}
    for key in _COLOUR_KEYS:
        if key in data:
            values[key] = _check_colour(data[key], f"{where}: {key}")
    for key in ("dark", "ansi"):
        if key in data:
            if not isinstance(data[key], bool):
                raise ThemeError(f"{where}: {key} must be true or false, got {data[key]!r}")
            values[key] = data[key]
    for key, low, high in (("luminosity_spread", 0.0, 1.0), ("text_alpha", 0.0, 1.0)):
        if key in data:
            number = data[key]
            if isinstance(number, bool) or not isinstance(number, (int, float)) or not low <= number <= high:
                raise ThemeError(f"{where}: {key} must be a number within {low}..{high}, got {number!r}")
            values[key] = float(number)
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeError(f"{where}: [variables] must be a table")
    known_variables = _textual_variable_names()
    checked: dict[str, str] = {}
    for key, value in variables.items():
        if key not in known_variables:
            raise ThemeError(f"{where}: unknown variable {key!r}")
        check = _check_style if "style" in key else _check_colour
        checked[key] = check(value, f"{where}: variable {key}")
    values["variables"] = checked
    theme = Theme(**values)
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # noqa: BLE001 - whatever Textual objects to, the file is at fault
        raise ThemeError(f"{where}: Textual cannot build it: {exc}") from None
    return theme


MAX_THEME_BYTES = 1024 * 1024  # a theme is a few hundred bytes


def load_theme_file(path: Path) -> Theme:
    try:  # one checked descriptor: a FIFO among the themes must not hang the TUI's start
        data = tomllib.loads(read_checked(path, MAX_THEME_BYTES)[0].decode("utf-8"))
    except Unreadable as exc:
        raise ThemeError(f"{path}: cannot read: {exc.said(MAX_THEME_BYTES)}") from None
    except UnicodeDecodeError as exc:
        raise ThemeError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ThemeError(f"{path}: not valid TOML: nested too deeply to read") from None
    return parse_theme(data, str(path))


def shipped_theme_dir() -> Path:
    """The themes shipped with labtui: package data in a wheel, `themes/` in a source checkout."""
    packaged = resources.files("labtui") / "themes"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "themes"  # labtui/tui/theming.py: the checkout's root


def load_themes(directories: list[Path]) -> tuple[list[Theme], list[ThemeProblem]]:
    """Every theme file in `directories` (later ones override earlier by name), and the broken ones."""
    themes: dict[str, Theme] = {}
    problems: list[ThemeProblem] = []
    for directory in directories:
        try:
            paths = sorted(p for p in directory.glob("*.toml") if not p.name.startswith("."))
        except OSError:
            continue
        for path in paths:
            try:
                theme = load_theme_file(path)
            except ThemeError as exc:
                problems.append(ThemeProblem(path, str(exc).removeprefix(f"{path}: ")))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems
