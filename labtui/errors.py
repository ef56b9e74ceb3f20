"""The project's own exceptions, each carrying a message a person can act on, and the exit codes they map to."""

from enum import IntEnum


class ExitCode(IntEnum):
    """What `labtui` exits with (the manual's docs/cli.md lists them): one place for the CLI, its commands and the TUI."""

    OK = 0  # done; a check passed
    FAILED = 1  # a run failed or was stopped, a result was not saved, a check found a regression
    BAD_INPUT = 2  # a LabtuiError: wrong input, nothing done
    CANNOT_TELL = 3  # a check too noisy to tell a regression of its tolerance from noise
    DECLINED = 4  # not started: the person answered no at a prompt (nothing was written); not bad input
    INTERRUPTED = 130  # Ctrl+C outside a run, as a shell reports SIGINT


class LabtuiError(Exception):
    """Base of every error labtui reports to the user as a one-line message."""


class Declined(LabtuiError):
    """The person answered no at a prompt: nothing was done (exit code DECLINED, not bad input)."""


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
