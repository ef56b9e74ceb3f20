"""The Workload editor's fields: what each is called, what its tooltip says, its choices where it has
a few; and the words a copy of a profile says of itself (its title and a description listing its
changes). No Textual: the forms (labtui.widgets.field_form) and the screen take them from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from labtui.errors import ValidationError
from labtui.model.profile import Profile
from labtui.tui.profile_draft import ProfileDraft, changes

if TYPE_CHECKING:
    from labtui.machine.target_choice import Target


@dataclass(frozen=True)
class FieldSpec:
    key: str
    label: str
    tooltip: str
    choices: tuple[tuple[str, Any], ...] = ()  # a Choice instead of a text input


YES_NO = (("yes", True), ("no", False))

PROFILE_SPECS = (
    FieldSpec("name", "Name", "The profile's file name and what `labtui run -p` takes: letters, digits, '.', '_', '-'"),
    FieldSpec("title", "Title", "A readable title"),
    FieldSpec("description", "Description", "What the profile is for"),
    FieldSpec("file_size", "Test file", "Size of the test file every I/O step uses: 1GiB, 20G (powers of 1024)"),
    FieldSpec("free_space_margin", "Free margin", "Space to leave free on the target beyond the test file"),
    FieldSpec("repeat", "Repeat", "Run every step this many times"),
    FieldSpec("precondition", "Precondition",
              "Sequential passes over the whole test file before the steps (SNIA's preconditioning: 2); 0 = none"),
)
# How repetitions run and are reported (what the CrystalDiskMark and KDiskMark presets set): the
# profile's too, in a section of their own under the steps, which they would push off a small screen.
PRESET_SPECS = (
    FieldSpec("aggregate", "Figure", "A step's figure from its repetitions: their mean (KDiskMark, fio), or the "
              "best pass, the highest IOPS and MiB/s and the lowest latency each on its own (CrystalDiskMark)",
              (("mean", "mean"), ("best", "best"))),
    FieldSpec("repeat_order", "Repeat order", "Run the whole profile Repeat times over, or each step Repeat times "
              "in a row (CrystalDiskMark, KDiskMark)", (("profile", "profile"), ("step", "step"))),
    FieldSpec("discard_first", "Prep pass", "Each step first runs once to prepare the drive; that pass is shown "
              "live and not counted (CrystalDiskMark 9)", YES_NO),
    FieldSpec("pause", "Pause", "Idle time before every pass but the run's first: 5s (CrystalDiskMark's interval); "
              "a step's own pause wins for that step"),
    FieldSpec("decimal_units", "MB/s", "Also show MB/s (10^6 bytes per second, CrystalDiskMark's unit, 4.86 % above "
              "MiB/s)", YES_NO),
)

STEP_SPECS = {
    s.key: s
    for s in (
        FieldSpec("name", "Step name", "The step's name in results"),
        FieldSpec("kind", "Kind", "I/O generates load on the test file; command times a shell command",
                  (("I/O", "io"), ("command", "command"))),
        FieldSpec("block_size", "Block size", "Size of each I/O: 4K, 64K, 1M (DiskSpd -b, fio --bs)"),
        FieldSpec("pattern", "Pattern", "Random or sequential offsets (DiskSpd -r / -s, fio rw=rand...)",
                  (("random", "random"), ("sequential", "sequential"))),
        FieldSpec("write_percent", "Write %", "Share of writes: 0 all reads, 100 all writes (DiskSpd -w, fio rwmixwrite)"),
        FieldSpec("threads", "Threads", "Worker threads or processes (DiskSpd -t, fio numjobs)"),
        FieldSpec("native_workers", "Processes", "How the native engine carries the threads (native_workers): auto, at "
                  "most one process per CPU, each driving several threads' I/Os; per-thread, one process per thread "
                  "(DiskSpd's shape); default, config.toml's native_workers (auto unless set there). The disk sees the "
                  "same I/O either way; fio and DiskSpd ignore it",
                  (("default", ""), ("auto", "auto"), ("per-thread", "per-thread"))),
        FieldSpec("outstanding", "Outstanding", "I/Os in flight per thread (DiskSpd -o, fio iodepth)"),
        FieldSpec("duration", "Duration", "Measured time: 500ms, 10s, 5m, 1h"),
        FieldSpec("warmup", "Warm-up", "Time before measuring starts; not counted"),
        FieldSpec("cooldown", "Cool-down", "Time after measuring ends; not counted"),
        FieldSpec("pause", "Pause", "Idle time before each of this step's passes (the post's script: 5s before its "
                  "300 s runs); empty = the profile's pause"),
        FieldSpec("cache", "Cache", "off bypasses the page cache (O_DIRECT, DiskSpd -Su); on is buffered",
                  (("off", "off"), ("on", "on"))),
        FieldSpec("write_through", "Write-through", "Writes wait for the media, not the drive's write cache "
                  "(DiskSpd -Sh, O_DSYNC, fio sync=dsync), as the post's script's -h asks", YES_NO),
        FieldSpec("latency", "Latency", "Measure per-I/O latency (DiskSpd -L)", YES_NO),
        FieldSpec("verify", "Verify data", "Every block written carries a header (this run, its offset, a checksum) "
                  "and every block read is checked against it: a block that does not read back as written fails the "
                  "step. Native engine, and fio's verify=; DiskSpd cannot. Needs whole 4 KiB blocks, cache off, and "
                  "a step that only writes or only reads (write, then read back in the next step)", YES_NO),
        FieldSpec("steady_state", "Steady state",
                  "Run rounds of Duration until steady: snia (SNIA PTS 2.0 on IOPS), snia:mib_s, snia:latency, or a "
                  "fio criterion such as iops_slope:0.1%; empty = one timed run"),
        FieldSpec("steady_window", "SS window", "Rounds the steady-state rule judges (SNIA: 5)"),
        FieldSpec("steady_max_rounds", "SS rounds", "At most this many rounds, steady or not (SNIA: 25)"),
        FieldSpec("command", "Command", "The shell command to time"),
        FieldSpec("workdir", "Work dir", "Where the command runs (empty: the target directory)"),
        FieldSpec("setup", "Setup", "Runs before the timed command (not timed)"),
        FieldSpec("cleanup", "Cleanup", "Runs after the timed command (not timed)"),
        FieldSpec("requires", "Requires", "Programs the command needs, by name or full path, separated by spaces: "
                  "zpaq fio. A run checks they are installed before it starts, and says how to install one missing"),
        FieldSpec("timeout", "Time limit", "Stop the command after this long: 10m, 1h"),
        FieldSpec("drop_caches", "Drop caches", "Drop the page cache before timing (needs root)", YES_NO),
        FieldSpec("sync", "Flush", "Count the time to get what the command wrote onto the disk", YES_NO),
    )
}


def field_label(path: str) -> str:
    """The model's field name as the editor labels it: 'steps[2].threads' -> 'step 2, Threads'."""
    match = re.match(r"^steps\[(\d+)\]\.(\w+)$", path)
    if match:
        spec = STEP_SPECS.get(match.group(2))
        return f"step {match.group(1)}, {spec.label if spec else match.group(2)}"
    spec = next((s for s in (*PROFILE_SPECS, *PRESET_SPECS) if s.key == path), None)
    return spec.label if spec else (path or "the profile")


