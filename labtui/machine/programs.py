"""The programs labtui runs (smartctl, blkid, fio, DiskSpd, zpaq and a command step's programs, ssh), found
in one place, and refused as root where another user could change what runs.

A name is looked up on PATH as the shell does (the first executable file of that name, in PATH's order);
a path (config.toml's fio_path) is taken as given. As root, labtui refuses to run:
- a program another user owns or that group or others can write, or one in a directory (as named, and as
  its links lead) that another user can change (labtui.machine.writers.others_can_write);
- a program found after a PATH entry another user can write: they would put their own program of that
  name there and the next run would run theirs (a root shell that kept a user's PATH: `sudo -E`,
  `su` without `-`, PATH=~/bin:$PATH in a shared profile).
The refusal is one line naming the program ("smartctl refused: ..."), shown where the program was needed.
The programs labtui starts as root also get a PATH without such entries (`safe_path`): a command step's
shell finds its programs there.
"""

from __future__ import annotations

import os
from pathlib import Path

from labtui.errors import LabtuiError
from labtui.machine.writers import others_can_write
from labtui.printable import shown

ADVICE = "as root labtui runs no program another user can change"


class ProgramRefused(LabtuiError):
    """As root, labtui will not run this program: another user could change what it runs."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name} refused: {reason}")
        self.name = name
        self.reason = reason


def is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _entries(path_env: str | None) -> list[str]:
    text = os.environ.get("PATH", os.defpath) if path_env is None else path_env
    return [entry or "." for entry in text.split(os.pathsep)]  # an empty entry is the current directory, as in sh


def file_refusal(path: str) -> str | None:
    """As root, why labtui will not run the program at `path` (None: not root, or nobody else can change it).

    config.toml's fio_path naming a fio another user built (their /home/alice/fio/fio) let them run anything
    as root by changing it. One line, saying whose it is and what to do."""
    if os.geteuid() != 0:
        return None
    problem = others_can_write(Path(os.path.abspath(path)))
    if problem is None:
        return None
    return (f"{problem}, who could change what it runs as root: {ADVICE} (chown root and chmod go-w it, or install "
            "the program)")


def _entry_refusal(entry: str) -> str | None:
    if os.geteuid() != 0:
        return None
    return others_can_write(Path(os.path.abspath(entry)))


def _lookup(name: str, path_env: str | None) -> tuple[str | None, list[str]]:
    """Where `name` is (as the shell finds it), and the PATH entries searched up to its own."""
    if os.sep in name:
        return (name if is_executable(name) else None), []
    entries = _entries(path_env)
    for position, entry in enumerate(entries):
        candidate = os.path.join(entry, name)
        if is_executable(candidate):
            return candidate, entries[:position + 1]
    return None, entries


def find(name: str, *, path_env: str | None = None) -> str | None:
    """The program to run for `name` (a name looked up on PATH, or a path), or None where there is none.

    ProgramRefused as root where another user could change what would run: the program itself, or a
    PATH entry before it where they could put theirs."""
    found, entries = _lookup(name, path_env)
    if found is None:
        return None
    for entry in entries:
        problem = _entry_refusal(entry)
        if problem is not None:
            if os.path.abspath(entry) == os.path.dirname(os.path.abspath(found)):
                break  # the program's own directory: file_refusal says it, naming the program
            raise ProgramRefused(name, f"{problem}, and comes before {shown(found)} on the PATH: another user could "
                                       f"put their own {shown(name)} there to run as root (take {shown(entry)} out of "
                                       "root's PATH)")
    refusal = file_refusal(found)
    if refusal is not None:
        said = refusal.startswith(f"{shown(found)} ")  # the program itself is another user's: named already
        raise ProgramRefused(os.path.basename(name), refusal if said else f"{shown(found)}: {refusal}")
    return os.path.abspath(found)


def safe_path(path_env: str | None = None) -> str:
    """PATH for the programs labtui starts: as root, without the entries another user can write (a command
    step's shell finds `zpaq` in /usr/bin, never in /home/alice/bin); otherwise PATH as it is."""
    text = os.environ.get("PATH", os.defpath) if path_env is None else path_env
    if os.geteuid() != 0:
        return text
    kept = [entry for entry in text.split(os.pathsep) if entry and os.path.isabs(entry) and _entry_refusal(entry) is None]
    return os.pathsep.join(kept)
