"""The list of profiles (built-in and the user's own), each marked with where it comes from."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from labtui.model.profile import RESULT_ORIGIN, Profile
from labtui.results.files import BrokenFile


def from_result(profile: Profile) -> str | None:
    """The id of the result `profile` was read from ("" if not known), or None for a profile file."""
    kind, _, result_id = profile.origin.partition(":")
    return result_id if kind == RESULT_ORIGIN else None


def profile_key(profile: Profile) -> str:
    """The list id of a profile: a user copy may share a built-in's name, so origin is part of it."""
    if from_result(profile) is not None:
        return f"result:{profile.name}"
    return f"{'builtin' if profile.origin == 'builtin' else 'user'}:{profile.name}"


def broken_key(broken: BrokenFile) -> str:
    """The list id of a user profile file that does not load."""
    return f"{BROKEN_PREFIX}{broken.path}"


BROKEN_PREFIX = "broken:"


class ProfileList(OptionList):
    help_scope = "profile list"
    BINDINGS = [
        # The screen's own action, not OptionList's select and its message: see WorkloadScreen.action_into_steps.
        Binding("enter", "screen.into_steps", "Steps", show=False),
        Binding("delete", "screen.delete_profile", "Delete", id="workload-delete",
                tooltip="Delete the highlighted user profile or broken profile file (asks first; built-ins cannot be deleted)"),
    ]

    def show(self, profiles: list[Profile], broken: list[BrokenFile], ran: Profile | None = None) -> None:
        """Replace the options, keeping the highlight on the same profile where it still exists.

        `ran` is a profile as a result recorded it (History's "run again"): listed on its own,
        as it is no profile file.
        """
        self.clear_options()
        options: list[Option] = []
        if ran is not None:
            result_id = from_result(ran)
            options.append(Option(Content.styled("From a result", "bold $text-muted"), id="heading:ran", disabled=True))
            label = Content(f" {ran.name}")
            if result_id:
                label = Content.assemble(label, "\n", (f"  {result_id}", "$text-muted"))
            options.append(Option(label, id=profile_key(ran)))
        for heading, group in (
            ("Built in", [p for p in profiles if p.origin == "builtin"]),
            ("Yours", [p for p in profiles if p.origin != "builtin"]),
        ):
            if not group and heading == "Built in":
                continue
            options.append(Option(Content.styled(heading, "bold $text-muted"), id=f"heading:{heading}", disabled=True))
            options.extend(Option(Content(f" {p.name}"), id=profile_key(p)) for p in group)
            if not group:
                options.append(Option(Content.styled(" none yet", "italic $text-muted"),
                                      id="heading:none", disabled=True))
        # A file that does not load is listed where it can be highlighted (never run): it says why,
        # as `labtui profiles` does, and Delete removes it.
        for b in broken:
            label = Content.assemble((f" {b.path.name} (broken)", "$error"), "\n", (f"  {b.reason}", "$text-muted"))
            options.append(Option(label, id=broken_key(b)))
        self.add_options(options)

    def highlight(self, key: str | None) -> None:
        """Put the cursor on the profile (or broken file) `key`, as no choice of the person's."""
        for index in range(self.option_count):
            if self.get_option_at_index(index).id == key:
                with self.prevent(OptionList.OptionHighlighted):
                    self.highlighted = index
                return

    def highlighted_id(self) -> str | None:
        return None if self.highlighted is None else self.get_option_at_index(self.highlighted).id