def change_text(path: str, new: str, old: str) -> str:
    """One of `editing.changes()` as a description says it: 'test file 64MiB (was 1GiB)'."""
    if path == "steps":
        return f"{new} steps (was {old})"
    match = re.match(r"^steps\[\*\]\.(\w+)$", path)
    if match:
        return f"{field_label(f'steps[1].{match.group(1)}').split(', ', 1)[1].lower()} {new} in every step (was {old})"
    return f"{field_label(path).replace(', ', ' ').lower()} {new} (was {old})"


def as_copy(original: Profile, copy: Profile) -> Profile:
    """`copy`, a profile saved from `original` under a name of its own, with a title and a
    description of its own where they were left as `original` had them: those describe
    `original` (two "Quick sanity check" in every list, "10 s each" over a 2 s step)."""
    edits = changes(original, copy)
    title, description = copy.title, copy.description
    if title == original.title:
        base = original.title or original.name
        title = f"{base}, edited" if edits else f"{base} (copy)"
    if description == original.description:
        description = edits_text(original, copy)
    return replace(copy, title=title, description=description)


def edits_text(original: Profile, copy: Profile) -> str:
    """What a copy's description says of it: 'quick-sanity with block size 4KiB in every step (was
    64KiB)', or 'A copy of quick-sanity: ...' where nothing differs."""
    edits = changes(original, copy)
    if edits:
        shown = ", ".join(change_text(*edit) for edit in edits[:4])
        more = f" and {len(edits) - 4} more changes" if len(edits) > 4 else ""
        return f"{original.name} with {shown}{more}"
    return f"A copy of {original.name}" + (f": {original.description}" if original.description else "")


