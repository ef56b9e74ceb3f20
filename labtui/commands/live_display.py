"""The live block a headless command keeps on stderr: redrawn in place on a terminal, plain lines otherwise.

`labtui run` (commands/progress.py) and `labtui run --hosts` (commands/fleet.py) each draw their
own block in `render`; this holds what both do with it: start and stop rich's Live, say a line
above it, redraw it, and let go of a terminal that has gone. rich is imported when a display
starts, not with this module: cli.py builds its parser from modules that import it.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


class LiveDisplay:
    """What the person watching a headless command sees; subclasses say what the block shows."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live_mode = console.is_terminal  # into a file or a pipe: one line per event, no block
        self.live: Live | None = None

    def render(self) -> RenderableType:
        raise NotImplementedError

    def start(self) -> None:
        if self.live_mode:
            from rich.live import Live

            self.live = Live(self.render(), console=self.console, refresh_per_second=4, transient=True)
            self.live.start()

    def stop(self) -> None:
        if self.live is not None:
            # A terminal that has gone (or an interrupted write) must not turn the end of a run into a traceback.
            with contextlib.suppress(Exception):
                self.live.stop()
            self.live = None

    def update(self) -> None:
        if self.live is not None:
            with contextlib.suppress(Exception):
                self.live.update(self.render())

    def say(self, message: str, style: str = "") -> None:
        """A line above the block (or on its own without one). Text, never markup: host names and reasons are data."""
        from rich.text import Text

        with contextlib.suppress(Exception):
            self.console.print(Text(message, style=style))

    def detach(self) -> None:
        """The terminal is gone (SIGHUP, its streams already pointed at /dev/null): no more redrawing,
        and what is still said goes out as lines."""
        self.stop()  # its refresh thread would go on drawing into nothing
        self.live_mode = False
