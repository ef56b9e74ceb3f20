"""Property tests: the size/duration parsers and the profile loader only ever return a valid
object or raise the project's own error with a message, whatever they are fed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from labtui.errors import LabtuiError
from labtui.model.profile import Profile
from labtui.results.files import dumps_toml
from labtui.results.profile_file import parse_profile_text, profile_to_table
from labtui.results.store import builtin_profiles
from labtui.units import parse_duration, parse_size

PROFILE_TEXTS = [dumps_toml(profile_to_table(p)) for p in builtin_profiles()]
TOKENS = ["0", "-1", "1e99", "nan", "inf", '"64K"', '"0"', '"-5s"', "true", "[]", "{}", '"random"', '"x"',
          "4097", '"1Q"', "1.5", '""', "999999999999999999999"]


@given(st.one_of(st.text(max_size=30), st.integers(), st.floats(allow_nan=True), st.booleans(), st.none()))
@settings(max_examples=600)
def test_size_and_duration_parsers_never_raise_anything_else(value):
    for parse in (parse_size, parse_duration):
        try:
            out = parse(value)
        except LabtuiError as exc:
            assert str(exc)
        else:
            assert out > 0


@st.composite
def mutated_profile(draw) -> str:
    text = draw(st.sampled_from(PROFILE_TEXTS))
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "drop", "dup", "key", "truncate", "garbage"]))
        line = lines[i]
        if action == "value" and "=" in line:
            lines[i] = line.split("=", 1)[0] + "= " + draw(st.sampled_from(TOKENS))
        elif action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, line)
        elif action == "key" and "=" in line:
            lines[i] = draw(st.sampled_from(["blocksize", "threads", "pattern", "kind", "steps"])) + " =" + line.split("=", 1)[1]
        elif action == "truncate":
            lines[i] = line[: draw(st.integers(0, len(line)))]
        elif action == "garbage":
            lines[i] = draw(st.text(max_size=20))
        if not lines:
            break
    return "\n".join(lines)


@given(st.one_of(mutated_profile(), st.text(max_size=200)))
@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])
def test_profile_loader_returns_a_valid_profile_or_a_clear_error(text):
    try:
        profile = parse_profile_text(text, "fuzz.toml")
    except LabtuiError as exc:
        assert "fuzz.toml" in str(exc)
    else:
        assert isinstance(profile, Profile)
        profile.validate()
