"""A run's preflight: everything checked before a byte is written (the profile, the engine, the
target directory or raw device, the disk's lock, free space, the machine's limits, the drive's
critical warning), and what it holds from then on (the directory by descriptor, the lock, a raw
device's lease). The Runner (labtui.run.runner) is a Preflight: the run goes on from its Plan."""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path

from labtui.engine import limits
from labtui.engine.base import Engine
from labtui.engine.command.engine import CommandEngine
from labtui.engine.rundir import RunDirectory, TargetDir, run_dir_name, test_file_name
from labtui.engine.testfile import o_direct_supported
from labtui.errors import LabtuiError
from labtui.machine import devices, guard
from labtui.machine.paths import missing_refusal, nearest_existing
from labtui.machine.writers import foreign_link
from labtui.model.profile import Profile
from labtui.model.result import DriveFacts
from labtui.params import hold_paths, resolve
from labtui.results.store import Store
from labtui.run import leftovers, target_lock
from labtui.run.drive_watch import DriveWatch
from labtui.run.options import Plan, RunOptions
from labtui.run.target_lock import TargetLock
from labtui.units import format_size

MEMORY_FS = {"tmpfs", "ramfs", "devtmpfs"}
MIB = 1024 * 1024


# How a refusal for want of room begins: the Run screen and `labtui run` then say how to make room.
NO_ROOM = "not enough free space in"


class NoRoom(LabtuiError):
    """The target has not the room the profile needs (its test file and its free-space margin)."""

    def __init__(self, message: str, *, room_for_file: int) -> None:
        super().__init__(message)
        # The largest test file that fits beside the profile's margin, in whole MiB (0: none does).
        self.room_for_file = max(0, room_for_file) // MIB * MIB


# How make_room names each way to make room, in the command line's words (run, check, the agent of
# run|check --hosts) and in the TUI's (the Run screen's Override field, the Workload screen). The Override
# field is the quickest way out, and it is on the Run screen: said where it is ("above" on that screen, its
# message under the field), as the profile's fields say "Workload screen".
CLI_ROOM = {"file_size": "--file-size", "target": "-t DIR", "profile": "a smaller file_size or free_space_margin in its file"}
TUI_ROOM = {"file_size": "Override file size on the Run screen", "target": "its target in the hosts file",
            "profile": "a smaller Test file or Free margin (Workload screen, w)"}
RUN_SCREEN_ROOM = {**TUI_ROOM, "file_size": "Override file size above"}


def room_in_tui_words(text: str) -> str:
    """A host's refusal for want of room, said by its agent in the command line's words, as the TUI's
    Fleet screen says it: the Override field and the Workload screen for --file-size and the profile's
    keys, the hosts file for -t DIR (a fleet's targets are there). Any other text is left as it is."""
    if "Make room" not in text:
        return text
    text = text.replace(f"({CLI_ROOM['file_size']}, at most ", f"({TUI_ROOM['file_size']}, at most ")
    text = text.replace(f"another target ({CLI_ROOM['target']})", f"another target ({TUI_ROOM['target']})")
    return text.replace(f"for the profile, {CLI_ROOM['profile']}.", f"for the profile, {TUI_ROOM['profile']}.")


def make_room(error: BaseException, *, file_size: str | None, profile: str | None, target: str = "") -> str:
    """How to make room after a refusal for want of room ('' after any other): the one rule the Run
    screen, `labtui run`, check, baseline --more, run --all-volumes and the agent (run|check --hosts) say
    it by, each naming its own control for each way. A smaller test file is offered only where it can fit
    beside the profile's margin (no override changes the margin). Where the profile is not the person's
    to change (`profile` None: a baseline's stored one, its file size too), room is made on the disk."""
    if not isinstance(error, NoRoom):
        return ""
    room = error.room_for_file
    ways = [f"a smaller test file ({file_size}, at most {format_size(room)})"] if room and file_size else []
    ways += [f"another target ({target})"] if target else []
    if profile is None:
        return f"Make room there{' or give ' + ' or '.join(ways) if ways else ''}."
    return f"Make room: {', '.join(ways)}{' or, ' if ways else ''}for the profile, {profile}."


