"""What the Run screen's tests share: a chosen profile and target, and a runner whose events queue."""

from __future__ import annotations

import asyncio
from pathlib import Path

from labtui.results.store import Store
from labtui.settings import Settings
from tui_support import (
    ScriptedRunner,
    short_profile,
)

MIB = 1024 * 1024


def prepare(home: Path, target: Path, profile: str = "tiny", text: str | None = None) -> None:
    """A user profile in `home`, chosen, with `target` as the chosen directory."""
    store = Store(home)
    store.profiles_dir.mkdir(parents=True, exist_ok=True)
    (store.profiles_dir / f"{profile}.toml").write_text(text or short_profile(profile))
    store.save_settings(Settings(profile=profile, profile_origin="user", target=str(target)))


class QueuedRunner(ScriptedRunner):
    """A scripted run the test feeds event by event (the engine's stream, paused where the test looks)."""

    def __init__(self) -> None:
        super().__init__([])
        self.queue: asyncio.Queue = asyncio.Queue()

    async def events(self):
        while True:
            yield await self.queue.get()
