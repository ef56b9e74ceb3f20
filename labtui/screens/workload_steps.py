"""The Workload screen's steps: add one (a copy of the highlighted step, after it), remove one (asking
first, naming it), move one. What these keys do to the profile being edited is here, as what its
files keys do is `ProfileFiles`' (workload_files.py); the steps table and the step's form are the
screen's, which this redraws through it. Nothing is written: the file changes when the profile is saved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labtui.errors import ValidationError

if TYPE_CHECKING:
    from labtui.screens.workload_files import EditorScreen
    from labtui.tui.profile_draft import ProfileDraft


class StepEdits:
    """What the steps table's a, x (or Delete) and Shift+Up/Down do to the Workload screen's draft."""

    def __init__(self, screen: EditorScreen) -> None:
        self.screen = screen

    def add(self) -> None:
        screen = self.screen
        assert screen.draft is not None
        screen.step_index = screen.draft.add_step(screen.step_index)
        self._shown()

    def remove(self) -> None:
        """Ask, naming the step, then remove it: one key took a step and its edits with no way back."""
        from labtui.screens.confirm import ConfirmModal

        screen = self.screen
        assert screen.draft is not None
        draft, index = screen.draft, screen.step_index
        if len(draft.steps) == 1:
            self._remove(draft, index)  # the model refuses it, and says why: nothing to ask
            return
        step = draft.step(index)
        name = draft.steps[index].values.get("name", "") or "unnamed"
        what = f" ({step.label()})" if step is not None else ""

        def answer(remove: bool | None) -> None:
            # The same step of the same draft: the profile or the highlighted step did not change meanwhile.
            if remove and screen.draft is draft and index < len(draft.steps):
                self._remove(draft, index)

        screen.app.push_screen(
            ConfirmModal("Remove step?", f"Remove step {index + 1} of {len(draft.steps)}, {name}{what}, with its "
                         "settings? The profile file changes only when you save (Ctrl+S).",
                         yes="Remove", no="Keep", danger=True),
            answer,
        )

    def move(self, delta: int) -> None:
        screen = self.screen
        assert screen.draft is not None
        screen.step_index = screen.draft.move_step(screen.step_index, delta)
        self._shown()

    def _remove(self, draft: ProfileDraft, index: int) -> None:
        try:
            draft.remove_step(index)
        except ValidationError as exc:
            self.screen.notify(exc.reason, title="Step not removed", severity="warning")
            return
        self.screen.step_index = min(index, len(draft.steps) - 1)
        self._shown()

    def _shown(self) -> None:
        self.screen._fill_step_form()
        self.screen._after_edit()
