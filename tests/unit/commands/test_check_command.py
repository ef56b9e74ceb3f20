"""`labtui check` (labtui/commands/check.py): its options read and refused before anything runs."""

import pytest

from labtui.cli import build_parser
from labtui.commands import check
from labtui.errors import ValidationError


def _check_request(*options: str):
    return check.parse(build_parser().parse_args(["check", *options]))


@pytest.mark.parametrize(("options", "says"), [
    # An empty --baseline quietly meant "the baseline marked for the target's disk": another result.
    (("--baseline", ""), "--baseline: is empty: give a result's id or a unique beginning of it or leave the option out"),
    (("--baseline", " "), "--baseline: is empty"),
    (("-p", ""), "--profile: is empty: give a profile's name or leave the option out"),
    (("-e", " "), "--engine: is empty: give an engine's name or leave the option out"),
])
def test_an_empty_baseline_profile_or_engine_is_refused_in_one_line(options, says):
    with pytest.raises(ValidationError) as refused:
        _check_request(*options)
    assert str(refused.value).startswith(says) and "\n" not in str(refused.value)