class Preflight:
    """The checks before a run, and what they hold; the Runner's first half."""

    # Set by the Runner (labtui.run.runner) before preflight runs.
    profile: Profile
    target_arg: str
    store: Store
    options: RunOptions
    engine: Engine
    commands: CommandEngine | None
    params: dict[str, str]
    run_id: str
    plan: Plan | None
    _warnings: list[str]
    _lease: guard.DeviceLease | None
    _lock: TargetLock | None
    _watch: DriveWatch
    _drive_facts: DriveFacts | None
    _target_dir: TargetDir | None
    _params_held: dict[str, int]
    _run_dir: RunDirectory | None
    _folder: TargetDir | None

    def preflight(self) -> Plan:
        """Check the run can go ahead, before anything is written. Raises LabtuiError.

        A run that passes holds the disk's lock (and a raw device's lease) until it ends, or until
        `close()` where it will not start after all; one that does not lets go of them at once.
        """
        if self.plan is not None:
            return self.plan
        try:
            plan = self._preflight()
            self._check_drive(plan)
            return plan
        except BaseException:
            self.close()
            raise

    def _check_drive(self, plan: Plan) -> None:
        """A drive that reports a critical warning (spare below its threshold, read-only media, a critical
        temperature) is not written to unless the person insists (--force): the run would wear a failing
        drive further, and its figures would be a failing drive's."""
        disk = plan.target.disk
        reader = self.options.drive(disk) if self.options.drive is not None and disk else None
        self._watch = DriveWatch(reader, self.options.drive_every, disk)
        facts = reader.facts() if reader is not None else None
        self._drive_facts = facts
        if facts is None or not facts.critical_warning:
            return
        message = (f"the drive under {plan.target.path} ({disk}) reports a critical warning: {facts.critical_warning} "
                   f"({facts.source})")
        if not self.options.force:
            raise LabtuiError(f"{message}; nothing was written. Back up what is on it; --force measures it anyway")
        self._warnings.append(f"{message}: measured anyway (--force)")

    def _preflight(self) -> Plan:
        self.profile.validate()
        self.store.check_writable()  # a result that cannot be saved must be known before the run, not after
        running = self._running_dir()
        if running is not None:
            # A run killed earlier may have left its test file (taking the free space this one needs).
            self._warnings += leftovers.clean_up(running)
        self.params = resolve(self.profile.params, self.options.params, f"profile {self.profile.name}")
        self.commands = CommandEngine(self.engine.settings, self.params)
        self._close_params()
        # The file and directory parameters as they were checked, held open: the steps get these.
        self.commands.held = self._params_held = hold_paths(self.profile.params, self.params)
        self.commands.run_dir_name = run_dir_name(self.run_id)
        path = Path(os.path.abspath(os.path.expanduser(self.target_arg)))
        refusal = foreign_link(path)  # as root, a link another user could point elsewhere is not followed
        if refusal:
            raise LabtuiError(refusal)
        if devices.is_block_device(path):
            # The safety guard speaks first: refusing a destructive write matters more than a
            # missing engine. A run already measuring the device comes before it: so does its lease.
            self._hold_disk(path)
            plan = self._preflight_raw(path)
            self.engine.check_available()
            self._check_limits(plan)
            self.plan = plan
            return self.plan
        if self.profile.needs_test_file:
            self.engine.check_available()
        command_steps = [(i, s) for i, s in enumerate(self.profile.steps) if not s.is_io]
        if command_steps:
            self.commands.check_available()
            for i, step in command_steps:
                self.commands.check_step(step, path, f"steps[{i + 1}]")
        existing, missing = nearest_existing(path)  # LabtuiError for a path that cannot be looked at
        if not missing and not existing.is_dir():
            kind = "a file" if existing.is_file() else "not a directory"
            raise LabtuiError(f"{path} exists and is {kind}: give a directory (labtui creates its own test file there)")
        if not existing.is_dir():
            raise LabtuiError(f"{existing} is not a directory")
        holder = devices.volume_of(existing)
        if holder is not None and holder.filesystem in devices.NOISE_FS:
            # /proc, /sys, /dev: "0 B free" or "permission denied" would send the person the wrong way.
            raise LabtuiError(f"{existing} is on {holder.filesystem}, a kernel file system with no disk behind it: "
                              "give a directory on the disk to test")
        try:
            st = os.statvfs(existing)
        except OSError as exc:
            raise LabtuiError(f"cannot inspect {existing}: {exc.strerror}") from exc
        # Read-only first: access() refuses writing there too, and "permission denied" would send
        # the person after file modes instead of the mount.
        if st.f_flag & getattr(os, "ST_RDONLY", 1):
            volume = devices.volume_of(existing)
            if volume is not None and volume.mount_point == str(existing):
                what = f"{existing} is mounted read-only"
            elif volume is not None:
                what = f"{existing} is on {volume.mount_point}, which is mounted read-only"
            else:
                what = f"{existing} is on a read-only file system"
            raise LabtuiError(f"{what}: give a target on a writable file system (or remount it read-write)")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise LabtuiError(f"permission denied: cannot write in {existing}")
        # A missing directory (but labtui's own folder at a mount point) is refused: a typo, most often.
        refusal = missing_refusal(path, missing, holder.mount_point if holder else None)
        if refusal:
            raise LabtuiError(refusal)
        # From here the run is bound to the directory checked, not to its name: everything it makes
        # is made through this descriptor (a link swapped in at the prompt redirects nothing).
        try:
            self._target_dir = TargetDir.open(existing)
        except OSError as exc:
            raise LabtuiError(f"cannot open {existing}: {error_reason(exc)}") from exc
        # A target that cannot be used at all is said above, before the lock: it is the person's to
        # fix, not a reason to wait. The lock comes before the free space: another run's test file
        # takes some, and "not enough free space" would send the person the wrong way.
        self._hold_disk(path)
        st = os.fstatvfs(self._target_dir.fd)
        shortfall = self.profile.space_shortfall(st.f_bavail * st.f_frsize)
        if shortfall:
            free = st.f_bavail * st.f_frsize
            room = free - self.profile.free_space_margin if self.profile.needs_test_file else 0
            raise NoRoom(f"{NO_ROOM} {existing}: {shortfall}", room_for_file=room)
        target = devices.target_info(path)
        # A memory file system may accept O_DIRECT (tmpfs does since Linux 6.6), yet its files
        # live in the page cache: there is no disk to bypass the cache to.
        in_memory = target.filesystem in MEMORY_FS
        plan = Plan(
            target=target,
            directory=path,
            test_file=self._test_file_path(path) if self.profile.needs_test_file else None,
            created_dirs=list(reversed(missing)),
            direct_io=o_direct_supported(existing, dir_fd=self._target_dir.fd) and not in_memory,
            file_size=self.profile.file_size,
        )
        self._check_limits(plan)
        # What was found (the disk, its lock, the free space) is of the directory held only if its
        # name led there all along: one swapped meanwhile is refused, not measured as the other.
        moved = self._target_dir.moved()
        if moved:
            raise LabtuiError(f"{existing} changed while labtui checked it ({moved}): nothing was written; "
                              "check who else can write its parent directory, then try again")
        self.plan = plan
        return self.plan

    def _test_file_path(self, directory: Path) -> Path:
        """Where the test file is, as people read it: in the run's own directory in `directory`."""
        return directory / run_dir_name(self.run_id) / test_file_name(self.run_id)

    def _hold_disk(self, path: Path) -> None:
        """From here to the run's end no other labtui run measures the disk of `path`: TargetBusy if one does."""
        held = self.options.target_lock
        if held is not None and held.fd >= 0 and held.key == target_lock.target_key(path):
            return  # the caller's, held across its runs
        self._lock, problem = target_lock.hold(path)
        if problem is not None and problem not in self._warnings:
            self._warnings.append(problem)

    def _check_limits(self, plan: Plan) -> None:
        """Refuse a step the machine cannot start (threads, kernel AIO events) before any byte is written."""
        for step in self.profile.steps:
            if not step.is_io:
                continue
            why = self.engine.refusal(step)
            if why is not None:
                raise LabtuiError(f"step {step.name!r}: {why}")
            running = replace(step, cache="on") if step.cache == "off" and not plan.direct_io else step
            limits.check(self.engine.needs(running), step.name, step.threads, step.outstanding)

    def _preflight_raw(self, path: Path) -> Plan:
        """A raw device: reading is fine; writing only when the guard clears it."""
        if any(not s.is_io for s in self.profile.steps):
            raise LabtuiError(f"{path} is a block device: command steps need a directory on a mounted file system")
        writes = self.profile.writes
        facts, lease = guard.clear_raw_target(path, writes=writes, confirm=self.options.destroy_data,
                                              consented=self.options.consented)
        size = min(self.profile.file_size, facts.size_bytes or 0)
        largest = max(s.block_size for s in self.profile.steps)
        if size < largest:
            if lease is not None:
                lease.close()
            raise LabtuiError(f"{path} is smaller than one block ({format_size(largest)})")
        # Held from here to the end of the run: nobody can mount or mkfs it after the consent.
        self._lease = lease
        if not writes:
            self._warnings.append(
                f"read-only run on raw device {path}: parts never written may be answered without touching "
                "the media (trimmed or thin-provisioned blocks), which flatters read figures"
            )
        return Plan(
            target=devices.target_info(path),
            directory=path.parent,
            # The device itself, not a link to it: a re-pointed link cannot redirect the engines.
            test_file=Path(facts.path),
            created_dirs=[],
            direct_io=o_direct_supported(path.parent, device=path),
            raw_device=True,
            file_size=size,
            device=facts,
        )

    # ------------------------------------------------------------------ letting go

    def _running_dir(self) -> Path:
        return self.store.running_dir

    def close(self) -> None:
        """Let go of what preflight holds (the raw device, the disk's lock, the target directory) when the
        run will not start after all."""
        self._close_lease()
        self._release_disk()
        self._close_target()

    def _close_target(self) -> None:
        for held in (self._run_dir, self._folder, self._target_dir):
            if held is not None:
                held.close()
        self._run_dir = self._folder = self._target_dir = None
        self._close_params()

    def _close_params(self) -> None:
        held, self._params_held = self._params_held, {}
        if self.commands is not None and self.commands.held is held:
            self.commands.held = {}  # never a descriptor number closed here (it may be reused)
        for fd in held.values():
            with contextlib.suppress(OSError):
                os.close(fd)

    def _close_lease(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.close()

    def hand_over_lock(self) -> TargetLock | None:
        """The disk's lock this run's preflight took, now the caller's: held across its runs (a check's
        passes, given them as `RunOptions.target_lock`) until it releases it. None if none was taken."""
        lock, self._lock = self._lock, None
        return lock

    def _release_disk(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()


def error_reason(exc: BaseException) -> str:
    """An exception in a few words: an OSError's reason and the file it was about."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror}{where}"
    return str(exc) or type(exc).__name__
