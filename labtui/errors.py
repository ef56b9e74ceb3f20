"""The project's own exceptions: each carries a message a person can act on."""


class LabtuiError(Exception):
    """Base of every error labtui reports to the user as a one-line message."""


class ValidationError(LabtuiError):
    """A value (size, duration, profile field, ...) is not acceptable.

    `field` names what was wrong (e.g. ``steps[2].block_size``) so an editor can show the
    message next to the right input.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.reason = message


class StoreError(LabtuiError):
    """A result or profile file could not be read or written."""


class NotFoundError(LabtuiError):
    """An id, profile name or path does not exist."""


class ReportError(LabtuiError):
    """An engine's report (fio JSON, DiskSpd XML or text) is malformed or not one at all."""
