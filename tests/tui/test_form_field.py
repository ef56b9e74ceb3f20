"""One editable setting (widgets/form_field.py): its label and control, plain at a glance when focused."""

from __future__ import annotations

from tui_support import make_app, open_workload


async def test_the_focused_field_is_plain_at_a_glance_in_every_theme_and_without_colours(labtui_home):
    # Its background was a 5 % tint of the others' (235 against 234 in a 256-colour terminal), and the
    # label's focus colour never showed (Textual restyled it only under a row with a :focus-within rule).
    from rich.color import ColorSystem
    from rich.segment import Segment
    from textual.color import Color
    from textual.filter import Monochrome, NoColor

    def bg(widget) -> Color:
        return Color.from_rich_color(widget.rich_style.bgcolor)

    app = make_app(labtui_home)
    async with app.run_test(size=(120, 35)) as pilot:
        await open_workload(pilot)
        screen = app.screen
        field, other = screen.query_one("#p-title"), screen.query_one("#p-name")
        label = screen.query_one("#field-p-title .form-field-label")
        other_label = screen.query_one("#field-p-name .form-field-label")
        # labtui's themes, and Textual's that Ctrl+T offers too where the contrast is least (flexoki,
        # textual-dark) or the colours are the terminal's own (ansi-dark): all of them take ~1 s each.
        themes = ["labtui-dark", "labtui-light", "labtui-high-contrast", "flexoki", "textual-dark", "ansi-dark"]
        assert set(themes) <= set(app.available_themes)
        for theme in themes:
            app.theme = theme
            field.focus()
            await pilot.pause()
            focused, unfocused = field.rich_style, other.rich_style
            # The label is in reverse: a sign that needs no colour (NO_COLOR, a 16-colour console).
            assert label.rich_style.reverse and label.rich_style.bold and not other_label.rich_style.reverse, theme
            for no_colour in (Monochrome(), NoColor()):
                [(_, kept, _)] = no_colour.apply([Segment("Title", label.rich_style)], bg(field))
                assert kept.reverse, (theme, no_colour)
            # And the field's own background stands apart from the other fields', in its colours
            # and in a 16-colour console's.
            if focused.bgcolor.is_system_defined or unfocused.bgcolor.is_system_defined:  # an ANSI theme
                assert focused.bgcolor != unfocused.bgcolor, theme
                continue
            apart = abs(bg(field).brightness - bg(other).brightness)
            assert apart >= 0.05, (theme, bg(field).hex, bg(other).hex)
            if theme.startswith("labtui-"):
                assert focused.bgcolor.downgrade(ColorSystem.STANDARD).number != \
                    unfocused.bgcolor.downgrade(ColorSystem.STANDARD).number, theme
