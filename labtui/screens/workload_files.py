"""The Workload screen's profile files: saving the profile being edited, a copy of it, a new name for it,
deleting it or a profile file that does not load.

Built-in profiles, and a profile as a result recorded it, are never written: saving one asks for a
name and writes a user copy, titled and described against what it came from. A name is the model's
rule first, then no clash with a built-in or another file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.widgets import OptionList

from labtui.errors import LabtuiError, ValidationError
from labtui.model.profile import Profile
from labtui.tui.context import LabtuiScreen
from labtui.tui.profile_fields import as_copy, field_label
from labtui.widgets.profile_list import ProfileList, from_result, profile_key

if TYPE_CHECKING:
    from textual.app import App

    from labtui.results.files import BrokenFile
    from labtui.tui.profile_draft import ProfileDraft
    from labtui.widgets.field_form import FieldForm


class EditorScreen(LabtuiScreen[None]):
    """The Workload screen as its files and its steps (workload_steps.py) see it (`labtui.screens.workload.
    WorkloadScreen` is the one): declared here, so that they need nothing of the screen's (which imports them)."""

    draft: ProfileDraft | None
    step_index: int  # the highlighted step's
    profiles: list[Profile]
    broken: dict[str, BrokenFile]
    forms_ready: bool
    _opened_key: str | None

    def reload_profiles(self) -> None:
        raise NotImplementedError

    def _open(self, profile: Profile) -> None:
        raise NotImplementedError

    def _after_edit(self) -> None:
        raise NotImplementedError

    def _fill_step_form(self) -> None:
        raise NotImplementedError

    def _highlight(self, key: str | None) -> None:
        raise NotImplementedError

    def _highlighted_broken(self) -> BrokenFile | None:
        raise NotImplementedError

    def _take_typed(self) -> None:
        raise NotImplementedError

    def _form(self, form_id: str) -> FieldForm:
        raise NotImplementedError


