"""What History's keys change: a result's tags (t), its disk's and profile's baseline (b), and deleting
results, or a file labtui cannot read (x): each asks first where it removes something, and the
table shows the change without reading the folder again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from labtui.errors import LabtuiError
from labtui.model.result import split_tags, tag_problem
from labtui.results import baselines
from labtui.results.summaries import ResultSummary
from labtui.tui.context import LabtuiScreen
from labtui.widgets.results_table import BROKEN_PREFIX

if TYPE_CHECKING:
    from labtui.model.result import RunResult
    from labtui.results.files import BrokenFile


class ResultsScreen(LabtuiScreen[None]):
    """The History screen as what changes results sees it (`labtui.screens.history.HistoryScreen` is the
    one): declared here, so that this module needs nothing of the screen's (which imports it)."""

    summaries: list[ResultSummary]
    broken: list[BrokenFile]
    baseline_ids: set[str]
    marked: set[str]
    _by_id: dict[str, ResultSummary]
    _search: dict[str, str]

    def current(self) -> ResultSummary | None:
        raise NotImplementedError

    def current_broken(self) -> BrokenFile | None:
        raise NotImplementedError

    def chosen(self) -> list[ResultSummary]:
        raise NotImplementedError

    def read(self, summary: ResultSummary) -> RunResult | None:
        """The result in full, from its file (the index is only a summary); None after telling why."""
        store = self.lab.store
        try:
            return store.read_result(store.results_dir / summary.file)
        except LabtuiError as exc:
            self.notify(str(exc), title="Cannot read the result", severity="error")
            return None

    def _read_all(self, rows: list[ResultSummary]) -> list[RunResult] | None:
        results = [self.read(s) for s in rows]
        return None if any(r is None for r in results) else results  # type: ignore[return-value]

    def _refill(self, keep: str | None = None) -> None:
        raise NotImplementedError

    def _refuse_broken(self, what: str) -> bool:
        raise NotImplementedError

    def action_reload(self) -> None:
        raise NotImplementedError


class ResultChanges:
    """History's t, b and x."""

    def __init__(self, screen: ResultsScreen) -> None:
        self.screen = screen

    def tag(self) -> None:
        from labtui.screens.prompt import TextPrompt

        if self.screen._refuse_broken("tagged"):
            return
        current = self.screen.current()
        if current is None:
            return

        def check(text: str) -> str | None:
            return next((problem for t in split_tags(text) if (problem := tag_problem(t))), None)

        def done(text: str | None) -> None:
            if text is None:
                return
            result = self.screen.read(current)
            if result is None:
                return
            updated = replace(result, tags=tuple(split_tags(text)))
            try:
                self.screen.lab.store.update_result(updated)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Tags not saved", severity="error")
                return
            self._replace(ResultSummary.of(updated, current.file))
            self.screen.notify(f"Tags of {updated.id}: {', '.join(updated.tags) or 'none'}", title="Tags saved")

        self.screen.app.push_screen(TextPrompt(f"Tags of {current.id}", "Comma-separated, e.g. hp-adapter, after-swap. "
                                        "Filtering matches them.", ", ".join(current.tags), check=check), done)

    def _replace(self, summary: ResultSummary) -> None:
        self.screen.summaries = [summary if s.id == summary.id else s for s in self.screen.summaries]
        self.screen._by_id[summary.id] = summary
        self.screen._search[summary.id] = summary.search_text()
        self.screen._refill(keep=summary.id)

    def baseline(self) -> None:
        if self.screen._refuse_broken("a baseline"):
            return
        current = self.screen.current()
        if current is None:
            return
        store = self.screen.lab.store
        try:
            if current.id in self.screen.baseline_ids:
                baselines.clear(store, current.id)
                self.screen.notify(f"{current.id} is no longer the baseline of {current.profile} on {current.disk}.",
                            title="Baseline cleared")
            else:
                result = self.screen.read(current)
                if result is None:
                    return
                baseline, replaced = baselines.mark(store, result)
                was = f" (instead of {replaced.result_id})" if replaced else ""
                runs = baselines.runs_per_step([result])
                few = (f" It has {runs} run{'s' if runs != 1 else ''} per step, too few for a check to know the "
                       f"disk's noise: `labtui baseline {current.id} --more {baselines.RECOMMENDED_RUNS - runs}` "
                       "adds runs." if runs < baselines.RECOMMENDED_RUNS else "")
                self.screen.notify(f"{current.id} is the baseline of {baseline.profile} on {baseline.disk}{was}. "
                            f"`labtui check` compares re-runs with it.{few}", title="Baseline set", timeout=8)
            self.screen.baseline_ids = baselines.ids(store)
        except LabtuiError as exc:
            self.screen.notify(str(exc), title="Baseline", severity="error")
            return
        self.screen._refill(keep=current.id)

    def delete(self) -> None:
        from labtui.screens.confirm import ConfirmModal

        rows = self.screen.chosen()
        broken = self.screen.current_broken()
        if not rows and broken is not None:
            self._delete_broken_asked(broken)
            return
        if not rows:
            return
        shown = ", ".join(s.id for s in rows[:3]) + (f" and {len(rows) - 3} more" if len(rows) > 3 else "")
        message = f"{shown}: the result file{'s are' if len(rows) > 1 else ' is'} removed for good."
        if any(s.id in self.screen.baseline_ids for s in rows):
            message += " A baseline among them stops being one."
        title = f"Delete {len(rows)} result{'s' if len(rows) > 1 else ''}?"

        def answer(yes: bool | None) -> None:
            if yes:
                self._delete(rows)

        self.screen.app.push_screen(ConfirmModal(title, message, yes="Delete", no="Keep", danger=True), answer)

    def _delete(self, rows: list[ResultSummary]) -> None:
        store = self.screen.lab.store
        gone = []
        for s in rows:
            try:
                if s.id in self.screen.baseline_ids:
                    baselines.clear(store, s.id)
                store.delete_result(s.id)
                gone.append(s.id)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Not deleted", severity="error")
        self.screen.summaries = [s for s in self.screen.summaries if s.id not in gone]
        self.screen._by_id = {s.id: s for s in self.screen.summaries}
        self.screen.marked -= set(gone)
        self.screen.baseline_ids -= set(gone)
        self.screen._refill()
        self.screen.refresh_bindings()
        if gone:
            self.screen.notify(f"Deleted {len(gone)} result{'s' if len(gone) > 1 else ''}.", title="Deleted")

    def _delete_broken_asked(self, broken: BrokenFile) -> None:
        """Offer to remove a file labtui cannot read: listed, never removed on labtui's own, but the person may."""
        from labtui.screens.confirm import ConfirmModal

        link = broken.path.is_symlink()
        what = "the link is removed (what it points to is not touched)" if link else "the file is removed for good"
        message = f"{broken.path}: {broken.reason}.\nlabtui cannot read it; {what}."

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.screen.lab.store.delete_broken(broken.path)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Not deleted", severity="error")
                self.screen.action_reload()
                return
            self.screen.broken = [b for b in self.screen.broken if b.path != broken.path]
            self.screen._search.pop(BROKEN_PREFIX + broken.path.name, None)
            self.screen._refill()
            self.screen.notify(f"Deleted {broken.path.name}.", title="Deleted")

        title = f"Delete the broken {'link' if link else 'file'}?"
        self.screen.app.push_screen(ConfirmModal(title, message, yes="Delete", no="Keep", danger=True), answer)
