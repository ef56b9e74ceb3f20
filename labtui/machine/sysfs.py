"""Reading sysfs and /proc without surprises: a file that cannot be read is None, never an exception.

Text is stripped and made printable as it is read (labtui.printable): a USB stick chooses its own
model and serial, and an escape code in them would reach the terminal as one.
"""

from __future__ import annotations

from pathlib import Path

from labtui.printable import printable


def read(path: Path, *, lines: bool = False) -> str | None:
    """A sysfs or proc file's text, stripped and printable: one line (a model, a speed), or its
    `lines` (an IDENTIFY page, /proc/cpuinfo)."""
    try:
        # newline="": a carriage return in a model is one to escape, not a newline.
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            text = f.read().strip()
    except OSError:
        return None
    return printable(text, one_line=not lines) or None


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    text = read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def read_bool(path: Path) -> bool | None:
    number = read_int(path)
    return None if number is None else bool(number)


def iterdir(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []
