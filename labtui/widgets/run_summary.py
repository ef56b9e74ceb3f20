"""The end of a run, on the Run screen: how it ended and where it was saved, a summary per step, and the
comparison with the previous completed run of the same profile on the same disk, if there is one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker

from labtui.errors import LabtuiError
from labtui.render.drive import drive_lines
from labtui.render.readback import readback_line
from labtui.render.result_tables import bottleneck_renderable, result_steps_table, shown_warnings
from labtui.render.steady_state import steady_steps, steady_summary_lines
from labtui.tui.live_notes import warnings_once
from labtui.tui.styling import theme_colours, theme_style
from labtui.tui.work import post_found, report_failure, worker_error
from labtui.units import human_duration

if TYPE_CHECKING:
    from pathlib import Path

    from labtui.model.result import RunResult
    from labtui.results.store import Store


class RunSummary(VerticalScroll):
    """A finished run's outcome; arrows and Page Up/Down scroll it."""

    class PreviousFound(Message):
        """The previous completed run of `result`'s profile on its disk, or None."""

        def __init__(self, result: RunResult, previous: RunResult | None) -> None:
            super().__init__()
            self.result = result
            self.previous = previous

    def compose(self) -> ComposeResult:
        yield Static(id="done-title", markup=False)
        yield Static(id="done-summary", markup=False)
        yield Static(id="done-compare", markup=False)

    def show_outcome(self, result: RunResult | None, saved: Path | None, save_error: str | None) -> None:
        """`result` as the run ended (None: nothing could be saved), `saved` where, or why not (`save_error`)."""
        title = self.query_one("#done-title", Static)
        summary = self.query_one("#done-summary", Static)
        self.query_one("#done-compare", Static).update("")
        if result is None:
            title.update("The run ended before anything could be saved.")
            summary.update("")
            return
        style = {"completed": "success", "aborted": "warning", "failed": "error"}[result.status]
        heading = Text.assemble((result.status.capitalize(), theme_style(self.app, style, bold=True)),
                                f": {result.profile.name} on {result.target.path} with {result.engine.name}"
                                f" · {human_duration(result.seconds)} · "
                                + (f"saved as {result.id}" if save_error is None else "NOT saved"))
        lines: list[RenderableType] = [heading]
        readback = readback_line(result, theme_style(self.app, "success"), theme_style(self.app, "error", bold=True))
        if readback is not None:  # a verified run: did the data come back? right under the heading
            lines.append(readback)
        if result.profile.overridden:  # a quick trial: what it changed, as the result keeps it
            lines.append(Text(result.profile.description, style=theme_style(self.app, "warning")))
        if result.tags:
            lines.append(Text(f"tags: {', '.join(result.tags)}"))
        if result.error:
            lines.append(Text(result.error, style=theme_style(self.app, style)))
        if save_error is not None:
            # The figures below exist only on this screen: say so, and why, so they can be copied.
            lines.append(Text(f"The result could not be saved ({save_error}); it is shown here only.",
                              style=theme_style(self.app, "error")))
        elif saved is not None:
            lines.append(Text(str(saved), style="dim"))
        for warning in warnings_once(shown_warnings(result)):  # three CPU-bound steps: their advice once, not three times
            lines.append(Text(warning, style=theme_style(self.app, "warning")))
        limits = bottleneck_renderable(result, every=False, warning=theme_style(self.app, "warning"))
        if limits is not None:
            lines.append(limits)
        title.update(Group(*lines))
        steady = [line for s in steady_steps(result.steps) for line in steady_summary_lines(s)]
        table = result_steps_table(result) if result.steps else "No step finished."
        drive = drive_lines(result)  # the drive's temperature and link at each step, and the drops found
        below = [Text("\n".join(steady))] if steady else []
        below += [Text("\n".join(drive), style=theme_style(self.app, "warning") if any(s.drops for s in result.steps)
                       else "")] if drive else []
        summary.update(Group(table, *below) if below else table)
        if result.status != "completed":
            self.query_one("#done-compare", Static).update(
                Text("An aborted or failed run is not compared with earlier ones.", style="dim"))

    def show_comparison(self, result: RunResult, previous: RunResult | None, store: Store, *, explain: bool) -> None:
        """`result` against `previous` (None: there is none): the answer, the table, the method if `explain`."""
        from labtui.analysis.answer import comparison_answers
        from labtui.analysis.comparison import compare
        from labtui.analysis.context import engine_bound_warnings
        from labtui.analysis.known_noise import hint_from_store
        from labtui.render.comparison import answer_renderable, comparison_renderable

        box = self.query_one("#done-compare", Static)
        if previous is None:
            box.update(Text(f"No earlier completed run of {result.profile.name} on this disk to compare with.",
                            style="dim"))
            return
        comparison = compare([previous, result], hint=hint_from_store(store, [previous, result]))
        # This run's CPU-bound steps are warned of above the summary already: once is enough.
        said = set(engine_bound_warnings([result], comparison.letters[1:]))
        comparison = replace(comparison, warnings=tuple(w for w in comparison.warnings if w not in said))
        head = Text.assemble(("Against the previous run", "bold"),
                             f" of {result.profile.name} on this disk (A = {previous.id}, B = this run; "
                             "c shows it in full, e how it was decided):")
        colours = theme_colours(self.app)
        # The answer first, under its heading; the table; the method only when asked (e).
        box.update(Group(head, answer_renderable(comparison_answers(comparison), colours),
                         comparison_renderable(comparison, colours, answer=False, explain=explain)))

    @work(thread=True, exit_on_error=False)
    def look_up_previous(self, result: RunResult, store: Store) -> None:
        post_found(self, self.PreviousFound(result, find_previous(store, result)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        error = worker_error(event)
        if error is not None:
            report_failure(self, "Could not read the previous run", error)

    def page(self, pages: int) -> None:
        (self.scroll_page_down if pages > 0 else self.scroll_page_up)()


def find_previous(store: Store, result: RunResult) -> RunResult | None:
    """The previous completed run of the same profile on the same disk, read in full (None if none)."""
    from labtui.results.summaries import previous_comparable

    rows, _broken = store.summaries()
    row = previous_comparable(rows, result)
    if row is None:
        return None
    try:
        return store.read_result(store.results_dir / row.file)
    except LabtuiError:
        return None
