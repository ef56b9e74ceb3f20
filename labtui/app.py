"""The Textual app: top-level screens as modes, keys, command palette, themes, and the choices a run uses.

The app holds what the screens share: the store, the chosen `profile` and `target` (which the
Run screen reads), whether a run is going (`run_active`, which makes quitting ask first), and the
colour theme (loaded from theme files, remembered in the settings). Everything the machine
provides — the device list, the clock, the home and current directories — can be passed in, so
tests and snapshots do not depend on the machine they run on.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette, SearchIcon
from textual.reactive import var
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerState

from labtui.errors import ExitCode, LabtuiError
from labtui.machine.target_choice import DeviceScan, Target, scan_devices
from labtui.model.profile import RESULT_ORIGIN, Profile
from labtui.model.result import RunResult
from labtui.printable import printable
from labtui.results.recovery import recover_saves
from labtui.results.store import Store
from labtui.run import leftovers
from labtui.run.signals import STOP_SIGNALS, detach_from_terminal
from labtui.screens.top import SCREENS
from labtui.settings import Settings
from labtui.tui.command_palette import LabtuiCommands, offered_bindings
from labtui.tui.context import Command, LabtuiContext, RunControl
from labtui.tui.glyphs import ConsoleScrollBarRender, draws_plain, key_display, plain_console
from labtui.tui.priority import raise_ui_priority
from labtui.tui.quick_trial import QuickTrial
from labtui.tui.run_indicator import RunIndicator
from labtui.tui.theming import (
    DEFAULT_THEME,
    LABTUI_VARIABLES,
    LAST_RESORT_THEME,
    load_themes,
    shipped_theme_dir,
)
from labtui.tui.work import failure_text

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from labtui.screens.help import KeyHelp
    from labtui.screens.run import RunScreen

_HERE = Path(__file__).resolve().parent
# Textual's scrollbar, with whole-cell thumbs in an app that sets plain_glyphs.
ScrollBar.renderer = ConsoleScrollBarRender


class ConsolePalette(CommandPalette):
    """Textual's command palette, with a search icon the Linux console can draw."""

    def on_mount(self) -> None:
        if draws_plain(self.app):
            self.query_one(SearchIcon).icon = ">"


