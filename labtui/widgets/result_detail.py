"""The line under History's table: the highlighted result's facts and its steps' figures, why a file
cannot be read, or why there is no row (still reading, no results yet, none matching the filter).
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from labtui.analysis.listed_steps import listed_steps
from labtui.results.files import BrokenFile
from labtui.results.summaries import ResultSummary
from labtui.widgets.results_table import step_line


class ResultDetail(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)

    def show_reading(self, done: int, total: int) -> None:
        self.update(f"Reading the results: {done} of {total} (this builds the summary index once; "
                    "later listings read only what changed)")

    def show_none(self, loaded: bool, any_results: bool) -> None:
        """No row under the cursor: still reading, no results at all, or none the filter matches."""
        if not loaded:
            self.update("Reading the results…")
        elif not any_results:
            self.update("No results yet: choose a target (d) and a profile (w), then run it (r).")
        else:
            self.update("No result matches the filter.")

    def show_broken(self, broken: BrokenFile) -> None:
        self.update(Content.assemble(("Cannot be read: ", "$error bold"), f"{broken.path}: {broken.reason}",
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
        if s.error:
            extra.append(Content.styled(s.error, "$warning"))
        if extra:
            lines.append(Content(" · ").join(extra))
        if s.read_back is not None:  # a verified run: whether its data came back, as opening it says first
            style = "$error bold" if s.read_back.failed else "$success" if s.read_back.whole else "$warning"
            lines.append(Content.styled(s.read_back.words(s.id), style))
        steps = listed_steps(s)
        for listed in steps[:4]:
            lines.append(Content(f"  {step_line(listed.figures, listed.how)}"))
        if len(steps) > 4:
            lines.append(Content(f"  … and {len(steps) - 4} more steps (Enter opens the result)"))
        self.update(Content("\n").join(lines))
