"""The line under History's table: the highlighted result's facts and its steps' figures, why a file
cannot be read, or why there is no row (still reading, no results yet, none matching the filter).
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Static

from labtui.analysis.listed_steps import listed_steps
from labtui.model.verification import READ_BACK_FAILED
from labtui.results.files import BrokenFile
from labtui.results.summaries import ResultSummary
from labtui.widgets.results_table import step_line

STEP_INDENT = 2  # a step's line under the result's facts
HANG = 2  # a step line's wrapped part, further in: read as that step's, not the next one's


def hanging(line: Content, width: int) -> list[Content]:
    """`line` at the step indent, wrapped to `width` with its later lines under a hanging indent (Textual
    wraps a line to the widget's left edge: "(p99 7.11)" at column 1 at 80 columns). Unwrapped where the
    width is not known yet (0) or leaves no room."""
    pad = Content(" " * STEP_INDENT)
    room = width - STEP_INDENT
    if room - HANG < 12 or line.cell_length <= room:
        return [pad + line]
    first = line.wrap(room)[0]
    cut = len(first.plain)
    cut += len(line.plain[cut:]) - len(line.plain[cut:].lstrip(" "))
    if cut >= len(line.plain):
        return [pad + line]
    return [pad + first, *(Content(" " * (STEP_INDENT + HANG)) + part for part in line[cut:].wrap(room - HANG))]


class ResultDetail(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        # A result's lines, the steps' apart: they are wrapped here, at the width there is, again on a resize.
        self._facts: list[Content] = []
        self._steps: list[Content] = []

    def on_resize(self, event: events.Resize) -> None:
        if self._steps:
            self._show_lines()

    def _say(self, content: str | Content) -> None:
        """Show what is not a result's lines (no steps to wrap again on a resize)."""
        self._facts, self._steps = [], []
        self.update(content)

    def _show_lines(self) -> None:
        width = self.content_size.width
        self.update(Content("\n").join([*self._facts, *(part for step in self._steps for part in hanging(step, width))]))

    def show_reading(self, done: int, total: int) -> None:
        self._say(f"Reading the results: {done} of {total} (this builds the summary index once; "
                  "later listings read only what changed)")

    def show_none(self, loaded: bool, any_results: bool) -> None:
        """No row under the cursor: still reading, no results at all, or none the filter matches."""
        if not loaded:
            self._say("Reading the results…")
        elif not any_results:
            self._say("No results yet: choose a target (d) and a profile (w), then run it (r).")
        else:
            self._say("No result matches the filter.")

    def show_broken(self, broken: BrokenFile) -> None:
        self._say(Content.assemble(("Cannot be read: ", "$error bold"), f"{broken.path}: {broken.reason}",
                                     "\nlabtui leaves it alone: fix it and press F5, or x deletes it (asks first)."))

    def show_result(self, s: ResultSummary, baseline: bool) -> None:
        """`s`'s facts, what is said of it (`baseline`: it is its disk's and profile's), whether a verified
        run's data came back, its first steps."""
        facts = [s.id, s.status, f"{s.engine} {s.engine_version or ''}".strip(), s.disk_name,
                 f"{s.filesystem or '?'} at {s.target}", f"on {s.host or '?'}"]
        if s.source == "import":
            facts.append(f"imported from {s.source_file or 'a file'}")
        lines = [Content(" · ".join(facts))]
        extra = []
        if baseline:
            extra.append(Content.styled(f"baseline for {s.profile} on {s.disk}", "$accent"))
        if s.tags:
            extra.append(Content("tags: " + ", ".join(s.tags)))
        if s.overridden:
            extra.append(Content.styled(s.profile_description, "$warning"))
        # A failed verify's error is its step's "2 blocks did not read back as written (torn)": the read-back
        # line under it says that and more (where, how to list them); said twice, it read as two failures.
        if s.error and not (s.read_back is not None and s.read_back.failed and READ_BACK_FAILED in s.error):
            extra.append(Content.styled(s.error, "$warning"))
        if extra:
            lines.append(Content(" · ").join(extra))
        if s.read_back is not None:  # a verified run: whether its data came back, as opening it says first
            style = "$error bold" if s.read_back.failed else "$success" if s.read_back.whole else "$warning"
            lines.append(Content.styled(s.read_back.words(s.id), style))
        steps = listed_steps(s)
        step_lines = [Content(step_line(listed.figures, listed.how)) for listed in steps[:4]]
        if len(steps) > 4:
            step_lines.append(Content(f"… and {len(steps) - 4} more steps (Enter opens the result)"))
        self._facts, self._steps = lines, step_lines
        self._show_lines()
