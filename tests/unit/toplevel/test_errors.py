"""labtui's own errors (labtui/errors.py): a message a person can act on, the field it is about, and the exit
codes the command line maps them to."""

from __future__ import annotations

import pytest

from labtui.errors import Declined, ExitCode, LabtuiError, NotFoundError, ReportError, StoreError, ValidationError


def test_a_validation_error_names_its_field_and_keeps_the_reason_apart():
    error = ValidationError("must be a multiple of 512 bytes", "steps[2].block_size")
    assert str(error) == "steps[2].block_size: must be a multiple of 512 bytes"
    assert (error.field, error.reason) == ("steps[2].block_size", "must be a multiple of 512 bytes")
    bare = ValidationError("a duration cannot be negative")
    assert str(bare) == bare.reason == "a duration cannot be negative" and bare.field == ""


@pytest.mark.parametrize("kind", [Declined, ValidationError, StoreError, NotFoundError, ReportError])
def test_every_error_of_labtuis_is_one_the_command_line_reports_in_a_line(kind):
    assert issubclass(kind, LabtuiError) and not issubclass(LabtuiError, kind)


def test_the_exit_codes_are_the_processs_own_numbers():
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 4, 130]
    assert ExitCode.BAD_INPUT == 2 and ExitCode.INTERRUPTED == 128 + 2  # as a shell reports SIGINT
