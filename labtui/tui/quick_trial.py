"""The Run screen's quick trial: the CLI's --duration, --file-size and --repeat as three fields.

Empty fields leave the profile as it is. Given ones make the run the profile "overridden on the
Run screen" (Profile.with_overrides): the result keeps the profile's name, and its title and
description say what was changed, as a run with the CLI's overrides does. A value the profile's
rules refuse is named by the field the person typed it in.
"""

from __future__ import annotations

from dataclasses import dataclass

from labtui.errors import ValidationError
from labtui.model.profile import Profile, override_refused
from labtui.units import parse_duration, parse_size

# The fields as the Run screen labels them, by the key a refusal names.
FIELDS = {"duration": "duration", "file_size": "file size", "repeat": "repeat"}
WHERE = "on the Run screen"


@dataclass(frozen=True)
class QuickTrial:
    duration: float | None = None  # seconds, every I/O step's
    file_size: int | None = None  # bytes
    repeat: int | None = None

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

    def __bool__(self) -> bool:
        return any(value is not None for value in (self.duration, self.file_size, self.repeat))

    def apply(self, profile: Profile) -> Profile:
        """`profile` overridden by what was given; itself where nothing was. ValidationError naming the field."""
        if not self:
            return profile
        try:
            return profile.with_overrides(duration=self.duration, file_size=self.file_size, repeat=self.repeat,
                                          where=WHERE)
        except ValidationError as exc:
            which = override_refused(exc.field, duration=self.duration, file_size=self.file_size, repeat=self.repeat)
            if which is not None:
                raise ValidationError(exc.reason, FIELDS[which]) from None
            raise
