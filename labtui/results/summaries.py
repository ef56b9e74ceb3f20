"""The summary index of saved results: one short row per result file, cached, for fast listings.

History (the TUI's and `labtui history`) lists every result, and parsing thousands of TOML files
takes seconds. The index keeps a summary row per file in `<data root>/cache/summaries.json`,
keyed by the file's name, mtime_ns, size and inode; only new or changed files are read again.
It is derived data: safe to delete, rebuilt when it is broken or was written by another
version, written atomically, and never the source of truth — opening a result reads its file.
A file that cannot be read is remembered as broken with its reason (and read again once it
changes), so a broken file costs nothing on the next listing either.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from labtui.errors import StoreError
from labtui.machine.checked_read import Unreadable, read_checked
from labtui.model.profile import OVERRIDDEN, SCHEMA
from labtui.model.result import RunResult, StepResult, disk_name, result_disk
from labtui.model.verification import ReadBack
from labtui.results.files import BrokenFile, atomic_write, json_safe

CACHE_FILE = "summaries.json"
MAX_CACHE_BYTES = 256 * 1024 * 1024  # about 100,000 results' rows; past it the cache is rebuilt from the files
# Bump when ResultSummary or StepSummary change, or what reading a result refuses (6: a negative
# count): an older cache is then rebuilt, not misread.
CACHE_VERSION = 11  # 7: no IOPS or MiB/s (null) for a step with no figures; 8: a verified run's read-back;
# 9: a CPU-bound step's reason (History marks its figures); 10: whether a verified run wrote its blocks;
# 11: the disk's device (it names a disk with no model)


@dataclass(frozen=True)
class StepSummary:
    """One step (one repetition) of a result: its headline figures."""

    name: str
    label: str
    kind: str
    repetition: int
    status: str
    iops: float | None  # None where the step has no figures (it failed before any I/O)
    mib_s: float | None
    latency_mean_ms: float | None = None
    latency_p99_ms: float | None = None
    cpu_percent: float | None = None
    wall_seconds: float | None = None
    # Each direction's p99, for a mixed step whose report has none of both together (see p99_cell).
    read_p99_ms: float | None = None
    write_p99_ms: float | None = None
    # Why the step was CPU-bound (StepResult.engine_bound): its figures are the CPUs' or the engine's
    # limit, not the disk's, and History marks them so; None: it was not.
    engine_bound: str | None = None

    @classmethod
    def of(cls, step: StepResult) -> StepSummary:
        return cls(
            name=step.name,
            label=step.step.label(),
            kind=step.step.kind,
            repetition=step.repetition,
            status=step.status,
            iops=step.total.iops if step.has_figures else None,
            mib_s=step.total.mib_s if step.has_figures else None,
            latency_mean_ms=json_safe(step.latency.mean),
            latency_p99_ms=json_safe(step.latency.p99),
            cpu_percent=json_safe(step.cpu_percent),
            wall_seconds=json_safe(step.wall_seconds),
            read_p99_ms=json_safe(step.read_latency.p99),
            write_p99_ms=json_safe(step.write_latency.p99),
            engine_bound=step.engine_bound,
        )


@dataclass(frozen=True)
class ResultSummary:
    """What a listing shows of one result, and where its file is."""

    id: str
    file: str  # the result file's name in the results folder
    started: datetime
    status: str
    source: str
    host: str | None
    disk_model: str | None
    disk_kind: str | None
    disk: str  # model.disk_identity(): the same disk whatever adapter or slot it sits in
    target: str
    filesystem: str | None
    profile: str
    profile_title: str
    engine: str
    engine_version: str | None
    tags: tuple[str, ...] = ()
    error: str | None = None
    source_file: str | None = None
    source_digest: str | None = None
    steps: tuple[StepSummary, ...] = ()  # every pass of every step, in the order they ran
    profile_description: str = ""
    aggregate: str = "mean"  # how the profile makes a step's figure of its passes (Profile.aggregate)
    # What its verified steps found (None: it verified nothing): History says whether the data came back.
    read_back: ReadBack | None = None
    disk_device: str | None = None  # TargetInfo.disk_device: what names a disk with no model ("loop0")

    @property
    def disk_name(self) -> str:
        """What History calls the disk (TargetInfo.disk_name): its model, else its device."""
        return disk_name(self.disk_model, self.disk_device, self.disk_kind)

    @property
    def overridden(self) -> bool:
        """Run with --duration, --file-size or --repeat (its description then says what ran)."""
        return self.profile_title.endswith(OVERRIDDEN)

    @classmethod
    def of(cls, result: RunResult, file: str) -> ResultSummary:
        return cls(
            id=result.id,
            file=file,
            started=result.started,
            status=result.status,
            source=result.source,
            host=result.host.name,
            disk_model=result.target.model,
            disk_kind=result.target.kind,
            disk=result_disk(result),
            target=result.target.path,
            filesystem=result.target.filesystem,
            profile=result.profile.name,
            profile_title=result.profile.title,
            engine=result.engine.name,
            engine_version=result.engine.version,
            tags=tuple(result.tags),
            error=result.error,
            source_file=result.source_file,
            source_digest=result.source_digest,
            steps=tuple(StepSummary.of(s) for s in result.steps),
            profile_description=result.profile.description,
            aggregate=result.profile.aggregate,
            read_back=result.read_back(),
            disk_device=result.target.disk_device,
        )

    def search_text(self) -> str:
        """Everything a filter matches against, lower-cased."""
        parts = [self.id, self.started.astimezone().strftime("%Y-%m-%d %H:%M"), self.status, self.source,
                 self.host or "", self.disk_model or "", self.disk_device or "", self.disk_kind or "", self.target,
                 self.filesystem or "", self.profile, self.profile_title, self.engine, *self.tags, self.source_file or ""]
        parts += [s.name for s in self.steps]
        return " ".join(parts).lower()

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["started"] = self.started.isoformat()
        data["tags"] = list(self.tags)
        data["steps"] = [{f.name: getattr(s, f.name) for f in fields(s)} for s in self.steps]
        if self.read_back is not None:
            data["read_back"] = {**asdict(self.read_back), "kinds": list(self.read_back.kinds),
                                 "bad_steps": list(self.read_back.bad_steps)}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResultSummary:
        values = dict(data)
        values["started"] = datetime.fromisoformat(values["started"])
        values["tags"] = tuple(values["tags"])
        values["steps"] = tuple(StepSummary(**s) for s in values["steps"])
        if values.get("read_back") is not None:
            facts = dict(values["read_back"])
            values["read_back"] = ReadBack(**{**facts, "kinds": tuple(facts["kinds"]),
                                              "bad_steps": tuple(facts["bad_steps"])})
        return cls(**values)


def cache_path(cache_dir: Path) -> Path:
    return cache_dir / CACHE_FILE


def _file_key(info: os.stat_result) -> list[int]:
    # The inode catches an atomic rewrite (a new file renamed over the old one) within one mtime tick.
    return [info.st_mtime_ns, info.st_size, info.st_ino]


def _read_cache(path: Path) -> dict[str, Any]:
    """The cached entries by file name; empty when the cache is missing, broken or another version's."""
    try:  # one checked descriptor: a FIFO in its place must not hang History
        data = json.loads(read_checked(path, MAX_CACHE_BYTES)[0].decode("utf-8"))
    except (Unreadable, UnicodeDecodeError, ValueError, RecursionError):
        return {}  # rebuilt from the result files, and written anew
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or data.get("schema") != SCHEMA:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _entry_from_cache(entry: Any, key: list[int], path: Path) -> ResultSummary | BrokenFile | None:
    """The cached row for a file if it is still valid for `key`; None means: read the file."""
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    try:
        if "broken" in entry:
            return BrokenFile(path, str(entry["broken"]))
        return ResultSummary.from_json(entry["summary"])
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
        return None  # a damaged entry: read the file again


