"""Who besides this user could change what a path holds: the path's owner and mode, and every
directory's on the way to it, as named and as its links lead.

As root, labtui refuses what another user could change: its own directories (labtui.results.trust),
the files it writes (results.files.atomic_write), the programs it runs (an engine's configured fio or
DiskSpd). One reading of the machine for all of them.
"""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

from labtui.printable import shown


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _group(gid: int) -> str:
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return f"gid {gid}"


def others_can_write(path: Path) -> str | None:
    """Why a user other than this one could change what `path` (a file or directory, or where it would
    be made) holds, or None: it, or a directory on the way to it (as named, and as its links lead), is
    another user's, or writable by others. A sticky directory of root's such as /tmp protects what is
    not its writers': it is passed on the way, but not taken as the directory itself."""
    named = Path(os.path.abspath(path))
    real = Path(os.path.realpath(named))
    for chain in ([named, *named.parents], [real, *real.parents] if real != named else []):
        for position, item in enumerate(chain):
            problem = _writable_by_others(item, on_the_way=position > 0)
            if problem:
                return problem
    return None


def _writable_by_others(item: Path, *, on_the_way: bool) -> str | None:
    try:
        st = os.lstat(item)
    except OSError:
        return None  # to be made (by this user, then), or not to be looked at: other checks say so
    if stat.S_ISLNK(st.st_mode):
        return None  # a link's own mode means nothing; who may replace it is its directory's matter
    if st.st_uid not in (os.geteuid(), 0):
        return f"{item} belongs to {user_name(st.st_uid)}"
    if on_the_way and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
        return None
    if st.st_mode & 0o002:
        return f"{item} can be written by every user (mode {stat.S_IMODE(st.st_mode):04o})"
    if st.st_mode & 0o020:
        return f"{item} can be written by the group {_group(st.st_gid)} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def foreign_link(path: Path) -> str | None:
    """As root, why following `path`'s links could take labtui where its person did not point it (one line),
    or None. The kernel's rule for sticky world-writable directories (fs.protected_symlinks: a link is
    followed only if the follower or the directory's owner made it), extended to every directory another
    user can write: a link another user owns, or one lying where another user could put one in its place,
    is not followed. Links root made in root's directories (/var/tmp -> ..., a distribution's layout) are."""
    if os.geteuid() != 0:
        return None
    pending = list(Path(os.path.abspath(path)).parts[1:])
    here, hops = Path("/"), 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            here = here.parent  # `here` holds no link: its parent is the real one
            continue
        item = here / part
        try:
            st = os.lstat(item)
        except OSError:
            return None  # the rest is to be made, or cannot be looked at: other checks say so
        if not stat.S_ISLNK(st.st_mode):
            here = item
            continue
        try:
            to = os.readlink(item)
            parent = os.stat(here)
        except OSError:
            return None
        hops += 1
        problem = None
        if st.st_uid not in (os.geteuid(), 0):
            problem = f"{user_name(st.st_uid)} made it"
        elif parent.st_uid not in (os.geteuid(), 0):
            problem = f"it lies in {shown(here)}, which belongs to {user_name(parent.st_uid)}"
        elif parent.st_mode & 0o022 and not parent.st_mode & stat.S_ISVTX:
            problem = f"it lies in {shown(here)}, which other users can write (mode {stat.S_IMODE(parent.st_mode):04o})"
        if problem:
            real = os.path.realpath(item)
            return (f"{shown(item)} is a link to {shown(to)} and {problem}: as root labtui follows no link another user could "
                    f"have pointed elsewhere; give the directory itself (-t {shown(real)})")
        if hops > 40:
            return None  # a loop of links: the path's own checks say so
        pending = list(Path(to).parts) + pending
        if os.path.isabs(to):
            here = Path("/")
            pending = pending[1:]
    return None
