"""Rich styles from the current theme, for renderables (table cells) the stylesheet cannot reach."""

from __future__ import annotations

from rich.style import Style
from textual.app import App
from textual.color import Color, ColorParseError

from labtui.render.comparison import VerdictColours


def theme_style(app: App, variable: str, *, bold: bool | None = None, dim: bool | None = None) -> Style:
    """A Rich style coloured by theme variable `variable` ("warning", "labtui-read", ...).

    Falls back to an uncoloured style if the variable is missing or not a plain colour, so a
    theme can never break a table.
    """
    value = app.theme_variables.get(variable) or app.get_css_variables().get(variable)
    try:
        colour = Color.parse(value.split()[0]).rich_color if value else None
    except (ColorParseError, IndexError):
        colour = None
    return Style(color=colour, bold=bold, dim=dim)


# A result's status and the theme variable that colours it.
STATUS_VARIABLES = {"completed": "success", "aborted": "warning", "failed": "error"}


def status_styles(app: App) -> dict[str, Style]:
    """The theme's style for each result status (report.STATUS_STYLES has the terminal's)."""
    return {status: theme_style(app, variable) for status, variable in STATUS_VARIABLES.items()}


def theme_colours(app: App) -> VerdictColours:
    """A comparison's verdicts in the theme's colours: success for better, error for worse."""
    return VerdictColours(better=theme_style(app, "success", bold=True), worse=theme_style(app, "error", bold=True),
                          warning=theme_style(app, "warning"))
