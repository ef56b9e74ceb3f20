"""The Workload screen: profiles, their steps, an editor for every field, and the command lines.

Edits go into a `ProfileDraft` and are checked by the model's own rules as they are typed; the
DiskSpd, fio and native command lines follow the highlighted step. Built-in profiles are never
written: saving one asks for a name and writes a user copy. Opening a profile makes it the one
a run uses (`app.profile`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Input, Label, OptionList, TextArea

from labtui.errors import LabtuiError, ValidationError
from labtui.model.profile import Profile
from labtui.results.files import BrokenFile
from labtui.tui.context import Command, LabtuiScreen, cursor_blinks
from labtui.tui.profile_draft import PROFILE_FIELDS, ProfileDraft, changes, step_field_path, step_fields
from labtui.units import parse_size
from labtui.widgets.choice import Choice
from labtui.widgets.command_lines import CommandLines
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.form_field import FormField
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.line_input import LineInput
from labtui.widgets.profile_list import BROKEN_PREFIX, ProfileList, broken_key, from_result, profile_key
from labtui.widgets.steps_table import StepsTable, step_cells
from labtui.widgets.wrapped_input import WrappedInput

# Where the engines' command lines say the test file goes (a run names it after its id).
TEST_FILE_NAME = "labtui-test.dat"
# Profile fields the engines' command lines do not use: an error there leaves them as they are.
NOT_IN_COMMANDS = ("name", "title", "description", "free_space_margin", "repeat", "aggregate", "repeat_order",
                   "discard_first", "pause", "decimal_units")
# Keys for user profiles only: dimmed for others, and they say why when pressed.
DIMMED_FOR_BUILTINS = ("rename", "delete_profile")


@dataclass(frozen=True)
class FieldSpec:
    key: str
    label: str
    tooltip: str
    choices: tuple[tuple[str, Any], ...] = ()  # a Choice instead of a text input


YES_NO = (("yes", True), ("no", False))

PROFILE_SPECS = (
    FieldSpec("name", "Name", "The profile's file name and what `labtui run -p` takes: letters, digits, '.', '_', '-'"),
    FieldSpec("title", "Title", "A readable title"),
    FieldSpec("description", "Description", "What the profile is for"),
    FieldSpec("file_size", "Test file", "Size of the test file every I/O step uses: 1GiB, 20G (powers of 1024)"),
    FieldSpec("free_space_margin", "Free margin", "Space to leave free on the target beyond the test file"),
    FieldSpec("repeat", "Repeat", "Run every step this many times"),
    FieldSpec("precondition", "Precondition",
              "Sequential passes over the whole test file before the steps (SNIA's preconditioning: 2); 0 = none"),
)
# How repetitions run and are reported (what the CrystalDiskMark and KDiskMark presets set): the
# profile's too, in a section of their own under the steps, which they would push off a small screen.
PRESET_SPECS = (
    FieldSpec("aggregate", "Figure", "A step's figure from its repetitions: their mean (KDiskMark, fio), or the "
              "best pass, the highest IOPS and MiB/s and the lowest latency each on its own (CrystalDiskMark)",
              (("mean", "mean"), ("best", "best"))),
    FieldSpec("repeat_order", "Repeat order", "Run the whole profile Repeat times over, or each step Repeat times "
              "in a row (CrystalDiskMark, KDiskMark)", (("profile", "profile"), ("step", "step"))),
    FieldSpec("discard_first", "Prep pass", "Each step first runs once to prepare the drive; that pass is shown "
              "live and not counted (CrystalDiskMark 9)", YES_NO),
    FieldSpec("pause", "Pause", "Idle time before every pass but the run's first: 5s (CrystalDiskMark's interval); "
              "a step's own pause wins for that step"),
    FieldSpec("decimal_units", "MB/s", "Also show MB/s (10^6 bytes per second, CrystalDiskMark's unit, 4.86 % above "
              "MiB/s)", YES_NO),
)

STEP_SPECS = {
    s.key: s
    for s in (
        FieldSpec("name", "Step name", "The step's name in results"),
        FieldSpec("kind", "Kind", "I/O generates load on the test file; command times a shell command",
                  (("I/O", "io"), ("command", "command"))),
        FieldSpec("block_size", "Block size", "Size of each I/O: 4K, 64K, 1M (DiskSpd -b, fio --bs)"),
        FieldSpec("pattern", "Pattern", "Random or sequential offsets (DiskSpd -r / -s, fio rw=rand...)",
                  (("random", "random"), ("sequential", "sequential"))),
        FieldSpec("write_percent", "Write %", "Share of writes: 0 all reads, 100 all writes (DiskSpd -w, fio rwmixwrite)"),
        FieldSpec("threads", "Threads", "Worker threads or processes (DiskSpd -t, fio numjobs)"),
        FieldSpec("outstanding", "Outstanding", "I/Os in flight per thread (DiskSpd -o, fio iodepth)"),
        FieldSpec("duration", "Duration", "Measured time: 500ms, 10s, 5m, 1h"),
        FieldSpec("warmup", "Warm-up", "Time before measuring starts; not counted"),
        FieldSpec("cooldown", "Cool-down", "Time after measuring ends; not counted"),
        FieldSpec("pause", "Pause", "Idle time before each of this step's passes (the post's script: 5s before its "
                  "300 s runs); empty = the profile's pause"),
        FieldSpec("cache", "Cache", "off bypasses the page cache (O_DIRECT, DiskSpd -Su); on is buffered",
                  (("off", "off"), ("on", "on"))),
        FieldSpec("write_through", "Write-through", "Writes wait for the media, not the drive's write cache "
                  "(DiskSpd -Sh, O_DSYNC, fio sync=dsync), as the post's script's -h asks", YES_NO),
        FieldSpec("latency", "Latency", "Measure per-I/O latency (DiskSpd -L)", YES_NO),
        FieldSpec("steady_state", "Steady state",
                  "Run rounds of Duration until steady: snia (SNIA PTS 2.0 on IOPS), snia:mib_s, snia:latency, or a "
                  "fio criterion such as iops_slope:0.1%; empty = one timed run"),
        FieldSpec("steady_window", "SS window", "Rounds the steady-state rule judges (SNIA: 5)"),
        FieldSpec("steady_max_rounds", "SS rounds", "At most this many rounds, steady or not (SNIA: 25)"),
        FieldSpec("command", "Command", "The shell command to time"),
        FieldSpec("workdir", "Work dir", "Where the command runs (empty: the target directory)"),
        FieldSpec("setup", "Setup", "Runs before the timed command (not timed)"),
        FieldSpec("cleanup", "Cleanup", "Runs after the timed command (not timed)"),
        FieldSpec("timeout", "Time limit", "Stop the command after this long: 10m, 1h"),
        FieldSpec("drop_caches", "Drop caches", "Drop the page cache before timing (needs root)", YES_NO),
        FieldSpec("sync", "Flush", "Count the time to get what the command wrote onto the disk", YES_NO),
    )
}


def field_label(path: str) -> str:
    """The model's field name as the editor labels it: 'steps[2].threads' -> 'step 2, Threads'."""
    match = re.match(r"^steps\[(\d+)\]\.(\w+)$", path)
    if match:
        spec = STEP_SPECS.get(match.group(2))
        return f"step {match.group(1)}, {spec.label if spec else match.group(2)}"
    spec = next((s for s in (*PROFILE_SPECS, *PRESET_SPECS) if s.key == path), None)
    return spec.label if spec else (path or "the profile")


