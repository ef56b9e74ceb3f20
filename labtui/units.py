"""Sizes and durations: the one place where "64K", "20GiB", "500ms" or "5m" become numbers."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from labtui.errors import ValidationError

# Powers of 1024, as DiskSpd, fio and every disk benchmark people know use them for block and
# file sizes: "64K" is 65536 bytes whether it is written K, KB or KiB.
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "kb": 1024,
    "kib": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mib": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gib": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tib": 1024**4,
    "p": 1024**5,
    "pb": 1024**5,
    "pib": 1024**5,
}

_DURATION_UNITS = {
    "": Fraction(1),
    "ms": Fraction(1, 1000),
    "s": Fraction(1),
    "sec": Fraction(1),
    "m": Fraction(60),
    "min": Fraction(60),
    "h": Fraction(3600),
}
MICROS = 1_000_000
MAX_SIZE = 2**63 - 1  # what a TOML integer (and an off_t) holds
MAX_DURATION_SECONDS = 366 * 86400

# ASCII only: str patterns' \d also match "４" or "٣", which int() reads as 4 and 3; a size typed with
# them is a paste from somewhere else, and no other tool (fio, DiskSpd, a profile's reader) takes it.
_NUMBER = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z]*)\s*$", re.ASCII)
_WHOLE = re.compile(r"^\s*[+-]?\d+\s*$", re.ASCII)
# No size or duration needs more digits; past 4300 Python refuses to convert them at all.
_MAX_DIGITS = 40


def _number_and_unit(value: object, what: str, example: str, field: str) -> tuple[Fraction, str, str] | None:
    """(exact number, lower-case unit, text for messages) of a str or int `value`; None if too long.

    Fractions, not floats: "9007199254740993" must not quietly become ...992.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValidationError(f"expected a {what} such as {example}, got {value!r}", field)
    if isinstance(value, int):
        return (Fraction(value), "", str(value)) if abs(value) < 10**_MAX_DIGITS else None
    text = value.strip()
    match = _NUMBER.match(text)
    if not match:
        raise ValidationError(f"{_shown(text)!r} is not a {what} ({_digits_hint(text)}use e.g. {example})", field)
    if len(match.group(1)) > _MAX_DIGITS:
        return None
    return Fraction(match.group(1)), match.group(2).lower(), text


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def foreign_digits(text: str) -> bool:
    """Whether `text` holds digits other than 0-9 (full-width "４", Arabic-Indic "٣" ...): then that is why a
    number in it is refused, and the message says so."""
    return any(c.isdigit() and not c.isascii() for c in text)


def _digits_hint(text: str) -> str:
    return "write its digits as 0-9; " if foreign_digits(text) else ""


def parse_count(value: str | int, *, field: str = "") -> int:
    """A whole number typed or written as text ("4", " 16 "), in ASCII digits as every other number labtui
    reads (int() alone takes "４"); ValidationError otherwise. Its range is the caller's rule."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValidationError(f"must be a whole number, got {value!r}", field)
    if isinstance(value, int):
        return value
    if not _WHOLE.match(value) or len(value.strip().lstrip("+-")) > _MAX_DIGITS:
        digits = " in digits 0-9" if foreign_digits(value) else ""
        raise ValidationError(f"must be a whole number{digits}, got {_shown(value)!r}", field)
    return int(value)


def parse_decimal(value: str, *, field: str = "") -> float:
    """A number such as "5" or "2.5" typed as text, in ASCII digits (float() alone reads "５" as 5);
    ValidationError otherwise. Its range is the caller's rule."""
    if foreign_digits(value):
        raise ValidationError(f"must be a number in digits 0-9, got {_shown(value)!r}", field)
    try:
        number = float(value)
    except ValueError:
        raise ValidationError(f"must be a number, got {_shown(value)!r}", field) from None
    # "nan", "inf" and "1e400" (which float() makes inf) are refused here, said as they were typed:
    # a range check after this would print them as "nan" or "inf".
    if math.isnan(number):
        raise ValidationError(f"must be a number, got {_shown(value)!r}", field)
    if math.isinf(number):
        raise ValidationError(f"that number is too large, got {_shown(value)!r}", field)
    return number


