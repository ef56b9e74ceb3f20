"""The Workload screen: profiles, their steps, an editor for every field, and the command lines.

Edits go into a `ProfileDraft` and are checked by the model's own rules as they are typed, in three
forms (`FieldForm`: the profile, the step, its repetitions) whose fields labtui.tui.profile_fields
names; the engines' command lines (`CommandLines`) follow the highlighted step. Saving, copying,
renaming and deleting are `ProfileFiles`' (built-in profiles are never written: saving one asks for
a name and writes a user copy); adding, removing and moving steps `StepEdits`'. Opening a profile
makes it the one a run uses (`app.profile`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Label, OptionList, TextArea

from labtui.errors import ValidationError
from labtui.model.profile import Profile
from labtui.results.files import BrokenFile
from labtui.screens.workload_files import EditorScreen, ProfileFiles
from labtui.screens.workload_steps import StepEdits
from labtui.tui.context import Command
from labtui.tui.profile_draft import ProfileDraft, step_field_path, step_fields
from labtui.tui.profile_fields import (
    PRESET_SPECS,
    PROFILE_SPECS,
    STEP_SPECS,
    followed_description,
    followed_title,
    space_warning,
)
from labtui.widgets.choice import Choice
from labtui.widgets.command_lines import CommandLines
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.field_form import FieldForm
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.profile_list import BROKEN_PREFIX, ProfileList, broken_key, from_result, profile_key
from labtui.widgets.steps_table import StepsTable, step_cells
from labtui.widgets.wrapped_input import WrappedInput

# Keys for user profiles only: dimmed for others, and they say why when pressed.
DIMMED_FOR_BUILTINS = ("rename", "delete_profile")


class WorkloadScreen(EditorScreen):
    CSS_PATH = "workload.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        # Not a priority binding: one runs as the key arrives, before the focused field has taken
        # the characters typed just ahead of it, and saved the text as it was before them.
        Binding("ctrl+s", "save", "Save", id="workload-save",
                tooltip="Save the profile (a built-in is saved as a user copy under a new name)"),
        Binding("c", "duplicate", "Duplicate", id="workload-duplicate",
                tooltip="Copy the profile (with any edits) into a new user profile"),
        Binding("n", "rename", "Rename", id="workload-rename", tooltip="Give the user profile a new name"),
        Binding("escape", "back", "Back", id="workload-back", show=False,
                tooltip="Leave the field: back to the steps, then to the profile list"),
    ]
    FOOTER_SECONDARY = ("workload-rename", "workload-delete", "screen-fleet", "workload-duplicate", "steps-remove",
                        "steps-add")

    def __init__(self) -> None:
        super().__init__()
        self.draft: ProfileDraft | None = None
        self.step_index = 0
        self.profiles: list[Profile] = []
        self.broken: dict[str, BrokenFile] = {}  # user profile files that do not load, by list id
        self.ran: Profile | None = None  # a profile as a result recorded it (History's "run again")
        self._opened_key: str | None = None
        self.forms_ready = False
        self.files = ProfileFiles(self)
        self.steps = StepEdits(self)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield ContextBar("Workload")
        with Horizontal(id="workload-body"):
            with Vertical(id="profiles-pane"):
                yield ProfileList(id="profiles")
            # Not a stop of its own for Tab: the first Tab from the profiles goes to the first field
            # (focusing a field scrolls it into view).
            with VerticalScroll(id="editor", can_focus=False):
                yield Label("Profile", classes="section-title")
                yield FieldForm("p", PROFILE_SPECS, id="profile-form", note_after="free_space_margin")
                yield Label("Steps", classes="section-title", id="steps-title")
                yield StepsTable(id="steps", cursor_type="row")
                yield Label("Step", classes="section-title", id="step-title")
                yield FieldForm("s", STEP_SPECS.values(), id="step-form")
                yield Label("Repetitions", classes="section-title", id="presets-title")
                yield FieldForm("p", PRESET_SPECS, id="preset-form")
        yield CommandLines(id="commands")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#profiles-pane").border_title = "Profiles"
        self.query_one("#commands").border_title = "As the engines run it"
        self.watch(self.app, "target", lambda _t: self._after_edit() if self.draft is not None else None, init=False)
        self.watch(self.app, "profile", self._follow, init=False)
        current = self.lab.profile
        if current is not None and from_result(current) is not None:
            self.ran = current
        self.reload_profiles()
        self._open(current if current is not None else self.profiles[0])
        # At once, not after the messages queued (focus() waits its turn): a key typed ahead of the
        # screen (w then Enter) is resolved against what has focus when it comes (on_option_list_option_selected).
        self.set_focus(self.query_one(ProfileList))
        # The two forms hold most of this screen's widgets: build them after the first paint,
        # so the profiles and steps show at once.
        self.call_after_refresh(self._build_forms)

    async def _build_forms(self) -> None:
        for form in self.query(FieldForm).results(FieldForm):
            await form.build()
        self.forms_ready = True
        self._fill_profile_form()
        self._fill_step_form()
        self._after_edit()

    def _form(self, form_id: str) -> FieldForm:
        return self.query_one(f"#{form_id}", FieldForm)

    # ------------------------------------------------------------------ profiles

    def reload_profiles(self) -> None:
        profiles, broken = self.lab.store.profiles()
        self.profiles = profiles
        # Said in the list, under the file's name (no toast: one lay over dialogs, and came back
        # at every reload).
        self.broken = {broken_key(item): item for item in broken}
        options = self.query_one(ProfileList)
        with options.prevent(OptionList.OptionHighlighted):  # refilling the list is not a choice
            options.show(profiles, broken, self.ran)

    def _find(self, key: str) -> Profile | None:
        return next((p for p in [*self.profiles, *filter(None, [self.ran])] if profile_key(p) == key), None)

    def _follow(self, profile: Profile | None) -> None:
        """The chosen profile changed elsewhere (History's "run again"): the editor opens it, so the
        header, the editor and the Run screen name the same profile. (The app asked before it
        replaced unsaved edits.)"""
        if profile is None or (self.draft is not None and profile is self.draft.original):
            return
        if from_result(profile) is not None:
            self.ran = profile
            self.reload_profiles()
        self._open(profile)

    def _open(self, profile: Profile) -> None:
        """Load `profile` into the editor and make it the profile a run uses."""
        self.draft = ProfileDraft(profile)
        self._opened_key = profile_key(profile)
        self.step_index = 0
        self._fill_profile_form()
        self._fill_step_form()
        self._after_edit()  # the steps table too
        self._highlight(self._opened_key)
        self.lab.choose_profile(profile)
        self.refresh_bindings()  # Rename applies to user profiles only

    def _highlight(self, key: str | None) -> None:
        self.query_one(ProfileList).highlight(key)

    def _highlighted_broken(self) -> BrokenFile | None:
        """The broken profile file the list's cursor is on, if it is on one."""
        return self.broken.get(self.query_one(ProfileList).highlighted_id() or "")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        key = event.option.id
        self.refresh_bindings()  # Delete applies to a broken file too
        # A broken file is never opened (nor run): the editor keeps the profile it has.
        if key is None or key == self._opened_key or key.startswith(BROKEN_PREFIX):
            return
        profile = self._find(key)
        if profile is None:
            return
        if self.draft is not None and self.draft.dirty:
            self.files.ask_discard(lambda: self._open(profile), lambda: self._highlight(self._opened_key))
            return
        self._open(profile)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # a click on a profile: Enter's is the list's binding (action_into_steps)
        self._into_steps(event.option.id)

    def action_into_steps(self) -> None:
        """Enter on a profile: into its steps (Enter again edits the highlighted one; the profile's own
        fields are a Tab away from the list). Textual resolves a key's binding against what has focus
        when the key comes, and keys typed quickly are all queued before the first is handled: the
        focus moves here, as Enter's action runs, not by a message and a focus() that wait their turn
        behind the next key (w, Enter, x quickly: the x met the list, where it does nothing)."""
        self._into_steps(self.query_one(ProfileList).highlighted_id())

    def _into_steps(self, option_id: str | None) -> None:
        broken = self.broken.get(option_id or "")
        if broken is not None:
            self.notify(f"{broken.path.name} does not load, so it cannot be opened or run: {broken.reason}. "
                        "Fix the file, or delete it (Delete)", title="Broken profile file", severity="warning")
            return
        self.set_focus(self.query_one(StepsTable))

    # ------------------------------------------------------------------ forms

    def _fill_profile_form(self) -> None:
        if self.forms_ready and self.draft is not None:
            self._form("profile-form").fill(self.draft.fields)
            self._form("preset-form").fill(self.draft.fields)

    def _fill_step_form(self) -> None:
        if self.draft is None:
            return
        self.query_one("#step-title", Label).update(f"Step {self.step_index + 1} of {len(self.draft.steps)}")
        if not self.forms_ready:
            return
        step = self.draft.steps[self.step_index]
        form = self._form("step-form")
        form.fill(step.values)
        form.show_only(step_fields(step.kind))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._edited(event.input.id, event.value)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, WrappedInput):
            self._edited(event.text_area.id, event.text_area.value)

    def on_choice_changed(self, event: Choice.Changed) -> None:
        self._edited(event.choice.id, event.value)
        if event.choice.id == "s-kind" and self.forms_ready:
            self._form("step-form").show_only(step_fields(str(event.value)))

    def _edited(self, widget_id: str | None, value: Any) -> None:
        if self.draft is None or not widget_id or widget_id[:2] not in ("p-", "s-"):
            return
        key = widget_id[2:]
        before = self._accepted()
        if widget_id.startswith("p-"):
            self.draft.set_field(key, value)
        else:
            self.draft.set_step_field(self.step_index, key, value)
        self._follow_description(before)
        self._after_edit()

    def _accepted(self) -> Profile | None:
        assert self.draft is not None
        try:
            return self.draft.accepted()
        except ValidationError:
            return None

    def _follow_description(self, before: Profile | None) -> None:
        assert self.draft is not None
        description = followed_description(self.draft, before, self._accepted(), self.profiles)
        if description is not None:
            self.draft.fields["description"] = self.draft.good_fields["description"] = description
            self._form("profile-form").set("description", description)
        title = followed_title(self.draft, self.profiles)
        if title is not None:
            self.draft.fields["title"] = self.draft.good_fields["title"] = title
            self._form("profile-form").set("title", title)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # Enter moves on, as in a form.
        if event.input.id and event.input.id[:2] in ("p-", "s-"):
            event.stop()
            self.focus_next()

    def _after_edit(self) -> None:
        """Show the model's verdict on every field, refresh the steps and the command lines."""
        assert self.draft is not None
        errors = self.draft.errors()
        if self.forms_ready:
            self._form("profile-form").show_errors(errors)
            self._form("preset-form").show_errors(errors)
            self._form("step-form").show_errors({key: errors.get(step_field_path(self.step_index, key))
                                                 for key in STEP_SPECS})
            self._show_space(errors)
            name = self.draft.steps[self.step_index].values.get("name", "")
            if self.query_one("#s-name", Input).value != name:
                self._form("step-form").set("name", name)  # it follows the step's fields (step_names)
        self._update_step_rows()
        if self.draft is not None:
            target = self.lab.target
            commands = self.query_one(CommandLines)
            # As a run started now would run it: with config.toml's engine settings, as the Run screen passes them.
            commands.settings = self.lab.settings.engines
            commands.show_draft(self.draft, self.step_index, target.directory if target else None, errors)
        self.lab.unsaved_profile = self.draft.original.name if self.draft.dirty else None

    def _show_space(self, errors: dict[str, str]) -> None:
        """Whether the target (as last scanned) has room for the test file and the margin."""
        assert self.draft is not None
        warning = space_warning(self.draft, self.lab.target, errors)
        needs_file = any(s.kind == "io" for s in self.draft.steps)
        # Across the form's width, under the two fields it is about: in half a row it took six lines.
        self._form("profile-form").show_note(warning, on=("file_size", "free_space_margin") if needs_file
                                             else ("free_space_margin",))

    # ------------------------------------------------------------------ steps

    def _update_step_rows(self) -> None:
        assert self.draft is not None
        rows = [step_cells(i + 1, self.draft.step(i), step.values["name"]) for i, step in enumerate(self.draft.steps)]
        self.query_one(StepsTable).show_steps(rows, self.step_index)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "steps" or self.draft is None:
            return
        index = event.cursor_row
        if 0 <= index < len(self.draft.steps) and index != self.step_index:
            self.step_index = index
            self._fill_step_form()
            self._after_edit()

    def action_edit_step(self) -> None:
        if self.forms_ready:  # at once, not by a deferred focus(): keys typed after Enter are the field's
            self.set_focus(self.query_one("#s-name", Input))

    def action_add_step(self) -> None:
        self.steps.add()

    def action_remove_step(self) -> None:
        self.steps.remove()

    def action_move_step(self, delta: int) -> None:
        self.steps.move(delta)

    # ------------------------------------------------------------------ save, duplicate, rename, delete

    def _take_typed(self) -> None:
        """Take into the draft what the text fields hold: their Changed messages for the last
        keys typed may still be on their way when Ctrl+S arrives right behind them."""
        assert self.draft is not None
        for form in self.query(FieldForm).results(FieldForm):
            for widget_id, text in form.typed():
                held = (self.draft.fields if form.prefix == "p" else self.draft.steps[self.step_index].values)
                if ("" if held.get(widget_id[2:]) is None else str(held.get(widget_id[2:]))) != text:
                    self._edited(widget_id, text)

    def action_save(self) -> None:
        self.files.save()

    def action_duplicate(self) -> None:
        self.files.duplicate()

    def action_rename(self) -> None:
        self.files.rename()

    def action_delete_profile(self) -> None:
        self.files.delete()

    # ------------------------------------------------------------------ keys

    def action_back(self) -> None:
        focused = self.focused
        if focused is not None and focused.id and focused.id.startswith("s-"):
            self.query_one(StepsTable).focus()
        else:
            self.query_one(ProfileList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Shown dimmed for a built-in profile (they keep their name and cannot be deleted) and for
        # one read from a result; the keys still say why (on_key).
        if action in DIMMED_FOR_BUILTINS and self.draft is not None and self.draft.original.origin != "user":
            if action == "delete_profile" and self.is_mounted and self._highlighted_broken() is not None:
                return True
            return None
        return True

    def on_key(self, event: events.Key) -> None:
        # Textual ignores a key whose binding is disabled: here it says why instead of doing nothing.
        active = self.active_bindings.get(event.key)
        if active is None or active.enabled:
            return
        action = active.binding.action.removeprefix("screen.")
        if action in DIMMED_FOR_BUILTINS:
            event.stop()
            getattr(self, f"action_{action}")()

    def palette_commands(self) -> Iterator[Command]:
        """Extra command-palette entries: open any profile by name."""
        for profile in self.profiles:
            yield (f"Open profile {profile.name}", profile.title or profile.name,
                   partial(self.open_profile, profile))

    def open_profile(self, profile: Profile) -> None:
        """Open `profile` (asking first if unsaved edits would be lost)."""
        if profile_key(profile) == self._opened_key:
            return
        if self.draft is not None and self.draft.dirty:
            self.files.ask_discard(lambda: self._open(profile), lambda: None)
        else:
            self._open(profile)