def described_against(description: str, profiles: list[Profile]) -> Profile | None:
    """The profile a description that `edits_text` made is written against ("quick-sanity with ...",
    "A copy of quick-sanity..."): a built-in of that name first. None for a description of the
    person's own."""
    match = re.match(r"^(?:A copy of (\S+?)(?::|$)|(\S+) with )", description)
    if match is None:
        return None
    name = match.group(1) or match.group(2)
    same = [p for p in profiles if p.name == name]
    return next((p for p in same if p.origin == "builtin"), same[0] if same else None)


def followed_description(draft: ProfileDraft, before: Profile | None, after: Profile | None,
                         profiles: list[Profile]) -> str | None:
    """A description that lists a copy's changes ("quick-sanity with block size 4KiB ...") lists
    them as they are now (`after` an edit, `before` it), until the person types one of their own:
    the new description, or None where it stays."""
    if draft.described or before is None or after is None or before == after:
        return None
    base = described_against(str(draft.fields["description"]), profiles)
    if base is None or base.name == draft.original.name and base.origin == draft.original.origin:
        return None
    if draft.fields["description"] != edits_text(base, before):
        return None  # said by the person, or of another state
    return edits_text(base, after)


def followed_title(draft: ProfileDraft, profiles: list[Profile]) -> str | None:
    """A copy's title as `as_copy` made it ("Quick sanity check (copy)", "..., edited") says whether the copy
    differs from the profile its description names, as that description does, until the person types a
    title of their own: the new title, or None where it stays. A copy made unedited and edited since kept
    "(copy)" beside a description listing its changes."""
    if draft.titled:
        return None
    base = described_against(str(draft.fields["description"]), profiles)
    if base is None or base.name == draft.original.name and base.origin == draft.original.origin:
        return None
    stem = base.title or base.name
    if draft.fields["title"] not in (f"{stem} (copy)", f"{stem}, edited"):
        return None  # the person's own words, or of another profile
    try:
        edited = bool(changes(base, draft.accepted()))
    except ValidationError:
        return None
    title = f"{stem}, edited" if edited else f"{stem} (copy)"
    return title if title != draft.fields["title"] else None


def space_warning(draft: ProfileDraft, target: Target | None, errors: dict[str, str]) -> str | None:
    """Why the target (as last scanned) has no room for the test file and the margin: the preflight's
    own rule, so what the editor accepts a run does not refuse for space. None where it has."""
    if target is None or target.free_bytes is None or errors.keys() & {"file_size", "free_space_margin"}:
        return None
    try:
        shortfall = draft.accepted().space_shortfall(target.free_bytes)
    except ValidationError:
        return None  # a rule over the whole profile refuses it: that error is shown
    return f"Too big for {target.directory}: {shortfall}" if shortfall else None
