"""labtui.results.result_file: a result as a TOML file, written and read back.

(Its round trips are in test_store_roundtrip.py and test_whole_results.py until issue 40 moves them here.)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from factories import make_result
from labtui.model.result import DriveFacts
from labtui.results.result_file import result_from_toml, result_to_toml


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "65262.0", "-273.0", "1e300"])
def test_a_drive_temperature_no_drive_can_have_reads_as_unknown(value):
    """A result from another lab or a fleet host is anyone's: `labtui show` said "30 → inf °C (max inf °C,
    warning nan °C)" of one, and a comparison would name that heat as the cause of a difference."""
    result = make_result()
    step = result.steps[0]
    step = replace(step, drive_after=DriveFacts(source="smartctl", temperature_c=31.25, warning_c=82.5, critical_c=84.5),
                   samples=tuple(replace(s, drive_temp_c=31.75) for s in step.samples))
    text = result_to_toml(replace(result, steps=(step, *result.steps[1:])))
    for said in ("31.25", "82.5", "84.5", "31.75"):
        assert said in text
        text = text.replace(said, value)
    facts = result_from_toml(text).steps[0].drive_after
    assert facts is not None and facts.source == "smartctl"
    assert (facts.temperature_c, facts.warning_c, facts.critical_c) == (None, None, None)
    assert [s.drive_temp_c for s in result_from_toml(text).steps[0].samples] == [None] * len(step.samples)
    assert result_from_toml(result_to_toml(result_from_toml(text))) == result_from_toml(text)
