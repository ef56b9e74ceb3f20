"""Step names that say what the step does, kept true as its fields change (the Workload editor).

A name that reads as one of the usual ways of saying a step's fields — "Read 64K random"
(quick-sanity; configmgr-sql's "Read 64K random 300s"), "RND4K Q32T1 Read" (CrystalDiskMark's) —
was made from them, by labtui or by a profile's author: the editor keeps it saying the fields as
they change ("Read 4K random" once the block size is 4K; a copy's " (copy)" stays). A name the
person typed is theirs, and is never changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from labtui.model.profile import Step
from labtui.units import format_duration, format_size

COPY = re.compile(r" \(copy\)(?: \d+)?$")


def _size(step: Step) -> str:
    return format_size(step.block_size).replace("iB", "")  # "64K", "1M"


def _words(step: Step) -> str:
    """'Read 64K random', 'Write 1M sequential', 'Mixed 70/30 4K random' (reads/writes)."""
    mix = {0: "Read", 100: "Write"}.get(step.write_percent, f"Mixed {100 - step.write_percent}/{step.write_percent}")
    return f"{mix} {_size(step)} {step.pattern}"


def _seconds(step: Step) -> str:
    return f"{step.duration:g}s"


def _cdm(step: Step) -> str:
    """CrystalDiskMark's 'RND4K Q32T1 Read', 'SEQ1M Q8T1 Write'."""
    kind = "RND" if step.pattern == "random" else "SEQ"
    mix = {0: "Read", 100: "Write"}.get(step.write_percent, "Mix")
    return f"{kind}{_size(step)} Q{step.outstanding}T{step.threads} {mix}"


STYLES: tuple[Callable[[Step], str], ...] = (
    _words,
    lambda s: f"{_words(s)} {_seconds(s)}",
    lambda s: f"{_words(s)} {format_duration(s.duration)}",
    _cdm,
)


def renamed(name: str, before: Step, after: Step) -> str | None:
    """`name` said anew for the step's fields `after`, where it says `before` in one of the usual ways;
    None where it does not (a name of the person's own, or a command step)."""
    if before.kind != "io" or after.kind != "io":
        return None
    copy = COPY.search(name)
    suffix = copy.group(0) if copy else ""
    core = name[: len(name) - len(suffix)]
    for style in STYLES:
        if style(before) == core:
            return style(after) + suffix
    return None