def change_text(path: str, new: str, old: str) -> str:
    """One of `editing.changes()` as a description says it: 'test file 64MiB (was 1GiB)'."""
    if path == "steps":
        return f"{new} steps (was {old})"
    match = re.match(r"^steps\[\*\]\.(\w+)$", path)
    if match:
        return f"{field_label(f'steps[1].{match.group(1)}').split(', ', 1)[1].lower()} {new} in every step (was {old})"
    return f"{field_label(path).replace(', ', ' ').lower()} {new} (was {old})"


def as_copy(original: Profile, copy: Profile) -> Profile:
    """`copy`, a profile saved from `original` under a name of its own, with a title and a
    description of its own where they were left as `original` had them: those describe
    `original` (two "Quick sanity check" in every list, "10 s each" over a 2 s step)."""
    edits = changes(original, copy)
    title, description = copy.title, copy.description
    if title == original.title:
        base = original.title or original.name
        title = f"{base}, edited" if edits else f"{base} (copy)"
    if description == original.description:
        description = edits_text(original, copy)
    return replace(copy, title=title, description=description)


def edits_text(original: Profile, copy: Profile) -> str:
    """What a copy's description says of it: 'quick-sanity with block size 4KiB in every step (was
    64KiB)', or 'A copy of quick-sanity: ...' where nothing differs."""
    edits = changes(original, copy)
    if edits:
        shown = ", ".join(change_text(*edit) for edit in edits[:4])
        more = f" and {len(edits) - 4} more changes" if len(edits) > 4 else ""
        return f"{original.name} with {shown}{more}"
    return f"A copy of {original.name}" + (f": {original.description}" if original.description else "")


