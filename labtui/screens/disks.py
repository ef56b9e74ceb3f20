"""The Disks screen: this machine's disks and volumes, and choosing where a run writes.

Discovery runs in a thread worker so the screen paints at once; F5 reads everything again.
Enter on a volume opens the directory picker; a volume a run cannot use (read-only, or memory
or a container overlay for a cache-off profile) is marked and refused with the reason. Space
marks volumes and R runs the profile on each marked one in turn, as the seed post's script
runs DiskSpd on every volume; the Run screen ends on their comparison.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker

from labtui.machine.devices import Disk
from labtui.machine.target_choice import DeviceScan, Target, default_directory, refusal, space_shortfall
from labtui.model.profile import Profile
from labtui.render.widths import fold_widths
from labtui.render.words import fold
from labtui.tui.context import Command, LabtuiScreen
from labtui.tui.styling import theme_style
from labtui.tui.work import post_found, report_failure
from labtui.units import human_size
from labtui.widgets.context_bar import ContextBar
from labtui.widgets.disk_detail import detail_lines
from labtui.widgets.keys_footer import KeysFooter
from labtui.widgets.volume_table import FOLDING, MARK, OPTIONAL, Row, VolumeTable, link_cell, table_rows, volume_kind


class DisksScreen(LabtuiScreen[None]):
    CSS_PATH = "disks.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("f5,ctrl+r", "refresh_devices", "Refresh", id="disks-refresh",
                tooltip="Read the disks, volumes and free space again"),
        Binding("space", "mark", "Mark", id="disks-mark",
                tooltip="Mark or unmark the volume: R runs the profile on each marked volume in turn"),
        Binding("R", "run_marked", "Run marked", id="disks-run-marked",
                tooltip="Run the profile on each marked volume in turn, then compare the results (asks first)"),
        # With nothing marked, R is not offered (the footer has no room to spare), yet pressed it says how.
        Binding("R", "nothing_marked", show=False),
        Binding("u", "unmark", "Unmark all", id="disks-unmark", show=False, tooltip="Clear every mark"),
    ]
    FOOTER_SECONDARY = ("disks-refresh",)

    class Scanned(Message):
        """The disks and volumes, read in a worker."""

        def __init__(self, scan: DeviceScan) -> None:
            super().__init__()
            self.scan = scan

    class RawTargetRead(Message):
        """The chosen raw device's facts (its first sectors, blkid), read in a worker."""

        def __init__(self, target: Target) -> None:
            super().__init__()
            self.target = target

    def __init__(self) -> None:
        super().__init__()
        self.scan: DeviceScan | None = None
        self.rows: dict[str, Row] = {}
        self.marked: list[str] = []  # row keys of the marked volumes, in the order they were marked
        self._scanning: Worker | None = None

    def compose(self) -> ComposeResult:
        yield ContextBar("Disks")
        with Vertical(id="disks-panel"):
            yield VolumeTable(id="volumes", cursor_type="row", zebra_stripes=True)
        yield Static(id="volume-detail", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#disks-panel").border_title = "Disks and volumes"
        self.watch(self.app, "profile", self._profile_changed, init=False)
        self.watch(self.app, "quick_trial", self._profile_changed, init=False)  # the room a run needs changes
        self.watch(self.app, "target", lambda _target: self._show_detail(), init=False)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._fill())
        self.action_refresh_devices()

    # ------------------------------------------------------------------ discovery

    def action_refresh_devices(self) -> None:
        table = self.query_one(VolumeTable)
        table.loading = True
        self.query_one("#volume-detail", Static).update("Reading disks and volumes…")
        self._scanning = self.scan_devices()

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False)
    def scan_devices(self) -> None:
        post_found(self, self.Scanned(self.lab.device_source()))

    def on_disks_screen_scanned(self, message: Scanned) -> None:
        table = self.query_one(VolumeTable)
        table.loading = False
        self.scan = message.scan
        stamp = self.lab.clock().strftime("%H:%M:%S")
        self.query_one("#disks-panel").border_title = f"Disks and volumes · read at {stamp}"
        self._fill()
        self._refresh_target()
        table.focus()
        self.refresh_bindings()

    def work_failed(self, worker: Worker, error: BaseException) -> None:
        if worker is not self._scanning:
            report_failure(self, "Could not read the target device", error)
            return
        self.query_one(VolumeTable).loading = False
        text = report_failure(self, "Could not read the disks", error)
        self.query_one("#volume-detail", Static).update(f"{text} (F5 tries again)")

    def _refresh_target(self) -> None:
        """Fill in (or update) the chosen target's volume (or raw device) facts from the new scan."""
        target: Target | None = self.lab.target
        if target is None or self.scan is None:
            return
        if target.raw:
            # Reading the device (its first sectors, blkid) is not for the UI thread.
            self.read_raw_target(target.directory, self.scan)
            return
        self.lab.target = Target.on(target.directory, self.scan.volume_of(target.directory))

    @work(thread=True, exclusive=True, group="raw-target", exit_on_error=False)
    def read_raw_target(self, directory: Path, scan: DeviceScan) -> None:
        post_found(self, self.RawTargetRead(Target.at(directory, scan)))

    def on_disks_screen_raw_target_read(self, message: RawTargetRead) -> None:
        current: Target | None = self.lab.target
        if current is not None and current.directory == message.target.directory:
            self.lab.target = message.target

    # ------------------------------------------------------------------ table

    def on_resize(self) -> None:
        if self.scan is not None:
            self._fill()

    def _columns(self, cells: list[dict[str, str]]) -> list[tuple[str, str]]:
        """The columns worth their width: narrow screens leave size and PCIe to the detail panel."""
        wide = self.size.width >= 110
        columns = [("device", "Device"), ("kind", "Kind"), ("model", "Model")]
        if wide:
            # A volume's size is its file system's (252 GiB on a 256 GiB disk): said so (a disk with
            # nothing mounted, "not mounted", has its own here).
            columns.append(("size", "FS size"))
        columns += [("free", "Free"), ("fs", "FS"), ("mount", "Mount point")]
        if wide and any(c.get("link") for c in cells):
            columns.append(("link", "Link"))
        if any(c.get("temp") for c in cells):
            columns.append(("temp", "Temp"))
        if any(c.get("note") for c in cells):
            columns.append(("note", "Note"))
        return columns

    def _fill(self) -> None:
        if self.scan is None:
            return
        table = self.query_one(VolumeTable)
        keep = None
        if table.row_count:
            keep = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        profile = self.lab.profile_as_run
        rows = table_rows(self.scan)
        cells = [self._cells(row, profile) for row in rows]
        # The screen's width, not the table's: the table may not be laid out yet on the first fill.
        offered = self._columns(cells)
        widths = fold_widths(offered, cells, max(20, self.size.width - 4), FOLDING, OPTIONAL)
        columns = [(key, label) for key, label in offered if key in widths]
        table.clear(columns=True)
        for key, label in columns:
            justify = "right" if key in ("size", "free") else "left"
            table.add_column(Text(label, justify=justify), key=key, width=widths[key])  # type: ignore[arg-type]
        self.rows = {}
        muted = theme_style(self.app, "foreground", dim=True)
        warn = theme_style(self.app, "warning", bold=True)
        for row, row_cells in zip(rows, cells):
            self.rows[row.key] = row
            style = muted if (row.volume is None or not row.volume.usable) else None
            texts = []
            for key, _label in columns:
                lines = fold(row_cells.get(key, ""), widths[key]) if key in FOLDING else [row_cells.get(key, "")]
                cell_style = warn if (key in ("free", "note") and row_cells.get("_low")
                                      or key == "note" and row_cells.get("_slow")) else style
                if key == "link" and link_cell(row.disk)[1]:
                    cell_style = warn
                texts.append(Text("\n".join(lines), style=cell_style or "",
                                  justify="right" if key in ("size", "free") else "left"))
            table.add_row(*texts, key=row.key, height=max(len(t.plain.split("\n")) for t in texts))
        self.marked = [key for key in self.marked if key in self.rows]  # a volume unmounted meanwhile
        if keep in self.rows:
            table.move_cursor(row=table.get_row_index(keep))
        self._show_detail()

    def _cells(self, row: Row, profile: Profile | None) -> dict[str, str]:
        disk, volume = row.disk, row.volume
        if volume is not None:
            # A pseudo file system's "source" is any word (tmpfs, none, overlay): not a device.
            device = "" if volume.pseudo and not volume.device else (volume.device or volume.source).removeprefix("/dev/")
        else:
            device = disk.name if disk else ""
        if row.key in self.marked:
            device = f"{MARK} {device}"
        cells = {
            "device": device,
            "kind": disk.kind if disk else (volume_kind(volume) if volume else ""),
            "model": (disk.model or "unknown") if disk else "",
            "size": human_size(volume.size_bytes if volume else disk.size_bytes if disk else None),
            "link": link_cell(disk)[0],
            "temp": self._temperature(disk),
        }
        if volume is None:
            cells.update(free="", fs="", mount="not mounted", note="")
            return cells
        notes = []
        if volume.read_only:
            notes.append("read-only")
        elif volume.pseudo:
            notes.append("cache-on only")
        low = volume.usable and space_shortfall(volume.free_bytes, profile) is not None
        if low:
            notes.append("low space")
        slow = link_cell(disk)[1] and self.size.width < 110
        if slow:
            notes.append("slow link")  # wide, the Link column shows it
        cells.update(
            free=human_size(volume.free_bytes),
            fs=volume.filesystem,
            mount=volume.mount_point,
            note=", ".join(notes),
        )
        if low:
            cells["_low"] = "1"
        if slow:
            cells["_slow"] = "1"
        return cells

    def _temperature(self, disk: Disk | None) -> str:
        facts = self.scan.health.get(disk.name, (None, None))[0] if disk is not None and self.scan else None
        return f"{facts.temperature_c:g} °C" if facts is not None and facts.temperature_c is not None else ""

    def _profile_changed(self, _profile: object) -> None:
        self._fill()

    # ------------------------------------------------------------------ marks

    def footer_secondary(self) -> tuple[str, ...]:
        # With volumes marked, R (run on each) is what comes next: Enter, choosing one, gives way.
        return self.FOOTER_SECONDARY + (("disks-choose",) if self.marked else ())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("run_marked", "unmark"):
            return bool(self.marked)
        if action == "nothing_marked":
            return not self.marked
        return True

    def action_mark(self) -> None:
        """Mark the volume under the cursor for a run on each marked volume (or unmark it)."""
        row = self.current_row()
        if row is None or self.scan is None:
            return
        if row.key in self.marked:
            self.marked.remove(row.key)
        else:
            problem = self._sweep_problem(row)
            if problem:
                self.notify(problem, title="Cannot mark it", severity="warning")
                return
            self.marked.append(row.key)
        self._fill()  # redraws the detail too
        self.refresh_bindings()

    def action_unmark(self) -> None:
        self.marked = []
        self._fill()
        self.refresh_bindings()

    def _sweep_problem(self, row: Row) -> str | None:
        """Why a run on every marked volume could not use `row`, or None."""
        if row.volume is None:
            return f"{row.disk.path if row.disk else 'This disk'} has no mounted file system: mount one to run on it"
        profile = self.lab.profile_as_run
        problem = refusal(row.volume, profile)
        if problem is None and profile is not None:
            problem = space_shortfall(row.volume.free_bytes, profile)
        return problem

    def action_nothing_marked(self) -> None:
        self.notify("Mark volumes with Space, then press R: the profile runs on each marked volume in turn.",
                    title="Run marked", severity="warning")

    def action_run_marked(self) -> None:
        """Run the profile on each marked volume in turn (the Run screen runs them and ends on their comparison)."""
        if self.scan is None or not self.marked:
            return
        targets = []
        volumes = list(self.scan.volumes)
        for key in self.marked:
            row = self.rows.get(key)
            problem = "it is no longer mounted" if row is None else self._sweep_problem(row)
            if problem or row is None or row.volume is None:  # _sweep_problem names a row without a volume
                self.notify(f"{key.removeprefix('vol:')}: {problem}", title="Not started", severity="error")
                return
            targets.append(Target.on(default_directory(row.volume, self.lab.home, volumes), row.volume))
        self.lab.run_on_volumes(targets)

    # ------------------------------------------------------------------ detail and choice

    def current_row(self) -> Row | None:
        table = self.query_one(VolumeTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.rows.get(key or "")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#volume-detail", Static)
        row = self.current_row()
        if row is None:
            detail.update("No disks or volumes found." if self.scan is not None else "Reading disks and volumes…")
            return
        health = self.scan.health if self.scan is not None else {}
        lines = detail_lines(row, self.lab.profile_as_run, self.lab.target, set(self.marked), health)
        detail.update(Content("\n").join(lines))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.choose(self.rows.get(event.row_key.value or ""))

    def action_choose_current(self) -> None:
        """Enter on the table: the dialog opens as the key is handled, so keys typed after it reach it."""
        self.choose(self.current_row())

    def choose(self, row: Row | None) -> None:
        """Offer the directory picker for `row`'s volume, or say why it cannot be chosen."""
        from labtui.screens.target_directory import TargetDirectoryModal

        if row is None or self.scan is None:
            return
        if not self.is_current:
            # A key typed right after Enter (r, h …) took labtui to another screen before the
            # table's message got here: a dialog of this screen must not open over that one.
            return
        if row.volume is None:
            self.notify(f"{row.disk.path if row.disk else 'This disk'} has no mounted file system: "
                        "mount one to run on it", severity="warning")
            return
        profile = self.lab.profile_as_run
        problem = refusal(row.volume, profile)
        if problem:
            self.notify(problem, title="Cannot run there", severity="error")
            return
        volumes = list(self.scan.volumes)
        current: Target | None = self.lab.target
        if current is not None and current.mount_point == row.volume.mount_point:
            start = current.directory
        else:
            start = default_directory(row.volume, self.lab.home, volumes)
        volume = row.volume

        def chosen(directory: Path | None) -> None:
            if directory is not None:
                self.lab.choose_target(Target.on(directory, volume))

        self.app.push_screen(TargetDirectoryModal(volume, volumes, start, profile), chosen)

    def palette_commands(self) -> Iterator[Command]:
        """Extra command-palette entries: choose any usable volume by name."""
        for row in self.rows.values():
            if row.volume is not None and row.volume.usable:
                yield (f"Choose target {row.volume.mount_point}",
                       f"Run on {row.volume.mount_point} ({row.volume.filesystem})",
                       partial(self.choose, row))
