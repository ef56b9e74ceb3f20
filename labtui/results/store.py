"""TOML persistence of results, user profiles and settings: atomic writes, tolerant reads.

Where each file is kept under the data and config roots: labtui.locations. A file that does not
parse is reported with its path and reason and skipped; it is never rewritten or deleted by a read.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import replace
from importlib import resources
from pathlib import Path

from labtui import series
from labtui.errors import LabtuiError, NotFoundError, StoreError, ValidationError
from labtui.locations import HOME_ENV, Locations
from labtui.machine.checked_read import Unreadable, foreign_owner, read_checked
from labtui.machine.paths import exists, nearest_existing, shown
from labtui.model.profile import Profile
from labtui.model.result import RunResult, new_result_id
from labtui.results.files import BrokenFile, atomic_write, dumps_toml, loads_toml
from labtui.results.profile_file import parse_profile_text, profile_to_text
from labtui.results.result_file import result_from_toml, result_to_toml
from labtui.results.summaries import ResultSummary, load_summaries
from labtui.results.trust import others_can_write, root_refusal, user_name
from labtui.settings import Settings, SettingsFile

# A result id is its file's stem: no separators, no leading dot (hidden files are temp files).
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# Far above any result labtui writes (saving bounds the interval series, labtui.series, and never
# writes a file past this); refuses to slurp a stray disk image.
MAX_FILE_BYTES = 64 * 1024 * 1024
# A profile is written by hand: a few kilobytes. One of megabytes is a mistake (or an attack) that
# tomllib would take minutes and gigabytes to read.
MAX_PROFILE_BYTES = 1024 * 1024
# An empty or blank id, refused by every command that takes one (before or when it reads the store).
EMPTY_ID = "an ID is empty: give a result's id or a unique beginning of it"
MAX_ID_CHARS = 250  # a result file's name is the id and ".toml": 255 bytes at most on Linux file systems


def fitting(result: RunResult, limit: int | None = None) -> tuple[RunResult, str]:
    """The result as saved and its text: its series bounded so the file stays one `read_result`
    accepts (`limit` bytes: MAX_FILE_BYTES, or what a fleet host may send); StoreError if even
    without most of its series it would not."""
    # Read at the call, not bound at import: the writer keeps under the reader's cap as it is now.
    limit = MAX_FILE_BYTES if limit is None else limit
    budget = series.MAX_SAMPLES
    result = series.bound_result(result, budget)
    text = result_to_toml(result)
    while len(text.encode("utf-8")) > limit:
        kept = sum(len(s.samples) for s in result.steps)
        if kept <= len(result.steps):
            raise StoreError(f"the result is too large to save ({len(text.encode('utf-8'))} bytes, even with its "
                             f"interval series merged; a result file holds at most {limit} bytes)")
        budget = max(1, min(budget, kept) // 2)
        result = series.bound_result(result, budget, min_per_step=1)
        text = result_to_toml(result)
    return result, text


# --------------------------------------------------------------------------- the store


class Store:
    """Results and user profiles under one data root."""

    def __init__(self, home: Path | None = None, config_dir: Path | None = None) -> None:
        self.locations = Locations.at(home, config_dir)
        self.home, self.config_dir = self.locations.home, self.locations.config_dir
        self.results_dir = self.locations.results_dir
        self.profiles_dir = self.locations.profiles_dir
        self.cache_dir = self.locations.cache_dir
        self.running_dir = self.locations.running_dir

    def check_home(self) -> None:
        """StoreError where a folder labtui keeps its files in is something other than a directory.

        Asked before any command or the TUI reads the store: a LABTUI_HOME pointing at a file listed
        "no results yet" and built-in profiles only, as if the results were gone, and failed only at
        the first save. Nothing is made or changed here.
        """
        for folder, what in ((self.home, "results and profiles"), (self.config_dir, "settings"),
                             (self.results_dir, "results"), (self.profiles_dir, "profiles")):
            problem = _not_a_directory(folder, what)
            if problem is not None:
                set_by_env = bool(os.environ.get(HOME_ENV)) and folder in (self.home, self.config_dir)
                raise StoreError(problem + (f" (set {HOME_ENV} to a directory)" if set_by_env else ""))
        # As root, a store others can write would let them choose what labtui runs and deletes.
        refusal = root_refusal([self.home, self.config_dir, self.results_dir, self.profiles_dir, self.cache_dir,
                                self.running_dir, self.settings_path()], HOME_ENV)
        if refusal:
            raise StoreError(refusal)

    # results ---------------------------------------------------------------

    def save_result(self, result: RunResult) -> tuple[RunResult, Path]:
        """Write a new result file; if its id is taken, give it a fresh one. Returns both."""
        if not _SAFE_ID.match(result.id):
            result = replace(result, id=new_result_id(result.started))
        result, text = fitting(result)
        for _ in range(50):
            path = self.results_dir / f"{result.id}.toml"
            try:
                atomic_write(path, text, exclusive=True)
                return result, path
            except FileExistsError:
                result = replace(result, id=new_result_id(result.started))
                text = result_to_toml(result)
            except OSError as exc:
                raise StoreError(f"cannot save the result in {self.results_dir}: {exc.strerror or exc}") from exc
        raise StoreError(f"cannot find a free file name in {self.results_dir}")

    def check_writable(self) -> None:
        """Raise StoreError unless a result can be saved here (before a run, so none is lost after it).

        Writes a result's worth of bytes into a probe file where the results directory is (or
        would be made) and removes it again: nothing is left behind, whatever the answer.
        """
        try:
            existing, _ = nearest_existing(self.results_dir)
        except LabtuiError as exc:
            raise StoreError(f"cannot save results in {self.results_dir}: {exc}") from None
        if not existing.is_dir():
            raise StoreError(f"cannot save results in {self.results_dir}: {existing} is not a directory"
                             + (f" (set {HOME_ENV} to a directory)" if existing == self.home else ""))
        probe_dir = None
        try:
            if existing != self.results_dir:  # a directory the first save would make must be makeable
                probe_dir = Path(tempfile.mkdtemp(prefix=".labtui-probe-", dir=existing))
            fd, probe = tempfile.mkstemp(prefix=".probe-", suffix=".tmp", dir=probe_dir or existing)
            try:
                os.write(fd, b"\0" * 8192)  # a full disk refuses this here, not after the run
                os.fsync(fd)
            finally:
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(probe)
        except OSError as exc:
            raise StoreError(f"cannot save results in {self.results_dir}: {exc.strerror or exc}") from exc
        finally:
            if probe_dir is not None:
                with contextlib.suppress(OSError):
                    probe_dir.rmdir()

    def update_result(self, result: RunResult) -> Path:
        """Rewrite an existing result (tags, baseline) atomically, in the file that holds it."""
        path = self.locate_result(result.id)
        try:
            atomic_write(path, result_to_toml(result))
        except OSError as exc:
            raise StoreError(f"cannot update {path}: {exc.strerror or exc}") from exc
        return path

    def result_path(self, result_id: str) -> Path:
        if len(result_id) > MAX_ID_CHARS:
            # No file can have such a name (the kernel refuses it): not an id, and not one to echo whole.
            raise NotFoundError(f"no result with id {result_id[:24]!r}… ({len(result_id)} characters; an id is at "
                                f"most {MAX_ID_CHARS}, like 20240501-103005-a1b2)")
        if not _SAFE_ID.match(result_id):
            raise NotFoundError(f"no result with id {result_id!r}")
        return self.results_dir / f"{result_id}.toml"

    def locate_result(self, result_id: str) -> Path:
        """The file that holds the result with this id.

        Normally `<id>.toml`, but people copy result files between lab machines under names of
        their own ("adapter-a.toml"); such a file must still be found, updated and deleted in
        place rather than shadowed by a second copy.
        """
        exact = self.result_path(result_id)
        if exists(exact):  # LabtuiError where the store itself cannot be looked at (LABTUI_HOME too long)
            return exact
        for row in self.summaries()[0]:
            if row.id == result_id:
                return self.results_dir / row.file
        raise NotFoundError(f"no result with id {result_id!r} in {self.results_dir}")

    def result_files(self) -> list[Path]:
        problem = _not_a_directory(self.results_dir, "results")
        if problem is not None:  # not "no results": a listing must not look empty when it cannot be read
            raise StoreError(problem)
        try:
            # By name (their ids sort by time); comparing names is far cheaper than comparing Paths.
            return sorted((p for p in self.results_dir.glob("*.toml") if not p.name.startswith(".")),
                          key=lambda p: p.name)
        except OSError:
            return []

    def read_result(self, path: Path) -> RunResult:
        """Read one result file; StoreError naming the file and the reason if it is not one."""
        text = _read_text(path, "result")
        if not text.strip():
            raise StoreError(f"{path}: empty file")
        try:
            return result_from_toml(text)
        except tomllib.TOMLDecodeError as exc:
            raise StoreError(f"{path}: not valid TOML: {exc}") from exc
        except (ValueError, LabtuiError) as exc:
            raise StoreError(f"{path}: {exc}") from exc
        except Exception as exc:  # a foreign file must never take the listing down
            raise StoreError(f"{path}: not a labtui result ({type(exc).__name__}: {exc})") from exc

    def iter_results(self) -> Iterator[RunResult | BrokenFile]:
        for path in self.result_files():
            try:
                yield self.read_result(path)
            except StoreError as exc:
                yield BrokenFile(path, str(exc).removeprefix(f"{path}: "))

    def load_results(self) -> tuple[list[RunResult], list[BrokenFile]]:
        """Every readable result (oldest first) and every file that could not be read."""
        good: list[RunResult] = []
        broken: list[BrokenFile] = []
        for item in self.iter_results():
            if isinstance(item, BrokenFile):
                broken.append(item)
            else:
                good.append(item)
        good.sort(key=lambda r: (r.started, r.id))
        return good, broken

    def summaries(
        self, progress: Callable[[int, int], None] | None = None
    ) -> tuple[list[ResultSummary], list[BrokenFile]]:
        """A summary row per result and the broken files, from the cached index (labtui.results.summaries)."""
        return load_summaries(self.cache_dir, self.result_files(), self.read_result, progress)

    def find_result(self, key: str) -> RunResult:
        """A result by id or unique id prefix."""
        key = key.strip()
        if not key:  # "" begins every id: it would name the only result there is, or "matches 12 results"
            raise NotFoundError(EMPTY_ID)
        exact = self.result_path(key)  # NotFoundError for a key that cannot be a file name
        if exists(exact):  # LabtuiError where the store itself cannot be looked at (LABTUI_HOME too long)
            return self.read_result(exact)
        # By the ids inside the files (the cached index), so a renamed file is found too.
        rows = [row for row in self.summaries()[0] if row.id.startswith(key)]
        if not rows:
            raise NotFoundError(f"no result with id {key!r} in {self.results_dir}")
        if len({row.id for row in rows}) > 1:
            shown = ", ".join(row.id for row in rows[:4])
            raise NotFoundError(f"{key!r} matches {len(rows)} results ({shown}{', ...' if len(rows) > 4 else ''})")
        return self.read_result(self.results_dir / rows[0].file)

    def delete_result(self, result_id: str) -> None:
        path = self.locate_result(result_id)
        try:
            path.unlink()
        except FileNotFoundError:
            raise NotFoundError(f"no result with id {result_id!r}") from None
        except OSError as exc:
            raise StoreError(f"cannot delete {path}: {exc.strerror or exc}") from exc

    def delete_broken(self, path: Path) -> None:
        """Remove a file of the results folder that cannot be read, at the person's word (History's `x`).

        Only a file listed as broken, and only while it still cannot be read: one fixed (or replaced by
        a result) since it was listed is kept (StoreError). A link is removed itself, never what it points to.
        """
        if path.parent != self.results_dir or not os.path.lexists(path):
            raise NotFoundError(f"{path} is no longer in {self.results_dir}")
        try:
            result = self.read_result(path)  # through a link: one that leads to a result again is kept too
        except StoreError:
            pass
        else:
            raise StoreError(f"{path} now reads as the result {result.id}: kept (F5 lists it again)")
        try:
            path.unlink()
        except OSError as exc:
            raise StoreError(f"cannot delete {path}: {exc.strerror or exc}") from exc

    # profiles --------------------------------------------------------------

    def builtin_profiles(self) -> list[Profile]:
        return builtin_profiles()

    def user_profile_files(self) -> list[Path]:
        problem = _not_a_directory(self.profiles_dir, "profiles")
        if problem is not None:
            raise StoreError(problem)
        try:
            return sorted(p for p in self.profiles_dir.glob("*.toml") if not p.name.startswith("."))
        except OSError:
            return []

    def user_profiles(self) -> tuple[list[Profile], list[BrokenFile]]:
        good: list[Profile] = []
        broken: list[BrokenFile] = []
        try:
            paths = self.user_profile_files()
        except StoreError as exc:  # the folder itself (a file, since labtui started): said as any file that cannot be read
            return good, [BrokenFile(self.profiles_dir, str(exc))]
        for path in paths:
            try:
                good.append(_load_user_profile(path))
            except LabtuiError as exc:
                broken.append(BrokenFile(path, str(exc).removeprefix(f"{path}: ")))
        return good, broken

    def profiles(self) -> tuple[list[Profile], list[BrokenFile]]:
        """Built-in then user profiles; a user profile with a built-in's name is listed as well."""
        users, broken = self.user_profiles()
        return builtin_profiles() + users, broken

    def profile(self, name_or_path: str) -> Profile:
        """A profile by name (user profiles shadow built-ins) or by path to a .toml file."""
        candidate = Path(name_or_path).expanduser()
        if name_or_path.endswith(".toml") or os.sep in name_or_path:
            if not exists(candidate):  # LabtuiError for a path that cannot be looked at (too long, no access)
                # "-p quick-sanity.toml": a name typed as a file; said so, not only that there is no such file.
                stem = name_or_path.removesuffix(".toml")
                named = os.sep not in name_or_path and (any(p.name == stem for p in builtin_profiles()) or (
                    _SAFE_ID.match(stem) is not None and len(stem) <= MAX_ID_CHARS
                    and exists(self.profiles_dir / name_or_path)))
                hint = f": {shown(stem)} is a profile's name, give it without .toml" if named else ""
                raise NotFoundError(f"no profile file {shown(name_or_path)}{hint}")
            return load_profile_file(candidate, origin=str(candidate))
        user = self.profiles_dir / f"{name_or_path}.toml"
        # A name no file can have (too long) is no user profile's: it may still be a built-in's (it is not).
        if _SAFE_ID.match(name_or_path) and len(name_or_path) <= MAX_ID_CHARS and exists(user):
            return _load_user_profile(user)
        for profile in builtin_profiles():
            if profile.name == name_or_path:
                return profile
        self.user_profile_files()  # StoreError where the profiles folder itself is not one
        users, broken = self.user_profiles()
        # Only the names that load: a broken file's name would be refused again, for another reason.
        names = sorted({p.name for p in builtin_profiles()} | {p.name for p in users})
        text = f"no profile named {shown(name_or_path)!r} (known: {', '.join(names)})"
        if broken:
            count = "1 profile file does not" if len(broken) == 1 else f"{len(broken)} profile files do not"
            text += f"; {count} load: {', '.join(shown(b.path.name) for b in broken)} (labtui profiles says why)"
        raise NotFoundError(text)

    def profile_to_run(self, name_or_path: str) -> Profile:
        """`profile`, for a run: as root, a file another user could change is refused where its command steps
        would run as root (one to look at, `labtui profiles FILE`, is shown as it is)."""
        profile = self.profile(name_or_path)
        if name_or_path.endswith(".toml") or os.sep in name_or_path:
            _command_steps_trusted(Path(name_or_path).expanduser(), profile)
        return profile

    def save_profile(self, profile: Profile, *, overwrite: bool = True) -> Path:
        """Save as a user profile. A built-in name gets a user copy; built-ins are never touched."""
        profile.validate()
        path = self.profiles_dir / f"{profile.name}.toml"
        text = profile_to_text(profile)
        try:
            atomic_write(path, text, exclusive=not overwrite)
        except FileExistsError:
            raise StoreError(f"a user profile named {profile.name!r} already exists") from None
        except OSError as exc:
            raise StoreError(f"cannot save {path}: {exc.strerror or exc}") from exc
        return path

    def delete_profile(self, name: str) -> None:
        path = self.profiles_dir / f"{name}.toml"
        if not path.is_file():
            if any(p.name == name for p in builtin_profiles()):
                raise StoreError(f"{name!r} is a built-in profile and cannot be deleted")
            raise NotFoundError(f"no user profile named {name!r}")
        try:
            path.unlink()
        except OSError as exc:
            raise StoreError(f"cannot delete {path}: {exc.strerror or exc}") from exc

    # settings --------------------------------------------------------------

    def settings_path(self) -> Path:
        return self.locations.settings_file

    def read_settings(self) -> SettingsFile:
        """The settings file, read: the settings, the problems with its values, and why it does not parse, if it
        does not (then it reads as the defaults, and is left alone). A missing file is the defaults.

        It names the programs labtui runs (fio_path, diskspd_path): read through one checked descriptor, and
        refused if it is not a regular file (a FIFO would hang labtui) or another user's (a link planted to
        their file, or, as root, one others can write)."""
        path = self.settings_path()
        try:
            text = _read_text(path, "settings", check=_settings_trusted(path))
            data = loads_toml(text)
        except StoreError as exc:
            if not os.path.lexists(path):
                return SettingsFile(Settings(), {}, None)
            return SettingsFile(Settings(), {}, str(exc))
        except ValueError as exc:
            return SettingsFile(Settings(), {}, f"{path}: {exc}")
        settings, problems = Settings.from_toml(data, str(path))
        return SettingsFile(settings, problems, None)

    def load_settings(self) -> Settings:
        """The settings; a broken file reads as the defaults."""
        return self.read_settings().settings

    def save_settings(self, settings: Settings) -> None:
        try:
            atomic_write(self.settings_path(), dumps_toml(settings.to_toml()))
        except OSError as exc:
            raise StoreError(f"cannot save settings: {exc.strerror or exc}") from exc


