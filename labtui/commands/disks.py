"""List this machine's disks and mounted volumes."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labtui.analysis.bottleneck import Link
    from labtui.machine.devices import Disk

HELP = "list disks and mounted volumes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--all", action="store_true", help="include kernel pseudo file systems and empty devices")


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from rich import box
    from rich.table import Table

    from labtui.analysis import bottleneck
    from labtui.commands.common import print_json, stdout
    from labtui.machine import devices
    from labtui.machine.drive import disk_facts
    from labtui.render.drive import health_json
    from labtui.render.fitting import Fitted
    from labtui.render.words import Words
    from labtui.units import human_size

    disks = devices.list_disks(include_empty=args.all)
    volumes = devices.list_volumes(include_noise=args.all)
    health = {d.name: disk_facts(d.name) for d in disks}
    if args.json:
        print_json(
            {
                "host": asdict(devices.host_info()),
                "disks": [devices.as_dict(d) | {"link": _link_json(bottleneck.link_of(d), d),
                                                "health": health_json(*health[d.name])} for d in disks],
                "volumes": [devices.as_dict(v) for v in volumes],
            }
        )
        return 0
    out = stdout()
    table = Table(box=box.SIMPLE_HEAD, title="Disks", title_justify="left")
    for name, justify in (("disk", "left"), ("kind", "left"), ("model", "left"), ("size", "right"),
                          ("firmware", "left"), ("link", "left"), ("serial", "left")):
        # A serial or firmware is copied into notes and tickets: wrap it, never cut it short.
        table.add_column(name, justify=justify, no_wrap=name in ("disk", "size"),  # type: ignore[arg-type]
                         overflow="fold" if name in ("serial", "firmware") else "ellipsis")
    notes = []
    for d in disks:
        link = bottleneck.link_of(d)
        table.add_row(d.path, d.kind, Words(d.model or "unknown"), human_size(d.size_bytes), Words(d.firmware or "-"),
                      Words(link.short_with_best if link else "-"), Words(d.serial or "-"),
                      style="yellow" if link is not None and link.downgraded else "")
        note = bottleneck.disk_note(d)
        if note:
            notes.append(f"{d.path}: link {note}")
    # Too narrow for every column whole (60 columns): the firmware goes first, then the serial.
    out.print(Fitted(table, optional=("firmware", "serial")))
    for note in notes:
        out.print(f"warning: {note}", style="yellow", highlight=False, markup=False)
    out.print(_health_table(disks, health))
    table = Table(box=box.SIMPLE_HEAD, title="Volumes", title_justify="left")
    for name, justify in (("mount point", "left"), ("file system", "left"), ("device", "left"), ("disk", "left"),
                          ("size", "right"), ("free", "right"), ("note", "left")):
        table.add_column(name, justify=justify, no_wrap=name in ("size", "free"),  # type: ignore[arg-type]
                         overflow="fold" if name in ("mount point", "device") else "ellipsis")
    for v in volumes:
        notes = [n for n, on in (("read-only", v.read_only), ("pseudo", v.pseudo)) if on]
        # A mount point folds at its slashes and hyphens ("/mnt/narr" over "ow-ram" cannot be copied).
        table.add_row(Words(v.mount_point), v.filesystem, Words(v.device or v.source), v.disk or "-",
                      human_size(v.size_bytes), human_size(v.free_bytes), Words(", ".join(notes)))
    out.print(Fitted(table, optional=("disk", "device")))
    return 0


def _health_table(disks: list[Disk], health: dict[str, Any]) -> Any:
    """Each disk's temperature, health and PCIe errors, where readable, and what said so."""
    from rich import box
    from rich.table import Table

    from labtui.render.drive import health_cells
    from labtui.render.fitting import Fitted
    from labtui.render.words import Words

    table = Table(box=box.SIMPLE_HEAD, title="Health", title_justify="left")
    for name in ("disk", "temperature", "health", "PCIe errors", "source"):
        table.add_column(name, no_wrap=name == "disk", overflow="fold")
    for d in disks:
        facts, problem = health[d.name]
        cells = health_cells(facts, problem)
        warned = facts is not None and bool(facts.critical_warning)
        table.add_row(d.path, *(Words(c) for c in cells), style="red" if warned else "")
    return Fitted(table, optional=("PCIe errors",))


def _link_json(link: Link | None, disk: Disk) -> dict[str, Any] | None:
    """A disk's link for --json: its name, ceiling, and whether it runs below the drive's best."""
    from labtui.analysis import bottleneck

    if link is None:
        return None
    return link.to_json() | {"note": bottleneck.disk_note(disk)}
