"""The panel under the Disks screen's table: what a person wants to know about the highlighted row
before choosing it (the disk, its link and health, the volume, whether the profile fits)."""

from __future__ import annotations

from textual.content import Content

from labtui.analysis import bottleneck
from labtui.machine.devices import Disk
from labtui.machine.target_choice import Target, refusal, space_shortfall
from labtui.model.profile import Profile
from labtui.model.result import DriveFacts
from labtui.render.drive import health_cells
from labtui.units import human_size
from labtui.widgets.volume_table import Row


def detail_lines(row: Row, profile: Profile | None, target: Target | None, marked: set[str],
                 health: dict[str, tuple[DriveFacts | None, str | None]]) -> list[Content]:
    """What a person wants to know before choosing this row, warnings in the warning colour."""
    lines: list[Content] = []
    warn = "$warning"
    disk, volume = row.disk, row.volume
    if disk is not None:
        # "931 GiB NVMe disk": the disk's size said as the disk's, beside the file system's below.
        facts = [disk.path, f"{human_size(disk.size_bytes)} {disk.kind} disk", disk.model or "model unknown"]
        if disk.firmware:
            facts.append(f"firmware {disk.firmware}")
        lines.append(Content(" · ".join(facts)))
        note = bottleneck.disk_note(disk)
        link = bottleneck.link_of(disk)
        if note is not None:
            lines.append(Content.styled(f"Link {note}", warn))
        elif link is not None:
            lines.append(Content(f"Link {link.describe()}"))
        lines += health_lines(disk, health)
    if volume is None:
        lines.append(Content("Nothing on this disk is mounted: mount a file system on it to run here."))
        return lines
    lines.append(Content(
        f"{volume.mount_point} · {volume.filesystem} on {volume.device or volume.source} · "
        f"{human_size(volume.size_bytes)} file system, {human_size(volume.free_bytes)} free"
    ))
    problem = refusal(volume, profile)
    shortfall = space_shortfall(volume.free_bytes, profile) if volume.usable else None
    if problem:
        lines.append(Content.styled(f"Cannot be chosen: {problem}", warn))
    elif shortfall:
        lines.append(Content.styled(f"Warning: {shortfall}", warn))
    elif target is not None and target.mount_point == volume.mount_point:
        lines.append(Content(f"The target: runs write to {target.directory}. Enter picks another directory."))
    elif profile is not None:
        lines.append(Content(f"Room for {profile.name}: it needs {human_size(profile.space_needed)}. "
                             "Enter chooses this volume."))
    if marked:
        n = len(marked)
        what = "this one" if n == 1 and row.key in marked else f"{n} volume{'s' if n != 1 else ''}"
        lines.append(Content(f"Marked: {what}. R runs {profile.name if profile else 'the profile'} on each "
                             "marked volume in turn, then compares them."))
    return lines


def health_lines(disk: Disk, read: dict[str, tuple[DriveFacts | None, str | None]]) -> list[Content]:
    """The drive's temperature, health and PCIe errors, with what said so (nothing where not read)."""
    if disk.name not in read:
        return []
    facts, problem = read[disk.name]
    temp, health, aer, source = health_cells(facts, problem)
    if facts is None:
        return [Content(f"Drive health: {source}")]
    line = Content(f"Temperature {temp} · health {health} · PCIe errors {aer} · from {source}")
    return [Content.styled(line.plain, "$error") if facts.critical_warning else line]
