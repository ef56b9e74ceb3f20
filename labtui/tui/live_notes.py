"""The notes under a running step's figures (the CPU-bound note, a step's error, the run's warnings):
each said once, and fitted to the panel they have, whole or as a shorter first line, ? saying them in full.

A loaded machine makes a verified run say much: the live CPU-bound note, then each finished step's
CPU-bound warning with the same advice again, and drops whose causes run to three lines. The panel
holds a few lines (beside the figures at 120 columns, under them at 80), and a note cut by its
height stopped mid-sentence. Here every note has its full text and a first line that fits the
panel's width, ending where a clause ends; the panel shows all of them in full where they fit,
else the first (the live note) in full and the rest by their first lines, else every note by its
first line, the newest kept where even those do not fit (on a narrow terminal, each by its first line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual.content import Content

# Where a note's first line may end: after a clause (its step's name, a figure, a cause).
_BREAKS = re.compile(r"(?:[;,:] | \()")
MORE = "…"
HELP = "? says the notes in full"


@dataclass(frozen=True)
class Note:
    """One note: its text in full, the one line said where the panel has no room for it, its style."""

    full: str
    short: str | None = None  # None: cut from the full text at a clause (first_line)
    style: str = "$warning"


def clauses(text: str) -> list[str]:
    return text.split("; ")


def said_once(notes: list[Note]) -> list[Note]:
    """`notes` with the clauses an earlier note said already left out of the later ones: a finished
    step's CPU-bound warning gives the same advice as the live note (and as each other's), word for word.
    (The run's summary and the Result screen say a result's warnings once so too.)"""
    said: set[str] = set()
    kept = []
    for note in notes:
        parts = clauses(note.full)
        # The first clause says what the note is about (the step, what happened): always kept.
        new = parts[:1] + [p for p in parts[1:] if p not in said]
        said.update(parts)
        kept.append(note if len(new) == len(parts) else Note("; ".join(new), note.short, note.style))
    return kept


def first_line(text: str, width: int) -> str:
    """`text` if it fits `width` cells, else as much of it as fits, ending where a clause ends, then "…"."""
    if Content(text).cell_length <= width:
        return text
    room = width - len(MORE) - 1
    ends = [m.start() for m in _BREAKS.finditer(text) if m.start() <= room]
    cut = ends[-1] if ends and ends[-1] >= room // 3 else text.rfind(" ", 0, room + 1)
    return text[: max(cut, 1)].rstrip(" ,;:(") + " " + MORE


def height(text: str, width: int) -> int:
    """The lines `text` takes wrapped to `width` cells, as the panel wraps it."""
    return len(Content(text).wrap(max(1, width)))


def fit(notes: list[Note], width: int, lines: int, *, whole: bool = True) -> list[Note]:
    """What the panel `width` cells wide and `lines` high shows of `notes` (each already said once),
    their text in `full`: where any is shortened or left out, a last line says ? says them all,
    unless a line shown names ? already. Not `whole`: each by its first line, however few they are
    (on a narrow terminal every line is the charts')."""
    if not notes or (whole and sum(height(n.full, width) for n in notes) <= lines):
        return notes

    def short(note: Note) -> Note:
        line = first_line(note.short if note.short is not None else note.full, width)
        return Note(line, line, note.style)

    def hinted(shown: list[Note]) -> list[Note]:
        return shown if any("? says" in n.full for n in shown) else [*shown, Note(HELP, HELP, "$text-muted")]

    shorts = [short(n) for n in notes]
    for shown in ([hinted([notes[0], *shorts[1:]])] if whole else []) + [hinted(shorts)]:
        if sum(height(n.full, width) for n in shown) <= lines:
            return shown
    # Even a line each is too many: the first note (the live one), the newest after it, and the hint.
    room = max(1, lines - (0 if "? says" in shorts[0].full else 1))
    shown = shorts[:1] + (shorts[len(shorts) - (room - 1):] if room > 1 else [])
    return hinted(shown)[:lines]


def warnings_once(warnings: tuple[str, ...] | list[str]) -> list[str]:
    """A result's warnings, "warning: " before each, each clause said once (said_once)."""
    return [n.full for n in said_once([Note(f"warning: {w}") for w in warnings])]
