"""Theme files: the shipped ones load, and every kind of mistake in one is named, not fatal."""

from __future__ import annotations

import os

import pytest

from labtui.tui.theming import LABTUI_VARIABLES, ThemeError, load_theme_file, load_themes, parse_theme, shipped_theme_dir


def test_the_shipped_themes_load_and_set_labtuis_variables():
    themes, problems = load_themes([shipped_theme_dir()])
    assert problems == []
    by_name = {t.name: t for t in themes}
    assert {"labtui-dark", "labtui-light", "labtui-high-contrast"} <= set(by_name)
    assert by_name["labtui-dark"].dark and not by_name["labtui-light"].dark
    for theme in by_name.values():
        assert set(LABTUI_VARIABLES) <= set(theme.variables), theme.name
        assert theme.variables["labtui-read"] != theme.variables["labtui-write"], theme.name


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"name": "x", "primary": "#123456", "primry": "#fff"}, "unknown key 'primry'"),
        ({"primary": "#123456"}, "needs a `name`"),
        ({"name": "x"}, "needs a `primary` colour"),
        ({"name": "x", "primary": "blurple"}, "primary: 'blurple' is not a colour"),
        ({"name": "x", "primary": "#123456", "dark": "yes"}, "dark must be true or false"),
        ({"name": "x", "primary": "#123456", "text_alpha": 3}, "text_alpha must be a number within 0.0..1.0"),
        ({"name": "x", "primary": "#123456", "variables": {"labtui-reed": "#fff"}}, "unknown variable 'labtui-reed'"),
        ({"name": "x", "primary": "#123456", "variables": {"labtui-read": "#fff 150"}}, "is not a colour"),
        ({"name": "x", "primary": "#123456", "variables": {"block-cursor-text-style": "shiny"}}, "is not a text style"),
    ],
)
def test_mistakes_are_named(data, reason):
    with pytest.raises(ThemeError, match=reason.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        parse_theme(data, "t.toml")


def test_colour_forms_textual_accepts_pass():
    theme = parse_theme({"name": "ok", "primary": "rgb(10,20,30)",
                         "variables": {"labtui-read": "#abc 50%", "text-muted": "auto 60%",
                                       "button-focus-text-style": "b reverse"}})
    assert theme.variables["labtui-read"] == "#abc 50%"


def test_a_broken_file_is_reported_and_the_others_still_load(tmp_path):
    (tmp_path / "good.toml").write_text('name = "good"\nprimary = "#102030"\n')
    (tmp_path / "bad.toml").write_text('name = "bad"\nprimary = \n')
    themes, problems = load_themes([tmp_path])
    assert [t.name for t in themes] == ["good"]
    assert len(problems) == 1 and problems[0].path.name == "bad.toml" and "not valid TOML" in problems[0].reason


def test_a_later_directory_overrides_a_theme_by_name(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "t.toml").write_text('name = "same"\nprimary = "#111111"\n')
    (second / "t.toml").write_text('name = "same"\nprimary = "#222222"\n')
    themes, _ = load_themes([first, second])
    assert [t.primary for t in themes] == ["#222222"]


def test_unreadable_file_is_a_theme_error(tmp_path):
    with pytest.raises(ThemeError, match="cannot read"):
        load_theme_file(tmp_path / "missing.toml")
    os.mkfifo(tmp_path / "fifo.toml")  # among the themes, it must not hang the TUI's start
    with pytest.raises(ThemeError, match=r"fifo.toml: cannot read: it is a FIFO, not a regular file$"):
        load_theme_file(tmp_path / "fifo.toml")