class LabtuiApp(App[None]):
    TITLE = "labtui"
    CSS_PATH = [_HERE / "app.tcss", *sorted((_HERE / "widgets").glob("*.tcss"))]
    MODES: ClassVar[dict[str, str | Callable[[], Screen]]] = {mode: top.make for mode, top in SCREENS.items()}
    DEFAULT_MODE = "disks"
    COMMANDS = App.COMMANDS | {LabtuiCommands}
    BINDINGS = [
        *(Binding(top.key, f"switch_mode('{mode}')", top.title, id=f"screen-{mode}", tooltip=top.purpose)
          for mode, top in SCREENS.items()),
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="The keys of this screen and what they do"),
        Binding("ctrl+t", "change_theme", "Theme", id="theme", show=False,
                tooltip="Choose a colour theme (remembered for next time)"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave labtui (asks first while a run is going)"),
        # Textual's own Tab is the screen's, run once the key has been offered to the focused field:
        # keys typed right after it (over ssh they arrive in one read) went to the field being left
        # ("Tab 5" put the 5 in Tags, not in repeat). Taken first, the focus moves before they come.
        Binding("tab", "app.focus_next", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", show=False, priority=True),
    ]

    # The choices a run uses; the Run screen reads them.
    profile: var[Profile | None] = var(None)
    target: var[Target | None] = var(None)
    # Set by the Run screen while a run is going: quitting then asks first.
    run_active: var[bool] = var(False)
    # The run that is going, as every screen's top line says it (the Run screen sets it, 1 Hz at most).
    run_indicator: var[RunIndicator | None] = var(None)
    # The name of the profile with unsaved edits in the Workload screen, if any.
    unsaved_profile: var[str | None] = var(None)
    # The Run screen while its run is going (it can `abort()` it); None otherwise.
    active_run: RunControl | None = None
    # The Run screen's Override fields (a quick trial): runs started there, and on marked volumes, take them.
    # (a var: the Disks screen's room figures follow them)
    quick_trial: var[QuickTrial] = var(QuickTrial())

    def __init__(
        self,
        *,
        store: Store | None = None,
        device_source: Callable[[], DeviceScan] | None = None,
        engine_check: Callable[[], list[tuple[str, str | None]]] | None = None,
        clock: Callable[[], datetime] | None = None,
        home: Path | None = None,
        cwd: Path | None = None,
        cursor_blink: bool = True,
        plain_glyphs: bool | None = None,
        hosts_file: str | None = None,
    ) -> None:
        super().__init__()
        self.hosts_file = hosts_file  # `labtui --hosts FILE`: the Fleet screen opens it
        # The Linux console's fonts lack braille, eighth blocks and ⏎ (labtui.tui.glyphs).
        self.plain_glyphs = plain_console() if plain_glyphs is None else plain_glyphs
        if self.plain_glyphs:
            self.add_class("-plain-glyphs")  # app.tcss swaps the borders the console cannot draw
        self.store = store or Store()
        self.device_source = device_source or scan_devices
        # Which engines can run here (name, why not): the machine's PATH unless a test injects it.
        self.engine_check = engine_check or self._engines_here
        self.clock = clock or datetime.now
        self.home = home or Path.home()
        # Where exports are written unless the person names another place: where labtui was started.
        self.cwd = cwd or working_directory(self.home)
        self.cursor_blink = cursor_blink
        self._startup_warnings: list[tuple[str, str]] = []
        self.stopped_by: str | None = None  # the signal that ended the app, if one did
        self.taking_to_run = False  # switching to the Run screen to start a run there (not a user's `r`)
        self.aborted_result: RunResult | None = None  # the run such a signal (or quitting) stopped
        self.stop_failure: str | None = None  # why stopping that run failed, if it did (said as labtui ends)
        self._remember_theme = False
        # config.toml, read once: the screens read the settings from here, and choices are saved through it.
        found = self.store.read_settings()
        self.settings = found.settings
        self._settings_broken = found.broken is not None  # then labtui never writes the file
        if found.broken is not None:
            self._startup_warnings.append((
                "Settings not read",
                f"{found.broken}. labtui leaves it as it is and remembers nothing until it is fixed or removed.",
            ))
        self._startup_warnings += [("Setting ignored", problem) for problem in found.problems.values()]
        # A run killed outright (kill -9, a crash) is said as the TUI starts, as the next run would say it.
        self._startup_warnings += [("An earlier run did not end", message)
                                   for message in leftovers.clean_up(self.store.home / "running")]
        self._startup_warnings += [("A result left half-saved", message) for message in recover_saves(self.store)]
        self._register_themes()
        # Restored before any screen exists, so every screen starts from the same choices.
        self.profile = self._initial_profile(self.settings)
        if self.settings.target is not None:
            # The Disks screen fills in the volume (or raw device) facts once it has read the devices.
            self.target = Target.at(Path(self.settings.target))

    def _engines_here(self) -> list[tuple[str, str | None]]:
        from labtui.engine.registry import engine_availability

        return engine_availability(self.settings.engines)

    # ------------------------------------------------------------------ themes

    def _register_themes(self) -> None:
        themes, problems = load_themes([shipped_theme_dir(), self.store.locations.themes_dir])
        for theme in themes:
            self.register_theme(theme)
        for problem in problems:
            self._startup_warnings.append(("Theme file skipped", f"{problem.path}: {problem.reason}"))
        fallback = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else LAST_RESORT_THEME
        wanted = self.settings.theme
        if wanted is not None and wanted in self.available_themes:
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
            self._save_settings(theme=name)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """A toast that reads no markup, whoever asks for it (every screen's notify() comes here).

        Toasts say paths, tags, profile and step names, a host's reasons and exceptions' messages:
        text from outside labtui, where Textual's default read "[red]" in a tag as a colour (it
        vanished from "Tags of ...") and "[/]" in a directory's name as a MarkupError that ended the
        TUI. `printable` too: a path picked from a folder listing is shown, not obeyed.
        """
        del markup  # never: there is no toast whose markup is labtui's own
        super().notify(printable(message), title=printable(title), severity=severity, timeout=timeout, markup=False)

    def _save_settings(self, **choices: str) -> None:
        """Remember `choices` (theme=..., target=...) in config.toml, beside whatever else the file holds now."""
        if self._settings_broken:
            return
        current = self.store.load_settings()  # edited by hand meanwhile, perhaps: that is kept
        updated = current.changed(**choices)
        try:
            if updated != current:
                self.store.save_settings(updated)
        except LabtuiError as exc:
            self.notify(str(exc), title="Settings not saved", severity="warning")
            return
        self.settings = updated

    # ------------------------------------------------------------------ start

    def on_mount(self) -> None:
        self._remember_theme = True
        for title, message in self._startup_warnings:
            self.notify(message, title=title, severity="warning", timeout=12)
        if self.hosts_file is not None:
            self.switch_mode("fleet")
        if not self.is_headless:
            self._handle_signals()
            # Textual's input and output threads exist by now: they are raised with the loop's.
            raise_ui_priority()

    # ------------------------------------------------------------------ signals

    def _handle_signals(self) -> None:
        """SIGTERM, SIGHUP and SIGINT stop a run cleanly (result saved as aborted) and restore the terminal.

        Without this a signal would kill labtui mid-frame: the terminal left in raw mode on the
        alternate screen, the engine's workers and the test file left behind.
        """
        loop = asyncio.get_running_loop()
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._on_signal, signum)

    def _on_signal(self, signum: int) -> None:
        if signum == signal.SIGHUP:
            self._detach_from_terminal()
        if self.stopped_by is not None:
            return  # already stopping: the run's cleanup takes a second or two
        self.stopped_by = signal.Signals(signum).name
        self.leave(failed_if_aborted=True)

    def _detach_from_terminal(self) -> None:
        # The terminal is gone: writes to it would fail (and Textual's writer would then block).
        detach_from_terminal()
        # Stop the input thread reading a terminal that is not there. Only the flag: joining the
        # thread here (the driver's disable_input) would deadlock, as it may be waiting on this loop.
        exit_event = getattr(getattr(self, "_driver", None), "exit_event", None)
        if exit_event is not None:
            exit_event.set()

    @work(group="leave", exit_on_error=False)
    async def leave(self, *, failed_if_aborted: bool = False) -> None:
        """Stop the run that is going (its partial result saved), then end labtui."""
        await self.stop_run()
        failed = failed_if_aborted and self.aborted_result is not None
        self.exit(return_code=ExitCode.FAILED if failed else ExitCode.OK)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Stopping the run to quit or on a signal raised: labtui must not stay open with the run
        # in an unknown state, nor end in silence. It ends, and says why in one line (run_app).
        worker = event.worker
        if worker.group == "leave" and event.state == WorkerState.ERROR and worker.error is not None:
            self.stop_failure = failure_text(worker.error)
            self.exit(return_code=ExitCode.FAILED)

    async def stop_run(self) -> None:
        """Stop the run that is going, if any, and wait until its partial result is saved."""
        run = self.active_run
        if run is None:
            return
        await run.abort(self.stopped_by or "quitting labtui")
        self.aborted_result = run.outcome

    def _initial_profile(self, settings: Settings) -> Profile | None:
        name = settings.profile
        builtin = settings.profile_origin == "builtin"
        profiles, _broken = self.store.profiles()
        for p in profiles:
            if p.name == name and (p.origin == "builtin") == builtin:
                return p
        return next((p for p in profiles if p.name == "quick-sanity"), profiles[0] if profiles else None)

    # ------------------------------------------------------------------ choices

    def choose_profile(self, profile: Profile) -> None:
        """Make `profile` the one a run uses, and remember it for next time (a profile file only)."""
        self.profile = profile
        if profile.origin.partition(":")[0] == RESULT_ORIGIN:
            return
        self._save_settings(profile=profile.name, profile_origin="builtin" if profile.origin == "builtin" else "user")

    def choose_target(self, target: Target) -> None:
        """Make `target` the place a run writes, and remember it for next time."""
        self.target = target
        self._save_settings(target=str(target.directory))
        self.notify(f"Runs write to {target.describe()}", title="Target chosen")

    def remember_engine(self, name: str) -> None:
        self._save_settings(engine=name)

    def remember_hosts_file(self, path: str) -> None:
        self._save_settings(hosts_file=path)

    def request_run(self, result: RunResult) -> None:
        """Run `result`'s profile again on its target with its engine, once the person says so: the
        Run screen starts it.

        A single key (History's `a`) must not start writing: the question names the profile, the
        target, the test file and the time, and Enter or y goes. The profile as it ran becomes the
        chosen one (the Workload editor opens it), so the header, the editor and the Run screen all
        name what runs; unsaved edits in the editor would be replaced, which the question says too
        (and then starts on "no").
        """
        from labtui.screens.confirm import ConfirmModal
        from labtui.tui.run_plan import run_question

        if self.run_active:
            self.notify("A run is going: wait for it or cancel it on the Run screen (r).", severity="warning")
            return
        directory = Path(result.target.path)
        target = self.target
        if target is None or target.directory != directory:
            target = Target.at(directory, self.device_source())
        body = run_question(result.profile, target, result.engine.name)
        if result.source == "import":
            body = ("An imported result records another tool's run: its workload runs with labtui's engines, which "
                    f"makes a new, comparable result.\n{body}")
        unsaved = self.unsaved_profile

        def answer(yes: bool | None) -> None:
            if yes:
                if unsaved:
                    self.unsaved_profile = None
                self._run_again(result, target)

        if unsaved:
            body = (f"Your edits to {unsaved} are not saved: running {result.profile.name} again opens it in the "
                    f"editor instead, and the edits are lost.\n{body}")
            self.push_screen(ConfirmModal(f"Discard your edits and run {result.profile.name} again?", body,
                                          yes="Discard and run", no="Keep editing", danger=True), answer)
            return
        self.push_screen(ConfirmModal(f"Run {result.profile.name} again?", body, yes="Run", no="Not now"), answer)

    @property
    def profile_as_run(self) -> Profile | None:
        """The chosen profile as the next run takes it: with the Run screen's Override fields where they
        apply (refused: the Run screen says why as the run would start, and the profile's own stands)."""
        profile = self.profile
        if profile is not None:
            with contextlib.suppress(LabtuiError):
                return self.quick_trial.apply(profile)
        return profile

    def run_on_volumes(self, targets: list[Target]) -> None:
        """Run the chosen profile on each of `targets` in turn, once the person says so (the Run screen
        starts them and ends on their comparison), as `labtui run --all-volumes` does for every
        eligible volume. The question names the volumes, the directories, the test file and the time."""
        from labtui.screens.confirm import ConfirmModal
        from labtui.tui.run_plan import volumes_question

        if self.run_active:
            self.notify("A run is going: wait for it or cancel it on the Run screen (r).", severity="warning")
            return
        profile = self.profile
        if profile is None:
            self.notify("Choose a profile on the Workload screen (w) first.", severity="warning")
            return
        profile = self.profile_as_run or profile

        def answer(yes: bool | None) -> None:
            if yes:
                screen = self._show_run_screen()
                screen.post_message(screen.RunOnVolumes(list(targets)))

        count = f"{len(targets)} volume{'s' if len(targets) != 1 else ''}"
        self.push_screen(ConfirmModal(f"Run {profile.name} on {count}?", volumes_question(profile, targets),
                                      yes="Run", no="Not now"), answer)

    def _run_again(self, result: RunResult, target: Target) -> None:
        # The profile exactly as it ran (durations and file size included), not today's file of that name.
        self.profile = replace(result.profile, origin=f"{RESULT_ORIGIN}:{result.id}")
        if self.target is None or self.target.directory != target.directory:
            self.target = target
        screen = self._show_run_screen()
        screen.post_message(screen.RunAgain(result))

    def _show_run_screen(self) -> RunScreen:
        self.taking_to_run = True  # a run (or its question) comes next: the cursor is not put in the tags
        try:
            self.switch_mode("run")
        finally:
            self.taking_to_run = False
        # A result or comparison opened from the Run screen stays on top of it in its mode: the Run
        # screen itself must be on show, or the run would start only once that is closed.
        from labtui.screens.run import RunScreen

        while len(self.screen_stack) > 1 and not isinstance(self.screen, RunScreen):
            self.pop_screen()
        screen = self.screen
        assert isinstance(screen, RunScreen)
        return screen

    # ------------------------------------------------------------------ screens, help, quit

    def screen_modes(self) -> list[tuple[str, str, str]]:
        """(mode, title, what it is for) of every top-level screen, for the palette."""
        return [(mode, top.title, top.purpose) for mode, top in SCREENS.items()]

    def footer_secondary(self) -> tuple[str, ...]:
        """The app's keys a footer too narrow for every key leaves out, after the screen's own (labtui.widgets.keys_footer)."""
        return ("screen-fleet",)

    def on_key(self, event: events.Key) -> None:
        # A character that reaches the app while a text field has focus did not go through that field:
        # it was typed ahead of a screen, dialog or field that a key before it opened (Enter, a), and
        # Textual had queued it for what had focus then. It is the field's, not a binding's (q would
        # quit): it goes to the field, after the field's own Focus (where the cursor goes to the end).
        if not self.screen_stack:
            # In the instant a mode's first screen is made (r and a tag in one read): self.focused raised
            # ScreenStackError, a traceback. With no screen the key has nowhere to go: it is dropped.
            event.prevent_default()
            event.stop()
            return
        field = self.focused
        if event.is_printable and isinstance(field, (Input, TextArea)) and not getattr(field, "read_only", False):
            event.prevent_default()  # App's own handler, next in the class order, runs the bindings
            event.stop()
            field.post_message(events.Key(event.key, event.character))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_mode":
            if self.screen.is_modal:
                return False
            # The current screen's own key is left out of the footer: room for the screen's keys.
            return not (parameters and parameters[0] == self.current_mode)
        return True

    def get_system_commands(self, screen: Screen) -> Iterator[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title == "Quit":
                yield SystemCommand("Quit", "Leave labtui (asks first while a run is going)", self.action_quit)
            elif command.title == "Keys":
                yield SystemCommand("Keys", "The keys of this screen and what they do", self.action_help)
            else:
                yield command

    def get_key_display(self, binding: Binding) -> str:
        display = super().get_key_display(binding)
        return key_display(display, binding.key) if self.plain_glyphs else display

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]  # App[None] is an App
            self.push_screen(ConsolePalette(id="--command-palette"))

    def action_help(self) -> None:
        from labtui.screens.help import HelpScreen
        from labtui.widgets.context_bar import ContextBar

        if self.screen.is_modal:
            return
        screen = self.screen
        # The screen on show names itself (a result opened from the Run screen is "Result", not "Run").
        bars = screen.query(ContextBar)
        top = SCREENS.get(self.current_mode)
        title = bars.first().screen_title if bars else top.title if top else self.current_mode
        note = getattr(screen, "help_note", lambda: None)()
        self.push_screen(HelpScreen(title, self.key_help(screen), note))

    def key_help(self, screen: Screen) -> list[KeyHelp]:
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

        if isinstance(self.screen, ConfirmModal) or self.stopped_by is not None:
            return
        reasons = []
        if self.run_active:
            reasons.append("A run is going: quitting stops it (its partial result is kept, marked aborted).")
        if self.unsaved_profile:
            reasons.append(f"Your edits to the profile {self.unsaved_profile} are not saved.")
        if not reasons:
            self.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.leave()

        self.push_screen(ConfirmModal("Quit labtui?", "\n".join(reasons), yes="Quit", no="Stay", danger=True), answer)


    def palette_commands(self) -> Iterator[Command]:
        """Commands the palette offers on every screen, besides going to a screen."""
        if self.current_mode != "history":
            yield ("Compare marked results", "Compare the results marked in History (Space marks them there)",
                   self.compare_marked)

    def palette_searches(self) -> Iterator[Command]:
        """Commands a palette search finds on every screen but the list does not show: opening
        any profile by name (the Workload screen lists them itself)."""
        if self.current_mode == "workload":
            return
        profiles, _broken = self.store.profiles()
        for profile in profiles:
            where = "built in" if profile.origin == "builtin" else "yours"
            yield (f"Open profile {profile.name}", f"{profile.title or profile.name} ({where}): in the Workload editor",
                   partial(self.open_profile, profile))

    def open_profile(self, profile: Profile) -> None:
        """Show `profile` in the Workload editor, which makes it the chosen one (asking first if
        that would lose unsaved edits)."""
        self.switch_mode("workload")
        self.call_after_refresh(lambda: getattr(self.screen, "open_profile", lambda _p: None)(profile))

    def compare_marked(self) -> None:
        self.switch_mode("history")
        self.call_after_refresh(lambda: getattr(self.screen, "action_compare", lambda: None)())