def _not_a_directory(folder: Path, what: str) -> str | None:
    """Why `folder` cannot hold labtui's `what`: it, or where it would be made, is not a directory; None if it can."""
    existing, _ = nearest_existing(folder)  # LabtuiError for a path that cannot be looked at
    if existing.is_dir():
        return None
    where = "there" if existing == folder else f"in {folder}"
    return f"{existing} is not a directory, so labtui cannot keep its {what} {where}"


def _settings_trusted(path: Path) -> Callable[[os.stat_result], None]:
    """config.toml's check on its open descriptor: the file another user's (a link to theirs), or, as root, one
    others can write; and the name itself a link another user made (into a directory they could write)."""

    def check(info: os.stat_result) -> None:
        problem = foreign_owner(info)
        if problem is None:
            with contextlib.suppress(OSError):
                link = os.lstat(path)
                if stat.S_ISLNK(link.st_mode) and link.st_uid not in (os.geteuid(), 0):
                    problem = f"it is a link {user_name(link.st_uid)} made"
        if problem is not None:
            raise Unreadable("refused", f"refused: {problem}, who could choose the programs labtui runs (fio_path, "
                                        "diskspd_path); chown it to the user running labtui, or remove it")

    return check


def _command_steps_trusted(path: Path, profile: Profile) -> None:
    """As root, refuse a profile file another user could change whose command steps root would run: whoever
    can write it chooses the shell lines (as a hosts file or config.toml chooses what root runs). A profile of
    I/O steps alone only shapes the I/O on the target root names. The store's own profiles are root's already
    (labtui.results.trust refuses a store others can write)."""
    if os.geteuid() != 0 or not any(step.kind == "command" for step in profile.steps):
        return
    problem = others_can_write(Path(os.path.abspath(path)))
    if problem is not None:
        raise StoreError(f"{shown(path)}: refused as root: its command steps run as root, and {problem}, who could "
                         "change them (chown root and chmod go-w it, or copy it where only root can write)")


