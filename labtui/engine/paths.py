"""Where a run or a save will write: the nearest directory that exists, and the ones to be made below it.

The runner's preflight, the TUI's directory field and the store's writability probe all ask this
about a path that may not exist yet; they then check what they need of it (read-only mount,
permission, room) in their own words.
"""

from __future__ import annotations

import os
from pathlib import Path

from labtui.errors import LabtuiError


def nearest_existing(path: Path) -> tuple[Path, list[Path]]:
    """`path` itself if it exists, else its deepest existing ancestor; and the missing ones, outermost last.

    A dangling symbolic link on the way is a LabtuiError: making the directory would fail with
    "File exists" after every check had passed.
    """
    existing = path
    missing: list[Path] = []
    while not existing.exists():
        if existing.is_symlink():
            raise LabtuiError(f"{existing} is a symbolic link to {os.readlink(existing)}, which does not exist: "
                              "create that directory or give another target")
        missing.append(existing)
        if existing.parent == existing:
            break
        existing = existing.parent
    return existing, missing
