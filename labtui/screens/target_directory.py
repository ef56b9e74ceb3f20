"""Pick the directory on a volume where runs write their test file: typed, or browsed to.

A modal that dismisses the chosen directory (a Path) or None when cancelled. The directory is
checked as it is typed (on the volume, an existing directory, writable), by the rule the run's
preflight applies: only labtui's own folder at the mount point may be missing (the runner makes
it when a run starts).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.text import Text, TextType
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DirectoryTree, Input, Static

from labtui.errors import ValidationError
from labtui.machine.devices import Volume
from labtui.machine.target_choice import check_directory, space_shortfall
from labtui.model.profile import Profile
from labtui.printable import printable, sentence
from labtui.tui.context import cursor_blinks
from labtui.units import human_size
from labtui.widgets.line_input import LineInput


class FolderTree(DirectoryTree):
    """Directories only, hidden ones left out: the test file goes in a folder, never a file."""

    # Plain marks rather than emoji: a Linux console font has no folder pictures.
    ICON_NODE = "+ "
    ICON_NODE_EXPANDED = "- "
    ICON_FILE = "  "

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths if not p.name.startswith(".") and _is_dir(p)]

    def process_label(self, label: TextType) -> Text:
        # A folder's name is anyone's who could make it there: shown, never obeyed (an escape code in
        # it would reach the terminal as one).
        return super().process_label(printable(label) if isinstance(label, str) else label)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


class PathInput(LineInput):
    """The path field: typing goes on at the end of the directory offered, except a key that starts a
    whole path (/ or ~) while that directory is untouched: it replaces it ("/data/bench" typed at once
    made "/root/data/bench", refused as no such directory)."""

    def __init__(self, offered: str, **kwargs: Any) -> None:
        super().__init__(offered, **kwargs)
        self.offered = offered

    async def _on_key(self, event: events.Key) -> None:
        if event.character in ("/", "~") and self.value == self.offered:
            self.value = ""  # LineInput's and Input's handlers, next in the class order, type the key


class TargetDirectoryModal(ModalScreen[Path | None]):
    CSS_PATH = "target_directory.tcss"
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="target-cancel", tooltip="Keep the current target"),
    ]

    def __init__(self, volume: Volume, volumes: list[Volume], directory: Path, profile: Profile | None) -> None:
        super().__init__()
        self.volume = volume
        self.volumes = volumes
        self.directory = directory
        self.profile = profile

    def compose(self) -> ComposeResult:
        volume = self.volume
        what = ", ".join(x for x in (volume.filesystem, volume.device or volume.source) if x)
        with Vertical(id="target-dialog", classes="dialog"):
            yield Static(f"Target directory on {volume.mount_point} ({what})", classes="dialog-title", markup=False)
            yield Static(id="target-space", markup=False)
            yield PathInput(str(self.directory), id="target-path", select_on_focus=False, compact=True)
            yield Static(id="target-check", markup=False)
            yield FolderTree(volume.mount_point, id="target-tree")
            yield Static(
                "Type a path or pick a folder below (Enter picks, Space opens it); Enter on the path confirms.",
                classes="dialog-hint",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Use this directory", id="use", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        path_input = self.query_one("#target-path", Input)
        path_input.cursor_blink = cursor_blinks(self.app)
        path_input.focus()
        path_input.cursor_position = len(path_input.value)
        tree = self.query_one(FolderTree)
        tree.auto_expand = False
        tree.root.set_label(self.volume.mount_point)
        free = self.volume.free_bytes
        shortfall = space_shortfall(free, self.profile)
        space = self.query_one("#target-space", Static)
        if shortfall:
            space.update(f"Warning: {shortfall}")
            space.add_class("-warning")
        elif free is not None and self.profile is not None:
            space.update(f"{human_size(free)} free; {self.profile.name} needs {human_size(self.profile.space_needed)}")
        else:
            space.display = False
        self._check(path_input.value)

    def _check(self, text: str) -> Path | None:
        label = self.query_one("#target-check", Static)
        try:
            path, note = check_directory(text, self.volume, self.volumes)
        except ValidationError as exc:
            label.update(sentence(exc.reason))
            label.set_class(True, "-error")
            self.query_one("#use", Button).disabled = True
            return None
        label.update(sentence(note))
        label.set_class(False, "-error")
        self.query_one("#use", Button).disabled = False
        return path

    def on_input_changed(self, event: Input.Changed) -> None:
        self._check(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_directory_tree_directory_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        event.stop()
        path_input = self.query_one("#target-path", Input)
        path_input.value = str(event.path)
        path_input.cursor_position = len(path_input.value)
        path_input.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "use":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        path = self._check(self.query_one("#target-path", Input).value)
        if path is not None:
            self.dismiss(path)
