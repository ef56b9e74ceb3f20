"""Two or more results side by side: the plain answer first, then per step and metric the figures,
the % difference against the first, the verdict and what decided it (runs and p-value, or "single
runs"); what differs in their context; warnings. `e` shows how the verdicts were reached.

The comparison is labtui.analysis.comparison's (the CLI's `labtui compare` reads the same one), drawn with
the theme's colours: success for better, error for worse. Escape goes back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.widgets import Static

from labtui.analysis.answer import comparison_answers
from labtui.analysis.comparison import Comparison, compare
from labtui.errors import LabtuiError
from labtui.model.result import RunResult
from labtui.render.comparison import answer_renderable, comparison_markdown, comparison_renderable
from labtui.tui.context import LabtuiScreen
from labtui.tui.styling import theme_colours
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.keys_footer import KeysFooter


class CompareScreen(LabtuiScreen[None]):
    CSS_PATH = "compare.tcss"
    # Where the footer is too narrow for every key (80 columns), e gives way, as on the Run screen: ? lists it.
    FOOTER_SECONDARY = ("compare-explain",)
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="compare-back", tooltip="Back to where you came from"),
        Binding("m", "markdown", "Markdown", id="compare-markdown",
                tooltip="Write the comparison as a Markdown table (for a post or a ticket)"),
        Binding("e", "explain", "How decided", id="compare-explain",
                tooltip="Show or hide how the verdicts were reached: the tests, the pooled noise, and what decided "
                        "each line"),
        Binding("s", "picture", "Picture", id="compare-picture",
                tooltip="Write the comparison as an SVG picture: a bar chart per step with each result's figure "
                        "and spread, and what differs (for a post or a ticket)"),
    ]

    def __init__(self, results: Sequence[RunResult]) -> None:
        super().__init__()
        self.results = list(results)
        self.comparison: Comparison | None = None
        self.explaining = False  # the method shows under the table (e)

    def compose(self) -> ComposeResult:
        yield ContextBar("Compare")
        with ScrollableContainer(id="compare-body"):
            yield Static(id="compare-title", markup=False)
            yield Static(id="compare-table", markup=False)
            yield Static(id="compare-method", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        from labtui.analysis.known_noise import hint_from_store

        try:
            self.comparison = compare(self.results, hint=hint_from_store(self.lab.store, self.results))
        except LabtuiError as exc:
            self.query_one("#compare-table", Static).update(f"Cannot compare: {exc}")
            return
        colours = theme_colours(self.app)
        # The answer is the first thing read; what the letters are and the table follow it.
        self.query_one("#compare-title", Static).update(
            answer_renderable(comparison_answers(self.comparison), colours))
        self._show_table()
        self.query_one("#compare-body").focus()

    def _show_table(self) -> None:
        if self.comparison is not None:
            self.query_one("#compare-table", Static).update(comparison_renderable(
                self.comparison, theme_colours(self.app), answer=False))

    def action_explain(self) -> None:
        """Show (or hide) how the verdicts were reached, under the table, and bring it into view."""
        from labtui.render.comparison import comparison_explanation

        if self.comparison is None:
            return
        self.explaining = not self.explaining
        method = self.query_one("#compare-method", Static)
        method.update(comparison_explanation(self.comparison) if self.explaining else "")
        if self.explaining:
            self.call_after_refresh(method.scroll_visible, top=True, animate=False)

    def action_markdown(self) -> None:
        self._write_file("Comparison as Markdown", "md", comparison_markdown)

    def action_picture(self) -> None:
        from labtui.render.comparison_svg import comparison_svg

        self._write_file("Comparison as a picture (SVG)", "svg", comparison_svg)

    def _write_file(self, title: str, suffix: str, render: Callable[[Comparison], str]) -> None:
        """Ask for a file name (never an existing file) and write the comparison there as `render` draws it."""
        from labtui.screens.export import check_path
        from labtui.screens.prompt import TextPrompt

        if self.comparison is None:
            return
        comparison = self.comparison
        directory = self.lab.cwd
        default = directory / f"labtui-compare-{self.lab.clock().strftime('%Y%m%d-%H%M')}.{suffix}"

        def done(text: str | None) -> None:
            from labtui.results.files import atomic_write

            if text is None:
                return
            path, _problem = check_path(text, directory)
            if path is None:
                return
            try:
                atomic_write(path, render(comparison), exclusive=True)
            except OSError as exc:
                self.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error")
                return
            self.notify(f"Written to {path}", title=title)

        self.app.push_screen(TextPrompt(
            title,
            f"The file to write (never replaced; a name alone goes in the current directory, {directory}):",
            str(default), check=lambda t: check_path(t, directory)[1] or None), done)
