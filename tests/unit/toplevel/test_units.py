"""Sizes and durations: every spelling the profile files accept, every error, exact round-trips."""

import pytest
from hypothesis import given, settings, strategies as st

from labtui.errors import LabtuiError, ValidationError
from labtui.units import (
    MAX_DURATION_SECONDS,
    MAX_SIZE,
    MICROS,
    format_duration,
    format_size,
    human_duration,
    human_size,
    parse_count,
    parse_decimal,
    parse_duration,
    parse_size,
)

KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4


@pytest.mark.parametrize(
    "text, expected",
    [
        ("4096", 4096),
        (4096, 4096),
        ("4K", 4 * KIB),
        ("4k", 4 * KIB),
        ("4KB", 4 * KIB),
        ("4KiB", 4 * KIB),
        ("4kib", 4 * KIB),
        ("64K", 64 * KIB),
        ("64KiB", 64 * KIB),
        ("128KiB", 128 * KIB),
        ("1M", MIB),
        ("1MiB", MIB),
        ("1MB", MIB),
        ("20G", 20 * GIB),
        ("20GiB", 20 * GIB),
        ("1T", TIB),
        ("1TiB", TIB),
        ("1P", 1024 * TIB),
        ("512B", 512),
        ("512b", 512),
        ("1.5K", 1536),
        (".5K", 512),
        ("0.5GiB", 512 * MIB),
        (" 64 K ", 64 * KIB),
        ("+8K", 8 * KIB),
        # Exact, not through a float: 2**53 + 1 is not a double.
        ("9007199254740993", 2**53 + 1),
        (str(MAX_SIZE), MAX_SIZE),
    ],
)
def test_parse_size_accepts(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    "value, reason",
    [
        ("0", "greater than zero"),
        (0, "greater than zero"),
        ("0K", "greater than zero"),
        ("-4K", "cannot be negative"),
        (-4096, "cannot be negative"),
        ("4X", "unknown size unit 'x'"),
        ("4 GHz", "unknown size unit 'ghz'"),
        ("64KiBs", "unknown size unit"),
        ("lots", "is not a size"),
        ("", "is not a size"),
        ("4K4", "is not a size"),
        ("1e3", "is not a size"),
        ("1,024", "is not a size"),
        ("0x1000", "is not a size"),
        ("100.5", "not a whole number of bytes"),
        ("0.1K", "not a whole number of bytes"),
        ("9999999T", "too large"),
        (str(MAX_SIZE + 1), "too large"),
        (10**400, "too large"),
        ("9" * 400 + "T", "too large"),
        ("9" * 5000, "too large"),
        pytest.param(10**5000, "too large", id="10**5000"),
        ("x" * 5000, "is not a size"),
        # Digits int() and isdigit() take but no other tool does: full-width, Arabic-Indic, Devanagari.
        ("４K", "write its digits as 0-9"),
        ("１G", "write its digits as 0-9"),
        ("６４KiB", "write its digits as 0-9"),
        ("٣K", "write its digits as 0-9"),
        ("४096", "write its digits as 0-9"),
        ("4\u00a0K", "is not a size"),  # a no-break space between number and unit
        (True, "expected a size"),
        (4096.0, "expected a size"),
        (None, "expected a size"),
        (["4K"], "expected a size"),
    ],
)
def test_parse_size_rejects(value, reason):
    with pytest.raises(ValidationError) as info:
        parse_size(value, field="steps[1].block_size")
    assert reason in str(info.value)
    assert info.value.field == "steps[1].block_size"
    assert str(info.value).startswith("steps[1].block_size: ")
    assert isinstance(info.value, LabtuiError)


def test_parse_size_zero_when_allowed():
    assert parse_size("0", allow_zero=True) == 0
    assert parse_size("0G", allow_zero=True) == 0


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("500ms", 0.5),
        ("1ms", 0.001),
        ("10s", 10.0),
        ("10sec", 10.0),
        ("5m", 300.0),
        ("5min", 300.0),
        ("1h", 3600.0),
        ("1.5h", 5400.0),
        ("2.5s", 2.5),
        ("60", 60.0),
        ("0.25", 0.25),
        (60, 60.0),
        (2.5, 2.5),
        (" 10 S ", 10.0),
        ("0.000001s", 0.000001),
        ("366h", 366 * 3600.0),
    ],
)
def test_parse_duration_accepts(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "value, reason",
    [
        ("0", "greater than zero"),
        ("0s", "greater than zero"),
        (0, "greater than zero"),
        ("0.0000001s", "greater than zero"),  # below the microsecond durations are kept to
        ("-1s", "cannot be negative"),
        (-5, "cannot be negative"),
        ("10x", "unknown duration unit 'x'"),
        ("10d", "unknown duration unit 'd'"),
        ("10us", "unknown duration unit 'us'"),
        ("16M", "reads as a size (M is MiB)"),  # typed into the duration for the file size: 16 minutes before
        ("2 M", "reads as a size"),
        ("soon", "is not a duration"),
        ("", "is not a duration"),
        ("1m30s", "is not a duration"),
        ("2y", "unknown duration unit"),
        ("367d", "unknown duration unit"),
        ("9000h", "longer than a year"),
        (10**400, "longer than a year"),
        ("1" * 400 + "s", "longer than a year"),
        ("1" * 5000, "longer than a year"),
        pytest.param(10**5000, "longer than a year", id="10**5000"),
        ("１０s", "write its digits as 0-9"),
        ("٥m", "write its digits as 0-9"),
        (float("inf"), "not a finite duration"),
        (float("nan"), "not a finite duration"),
        (True, "expected a duration"),
        (None, "expected a duration"),
    ],
)
def test_parse_duration_rejects(value, reason):
    with pytest.raises(ValidationError) as info:
        parse_duration(value, field="steps[2].duration")
    assert reason in str(info.value)
    assert info.value.field == "steps[2].duration"