def _conforms(app: LabtuiApp) -> LabtuiContext:
    # mypy checks here that the app is what the screens take it for (labtui.tui.context).
    return app


def working_directory(fallback: Path) -> Path:
    """The current directory, or `fallback` where it no longer exists."""
    try:
        return Path.cwd()
    except OSError:
        return fallback


def run_app(hosts_file: str | None = None) -> int:
    """Run the TUI until the person quits; the exit code for the shell."""
    import sys

    store = Store()
    store.check_home()  # before the screen is taken: a home that is a file is one line on the shell, not an empty History
    app = LabtuiApp(store=store, hosts_file=hosts_file)
    app.run()
    line = exit_line(app)
    if line is not None and app.stopped_by != "SIGHUP":
        with contextlib.suppress(OSError):
            print(line, file=sys.stderr)
    return app.return_code or 0


def exit_line(app: LabtuiApp) -> str | None:
    """What the shell is told as labtui ends: the signal that stopped it and what became of the run,
    or why stopping the run failed; nothing after a plain quit."""
    if app.stop_failure is not None:
        how = f"stopped by {app.stopped_by}" if app.stopped_by is not None else "quitting"
        # Its test file and processes are then cleaned up as after a crash (engine/guardian.py, run/leftovers.py).
        return (f"labtui: {how}, but stopping the run failed: {app.stop_failure}; its partial result may not "
                "be saved")
    if app.stopped_by is None:
        return None
    result = app.aborted_result
    saved = f"; the run's partial result was saved as {result.id} (aborted)" if result is not None else ""
    return f"labtui: stopped by {app.stopped_by}{saved}"
