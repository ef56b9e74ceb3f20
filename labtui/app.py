"""The Textual app: top-level screens as modes, keys, command palette, themes, and the choices a run uses.

The app holds what the screens share: the store, the chosen `profile` and `target` (which the
Run screen reads), whether a run is going (`run_active`, which makes quitting ask first), and the
colour theme (loaded from theme files, remembered in the settings). Everything the machine
provides — the device list, the clock, the home directory — can be passed in, so tests and
snapshots do not depend on the machine they run on.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen

from labtui.errors import LabtuiError
from labtui.model import Profile
from labtui.palette import LabtuiCommands, offered_bindings
from labtui.store import Store
from labtui.targets import DeviceScan, Target, scan_devices
from labtui.theming import (
    DEFAULT_THEME,
    LABTUI_VARIABLES,
    LAST_RESORT_THEME,
    load_themes,
    shipped_theme_dir,
    user_theme_dir,
)

_HERE = Path(__file__).resolve().parent


def _disks_screen() -> Screen:
    from labtui.screens.disks import DisksScreen

    return DisksScreen()


def _workload_screen() -> Screen:
    from labtui.screens.workload import WorkloadScreen

    return WorkloadScreen()


@dataclass(frozen=True)
class TopScreen:
    """A top-level screen: a mode with its key, its palette title and what it is for."""

    key: str
    title: str
    purpose: str
    make: Callable[[], Screen]  # imports the screen's module only when it is first shown


# The top-level screens in footer order. Part 2 adds Run and History here, nothing else.
SCREENS = {
    "disks": TopScreen("d", "Disks", "Disks and volumes: choose where a run writes", _disks_screen),
    "workload": TopScreen("w", "Workload", "Profiles and their steps: choose and edit what a run does",
                          _workload_screen),
}


class LabtuiApp(App[None]):
    TITLE = "labtui"
    CSS_PATH = [_HERE / "app.tcss", *sorted((_HERE / "widgets").glob("*.tcss"))]
    MODES = {mode: top.make for mode, top in SCREENS.items()}
    DEFAULT_MODE = "disks"
    COMMANDS = App.COMMANDS | {LabtuiCommands}
    BINDINGS = [
        *(Binding(top.key, f"switch_mode('{mode}')", top.title, id=f"screen-{mode}", tooltip=top.purpose)
          for mode, top in SCREENS.items()),
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="The keys of this screen and what they do"),
        Binding("ctrl+t", "change_theme", "Theme", id="theme", show=False,
                tooltip="Choose a colour theme (remembered for next time)"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave labtui (asks first while a run is going)"),
    ]

    # The choices a run uses; the Run screen reads them.
    profile: var[Profile | None] = var(None)
    target: var[Target | None] = var(None)
    # Set by the Run screen while a run is going: quitting then asks first.
    run_active: var[bool] = var(False)
    # The name of the profile with unsaved edits in the Workload screen, if any.
    unsaved_profile: var[str | None] = var(None)

    def __init__(
        self,
        *,
        store: Store | None = None,
        device_source: Callable[[], DeviceScan] | None = None,
        clock: Callable[[], datetime] | None = None,
        home: Path | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.store = store or Store()
        self.device_source = device_source or scan_devices
        self.clock = clock or datetime.now
        self.home = home or Path.home()
        self.cursor_blink = cursor_blink
        self._startup_warnings: list[tuple[str, str]] = []
        self._remember_theme = False
        self._settings_broken = self._check_settings_file()
        self._register_themes()
        # Restored before any screen exists, so every screen starts from the same choices.
        settings = self.store.load_settings()
        self.profile = self._initial_profile(settings)
        directory = settings.get("target")
        if isinstance(directory, str) and directory.startswith("/"):
            # The Disks screen fills in the volume facts once it has read the devices.
            self.target = Target(Path(directory))

    # ------------------------------------------------------------------ themes

    def _register_themes(self) -> None:
        themes, problems = load_themes([shipped_theme_dir(), user_theme_dir(self.store.config_dir)])
        for theme in themes:
            self.register_theme(theme)
        for problem in problems:
            self._startup_warnings.append(("Theme file skipped", f"{problem.path}: {problem.reason}"))
        fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else LAST_RESORT_THEME
        wanted = self.store.load_settings().get("theme")
        if isinstance(wanted, str) and wanted in self.available_themes:
            self.theme = wanted
        else:
            if wanted:
                self._startup_warnings.append(
                    ("Theme not found", f"the theme {wanted!r} is not available (broken or removed); using {fallback}")
                )
            self.theme = fallback

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # labtui's own variables for themes that do not set them (Textual's built-in ones).
        return dict(LABTUI_VARIABLES)

    def watch_theme(self, name: str) -> None:
        if self._remember_theme:
            self._save_setting("theme", name)

    def _check_settings_file(self) -> bool:
        """Whether the settings file exists but does not parse (then labtui never writes it)."""
        path = self.store.settings_path()
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return False
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            self._startup_warnings.append((
                "Settings not read",
                f"{path}: {exc}. labtui leaves it as it is and remembers nothing until it is fixed or removed.",
            ))
            return True
        return False

    def _save_setting(self, key: str, value: object) -> None:
        if self._settings_broken:
            return
        try:
            settings = self.store.load_settings()
            if settings.get(key) != value:
                self.store.save_settings({**settings, key: value})
        except LabtuiError as exc:
            self.notify(str(exc), title="Settings not saved", severity="warning")

    # ------------------------------------------------------------------ start

    def on_mount(self) -> None:
        self._remember_theme = True
        for title, message in self._startup_warnings:
            self.notify(message, title=title, severity="warning", timeout=12)

    def _initial_profile(self, settings: dict) -> Profile | None:
        name = settings.get("profile")
        builtin = settings.get("profile_origin") == "builtin"
        profiles, _broken = self.store.profiles()
        for p in profiles:
            if p.name == name and (p.origin == "builtin") == builtin:
                return p
        return next((p for p in profiles if p.name == "quick-sanity"), profiles[0] if profiles else None)

    # ------------------------------------------------------------------ choices

    def choose_profile(self, profile: Profile) -> None:
        """Make `profile` the one a run uses, and remember it for next time."""
        self.profile = profile
        self._save_setting("profile", profile.name)
        self._save_setting("profile_origin", "builtin" if profile.origin == "builtin" else "user")

    def choose_target(self, target: Target) -> None:
        """Make `target` the place a run writes, and remember it for next time."""
        self.target = target
        self._save_setting("target", str(target.directory))
        self.notify(f"Runs write to {target.describe()}", title="Target chosen")

    # ------------------------------------------------------------------ screens, help, quit

    def screen_modes(self) -> list[tuple[str, str, str]]:
        """(mode, title, what it is for) of every top-level screen, for the palette."""
        return [(mode, top.title, top.purpose) for mode, top in SCREENS.items()]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_mode":
            if self.screen.is_modal:
                return False
            # The current screen's own key is left out of the footer: room for the screen's keys.
            return not (parameters and parameters[0] == self.current_mode)
        return True

    def get_system_commands(self, screen: Screen):
        for command in super().get_system_commands(screen):
            if command.title == "Quit":
                yield SystemCommand("Quit", "Leave labtui (asks first while a run is going)", self.action_quit)
            elif command.title == "Keys":
                yield SystemCommand("Keys", "The keys of this screen and what they do", self.action_help)
            else:
                yield command

    def action_help(self) -> None:
        from labtui.screens.help import HelpScreen

        if self.screen.is_modal:
            return
        screen = self.screen
        top = SCREENS.get(self.current_mode)
        title = top.title if top else self.current_mode
        self.push_screen(HelpScreen(title, self.key_help(screen)))

    def key_help(self, screen: Screen):
        """The keys active on `screen` that labtui defines or shows: the focused widget's and the
        screen's first, then those that work everywhere (cursor keys and the like are left out)."""
        from labtui.screens.help import KeyHelp

        grouped: dict[tuple[str, str], list[str]] = {}
        info: dict[tuple[str, str], tuple[str, str]] = {}
        for key, active in offered_bindings(screen):
            binding = active.binding
            node = active.node
            if node is self:
                scope = "everywhere"
            elif node is screen:
                scope = "this screen"
            else:
                scope = f"in the {getattr(node, 'help_scope', None) or node.id or type(node).__name__}"
            ident = (binding.action, scope)
            grouped.setdefault(ident, []).append(self.get_key_display(binding.with_key(key)))
            info[ident] = (binding.description, active.tooltip or binding.tooltip)
        rows = [KeyHelp(" / ".join(keys), *info[ident], ident[1]) for ident, keys in grouped.items()]
        rows.append(KeyHelp(self.get_key_display(Binding("ctrl+p", "")), "Command palette",
                            "every action, searchable by name", "everywhere"))
        order = {"this screen": 1, "everywhere": 2}
        return sorted(rows, key=lambda r: order.get(r.scope, 0))

    async def action_quit(self) -> None:
        from labtui.screens.confirm import ConfirmModal

        if isinstance(self.screen, ConfirmModal):
            return
        reasons = []
        if self.run_active:
            reasons.append("A run is going: quitting stops it (its partial result is kept, marked aborted).")
        if self.unsaved_profile:
            reasons.append(f"Your edits to the profile {self.unsaved_profile} are not saved.")
        if not reasons:
            self.exit()
            return

        def answer(leave: bool | None) -> None:
            if leave:
                self.exit()

        self.push_screen(ConfirmModal("Quit labtui?", "\n".join(reasons), yes="Quit", no="Stay", danger=True), answer)


def run_app() -> int:
    """Run the TUI until the person quits; the exit code for the shell."""
    app = LabtuiApp()
    app.run()
    return app.return_code or 0
