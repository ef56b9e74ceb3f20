"""List this machine's disks and mounted volumes."""

from __future__ import annotations

HELP = "list disks and mounted volumes"


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser.add_argument("--all", action="store_true", help="include kernel pseudo file systems and empty devices")


def run(args) -> int:
    from dataclasses import asdict

    from rich import box
    from rich.table import Table

    from labtui.commands.common import print_json, stdout
    from labtui.engine import devices
    from labtui.units import human_size

    disks = devices.list_disks(include_empty=args.all)
    volumes = devices.list_volumes(include_noise=args.all)
    if args.json:
        print_json(
            {
                "host": asdict(devices.host_info()),
                "disks": [devices.as_dict(d) for d in disks],
                "volumes": [devices.as_dict(v) for v in volumes],
            }
        )
        return 0
    out = stdout()
    table = Table(box=box.SIMPLE_HEAD, title="Disks", title_justify="left")
    for name, justify in (("disk", "left"), ("kind", "left"), ("model", "left"), ("size", "right"),
                          ("firmware", "left"), ("PCIe link", "left"), ("serial", "left")):
        # A serial or firmware is copied into notes and tickets: wrap it, never cut it short.
        table.add_column(name, justify=justify, no_wrap=name in ("disk", "size"),  # type: ignore[arg-type]
                         overflow="fold" if name in ("serial", "firmware") else "ellipsis")
    for d in disks:
        table.add_row(d.path, d.kind, d.model or "unknown", human_size(d.size_bytes), d.firmware or "-",
                      d.pcie_link or "-", d.serial or "-")
    out.print(table)
    table = Table(box=box.SIMPLE_HEAD, title="Volumes", title_justify="left")
    for name, justify in (("mount point", "left"), ("file system", "left"), ("device", "left"), ("disk", "left"),
                          ("size", "right"), ("free", "right"), ("note", "left")):
        table.add_column(name, justify=justify, no_wrap=name in ("size", "free"),  # type: ignore[arg-type]
                         overflow="fold" if name in ("mount point", "device") else "ellipsis")
    for v in volumes:
        notes = [n for n, on in (("read-only", v.read_only), ("pseudo", v.pseudo)) if on]
        table.add_row(v.mount_point, v.filesystem, v.device or v.source, v.disk or "-",
                      human_size(v.size_bytes), human_size(v.free_bytes), ", ".join(notes))
    out.print(table)
    return 0
