"""Rich styles from the current theme (tui/styling.py), for the table cells a stylesheet cannot reach: the
theme's colour where it has one, never a broken table where it has not."""

from __future__ import annotations

from rich.style import Style
from textual.app import App
from textual.color import Color

from labtui.tui.styling import STATUS_VARIABLES, status_styles, theme_colours, theme_style


def _colour(app: App, variable: str):
    return Color.parse(app.get_css_variables()[variable]).rich_color


async def test_a_theme_variable_becomes_its_colour_and_a_missing_or_odd_one_no_colour():
    app = App()
    async with app.run_test(size=(40, 5)):
        assert theme_style(app, "success", bold=True) == Style(color=_colour(app, "success"), bold=True)
        assert theme_style(app, "labtui-no-such-variable") == Style()
        error = app.get_css_variables()["error"]  # (reading them all sets the theme's variables afresh)
        app.theme_variables["labtui-odd"] = "not-a-colour"
        app.theme_variables["labtui-two"] = f"{error} 50%"  # its first word counts
        assert theme_style(app, "labtui-odd", dim=True) == Style(dim=True)
        assert theme_style(app, "labtui-two").color == _colour(app, "error")


async def test_statuses_and_verdicts_take_the_themes_colours_and_follow_a_change_of_theme():
    app = App()
    async with app.run_test(size=(40, 5)) as pilot:
        styles = status_styles(app)
        assert set(styles) == set(STATUS_VARIABLES) == {"completed", "aborted", "failed"}
        assert [styles[s].color for s in ("completed", "aborted", "failed")] == [
            _colour(app, "success"), _colour(app, "warning"), _colour(app, "error")]
        colours = theme_colours(app)
        assert (colours.better.color, colours.better.bold) == (_colour(app, "success"), True)
        assert (colours.worse.color, colours.warning.color) == (_colour(app, "error"), _colour(app, "warning"))
        before = colours.better.color
        app.theme = "nord"
        await pilot.pause()
        assert theme_colours(app).better.color == _colour(app, "success") != before
