"""The command palette's labtui commands: go to a screen, and whatever the current screen can do.

The current screen's actions come from its key bindings (description and tooltip), so the
palette, the footer and the help screen never disagree; a screen may add more entries (e.g.
"Open profile cdm-nvme") through a `palette_commands()` method, and the app entries that are
offered only to a search (opening any profile from any screen) through `palette_searches()`.
A search matches the names first, then what a command is for: "profile" finds the Workload
screen, whose purpose names profiles.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.binding import ActiveBinding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

from labtui.tui.context import Command, lab

# A match on what a command is for ranks below any match on a name (the matcher scores those 1
# and up); the extras offered only to a search rank below both, in their own order.
HELP_SCORE = 0.5


def offered_bindings(screen: Screen) -> Iterator[tuple[str, ActiveBinding]]:
    """(key, active binding) for the keys labtui offers on `screen`: those with a description that
    the footer shows or that labtui named (an id); the widgets' cursor keys are left out."""
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system or not binding.description or not (binding.show or binding.id):
            continue
        yield key, active


class LabtuiCommands(Provider):
    def _commands(self) -> Iterator[Command]:
        app = self.app
        modes = lab(app).screen_modes()
        screen = self.screen
        seen: set[str] = set()
        for mode, title, help_text in modes:
            seen.add(title)
            yield (title, help_text, partial(app.switch_mode, mode))
        for _key, active in offered_bindings(screen):
            binding = active.binding
            # The app's own keys (help, theme, quit) are the system commands' entries already.
            if not active.enabled or active.node is app or binding.description in seen:
                continue
            seen.add(binding.description)
            yield (binding.description, active.tooltip or binding.tooltip,
                   partial(app.run_action, binding.action, active.node))
        for owner in (screen, app):
            extra = getattr(owner, "palette_commands", None)
            if extra is not None:
                yield from extra()

    async def startup(self) -> None:
        # Read once per opening of the palette, not once per key typed.
        shown = {name for name, _help, _callback in self._commands()}
        self._searches = [c for c in lab(self.app).palette_searches() if c[0] not in shown]

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        words = query.lower().split()
        commands = [(c, False) for c in self._commands()] + [(c, True) for c in self._searches]
        for (name, help_text, callback), extra in commands:
            score = matcher.match(name)
            if score > 0:
                rank = HELP_SCORE * score / (score + 1) if extra else score
                yield Hit(rank, matcher.highlight(name), callback, help=help_text)
            elif words and help_text and all(w in help_text.lower() for w in words) and not extra:
                yield Hit(HELP_SCORE, name, callback, help=help_text)