def load_profile_file(path: Path, origin: str = "user") -> Profile:
    """Read and validate a profile file; LabtuiError naming the file on any problem."""
    return parse_profile_text(_read_text(path, "profile"), str(path), origin)


def _read_text(path: Path, what: str, check: Callable[[os.stat_result], None] | None = None) -> str:
    """A store file's text; StoreError "<path>: <reason>" for anything that is not a text file.

    Read through one checked descriptor (labtui.machine.checked_read): a file swapped for a FIFO between a
    check by name and a read by name hung labtui, as root, on the read."""
    limit = MAX_FILE_BYTES if what == "result" else MAX_PROFILE_BYTES  # a profile, config.toml: kilobytes
    try:
        data, _ = read_checked(path, limit, check=check)
    except Unreadable as exc:
        raise StoreError(f"{path}: {_unreadable(exc, what, limit)}") from None
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text's newlines
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start : exc.start + 1].hex()
        raise StoreError(f"{path}: not UTF-8 text (byte 0x{byte} at offset {exc.start})") from exc


def _unreadable(exc: Unreadable, what: str, limit: int) -> str:
    if exc.kind == "directory":
        return f"a directory, not a {what} file"
    if exc.kind == "special":
        return "not a regular file"  # a FIFO, a device: reading one would hang the listing
    if exc.kind == "large":
        size = f"{exc.size:,} bytes is" if exc.size is not None else "it is"
        return f"{size} too large for a {what} file (at most {limit:,})"
    if exc.kind == "refused":
        return exc.reason
    return f"cannot read: {exc.reason}"


def _load_user_profile(path: Path) -> Profile:
    profile = load_profile_file(path, origin="user")
    # `-p NAME` finds the file NAME.toml: a different name inside would list one profile and run another.
    if profile.name != path.stem:
        raise ValidationError(
            f"{path}: its name {profile.name!r} differs from the file name; "
            f"rename the file to {profile.name}.toml or set name = {path.stem!r}"
        )
    return profile


def builtin_profiles() -> list[Profile]:
    """The profiles shipped as package data, in a stable order."""
    return list(_builtin_profiles())


@functools.cache
def _builtin_profiles() -> tuple[Profile, ...]:
    folder = resources.files("labtui") / "profiles"
    profiles = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            profiles.append(parse_profile_text(entry.read_text(encoding="utf-8"), f"built-in {entry.name}", "builtin"))
    order = ["quick-sanity", "configmgr-sql-quick", "configmgr-sql", "cdm-standard", "cdm-nvme", "zpaq-extract",
             "snia-lite", "verify-after-swap"]
    return tuple(sorted(profiles, key=lambda p: (order.index(p.name) if p.name in order else len(order), p.name)))
