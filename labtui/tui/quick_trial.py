"""The Run screen's quick trial: the CLI's --duration, --file-size and --repeat as three fields.

Empty fields leave the profile as it is. Given ones make the run the profile "overridden on the
Run screen" (Profile.with_overrides): the result keeps the profile's name, and its title and
description say what was changed, as a run with the CLI's overrides does. A value the profile's
rules refuse is named by the field the person typed it in.
"""

from __future__ import annotations

from dataclasses import dataclass

from labtui.errors import ValidationError
from labtui.model.profile import Profile
from labtui.run.request import Overrides
from labtui.units import parse_duration, parse_size

# The fields as the Run screen labels them, by the key a refusal names.
FIELDS = {"duration": "duration", "file_size": "file size", "repeat": "repeat"}
WHERE = "on the Run screen"


@dataclass(frozen=True)
class QuickTrial(Overrides):
    """The run layer's Overrides as the Run screen's fields give them, refused naming its fields."""

    @classmethod
    def parse(cls, duration: str, file_size: str, repeat: str) -> QuickTrial:
        """The fields' texts ("3s", "256M", "2"; empty: the profile's own). ValidationError naming the field."""
        seconds = parse_duration(duration.strip(), field=FIELDS["duration"]) if duration.strip() else None
        size = parse_size(file_size.strip(), field=FIELDS["file_size"]) if file_size.strip() else None
        times = None
        if repeat.strip():
            try:
                times = int(repeat.strip())
            except ValueError:
                raise ValidationError(f"not a whole number: {repeat.strip()!r}", FIELDS["repeat"]) from None
            if times < 1:
                raise ValidationError("must be at least 1", FIELDS["repeat"])
        return cls(seconds, size, times)

    @property
    def overrides(self) -> Overrides:
        """The same values as a RunRequest holds them (equal to the CLI's for the same choices)."""
        return Overrides(self.duration, self.file_size, self.repeat)

    def apply(self, profile: Profile, *, where: str = WHERE) -> Profile:
        """`profile` overridden by what was given; itself where nothing was. ValidationError naming the field."""
        if not self:
            return profile
        try:
            return super().apply(profile, where=where)
        except ValidationError as exc:
            which = self.refused(exc.field)
            if which is not None:
                raise ValidationError(exc.reason, FIELDS[which]) from None
            raise


def trial_words(saved: Profile, overridden: Profile) -> str:
    """What the Override fields change in `saved`, as `overridden`'s description says it: 'overridden on the
    Run screen: duration 5s in every step (was 10s)' (the Fleet screen says it before a fleet run)."""
    said = overridden.description.removeprefix(f"{saved.name} ")
    # Fields that change nothing (a duration the profile has) leave it as it is: nothing to say.
    return said if overridden != saved and said.startswith("overridden ") else ""