def load_summaries(
    cache_dir: Path, files: Sequence[Path], read: Callable[[Path], RunResult],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[ResultSummary], list[BrokenFile]]:
    """A summary of every readable result of `files` (oldest first) and every file that could not be read.

    The store hands in what it holds (Store.summaries): its cache folder, its result files, and how
    it reads one (StoreError for a file that is not a result). Reads only the files the cache in
    `cache_dir` does not know in their current state, then saves the cache if anything changed.
    A cache that cannot be written (a read-only data root) only costs time.
    `progress(files done, files)` is called every so often while files are being read, for a
    listing that has to build its index first (seconds for thousands of results).
    """
    path = cache_path(cache_dir)
    cached = _read_cache(path)
    entries: dict[str, Any] = {}
    good: list[ResultSummary] = []
    broken: list[BrokenFile] = []
    changed = False
    done_reading = 0
    for done, file in enumerate(files):
        try:
            info = file.stat()
        except OSError as exc:
            if os.path.lexists(file):  # there, but not to be read: a link to nowhere, a loop of links
                what = f"a link to {os.readlink(file)}, " if file.is_symlink() else ""
                broken.append(BrokenFile(file, f"{what}cannot read: {exc.strerror or exc}"))
            continue  # else deleted while we listed
        key = _file_key(info)
        entry = cached.get(file.name)
        row = _entry_from_cache(entry, key, file)
        if row is None:
            changed = True
            done_reading += 1
            if progress is not None and done_reading % 50 == 0:
                progress(done, len(files))
            try:
                row = ResultSummary.of(read(file), file.name)
            except StoreError as exc:
                row = BrokenFile(file, str(exc).removeprefix(f"{file}: "))
            if isinstance(row, BrokenFile):
                entry = {"key": key, "broken": row.reason}
            else:
                entry = {"key": key, "summary": row.to_json()}
        if isinstance(row, BrokenFile):
            broken.append(row)
        else:
            good.append(row)
        entries[file.name] = entry
    if changed or set(cached) != set(entries):
        _write_cache(path, entries)
    good.sort(key=lambda s: (s.started, s.id))
    return good, broken


def _write_cache(path: Path, entries: dict[str, Any]) -> None:
    text = json.dumps({"version": CACHE_VERSION, "schema": SCHEMA, "entries": entries}, separators=(",", ":"),
                      allow_nan=False)
    with contextlib.suppress(OSError):
        atomic_write(path, text)


def previous_comparable(rows: Sequence[ResultSummary], result: RunResult) -> ResultSummary | None:
    """The latest completed result before `result` on the same disk with the same profile."""
    disk, name = result_disk(result), result.profile.name
    earlier = [
        r for r in rows
        if r.id != result.id and r.status == "completed" and r.started < result.started
        and r.profile == name and r.disk == disk
    ]
    return max(earlier, key=lambda r: (r.started, r.id), default=None)
