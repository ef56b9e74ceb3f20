"""Baselines: the result each disk and profile is checked against (`labtui check`, the TUI's History).

One baseline per (disk, profile), kept in `baselines.toml` under the data root, beside the
results it points to, so marking one never rewrites a result file. The disk is identified by
model and serial where the kernel reports them, so a baseline follows the drive to another
adapter or slot — the "did the swap change anything?" case. Writes are atomic and serialised
with a lock; a baselines file that does not parse is reported and never overwritten.
"""

from __future__ import annotations

import contextlib
import fcntl
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator, Sequence

from labtui.errors import LabtuiError, NotFoundError, StoreError
from labtui.model import RunResult, TargetInfo, now
from labtui.store import Store, atomic_write, dumps_toml

FILE_NAME = "baselines.toml"
SCHEMA = 1


@dataclass(frozen=True)
class Baseline:
    disk: str  # disk_identity() of the result's target
    profile: str  # the profile's name
    result_id: str
    marked: datetime


def disk_identity(target: TargetInfo, host_name: str | None) -> str:
    """A stable name for the disk under a target: model and serial, else model, disk and host."""
    if target.model and target.serial:
        return f"{target.model} #{target.serial}"
    host = host_name or "unknown host"
    if target.model:
        return f"{target.model} ({target.disk or target.device or 'unknown device'}) on {host}"
    where = target.mount_point or target.path
    return f"{target.filesystem or 'unknown file system'} at {where} on {host}"


def result_disk(result: RunResult) -> str:
    return disk_identity(result.target, result.host.name)


def path(store: Store) -> Path:
    return store.home / FILE_NAME


def load(store: Store) -> list[Baseline]:
    """Every baseline; StoreError naming the file if it cannot be read (it is left as it is)."""
    file = path(store)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        data = tomllib.loads(text)
        if data.get("schema", SCHEMA) != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r} is not one this labtui reads")
        entries = data.get("baselines", [])
        if not isinstance(entries, list):
            raise ValueError("baselines must be an array of tables")
        out = []
        for entry in entries:
            if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("disk", "profile", "result")):
                raise ValueError("every baseline needs disk, profile and result strings")
            marked = entry.get("marked")
            if not isinstance(marked, datetime):
                raise ValueError("every baseline needs a marked date-time")
            out.append(Baseline(entry["disk"], entry["profile"], entry["result"], marked))
        return out
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        raise StoreError(f"{file}: {exc} (fix or remove the file; labtui leaves it as it is)") from exc


def _save(store: Store, baselines: Sequence[Baseline]) -> None:
    data = {
        "schema": SCHEMA,
        "baselines": [
            {"disk": b.disk, "profile": b.profile, "result": b.result_id, "marked": b.marked} for b in baselines
        ],
    }
    try:
        atomic_write(path(store), "# labtui baselines: one result per disk and profile\n" + dumps_toml(data))
    except OSError as exc:
        raise StoreError(f"cannot save {path(store)}: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def _locked(store: Store) -> Iterator[None]:
    # The TUI and a CLI may mark baselines at once: read-modify-write under one lock.
    lock_path = store.home / ".baselines.lock"
    try:
        store.home.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a")
    except OSError as exc:
        raise StoreError(f"cannot lock {lock_path}: {exc.strerror or exc}") from exc
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def mark(store: Store, result: RunResult) -> tuple[Baseline, Baseline | None]:
    """Make `result` the baseline of its disk and profile; returns it and the one it replaced."""
    if result.status != "completed":
        raise LabtuiError(f"result {result.id} is {result.status}: only a completed result can be a baseline")
    if not any(s.status == "completed" for s in result.steps):
        raise LabtuiError(f"result {result.id} has no completed step to check against")
    baseline = Baseline(result_disk(result), result.profile.name, result.id, now())
    with _locked(store):
        current = load(store)
        replaced = next((b for b in current if (b.disk, b.profile) == (baseline.disk, baseline.profile)), None)
        kept = [b for b in current if (b.disk, b.profile) != (baseline.disk, baseline.profile)]
        _save(store, kept + [baseline])
    return baseline, replaced


def clear(store: Store, result_id: str) -> list[Baseline]:
    """Stop using a result as a baseline; returns what was removed (NotFoundError if nothing)."""
    with _locked(store):
        current = load(store)
        removed = [b for b in current if b.result_id == result_id]
        if not removed:
            raise NotFoundError(f"result {result_id} is not a baseline")
        _save(store, [b for b in current if b.result_id != result_id])
    return removed


def ids(store: Store) -> set[str]:
    """The ids of the results that are baselines (for marking them in listings)."""
    return {b.result_id for b in load(store)}


def find(store: Store, target: TargetInfo, host_name: str | None, profile: str | None = None) -> Baseline:
    """The baseline for the disk under `target` (and `profile`); LabtuiError saying what to do if none."""
    disk = disk_identity(target, host_name)
    candidates = [b for b in load(store) if b.disk == disk]
    if profile is not None:
        matching = [b for b in candidates if b.profile == profile]
        if not matching:
            others = f" (it has baselines for {', '.join(sorted(b.profile for b in candidates))})" if candidates else ""
            raise NotFoundError(
                f"no baseline for profile {profile!r} on {disk}{others}: mark one with `labtui baseline ID` "
                "or give --baseline ID"
            )
        return matching[0]
    if not candidates:
        raise NotFoundError(f"no baseline for {disk}: mark one with `labtui baseline ID` or give --baseline ID")
    if len(candidates) > 1:
        names = ", ".join(sorted(b.profile for b in candidates))
        raise LabtuiError(f"{disk} has baselines for several profiles ({names}): choose one with -p PROFILE")
    return candidates[0]

