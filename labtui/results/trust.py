"""Whether root may use a directory of labtui's own: nobody else can write it, or the way to it.

labtui's data and config directories decide what it runs and what it deletes: `config.toml` names
the fio and DiskSpd programs labtui executes, `running/` the files the next run cleans up. As root,
a directory another user can write (group- or world-writable, or theirs), or one inside a directory
they could rename, would let that user run commands as root. So as root such a directory is refused
with one line saying whose it is and what to do; anyone else keeps the directories they own.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from labtui.machine.writers import others_can_write, user_name

__all__ = ["not_private", "others_can_write", "root_refusal", "root_write_refusal", "user_name"]


def not_private(st: os.stat_result, kind: str = "directory") -> str | None:
    """Why what `st` describes (a "directory" or a "file" of labtui's: markers, locks) is not this user's
    alone, or None: "it belongs to alice", "others can write it (mode 0777)"."""
    if kind == "directory" and not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    if kind == "file" and not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if st.st_uid != os.geteuid():
        return f"it belongs to {user_name(st.st_uid)}, not to {user_name(os.geteuid())}, who runs labtui"
    if st.st_mode & 0o022:
        return f"others can write it (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def root_write_refusal(path: Path) -> str | None:
    """As root, why labtui will not write the file `path` (one line), or None (not root, or nobody else can
    change where it goes). A directory on the way that another user can change lets them put a link to
    another directory in its place (/etc/cron.d for their /home/alice/out) between labtui's check and its
    write, or before both: root's file would be made, or replaced, where nobody asked for it."""
    if os.geteuid() != 0:
        return None
    problem = others_can_write(path)
    if problem is None:
        return None
    return (f"{problem}: as root labtui writes no file where another user could send it elsewhere; choose a "
            "directory only root can change (or run labtui as that user)")


def root_refusal(paths: list[Path], override: str) -> str | None:
    """As root, why labtui will not use its directories `paths` (one line), or None (not root, or all fine)."""
    if os.geteuid() != 0:
        return None
    for path in paths:
        problem = others_can_write(path)
        if problem:
            return (f"{problem}: as root labtui does not use {path}, where config.toml names the programs it "
                    f"runs (fio, DiskSpd) and its files decide what it deletes; make it root's alone "
                    f"(chown root, chmod go-w) or set {override} to a directory only root can write")
    return None