def described_against(description: str, profiles: list[Profile]) -> Profile | None:
    """The profile a description that `edits_text` made is written against ("quick-sanity with ...",
    "A copy of quick-sanity..."): a built-in of that name first. None for a description of the
    person's own."""
    match = re.match(r"^(?:A copy of (\S+?)(?::|$)|(\S+) with )", description)
    if match is None:
        return None
    name = match.group(1) or match.group(2)
    same = [p for p in profiles if p.name == name]
    return next((p for p in same if p.origin == "builtin"), same[0] if same else None)


def _control(prefix: str, spec: FieldSpec) -> Widget:
    widget_id = f"{prefix}-{spec.key}"
    if spec.choices:
        return Choice(spec.choices, id=widget_id)
    if spec.key == "description":  # a sentence: read whole, over lines
        return WrappedInput(id=widget_id)
    return LineInput(compact=True, id=widget_id, select_on_focus=False)


class WorkloadScreen(LabtuiScreen[None]):
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
                yield Vertical(id="profile-form", classes="form")
                yield Label("Steps", classes="section-title", id="steps-title")
                yield StepsTable(id="steps", cursor_type="row")
                yield Label("Step", classes="section-title", id="step-title")
                yield Vertical(id="step-form", classes="form")
                yield Label("Repetitions", classes="section-title", id="presets-title")
                yield Vertical(id="preset-form", classes="form")
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
        self.query_one(ProfileList).focus()
        # The two forms hold most of this screen's widgets: build them after the first paint,
        # so the profiles and steps show at once.
        self.call_after_refresh(self._build_forms)

    async def _build_forms(self) -> None:
        profile_fields = [FormField(f"p-{spec.key}", spec.label, _control("p", spec), tooltip=spec.tooltip)
                          for spec in PROFILE_SPECS]
        step_fields_ = [FormField(f"s-{spec.key}", spec.label, _control("s", spec), tooltip=spec.tooltip)
                        for spec in STEP_SPECS.values()]
        preset_fields = [FormField(f"p-{spec.key}", spec.label, _control("p", spec), tooltip=spec.tooltip)
                         for spec in PRESET_SPECS]
        await self.query_one("#profile-form").mount_all(profile_fields)
        await self.query_one("#step-form").mount_all(step_fields_)
        await self.query_one("#preset-form").mount_all(preset_fields)
        blink = cursor_blinks(self.app)
        for text_input in self.query(Input):
            text_input.cursor_blink = blink
        self.query_one(WrappedInput).cursor_blink = blink
        self.forms_ready = True
        self._fill_profile_form()
        self._fill_step_form()
        self._after_edit()

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
        options = self.query_one(ProfileList)
        for index in range(options.option_count):
            if options.get_option_at_index(index).id == key:
                with options.prevent(OptionList.OptionHighlighted):
                    options.highlighted = index
                return

    def _highlighted_broken(self) -> BrokenFile | None:
        """The broken profile file the list's cursor is on, if it is on one."""
        options = self.query_one(ProfileList)
        if options.highlighted is None:
            return None
        return self.broken.get(options.get_option_at_index(options.highlighted).id or "")

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
            self._ask_discard(lambda: self._open(profile), lambda: self._highlight(self._opened_key))
            return
        self._open(profile)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        # Enter on a profile: into its steps (Enter again edits the highlighted one; the profile's
        # own fields are a Tab away from the list).
        event.stop()
        broken = self.broken.get(event.option.id or "")
        if broken is not None:
            self.notify(f"{broken.path.name} does not load, so it cannot be opened or run: {broken.reason}. "
                        "Fix the file, or delete it (Delete)", title="Broken profile file", severity="warning")
            return
        self.query_one(StepsTable).focus()

    def _ask_discard(self, then: Callable[[], object], otherwise: Callable[[], object]) -> None:
        from labtui.screens.confirm import ConfirmModal

        name = self.draft.original.name if self.draft else "the profile"

        def answer(discard: bool | None) -> None:
            (then if discard else otherwise)()

        self.app.push_screen(
            ConfirmModal("Discard changes?", f"Your edits to {name} are not saved. Discard them?",
                         yes="Discard", no="Keep editing", danger=True),
            answer,
        )

    # ------------------------------------------------------------------ forms

    def _fill_profile_form(self) -> None:
        if not self.forms_ready or self.draft is None:
            return
        for key in PROFILE_FIELDS:
            self._set_control(f"#p-{key}", self.draft.fields[key])

    def _fill_step_form(self) -> None:
        if self.draft is None:
            return
        self.query_one("#step-title", Label).update(f"Step {self.step_index + 1} of {len(self.draft.steps)}")
        if not self.forms_ready:
            return
        step = self.draft.steps[self.step_index]
        for key in STEP_SPECS:
            self._set_control(f"#s-{key}", step.values.get(key, ""))
        self._show_kind(step.kind)

    def _set_control(self, selector: str, value: Any) -> None:
        if not self.forms_ready:
            return
        control = self.query_one(selector)
        if isinstance(control, Choice):
            control.value = value
        elif isinstance(control, Input):
            with control.prevent(Input.Changed):
                control.value = "" if value is None else str(value)
                # A field being edited keeps typing at the end; one only shown reads from the start.
                control.cursor_position = len(control.value) if control.has_focus else 0
        elif isinstance(control, WrappedInput):
            with control.prevent(TextArea.Changed):
                control.value = "" if value is None else str(value)
                if control.has_focus:
                    control.move_cursor(control.document.end)

    def _show_kind(self, kind: str) -> None:
        shown = set(step_fields(kind))
        for key in STEP_SPECS:
            self.query_one(f"#field-s-{key.replace('_', '-')}").display = key in shown

    def on_input_changed(self, event: Input.Changed) -> None:
        self._edited(event.input.id, event.value)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if isinstance(event.text_area, WrappedInput):
            self._edited(event.text_area.id, event.text_area.value)

    def on_choice_changed(self, event: Choice.Changed) -> None:
        self._edited(event.choice.id, event.value)
        if event.choice.id == "s-kind":
            self._show_kind(str(event.value))

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
        """A description that lists a copy's changes ("quick-sanity with block size 4KiB ...") lists
        them as they are now, until the person types one of their own."""
        draft = self.draft
        assert draft is not None
        after = self._accepted()
        if draft.described or before is None or after is None or before == after:
            return
        base = described_against(str(draft.fields["description"]), self.profiles)
        if base is None or base.name == draft.original.name and base.origin == draft.original.origin:
            return
        if draft.fields["description"] != edits_text(base, before):
            return  # said by the person, or of another state
        draft.fields["description"] = draft.good_fields["description"] = edits_text(base, after)
        self._set_control("#p-description", draft.fields["description"])

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
            for key in PROFILE_FIELDS:
                self.query_one(f"#field-p-{key.replace('_', '-')}", FormField).show_error(errors.get(key))
            for key in STEP_SPECS:
                message = errors.get(step_field_path(self.step_index, key))
                self.query_one(f"#field-s-{key.replace('_', '-')}", FormField).show_error(message)
            self._show_space(errors)
        if self.forms_ready:
            name = self.draft.steps[self.step_index].values.get("name", "")
            if self.query_one("#s-name", Input).value != name:
                self._set_control("#s-name", name)  # it follows the step's fields (step_names)
        self._update_step_rows()
        self._show_commands(errors)
        self.lab.unsaved_profile = self.draft.original.name if self.draft.dirty else None

    def _show_space(self, errors: dict[str, str]) -> None:
        """Whether the target (as last scanned) has room for the test file and the margin: the
        preflight's own rule, so what the editor accepts here a run does not refuse for space."""
        assert self.draft is not None
        target = self.lab.target
        warning = None
        if target is not None and target.free_bytes is not None and not errors.keys() & {"file_size", "free_space_margin"}:
            try:
                shortfall = self.draft.accepted().space_shortfall(target.free_bytes)
            except ValidationError:
                shortfall = None  # a rule over the whole profile refuses it: that error is shown
            if shortfall:
                warning = f"too big for {target.directory}: {shortfall}"
        needs_file = any(s.kind == "io" for s in self.draft.steps)
        self.query_one("#field-p-file-size", FormField).show_warning(warning if needs_file else None)
        self.query_one("#field-p-free-space-margin", FormField).show_warning(None if needs_file else warning)

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
        if self.forms_ready:
            self.query_one("#s-name", Input).focus()

    def action_add_step(self) -> None:
        assert self.draft is not None
        self.step_index = self.draft.add_step(self.step_index)
        self._refresh_steps()

    def action_remove_step(self) -> None:
        assert self.draft is not None
        try:
            self.draft.remove_step(self.step_index)
        except ValidationError as exc:
            self.notify(exc.reason, title="Step not removed", severity="warning")
            return
        self.step_index = min(self.step_index, len(self.draft.steps) - 1)
        self._refresh_steps()

    def action_move_step(self, delta: int) -> None:
        assert self.draft is not None
        self.step_index = self.draft.move_step(self.step_index, delta)
        self._refresh_steps()

    def _refresh_steps(self) -> None:
        self._fill_step_form()
        self._after_edit()

    # ------------------------------------------------------------------ command lines

    def _show_commands(self, errors: dict[str, str] | None = None) -> None:
        if self.draft is None:
            return
        if errors is None:
            errors = self.draft.errors()
        target = self.lab.target
        directory = target.directory if target is not None else Path("/path/to/target")
        file_size = parse_size(self.draft.good_fields["file_size"])
        step = self.draft.step(self.step_index)
        problem = None
        # A refused test file size (or a rule over the whole profile) would leave the last accepted
        # one in the command lines: they would show what does not run.
        refused = next(((k, v) for k, v in errors.items() if not k.startswith("steps[") and k not in NOT_IN_COMMANDS),
                       None)
        if step is None:
            prefix = f"steps[{self.step_index + 1}]."
            reason = next((v for k, v in errors.items() if k.startswith(prefix)), "the step has an error")
            problem = f"fix the step to see the command lines: {reason}"
        elif refused is not None:
            step = None
            problem = f"fix {field_label(refused[0])} to see the command lines: {refused[1]}"
        self.query_one(CommandLines).show(step, directory / TEST_FILE_NAME, file_size, problem)

    # ------------------------------------------------------------------ save, duplicate, rename, delete

    def _name_problem(self, name: str, *, allow: str | None = None) -> str | None:
        """Why `name` cannot be a new user profile's name (the model's rule, then clashes)."""
        assert self.draft is not None
        name = name.strip()
        try:
            replace(self.draft.original, name=name).validate()
        except ValidationError as exc:
            if exc.field == "name":
                return exc.reason
        if any(p.name == name and p.origin == "builtin" for p in self.profiles):
            return f"{name} is a built-in profile: choose another name so both stay available"
        if name != allow and (self.lab.store.profiles_dir / f"{name}.toml").exists():
            return f"a profile named {name} already exists"
        return None

    def _free_name(self, base: str) -> str:
        name, n = f"{base}-copy", 2
        while self._name_problem(name):
            name, n = f"{base}-copy-{n}", n + 1
        return name

    def _ask_name(self, title: str, message: str, value: str, then: Callable[[str], object], *,
                  allow: str | None = None) -> None:
        from labtui.screens.prompt import TextPrompt

        def answer(name: str | None) -> None:
            if name:
                then(name)

        self.app.push_screen(TextPrompt(title, message, value, check=lambda t: self._name_problem(t, allow=allow)), answer)

    def _built(self) -> Profile | None:
        assert self.draft is not None
        try:
            return self.draft.build()
        except ValidationError as exc:
            self.notify(f"Fix this first: {field_label(exc.field)}: {exc.reason}", title="Not saved", severity="error")
            return None

    def _take_typed(self) -> None:
        """Take into the draft what the text fields hold: their Changed messages for the last
        keys typed may still be on their way when Ctrl+S arrives right behind them."""
        assert self.draft is not None
        fields = self.query("#profile-form LineInput, #preset-form LineInput, #step-form LineInput, WrappedInput")
        for control in fields.results():
            assert isinstance(control, (LineInput, WrappedInput))
            widget_id = control.id or ""
            key = widget_id[2:]
            if widget_id.startswith("p-"):
                held = self.draft.fields.get(key)
            elif control.parent is not None and control.parent.display:
                held = self.draft.steps[self.step_index].values.get(key)
            else:
                continue  # a field of the other step kind: not shown, not typed into
            if ("" if held is None else str(held)) != control.value:
                self._edited(widget_id, control.value)

    def action_save(self) -> None:
        if self.draft is None:
            return
        if self.forms_ready:
            self._take_typed()
        profile = self._built()
        if profile is None:
            return
        original = self.draft.original
        if original.origin != "user":
            # A built-in, or a profile as a result recorded it: saved as a new user profile.
            if profile.name == original.name:
                why = ("is built in and stays as it is" if original.origin == "builtin"
                       else "here is the profile as a result recorded it, not a profile file")
                self._ask_name(
                    "Save as a user profile",
                    f"{original.name} {why}. Save your version under a new name:",
                    self._free_name(original.name),
                    lambda name: self._write(self._copy_of(original, replace(profile, name=name)),
                                             overwrite=False),
                )
                return
            problem = self._name_problem(profile.name)
            if problem:
                self.notify(problem, title="Not saved", severity="error")
                return
            self._write(self._copy_of(original, profile), overwrite=False)
        elif profile.name != original.name:
            problem = self._name_problem(profile.name)
            if problem:
                self.notify(problem, title="Not saved", severity="error")
                return
            self._write(profile, overwrite=False, replaces=original.name)
        else:
            self._write(profile, overwrite=True)

    def _copy_of(self, original: Profile, copy: Profile) -> Profile:
        """`copy` saved as a profile of its own: titled and described against what it came from."""
        base = self._text_base(original)
        if original.overridden:
            # "…, overridden on the command line" was said of a run, not of a profile file: a
            # copy is described against the file it came from, its changes listed as edits.
            if copy.title == original.title:
                copy = replace(copy, title=base.title)
            if copy.description == original.description:
                copy = replace(copy, description=base.description)
        return as_copy(base, copy)

    def _text_base(self, original: Profile) -> Profile:
        """What a copy's title and description are written against: for a profile read from a
        result, the profile file of its name (a run's overrides keep the file's description)."""
        if from_result(original) is None:
            return original
        same = [p for p in self.profiles if p.name == original.name]
        return next((p for p in same if p.origin == "builtin"), same[0] if same else original)

    def _write(self, profile: Profile, *, overwrite: bool, replaces: str | None = None) -> None:
        store = self.lab.store
        try:
            path = store.save_profile(profile, overwrite=overwrite)
            if replaces is not None and replaces != profile.name:
                store.delete_profile(replaces)
        except LabtuiError as exc:
            self.notify(str(exc), title="Not saved", severity="error")
            return
        self.reload_profiles()
        saved = replace(profile, origin="user")
        self._open(saved)
        self.notify(f"Saved {profile.name} ({path})", title="Profile saved")

    def action_duplicate(self) -> None:
        if self.draft is None:
            return
        source = self._built()
        if source is None:
            return

        def make(name: str) -> None:
            assert self.draft is not None
            self._write(self._copy_of(self.draft.original, replace(source, name=name)), overwrite=False)

        self._ask_name("Duplicate profile", f"A new user profile, copied from {source.name}. Its name:",
                       self._free_name(source.name), make)

    def action_rename(self) -> None:
        if self.draft is None:
            return
        original = self.draft.original
        if original.origin != "user":
            self.notify(f"{self._not_a_file(original)}: it keeps its name. Duplicate it (c) to make a profile of "
                        "your own", title="Not renamed", severity="warning")
            return

        def rename(name: str) -> None:
            assert self.draft is not None
            if name == original.name:
                return
            store = self.lab.store
            try:
                store.save_profile(replace(original, name=name), overwrite=False)
                store.delete_profile(original.name)
            except LabtuiError as exc:
                self.notify(str(exc), title="Not renamed", severity="error")
                return
            edits_pending = self.draft.dirty
            self.reload_profiles()
            renamed = replace(original, name=name, origin="user")
            if edits_pending:
                # Keep the unsaved edits: only the saved file and the name field change.
                self.draft.original = renamed
                self.draft.set_field("name", name)
                self._set_control("#p-name", name)
                self._opened_key = profile_key(renamed)
                self._highlight(self._opened_key)
                self.lab.choose_profile(renamed)
                self._after_edit()
            else:
                self._open(renamed)
            self.notify(f"{original.name} is now {name}", title="Profile renamed")

        self._ask_name("Rename profile", f"New name for {original.name}:", original.name, rename, allow=original.name)

    def action_delete_profile(self) -> None:
        from labtui.screens.confirm import ConfirmModal

        broken = self._highlighted_broken()
        if broken is not None:
            self._delete_broken(broken)
            return
        if self.draft is None:
            return
        original = self.draft.original
        if original.origin != "user":
            self.notify(f"{self._not_a_file(original)}: it cannot be deleted (only your own profiles can)",
                        title="Not deleted", severity="warning")
            return

        def answer(delete: bool | None) -> None:
            if not delete:
                return
            try:
                self.lab.store.delete_profile(original.name)
            except LabtuiError as exc:
                self.notify(str(exc), title="Not deleted", severity="error")
                return
            index = next((i for i, p in enumerate(self.profiles) if profile_key(p) == self._opened_key), 0)
            self.reload_profiles()
            self._open(self.profiles[min(index, len(self.profiles) - 1)])
            self.notify(f"Deleted {original.name}", title="Profile deleted")

        self.app.push_screen(
            ConfirmModal("Delete profile?", f"Delete the user profile {original.name}? Its file is removed; "
                         "results that used it keep their copy of its steps.", yes="Delete", no="Keep", danger=True),
            answer,
        )

    def _delete_broken(self, broken: BrokenFile) -> None:
        from labtui.screens.confirm import ConfirmModal

        store = self.lab.store
        if broken.path.parent != store.profiles_dir or broken.path.suffix != ".toml":
            self.notify(f"{broken.path}: {broken.reason}", title="Not deleted", severity="warning")
            return

        def answer(delete: bool | None) -> None:
            if not delete:
                return
            try:
                store.delete_profile(broken.path.stem)
            except LabtuiError as exc:
                self.notify(str(exc), title="Not deleted", severity="error")
                return
            options = self.query_one(ProfileList)
            index = options.highlighted or 0
            self.reload_profiles()
            # The cursor stays in place where another broken file takes the deleted one's; else it
            # goes back to the profile the editor holds.
            index = min(index, options.option_count - 1)
            if (options.get_option_at_index(index).id or "") in self.broken:
                with options.prevent(OptionList.OptionHighlighted):
                    options.highlighted = index
            else:
                self._highlight(self._opened_key)
            self.refresh_bindings()
            self.notify(f"Deleted {broken.path}", title="Profile file deleted")

        self.app.clear_notifications()  # Enter's "cannot be opened" would lie over the question
        self.app.push_screen(
            ConfirmModal("Delete profile file?", f"Delete {broken.path}? It does not load ({broken.reason}); "
                         "the file is removed.", yes="Delete", no="Keep", danger=True),
            answer,
        )

    # ------------------------------------------------------------------ keys

    def action_back(self) -> None:
        focused = self.focused
        if focused is not None and focused.id and focused.id.startswith("s-"):
            self.query_one(StepsTable).focus()
        else:
            self.query_one(ProfileList).focus()

    @staticmethod
    def _not_a_file(profile: Profile) -> str:
        if profile.origin == "builtin":
            return f"{profile.name} is built in"
        return f"{profile.name} is the profile as a result recorded it, not a profile file"

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
            self._ask_discard(lambda: self._open(profile), lambda: None)
        else:
            self._open(profile)