def parse_size(value: str | int, *, field: str = "", allow_zero: bool = False) -> int:
    """Return the number of bytes in `value` ("64K", "64KiB", "1M", "20G", 4096 ...)."""
    parsed = _number_and_unit(value, "size", "4096, 64K, 1MiB, 20G", field)
    if parsed is None:
        raise ValidationError("that number is too large for a size", field)
    number, unit, text = parsed
    if unit not in _SIZE_UNITS:
        raise ValidationError(
            f"unknown size unit {unit!r} in {text!r} (use B, K, M, G, T, P or KiB, MiB, GiB, TiB, PiB)", field
        )
    if number < 0:
        raise ValidationError(f"a size cannot be negative: {text!r}", field)
    size = number * _SIZE_UNITS[unit]
    if size > MAX_SIZE:
        raise ValidationError(f"{text!r} is too large", field)
    if size.denominator != 1:
        raise ValidationError(f"{text!r} is not a whole number of bytes", field)
    if size == 0 and not allow_zero:
        raise ValidationError(f"a size must be greater than zero, got {text!r}", field)
    return int(size)


def parse_duration(value: str | int | float, *, field: str = "", allow_zero: bool = False) -> float:
    """Return the seconds in `value` ("500ms", "10s", "5m", "1h"; a bare number is seconds)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(f"{value!r} is not a finite duration", field)
        parsed: tuple[Fraction, str, str] | None = (Fraction(value), "", str(value))
    else:
        parsed = _number_and_unit(value, "duration", "500ms, 10s, 5m, 1h", field)
    if parsed is None:
        raise ValidationError("that number is far longer than a year", field)
    number, unit, text = parsed
    if text.endswith("M"):  # a size's mebibytes, typed into a duration: 16M read as 16 minutes before
        raise ValidationError(f"{_shown(text)!r} reads as a size (M is MiB); a duration is written 500ms, "
                              "10s, 5m or 1h", field)
    if unit not in _DURATION_UNITS:
        raise ValidationError(f"unknown duration unit {unit!r} in {text!r} (use ms, s, m or h)", field)
    if number < 0:
        raise ValidationError(f"a duration cannot be negative: {text!r}", field)
    exact = number * _DURATION_UNITS[unit]
    if exact > MAX_DURATION_SECONDS:
        raise ValidationError(f"{text!r} is longer than a year", field)
    # Kept to the microsecond, so every parsed duration has an exact spelling (format_duration).
    seconds = round(exact * MICROS) / MICROS
    if seconds == 0 and not allow_zero:
        raise ValidationError(f"a duration must be greater than zero, got {text!r}", field)
    return seconds


def format_size(size: int) -> str:
    """The shortest exact spelling of `size` in the form the parser reads back ("64KiB")."""
    if size == 0:
        return "0"
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


def human_size(size: float | None) -> str:
    """A rounded size for tables ("1.8 TiB"); not meant to be parsed back."""
    if size is None:
        return "unknown"
    for unit, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(size) >= factor:
            value = size / factor
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(size)} B"


def format_duration(seconds: float) -> str:
    """The exact spelling of `seconds` in the form the parser reads back ("500ms", "5m", "90s")."""
    if seconds == 0:
        return "0s"
    micros = round(Fraction(seconds) * MICROS)
    if micros / MICROS != seconds:
        # Finer than the parser keeps (not something parse_duration returns): nearest microsecond.
        return f"{seconds:.6f}".rstrip("0").rstrip(".") + "s"
    for unit, factor in (("h", 3600 * MICROS), ("m", 60 * MICROS), ("s", MICROS)):
        if micros % factor == 0:
            return f"{micros // factor}{unit}"
    if abs(micros) < MICROS:
        # Under a second in milliseconds, as it is typed ("0.5ms", not "0.0005s": a refusal says it back).
        whole_ms, rest = divmod(micros, 1000)
        return f"{whole_ms}ms" if rest == 0 else f"{whole_ms}.{rest:03d}".rstrip("0") + "ms"
    whole, fraction = divmod(micros, MICROS)
    return f"{whole}.{fraction:06d}".rstrip("0") + "s"


def human_duration(seconds: float | None) -> str:
    """A clock-style duration for progress lines ("4:05", "1:02:03")."""
    if seconds is None or not math.isfinite(seconds):
        return "--:--"
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