class ProfileFiles:
    """What the Workload screen's Ctrl+S, c, n and Delete do to profile files."""

    def __init__(self, screen: EditorScreen) -> None:
        self.screen = screen

    def ask_discard(self, then: Callable[[], object], otherwise: Callable[[], object]) -> None:
        from labtui.screens.confirm import ConfirmModal

        name = self.screen.draft.original.name if self.screen.draft else "the profile"

        def answer(discard: bool | None) -> None:
            (then if discard else otherwise)()

        self.screen.app.push_screen(
            ConfirmModal("Discard changes?", f"Your edits to {name} are not saved. Discard them?",
                         yes="Discard", no="Keep editing", danger=True),
            answer,
        )

    def _name_problem(self, name: str, *, allow: str | None = None) -> str | None:
        """Why `name` cannot be a new user profile's name (the model's rule, then clashes)."""
        assert self.screen.draft is not None
        name = name.strip()
        try:
            replace(self.screen.draft.original, name=name).validate()
        except ValidationError as exc:
            if exc.field == "name":
                return exc.reason
        if any(p.name == name and p.origin == "builtin" for p in self.screen.profiles):
            return f"{name} is a built-in profile: choose another name so both stay available"
        if name != allow and (self.screen.lab.store.profiles_dir / f"{name}.toml").exists():
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

        self.screen.app.push_screen(TextPrompt(title, message, value, check=lambda t: self._name_problem(t, allow=allow)), answer)

    def _built(self) -> Profile | None:
        assert self.screen.draft is not None
        try:
            return self.screen.draft.build()
        except ValidationError as exc:
            self.screen.notify(f"Fix this first: {field_label(exc.field)}: {exc.reason}", title="Not saved", severity="error")
            return None

    def save(self) -> None:
        if self.screen.draft is None:
            return
        if self.screen.forms_ready:
            self.screen._take_typed()
        profile = self._built()
        if profile is None:
            return
        original = self.screen.draft.original
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
                self.screen.notify(problem, title="Not saved", severity="error")
                return
            self._write(self._copy_of(original, profile), overwrite=False)
        elif profile.name != original.name:
            problem = self._name_problem(profile.name)
            if problem:
                self.screen.notify(problem, title="Not saved", severity="error")
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
        same = [p for p in self.screen.profiles if p.name == original.name]
        return next((p for p in same if p.origin == "builtin"), same[0] if same else original)

    def _write(self, profile: Profile, *, overwrite: bool, replaces: str | None = None) -> None:
        store = self.screen.lab.store
        try:
            path = store.save_profile(profile, overwrite=overwrite)
            if replaces is not None and replaces != profile.name:
                store.delete_profile(replaces)
        except LabtuiError as exc:
            self.screen.notify(str(exc), title="Not saved", severity="error")
            return
        self.screen.reload_profiles()
        saved = replace(profile, origin="user")
        self.screen._open(saved)
        _withdraw(self.screen.app, "Not saved")
        self.screen.notify(f"Saved {profile.name} ({path})", title="Profile saved")

    def duplicate(self) -> None:
        if self.screen.draft is None:
            return
        source = self._built()
        if source is None:
            return

        def make(name: str) -> None:
            assert self.screen.draft is not None
            self._write(self._copy_of(self.screen.draft.original, replace(source, name=name)), overwrite=False)

        self._ask_name("Duplicate profile", f"A new user profile, copied from {source.name}. Its name:",
                       self._free_name(source.name), make)

    def rename(self) -> None:
        if self.screen.draft is None:
            return
        original = self.screen.draft.original
        if original.origin != "user":
            self.screen.notify(f"{not_a_file(original)}: it keeps its name. Duplicate it (c) to make a profile of "
                        "your own", title="Not renamed", severity="warning")
            return

        def rename(name: str) -> None:
            assert self.screen.draft is not None
            if name == original.name:
                return
            store = self.screen.lab.store
            try:
                store.save_profile(replace(original, name=name), overwrite=False)
                store.delete_profile(original.name)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Not renamed", severity="error")
                return
            edits_pending = self.screen.draft.dirty
            self.screen.reload_profiles()
            renamed = replace(original, name=name, origin="user")
            if edits_pending:
                # Keep the unsaved edits: only the saved file and the name field change.
                self.screen.draft.original = renamed
                self.screen.draft.set_field("name", name)
                self.screen._form("profile-form").set("name", name)
                self.screen._opened_key = profile_key(renamed)
                self.screen._highlight(self.screen._opened_key)
                self.screen.lab.choose_profile(renamed)
                self.screen._after_edit()
            else:
                self.screen._open(renamed)
            self.screen.notify(f"{original.name} is now {name}", title="Profile renamed")

        self._ask_name("Rename profile", f"New name for {original.name}:", original.name, rename, allow=original.name)

    def delete(self) -> None:
        from labtui.screens.confirm import ConfirmModal

        broken = self.screen._highlighted_broken()
        if broken is not None:
            self._delete_broken(broken)
            return
        if self.screen.draft is None:
            return
        original = self.screen.draft.original
        if original.origin != "user":
            self.screen.notify(f"{not_a_file(original)}: it cannot be deleted (only your own profiles can)",
                        title="Not deleted", severity="warning")
            return

        def answer(delete: bool | None) -> None:
            if not delete:
                return
            try:
                self.screen.lab.store.delete_profile(original.name)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Not deleted", severity="error")
                return
            index = next((i for i, p in enumerate(self.screen.profiles) if profile_key(p) == self.screen._opened_key), 0)
            self.screen.reload_profiles()
            self.screen._open(self.screen.profiles[min(index, len(self.screen.profiles) - 1)])
            self.screen.notify(f"Deleted {original.name}", title="Profile deleted")

        self.screen.app.push_screen(
            ConfirmModal("Delete profile?", f"Delete the user profile {original.name}? Its file is removed; "
                         "results that used it keep their copy of its steps.", yes="Delete", no="Keep", danger=True),
            answer,
        )

    def _delete_broken(self, broken: BrokenFile) -> None:
        from labtui.screens.confirm import ConfirmModal

        store = self.screen.lab.store
        if broken.path.parent != store.profiles_dir or broken.path.suffix != ".toml":
            self.screen.notify(f"{broken.path}: {broken.reason}", title="Not deleted", severity="warning")
            return

        def answer(delete: bool | None) -> None:
            if not delete:
                return
            try:
                store.delete_profile(broken.path.stem)
            except LabtuiError as exc:
                self.screen.notify(str(exc), title="Not deleted", severity="error")
                return
            options = self.screen.query_one(ProfileList)
            index = options.highlighted or 0
            self.screen.reload_profiles()
            # The cursor stays in place where another broken file takes the deleted one's; else it
            # goes back to the profile the editor holds.
            index = min(index, options.option_count - 1)
            if (options.get_option_at_index(index).id or "") in self.screen.broken:
                with options.prevent(OptionList.OptionHighlighted):
                    options.highlighted = index
            else:
                self.screen._highlight(self.screen._opened_key)
            self.screen.refresh_bindings()
            self.screen.notify(f"Deleted {broken.path}", title="Profile file deleted")

        self.screen.app.clear_notifications()  # Enter's "cannot be opened" would lie over the question
        self.screen.app.push_screen(
            ConfirmModal("Delete profile file?", f"Delete {broken.path}? It does not load ({broken.reason}); "
                         "the file is removed.", yes="Delete", no="Keep", danger=True),
            answer,
        )


def not_a_file(profile: Profile) -> str:
    if profile.origin == "builtin":
        return f"{profile.name} is built in"
    return f"{profile.name} is the profile as a result recorded it, not a profile file"


def _withdraw(app: App, title: str) -> None:
    """Take down the toasts titled `title` that an action has since answered: "Not saved: Fix this
    first: Name ..." stayed on screen beside "Profile saved" once the name was fixed and saved.
    (Textual has no public way to take one toast down; its version is pinned.)"""
    stale = [n for n in app._notifications if n.title == title]
    for notification in stale:
        app._unnotify(notification, refresh=False)
    if stale:
        app._refresh_notifications()