@pytest.mark.parametrize("text, count", [("4", 4), (" 16 ", 16), ("+2", 2), ("-1", -1), ("0", 0), (7, 7)])
def test_parse_count_accepts(text, count):
    assert parse_count(text, field="--repeat") == count


@pytest.mark.parametrize("value, reason", [
    ("２", "must be a whole number in digits 0-9, got '２'"),
    ("1٠", "in digits 0-9"),
    ("1.5", "must be a whole number, got '1.5'"),
    ("", "must be a whole number"),
    ("four", "must be a whole number"),
    ("1e3", "must be a whole number"),
    ("9" * 5000, "must be a whole number"),
    (True, "must be a whole number"),
    (2.0, "must be a whole number"),
])
def test_parse_count_rejects(value, reason):
    with pytest.raises(ValidationError) as info:
        parse_count(value, field="--repeat")
    assert reason in str(info.value) and info.value.field == "--repeat"


@pytest.mark.parametrize("value, reason", [
    ("５", "--tolerance: must be a number in digits 0-9, got '５'"),
    ("five", "--tolerance: must be a number, got 'five'"),
    ("9" * 80 + "x", f"--tolerance: must be a number, got '{'9' * 57}...'"),
    # Said as typed: a range check after float() had said "got inf" for 1e400.
    ("1e400", "--tolerance: that number is too large, got '1e400'"),
    ("-inf", "--tolerance: that number is too large, got '-inf'"),
    ("NaN", "--tolerance: must be a number, got 'NaN'"),
])
def test_parse_decimal_takes_ascii_numbers_and_shows_a_long_refusal_cut(value, reason):
    assert parse_decimal(" 2.5 ") == 2.5
    with pytest.raises(ValidationError) as info:
        parse_decimal(value, field="--tolerance")
    assert str(info.value) == reason


def test_parse_duration_zero_when_allowed():
    assert parse_duration("0s", allow_zero=True) == 0.0


@pytest.mark.parametrize(
    "size, text",
    [(4096, "4KiB"), (64 * KIB, "64KiB"), (MIB, "1MiB"), (20 * GIB, "20GiB"), (TIB, "1TiB"),
     (1536, "1536"), (512, "512"), (3 * MIB + 512 * KIB, "3584KiB"), (0, "0")],
)
def test_format_size_is_the_shortest_exact_spelling(size, text):
    assert format_size(size) == text


@pytest.mark.parametrize(
    "seconds, text",
    [(0.5, "500ms"), (0.001, "1ms"), (10, "10s"), (90, "90s"), (60, "1m"), (300, "5m"),
     (3600, "1h"), (5400, "90m"), (1.5, "1.5s"), (7200.5, "7200.5s"), (0.0015, "1.5ms"), (0.050001, "50.001ms"),
     (1234.567891, "1234.567891s"), (0, "0s")],
)
def test_format_duration_spellings(seconds, text):
    assert format_duration(seconds) == text


@given(st.integers(min_value=1, max_value=MAX_SIZE))
def test_size_round_trip(size):
    assert parse_size(format_size(size)) == size


@given(
    st.integers(min_value=1, max_value=2**20),
    st.sampled_from([("", 1), ("B", 1), ("K", KIB), ("KiB", KIB), ("kb", KIB), ("M", MIB), ("MiB", MIB),
                     ("G", GIB), ("GiB", GIB), ("T", TIB), ("TB", TIB)]),
)
def test_every_size_spelling_means_powers_of_1024(number, unit):
    spelling, factor = unit
    size = parse_size(f"{number}{spelling}")
    assert size == number * factor
    assert parse_size(format_size(size)) == size


@given(st.integers(min_value=1, max_value=MAX_DURATION_SECONDS * MICROS))
def test_duration_round_trip(micros):
    seconds = micros / MICROS
    text = format_duration(seconds)
    assert parse_duration(text) == seconds


@given(st.decimals(min_value="0.000001", max_value=100000, places=6, allow_nan=False, allow_infinity=False))
def test_parsed_durations_format_back_to_the_same_value(number):
    seconds = parse_duration(f"{number}s")
    assert parse_duration(format_duration(seconds)) == seconds
    assert parse_duration(f"{number * 1000}ms") == seconds


def test_human_forms():
    assert human_size(None) == "unknown"
    assert human_size(512) == "512 B"
    assert human_size(1536) == "1.5 KiB"
    assert human_size(20 * GIB) == "20.0 GiB"
    assert human_size(1800 * GIB) == "1.8 TiB"
    assert human_size(500 * GIB) == "500 GiB"
    assert human_duration(None) == "--:--"
    assert human_duration(float("nan")) == "--:--"
    assert human_duration(65) == "1:05"
    assert human_duration(3723) == "1:02:03"


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


def test_petabytes_are_a_size_unit_the_message_names():
    assert parse_size("1P") == parse_size("1PiB") == 1024**5
