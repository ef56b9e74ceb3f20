"""Baselines: the runs each disk and profile is checked against (`labtui check`, the TUI's History).

One baseline per (disk, profile), kept in `baselines.toml` under the data root, beside the
results it points to, so marking one never rewrites a result file. A baseline is a set of runs:
the result marked, plus any results added to it (`labtui baseline ID --more N` runs and adds
some), because only several runs tell a check how much the disk varies on its own. The disk is identified by
model and serial where the kernel reports them, so a baseline follows the drive to another
adapter or slot — the "did the swap change anything?" case. Writes are atomic and serialised
with a lock; a baselines file that does not parse is reported and never overwritten.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from labtui.errors import LabtuiError, NotFoundError, StoreError
from labtui.machine.checked_read import Unreadable, read_checked
from labtui.model.result import RunResult, TargetInfo, disk_identity, now, result_disk
from labtui.results.files import atomic_write, dumps_toml, loads_toml
from labtui.results.store import Store

SCHEMA = 1


RECOMMENDED_RUNS = 3  # fewer runs per step tell a check too little about the disk's own noise


@dataclass(frozen=True)
class Baseline:
    disk: str  # disk_identity() of the result's target
    profile: str  # the profile's name
    result_id: str  # the result marked
    marked: datetime
    added: tuple[str, ...] = ()  # results added to it since: more runs of the same profile on the disk

    @property
    def result_ids(self) -> tuple[str, ...]:
        return (self.result_id, *self.added)


MAX_BYTES = 16 * 1024 * 1024  # a baseline is a few hundred bytes: tens of thousands of them


def path(store: Store) -> Path:
    return store.locations.baselines_file


def load(store: Store) -> list[Baseline]:
    """Every baseline; StoreError naming the file if it cannot be read (it is left as it is)."""
    file = path(store)
    try:  # one checked descriptor: a FIFO there must not hang `check` and History
        text = read_checked(file, MAX_BYTES)[0].decode("utf-8")
    except Unreadable as exc:
        if exc.kind == "missing":
            return []
        raise StoreError(f"{file}: cannot read: {exc.said(MAX_BYTES)}") from None
    except UnicodeDecodeError as exc:
        raise StoreError(f"{file}: cannot read: {exc}") from exc
    try:
        data = loads_toml(text)
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
            added = entry.get("added", [])
            if not isinstance(added, list) or not all(isinstance(a, str) for a in added):
                raise ValueError("a baseline's added results must be a list of ids")
            out.append(Baseline(entry["disk"], entry["profile"], entry["result"], marked, tuple(added)))
        return out
    except ValueError as exc:  # TOMLDecodeError too
        raise StoreError(f"{file}: {exc} (fix or remove the file; labtui leaves it as it is)") from exc


def _save(store: Store, baselines: Sequence[Baseline]) -> None:
    data = {
        "schema": SCHEMA,
        "baselines": [
            {"disk": b.disk, "profile": b.profile, "result": b.result_id, "marked": b.marked}
            | ({"added": list(b.added)} if b.added else {})
            for b in baselines
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


def _usable(result: RunResult) -> None:
    if result.status != "completed":
        raise LabtuiError(f"result {result.id} is {result.status}: only a completed result can be a baseline")
    if not any(s.status == "completed" for s in result.steps):
        raise LabtuiError(f"result {result.id} has no completed step to check against")


def runs_per_step(results: Sequence[RunResult]) -> int:
    """The fewest completed runs any step of the baseline's results has (what a check can lean on)."""
    counts: dict[str, int] = {}
    for result in results:
        for step in result.steps:
            if step.status == "completed":
                counts[step.name] = counts.get(step.name, 0) + 1
    return min(counts.values(), default=0)


def mark(store: Store, result: RunResult, added: Sequence[RunResult] = ()) -> tuple[Baseline, Baseline | None]:
    """Make `result` (and `added`, more runs of it) the baseline of its disk and profile.

    Returns it and the one it replaced: None where there was none, or it was of `result` itself
    (marking the baseline again replaces no result).
    """
    _usable(result)
    for other in added:
        _same_kind(result, other)
    ids = tuple(dict.fromkeys(r.id for r in added if r.id != result.id))
    baseline = Baseline(result_disk(result), result.profile.name, result.id, now(), ids)
    with _locked(store):
        current = load(store)
        replaced = next((b for b in current if (b.disk, b.profile) == (baseline.disk, baseline.profile)
                         and b.result_id != result.id), None)
        kept = [b for b in current if (b.disk, b.profile) != (baseline.disk, baseline.profile)]
        _save(store, kept + [baseline])
    return baseline, replaced


def _same_kind(result: RunResult, other: RunResult) -> None:
    _usable(other)
    if (result_disk(other), other.profile.name) != (result_disk(result), result.profile.name):
        raise LabtuiError(
            f"result {other.id} ran {other.profile.name} on {result_disk(other)}, not {result.profile.name} on "
            f"{result_disk(result)}: a baseline's runs must be of one profile on one disk"
        )


def add(store: Store, result: RunResult, more: Sequence[RunResult]) -> Baseline:
    """Add `more` runs to the baseline that holds `result` (marking `result` first if none does)."""
    for other in more:
        _same_kind(result, other)
    with _locked(store):
        current = load(store)
        holder = next((b for b in current if result.id in b.result_ids), None)
        if holder is None:
            _usable(result)
            holder = Baseline(result_disk(result), result.profile.name, result.id, now())
        ids = tuple(dict.fromkeys(holder.added + tuple(r.id for r in more if r.id not in holder.result_ids)))
        updated = Baseline(holder.disk, holder.profile, holder.result_id, holder.marked, ids)
        kept = [b for b in current if (b.disk, b.profile) != (updated.disk, updated.profile)]
        _save(store, kept + [updated])
    return updated


def holding(store: Store, result_id: str) -> Baseline | None:
    """The baseline that holds a result (marked or added), if any."""
    return next((b for b in load(store) if result_id in b.result_ids), None)


def clear(store: Store, result_id: str) -> list[Baseline]:
    """Stop using a result in a baseline; returns the baselines it was in (NotFoundError if none).

    The marked result takes its whole baseline with it; an added run just leaves its baseline.
    """
    with _locked(store):
        current = load(store)
        touched = [b for b in current if result_id in b.result_ids]
        if not touched:
            raise NotFoundError(f"result {result_id} is not a baseline")
        kept = []
        for b in current:
            if b.result_id == result_id:
                continue
            if result_id in b.added:
                b = Baseline(b.disk, b.profile, b.result_id, b.marked, tuple(a for a in b.added if a != result_id))
            kept.append(b)
        _save(store, kept)
    return touched


def ids(store: Store) -> set[str]:
    """The ids of the results that are baselines or part of one (for marking them in listings)."""
    return {i for b in load(store) for i in b.result_ids}


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

